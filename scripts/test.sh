#!/usr/bin/env bash
# Install everything the test suite needs and run all of it.
#   bash scripts/test.sh [pytest args...]
# - a virtual environment .venv (python3 -m venv), so that it works where the system's
#   pip refuses to install (PEP 668, "externally-managed-environment", as on Debian and
#   Ubuntu); PYTHON=/path/to/python uses that interpreter instead, without a venv
# - the test extras into it (pytest, hypothesis, torch==2.13.0 CPU as the float64
#   reference, ...)
# - Debian's chromium for the browser tests, node for the JavaScript runner's tests, and
#   python3-venv if venv needs it (apt-get; as root, or through sudo)
# Browser and torch tests never skip: a missing dependency fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."

apt_install() {
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "$@" >/dev/null
}

if [ -n "${PYTHON:-}" ]; then
  PY=$PYTHON
else
  if [ ! -x .venv/bin/python ]; then
    # Debian and Ubuntu ship venv's ensurepip in a package of its own
    python3 -c 'import ensurepip' 2>/dev/null || apt_install python3-venv
    python3 -m venv .venv
  fi
  PY=.venv/bin/python
  export PATH="$PWD/.venv/bin:$PATH"  # the micrograd command of this checkout first
fi

command -v chromium >/dev/null 2>&1 || apt_install chromium
command -v node >/dev/null 2>&1 || apt_install nodejs

"$PY" -m pip install -q -e '.[test]'
exec "$PY" -m pytest "$@"

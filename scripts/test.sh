#!/usr/bin/env bash
# Install everything the test suite needs and run all of it.
#   bash scripts/test.sh [pytest args...]
# - a virtual environment .venv (python3 -m venv), so that it works where the system's
#   pip refuses to install (PEP 668, "externally-managed-environment", as on Debian and
#   Ubuntu); PYTHON=/path/to/python uses that interpreter instead, without a venv
# - the test extras into it (pytest, hypothesis, torch==2.13.0 CPU as the float64
#   reference, ...)
# - Debian's chromium for the browser tests, and python3-venv if venv needs it (apt-get;
#   as root, or through sudo)
# - Pyodide, pinned in web-runtime/package-lock.json (npm ci; Node.js and npm from apt-get
#   if missing), and the pinned pytest wheels it runs the tests with (web-runtime/wheels,
#   checked by hash): the static site's runtime and the test run on Pyodide's Python
# - JupyterLite's builder for the site's notebooks (web-runtime/site-build-requirements.txt,
#   checked by hash); the notebooks' kernel wheels micrograd site downloads itself (pip,
#   hash-checked) into its cache
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

"$PY" -m pip install -q -e '.[test]'
# the notebooks' site's builder (JupyterLite), pinned and hash-checked: micrograd site uses it
"$PY" -m pip install -q --require-hashes --no-deps -r web-runtime/site-build-requirements.txt
command -v npm >/dev/null 2>&1 || apt_install nodejs npm
npm ci --prefix web-runtime --no-audit --no-fund --loglevel=error
"$PY" -m pip download -q --only-binary=:all: --no-deps --python-version 3.14 --platform any \
  --require-hashes -r web-runtime/pyodide-test-requirements.txt -d web-runtime/wheels
exec "$PY" -m pytest "$@"

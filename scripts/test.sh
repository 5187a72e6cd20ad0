#!/usr/bin/env bash
# Install everything the test suite needs and run all of it.
#   bash scripts/test.sh [pytest args...]
# - the test extras (pytest, hypothesis, torch==2.13.0 CPU as the float64 reference, ...)
# - Debian's chromium for the browser tests (apt-get; as root, or through sudo)
# Browser and torch tests never skip: a missing dependency fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}

if ! command -v chromium >/dev/null 2>&1; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi

"$PY" -m pip install -q -e '.[test]'
exec "$PY" -m pytest "$@"

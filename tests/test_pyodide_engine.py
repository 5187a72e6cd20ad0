"""The engine's standard-library tests on Pyodide's Python (3.14, WebAssembly) in node.

``node web-runtime/pytest-in-pyodide.mjs`` loads the pinned Pyodide from
``web-runtime/node_modules`` (``npm ci``), unpacks the pinned pytest wheels into it and
runs the test files that need neither NumPy nor torch at import (its ``PURE_TESTS``: the
engine, nn, the op table and autodiff among them). The tests in them that ask for the
``torch`` or ``np`` fixture are left out, and those that need a process, a thread, a PNG
library or a deep stack are listed there with the reason. Here it runs as a real
subprocess and its pytest summary is read.
"""

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RUNTIME = ROOT / "web-runtime"
RUNNER = RUNTIME / "pytest-in-pyodide.mjs"

#: the run collects about 870 tests today, of which 581 run; a floor just below that
#: catches a run that quietly collects nothing or loses a file
AT_LEAST = 560


def node():
    exe = shutil.which("node")
    assert exe, "node is needed (bash scripts/test.sh installs Node.js and Pyodide)"
    return exe


def summary(text):
    """pytest's closing line: {'passed': 312, 'deselected': 48, ...}."""
    lines = [ln for ln in text.splitlines() if re.search(r"\d+ (passed|failed|error)", ln)]
    assert lines, text[-3000:]
    return {word: int(n) for n, word in re.findall(r"(\d+) (\w+)", lines[-1])}


@pytest.mark.slow  # Pyodide in node, or a long run: CI runs it, the quick run does not
def test_the_pure_tests_pass_on_pyodides_python():
    proc = subprocess.run([node(), str(RUNNER), "-q"], cwd=ROOT,
                          capture_output=True, text=True, timeout=900)
    out = proc.stdout + proc.stderr
    assert "Python 3.14" in out and "emscripten" in out, out[-3000:]
    counts = summary(proc.stdout)
    assert counts.get("failed", 0) == 0 and counts.get("error", 0) == 0, out[-5000:]
    assert counts.get("skipped", 0) == 0, out[-3000:]  # no skips, as in CI
    assert counts["passed"] >= AT_LEAST, counts
    assert proc.returncode == 0, out[-3000:]
    assert "no longer exist" not in out, out[-3000:]  # the left-out list is current


def test_a_wheel_that_does_not_match_its_pinned_hash_is_refused(tmp_path):
    runtime = tmp_path / "web-runtime"
    shutil.copytree(RUNTIME / "wheels", runtime / "wheels")
    for name in (RUNNER.name, "pyodide-test-requirements.txt"):
        shutil.copy(RUNTIME / name, runtime / name)
    (runtime / "node_modules").symlink_to(RUNTIME / "node_modules")
    wheel = next((runtime / "wheels").glob("pluggy-*.whl"))
    wheel.write_bytes(wheel.read_bytes() + b"\0")
    proc = subprocess.run([node(), str(runtime / RUNNER.name)], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 2
    assert f"{wheel.name} has sha256" in proc.stderr and "not the pinned" in proc.stderr
    assert "passed" not in proc.stdout  # refused before any test ran

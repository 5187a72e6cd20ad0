"""``benchmarks/gpt_pyodide.py``: micrograd.gpt against microgpt's own Value on Pyodide's
Python in node. Its check path runs in the pinned Pyodide (slow: node and Pyodide start);
its worker, its loss comparison and its refusals are checked here on CPython. Nothing is
timed: the figures are the benchmark's to print, not the suite's."""

import contextlib
import io
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks" / "gpt_pyodide.py"
sys.path.insert(0, str(ROOT / "benchmarks"))

import gpt_pyodide  # noqa: E402


@pytest.mark.slow  # Pyodide in node: CI runs it, the quick run does not
def test_the_check_path_gives_microgpts_losses_in_pyodide():
    assert shutil.which("node"), "node is needed (bash scripts/test.sh installs it)"
    proc = subprocess.run([sys.executable, str(BENCH), "--steps", "2", "--check"],
                          capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = proc.stdout
    assert "Python 3.14" in out and "emscripten" in out, out
    assert "every path's equal microgpt's to 1e-09 relative at all 2 steps" in out, out
    assert "uptime at start" in out and "uptime at end" in out, out
    assert "ms a step" not in out  # --check times nothing


def test_the_worker_steps_every_path_on_the_same_names():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        gpt_pyodide.in_pyodide(json.dumps({"steps": 1, "warmup": 1, "length": 6,
                                           "controls": True}))
    line = out.getvalue().strip()
    assert line.startswith("RESULT ")
    result = json.loads(line[len("RESULT "):])
    assert set(result["losses"]) == {"microgpt", "micrograd.gpt", "microgpt, gc paused",
                                     "micrograd.gpt, gc on"}
    assert all(len(v) == 2 for v in result["losses"].values())  # warm-up + timed
    assert all(len(v) == 1 for v in result["cpu_ms"].values())  # timed only
    assert gpt_pyodide.mismatch(result["losses"]) is None


def test_a_loss_off_by_more_than_1e9_relative_is_a_mismatch():
    same = {"microgpt": [3.0, 2.5], "micrograd.gpt": [3.0, 2.5 * (1 + 1e-12)]}
    assert gpt_pyodide.mismatch(same) is None
    off = {"microgpt": [3.0, 2.5], "micrograd.gpt": [3.0, 2.5 * (1 + 1e-8)]}
    assert "micrograd.gpt's loss at step 2" in gpt_pyodide.mismatch(off)
    nan = {"microgpt": [3.0], "micrograd.gpt": [float("nan")]}
    assert "step 1" in gpt_pyodide.mismatch(nan)
    short = {"microgpt": [3.0, 2.5], "micrograd.gpt": [3.0]}
    assert "ran 1 steps" in gpt_pyodide.mismatch(short)


def test_another_or_a_missing_pyodide_is_refused_with_the_install_command(monkeypatch,
                                                                          tmp_path):
    monkeypatch.setattr(gpt_pyodide, "PYODIDE", str(tmp_path))
    with pytest.raises(SystemExit, match="npm ci --prefix web-runtime"):
        gpt_pyodide.pinned_pyodide()
    (tmp_path / "package.json").write_text('{"version": "0.0.1"}')
    (tmp_path / "pyodide.mjs").write_text("")
    with pytest.raises(SystemExit, match="found: 0.0.1"):
        gpt_pyodide.pinned_pyodide()


def test_help_and_nonsense_sizes():
    proc = subprocess.run([sys.executable, str(BENCH), "--help"], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0 and "--steps" in proc.stdout and "--check" in proc.stdout
    for bad in (["--steps", "0"], ["--length", "99"]):
        proc = subprocess.run([sys.executable, str(BENCH), *bad], capture_output=True,
                              text=True, timeout=60)
        assert proc.returncode == 2, (bad, proc.stderr)

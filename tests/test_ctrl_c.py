"""Ctrl-C, for real: ``micrograd train`` in a subprocess, interrupted by real SIGINTs.

Two presses a few milliseconds apart (a double tap), and a burst of presses that keeps
going while the results are written, must end with exit code 130, no traceback, and the
files the docs promise: a complete history.json with one entry per epoch in every list,
a model.json that loads, pictures either whole or absent, and no temporary file left.

The child restores SIGINT to its default before Python starts (``preexec_fn``): a test
run in a background job inherits an ignored SIGINT, and a child that ignores Ctrl-C
would test nothing.
"""

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from PIL import Image

from micrograd.io import load

SRC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")


def _default_sigint():
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start_train(out, *extra):
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""),
               PYTHONUNBUFFERED="1")
    argv = [sys.executable, "-m", "micrograd", "train", "--dataset", "moons", "--samples",
            "800", "--hidden", "48,48", "--batch-size", "40", "--epochs", "1000",
            "--no-progress", "--out", str(out), *extra]
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                            preexec_fn=_default_sigint, text=True)


def wait_for_training(proc, seconds=0.6):
    """Read the header line (printed just before training starts), then let it train."""
    line = proc.stdout.readline()
    assert line.startswith("moons:"), line + proc.stderr.read()
    time.sleep(seconds)


def check_outputs(out, stdout, stderr, code):
    assert code == 130, stdout + stderr
    assert "Traceback" not in stderr and "Error" not in stderr, stderr
    hist = json.loads((out / "history.json").read_text())
    assert hist["stopped"] == "interrupted"
    n = hist["epochs"]
    for key in ("train_loss", "train_acc", "test_loss", "test_acc", "lr", "time"):
        assert len(hist[key]) == n, (key, hist)
    if n:
        model = load(out / "model.json")
        assert model.config()["nouts"] == [48, 48, 1]
    else:  # stopped inside the first step (a loaded machine): no model, and it says so
        assert not (out / "model.json").exists() and "no epoch finished" in stdout
    for name in os.listdir(out):  # every file whole, no temporary left behind
        assert not name.startswith("."), name
        if name.endswith((".png", ".gif")):
            with Image.open(out / name) as im:
                im.verify()
    return hist


@pytest.mark.slow
@pytest.mark.parametrize("gap_ms", [5, 25, 55])
@pytest.mark.parametrize("engine", ["eager", "traced"])
def test_two_quick_presses_during_training(tmp_path, gap_ms, engine):
    out = tmp_path / "run"
    proc = start_train(out, "--engine", engine)
    wait_for_training(proc)
    proc.send_signal(signal.SIGINT)
    time.sleep(gap_ms / 1000)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    check_outputs(out, stdout, stderr, proc.returncode)
    assert "interrupted after epoch" in stderr


@pytest.mark.slow
def test_presses_all_through_the_final_writes(tmp_path):
    out = tmp_path / "run"
    proc = start_train(out, "--engine", "eager")
    wait_for_training(proc)
    deadline = time.monotonic() + 4.0
    while proc.poll() is None and time.monotonic() < deadline:  # a press every 15 ms
        proc.send_signal(signal.SIGINT)
        time.sleep(0.015)
    stdout, stderr = proc.communicate(timeout=60)
    check_outputs(out, stdout, stderr, proc.returncode)  # model.json if an epoch ended


def test_one_press_writes_everything_the_docs_promise(tmp_path):
    out = tmp_path / "run"
    proc = start_train(out, "--engine", "traced", "--no-gif")
    wait_for_training(proc, 0.3)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    check_outputs(out, stdout, stderr, proc.returncode)
    names = sorted(os.listdir(out))
    assert names == ["boundary.png", "curves.png", "history.json", "model.json"]
    assert "wrote 4 files" in stdout

"""Ctrl-C, for real: ``micrograd train`` in a subprocess, interrupted by real SIGINTs.

Two presses a few milliseconds apart (a double tap), and a burst of presses that keeps
going while the results are written, must end with exit code 130, no traceback, and the
files the docs promise: a complete history.json with one entry per epoch in every list,
a model.json that loads, pictures either whole or absent, and no temporary file left.

The child restores SIGINT to its default before Python starts (``preexec_fn``): a test
run in a background job inherits an ignored SIGINT, and a child that ignores Ctrl-C
would test nothing.

Then, in this process or a small child: importing micrograd installs no handler; a
press held by the command line waits for its checkpoint; a second press never raises
inside an import or a string's ``exec`` (where CPython would end the process with
SIGINT at exit). tests/test_ctrl_c_schedule.py presses at every stage of a whole run.
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
@pytest.mark.parametrize("engine, wait", [("eager", 0.6), ("traced", 0.6), ("traced", 0.0)])
def test_two_quick_presses_during_training(tmp_path, gap_ms, engine, wait):
    # wait 0: the presses land in the traced engine's first step, which imports the
    # tracer and builds its classes (what a loaded machine once did with 0.6 s)
    out = tmp_path / "run"
    proc = start_train(out, "--runner", engine)
    wait_for_training(proc, wait)
    proc.send_signal(signal.SIGINT)
    time.sleep(gap_ms / 1000)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    check_outputs(out, stdout, stderr, proc.returncode)
    assert "interrupted after epoch" in stderr


@pytest.mark.slow
def test_presses_all_through_the_final_writes(tmp_path):
    out = tmp_path / "run"
    proc = start_train(out, "--runner", "eager")
    wait_for_training(proc)
    deadline = time.monotonic() + 4.0
    while proc.poll() is None and time.monotonic() < deadline:  # a press every 15 ms
        proc.send_signal(signal.SIGINT)
        time.sleep(0.015)
    stdout, stderr = proc.communicate(timeout=60)
    check_outputs(out, stdout, stderr, proc.returncode)  # model.json if an epoch ended


@pytest.mark.slow  # seconds each (a kernel, a subprocess demo): CI runs it, the quick run does not
def test_one_press_writes_everything_the_docs_promise(tmp_path):
    out = tmp_path / "run"
    proc = start_train(out, "--runner", "traced", "--no-gif")
    wait_for_training(proc, 0.3)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    check_outputs(out, stdout, stderr, proc.returncode)
    names = sorted(os.listdir(out))
    assert names == ["boundary.png", "curves.png", "history.json", "model.json"]
    assert "wrote 4 files" in stdout


# ---- in this process: what importing does, and what a held press does ----


def test_import_micrograd_is_light_and_leaves_ctrl_c_alone():
    # a notebook or a program keeps its own Ctrl-C: importing the package, the engine
    # or the command line installs nothing; and the package imports nothing else, so
    # that the command reaches the line where it takes charge of Ctrl-C early
    code = (
        "import signal, sys\n"
        "def mine(signum, frame): pass\n"
        "signal.signal(signal.SIGINT, mine)\n"
        "import micrograd\n"
        "light = sorted(m for m in sys.modules if m.startswith('micrograd.'))\n"
        "import micrograd.cli, micrograd.engine, micrograd.interrupts\n"
        "from micrograd import Value, no_grad\n"
        "print(light, signal.getsignal(signal.SIGINT) is mine,\n"
        "      Value(2.0)._repr_svg_().startswith('<svg'), no_grad.__module__)\n")
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["[]", "True", "True", "micrograd.grad_mode"]


class python_handler:
    """Python's own SIGINT handler for the block, whatever this process inherited (a
    test run in a background job starts with SIGINT ignored)."""

    def __enter__(self):
        self.before = signal.getsignal(signal.SIGINT)
        signal.signal(signal.SIGINT, signal.default_int_handler)

    def __exit__(self, *exc):
        signal.signal(signal.SIGINT, self.before)


def press():
    os.kill(os.getpid(), signal.SIGINT)


def test_a_held_press_waits_for_the_next_checkpoint():
    from micrograd.interrupts import checkpoint, install_ctrl_c

    with python_handler():
        guard, previous = install_ctrl_c(mode="hold")
        try:
            press()
            total = sum(range(10_000))  # bytecodes run: the press did not raise here
            assert guard.pending and guard.presses == 1
            with pytest.raises(KeyboardInterrupt):
                checkpoint()
            checkpoint()  # acted on once
        finally:
            signal.signal(signal.SIGINT, previous)
    assert total == 49_995_000


def test_a_second_press_inside_an_import_only_counts(tmp_path, monkeypatch):
    # inside an import a KeyboardInterrupt can leave a module half made, or come out
    # as another error: while training, a second press that lands there waits (the
    # first one already stops training after the step)
    from micrograd.interrupts import ctrl_c_guard

    (tmp_path / "pressed_while_imported.py").write_text(
        "import os, signal\n"
        "os.kill(os.getpid(), signal.SIGINT)\n"
        "spins = sum(range(10_000))\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with python_handler(), ctrl_c_guard() as guard:
        guard.hit = True  # the first press
        with guard.interruptible():  # a step's work, where a second press may land
            import pressed_while_imported
    assert pressed_while_imported.spins == 49_995_000
    assert guard.presses == 1
    monkeypatch.delitem(sys.modules, "pressed_while_imported")


def test_main_called_from_python_puts_the_handler_back(capsys):
    from micrograd.cli import main

    with python_handler():
        with pytest.raises(SystemExit):
            main(["--version"])
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
        assert main(["graph", "x = 2; y = 3; x*y"]) == 0
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_second_press_inside_exec_of_a_string_does_not_kill_the_process_at_exit():
    # why two quick presses once ended in a death by SIGINT on a loaded machine: the
    # traced engine's first step imports and builds classes (dataclasses and
    # namedtuple run exec or eval on a string); a KeyboardInterrupt raised out of such
    # a string, even caught, makes CPython end the process with SIGINT at exit. Here
    # the second press lands in exec-ed code, fit-style; the process must exit 0.
    code = (
        "import os, signal, sys\n"
        "from micrograd.interrupts import ctrl_c_guard\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "with ctrl_c_guard() as guard:\n"
        "    guard.hit = True\n"
        "    try:\n"
        "        with guard.interruptible():\n"
        "            exec('os.kill(os.getpid(), signal.SIGINT)\\nspins = sum(range(10000))')\n"
        "    except KeyboardInterrupt:\n"
        "        print('raised')\n"
        "print('presses', guard.presses)\n")
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=120)
    assert (done.returncode, done.stdout.split()) == (0, ["presses", "1"]), done.stderr

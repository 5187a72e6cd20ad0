"""Ctrl-C at every stage of a whole ``micrograd train`` run: the imports, the set-up,
training, the file writes and the pictures (with matplotlib's imports). Whenever the
press lands, the run ends with exit code 130 (or 0, had it already finished), never a
traceback and never a death by signal, and every output file is whole or absent.

The presses follow a fixed schedule, placed by events the process reports rather than
by guessing times: Python's import profiler (``PYTHONPROFILEIMPORTTIME``) writes a line
to stderr as each module finishes importing, and the command prints a line before
training and one after it. A first run without a press lists those events; then each
run gets one press, right after one of them: after the k-th import of an evenly spaced
choice (from the command's own start, which imports argparse after ``main`` has taken
charge of Ctrl-C, to matplotlib's imports while the first picture is drawn), or k/N of
the way through training, or through the writes and pictures that follow it.

It runs the installed ``micrograd`` console script (the one next to this Python), so
that the entry is the real one: the script's wrapper, ``import micrograd``, the CLI.
Before ``main``'s first line Python's own handler is in place (docs/training.md gives
that window); the schedule starts after it.
"""

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from PIL import Image

from micrograd.io import load

SCRIPT = os.path.join(os.path.dirname(sys.executable), "micrograd")
ARGS = ["train", "--dataset", "moons", "--samples", "200", "--hidden", "16,16",
        "--batch-size", "50", "--epochs", "60", "--no-progress", "--no-gif"]
#: the first import ``main`` makes after its first line (which installs the handler)
FIRST_HELD_IMPORT = "argparse"
IMPORT_PRESSES = 6  # presses placed on import events
TRAIN_PRESSES = 2  # k/N of the way through training
AFTER_PRESSES = 3  # k/N of the way through the writes and pictures


def _default_sigint():
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # a background job's child ignores it


def _module(line):
    """The module an import-profiler line names, or None for any other line."""
    if not line.startswith("import time:") or line.count("|") != 2:
        return None
    name = line.rsplit("|", 1)[1].strip()
    return None if name == "package" else name  # the header line


class Run:
    """One ``micrograd train`` process; its output lines, each with the time it came."""

    def __init__(self, out):
        env = dict(os.environ, PYTHONPROFILEIMPORTTIME="1", PYTHONUNBUFFERED="1")
        self.t0 = time.monotonic()
        self.proc = subprocess.Popen([SCRIPT, *ARGS, "--out", str(out)], env=env,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, preexec_fn=_default_sigint)
        self.events = queue.Queue()
        self.lines = {"stdout": [], "stderr": []}
        self.readers = [threading.Thread(target=self._read, args=(name, stream))
                        for name, stream in (("stdout", self.proc.stdout),
                                             ("stderr", self.proc.stderr))]
        for r in self.readers:
            r.start()

    def _read(self, name, stream):
        for line in stream:
            self.lines[name].append(line)
            self.events.put((name, line, time.monotonic() - self.t0))
        self.events.put((name, None, time.monotonic() - self.t0))

    def stream(self):
        """(stream, line, seconds) as the lines come, until both pipes close."""
        open_ = 2
        while open_:
            name, line, t = self.events.get(timeout=120)
            if line is None:
                open_ -= 1
                continue
            yield name, line, t

    def press(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)

    def finish(self):
        code = self.proc.wait(timeout=120)
        for r in self.readers:
            r.join(10)
        self.proc.stdout.close()
        self.proc.stderr.close()
        err = "".join(x for x in self.lines["stderr"] if _module(x) is None
                      and not x.startswith("import time:"))
        return code, "".join(self.lines["stdout"]), err


def census(out):
    """A run with no press: its import events (from ``main``'s own) and its timings."""
    run = Run(out)
    imports, held, t_header = [], False, None
    t_epoch = None
    for name, line, t in run.stream():
        module = _module(line)
        if module == FIRST_HELD_IMPORT:
            held = True
        if module and held:
            imports.append(module)
        if name == "stdout" and line.startswith("moons:"):
            t_header = t
        if name == "stdout" and line.startswith("epoch "):
            t_epoch = t
    code, stdout, stderr = run.finish()
    assert code == 0, stdout + stderr
    return imports, t_header, t_epoch, time.monotonic() - run.t0


def pressed_run(out, trigger):
    """Run once and press once at ``trigger``: ("import", module) right after that
    module's line, or (prefix, delay) ``delay`` seconds after the stdout line that
    starts with ``prefix``. Returns (code, stdout, stderr, pressed)."""
    run = Run(out)
    pressed, timer = False, None
    for name, line, _ in run.stream():
        if pressed or timer:
            continue
        if trigger[0] == "import" and _module(line) == trigger[1]:
            run.press()
            pressed = True
        elif name == "stdout" and line.startswith(trigger[0]) and trigger[0] != "import":
            timer = threading.Timer(trigger[1], run.press)
            timer.start()
    if timer:
        timer.join()
        pressed = True
    code, stdout, stderr = run.finish()
    return code, stdout, stderr, pressed


def check_whole(out):
    """Every file in ``out`` whole: JSON that parses and agrees with itself, pictures
    that decode, no temporary file left behind."""
    if not out.exists():
        return []
    names = sorted(os.listdir(out))
    for name in names:
        assert not name.startswith("."), names  # a temporary file left behind
        if name.endswith((".png", ".gif")):
            with Image.open(out / name) as im:
                im.verify()
    if "history.json" in names:
        hist = json.loads((out / "history.json").read_text())
        for key in ("train_loss", "train_acc", "lr", "time"):
            assert len(hist[key]) == hist["epochs"], (key, hist)
    else:
        assert not [n for n in names if n != "history.json"], names  # it comes first
    if "model.json" in names:
        assert load(out / "model.json").config()["nouts"] == [16, 16, 1]
    return names


@pytest.mark.slow
def test_one_press_at_any_stage_of_a_train_run_ends_in_130_with_whole_files(tmp_path):
    assert os.path.exists(SCRIPT), SCRIPT
    imports, t_header, t_epoch, t_end = census(tmp_path / "census")
    assert check_whole(tmp_path / "census") == [
        "boundary.png", "curves.png", "history.json", "model.json"]
    assert "matplotlib" in imports and "numpy" in imports, imports
    assert t_header is not None and t_epoch is not None

    step = (len(imports) - 1) / (IMPORT_PRESSES - 1)
    schedule = [("import", imports[round(k * step)]) for k in range(IMPORT_PRESSES)]
    train = t_epoch - t_header
    schedule += [("moons:", train * k / (TRAIN_PRESSES + 1))
                 for k in range(1, TRAIN_PRESSES + 1)]
    after = t_end - t_epoch
    schedule += [("epoch ", after * k / (AFTER_PRESSES + 1))
                 for k in range(AFTER_PRESSES)]

    # three runs at a time: each press is placed by its own run's events, so runs side
    # by side only make the whole schedule finish sooner on a loaded machine
    with ThreadPoolExecutor(3) as pool:
        results = list(pool.map(lambda i: pressed_run(tmp_path / f"run{i}", schedule[i]),
                                range(len(schedule))))
    seen = []
    for i, (trigger, (code, stdout, stderr, pressed)) in enumerate(zip(schedule, results)):
        where = (trigger, code, stdout, stderr)
        assert pressed, where
        assert code in (130, 0), where  # never a death by signal (a negative code)
        assert "Traceback" not in stderr and "Error" not in stderr, where
        names = check_whole(tmp_path / f"run{i}")
        if code == 0:  # the press came as the process was exiting: all was written
            assert "history.json" in names and "model.json" in names, where
        seen.append((trigger[0], code, len(names)))
    # the schedule did reach every stage: runs stopped before any file, and runs
    # stopped after some
    assert any(n == 0 for _, code, n in seen if code == 130), seen
    assert any(n >= 2 for _, code, n in seen if code == 130), seen

"""Ctrl-C while training: finish the current step, then stop; never a traceback.

``fit`` trains under ``ctrl_c_guard()``, and the command line runs a command that trains
(``CTRL_C = True``) under ``install_ctrl_c(mode="raise")``. Both install one ``CtrlC``
object as the SIGINT handler; what a press does depends on its ``mode``, which the
training loop and the command switch as they go (train, then write the results, then
exit). Standard library only.
"""

from __future__ import annotations

import os
import signal
import threading
from contextlib import contextmanager

__all__ = ["CtrlC", "ctrl_c_guard", "install_ctrl_c"]


class CtrlC:
    """What Ctrl-C (SIGINT) does while ``fit`` trains and a command saves its results.

    Installed as the SIGINT handler by ``ctrl_c_guard()`` (and by the command line for
    the commands that train). Its ``mode`` says what a press does:

    * ``"train"``: the first press sets ``hit`` (the loop stops after the current
      step); a later press interrupts at once, but only inside a step's loss and
      gradient computation or a test-set evaluation (``window``, opened by
      ``interruptible()``), never in the middle of an optimizer step or of the history's
      bookkeeping;
    * ``"defer"``: a press is noted (``deferred``) and acted on later: for writes that
      must not be cut short (history.json, model.json);
    * ``"abort"`` and ``"raise"``: a press raises ``KeyboardInterrupt`` at once (optional
      work such as pictures, each written atomically; work before training);
    * ``"ignore"``: a press is only counted (a command that has finished and exits).

    ``presses`` counts every press. An inactive guard (another handler was installed,
    SIGINT is ignored, or not the main thread) never sees a press.
    """

    MODES = ("train", "defer", "abort", "raise", "ignore")

    def __init__(self, active=True, mode="train"):
        if mode not in self.MODES:
            raise ValueError(f"mode must be one of {', '.join(self.MODES)}, got {mode!r}")
        self.active = active
        self.mode = mode
        self.presses = 0
        self.hit = False
        self.window = False
        self.deferred = False

    def __call__(self, signum, frame):
        self.presses += 1
        mode = self.mode
        if mode in ("abort", "raise"):
            raise KeyboardInterrupt
        if mode == "ignore":
            return
        if mode == "defer":
            if not self.deferred:
                _note("Ctrl-C: finishing the files being written first")
            self.deferred = True
            return
        if self.hit and self.window:
            raise KeyboardInterrupt
        self.hit = True

    @contextmanager
    def interruptible(self):
        """The block where a second press in ``"train"`` mode may interrupt at once: a
        step's loss and gradients, an evaluation (work that can be thrown away)."""
        self.window = True
        try:
            yield self
        finally:
            self.window = False


def _note(text):
    """A line on stderr from a signal handler: os.write, since the handler may run in
    the middle of a print to sys.stderr (a reentrant write raises)."""
    try:
        os.write(2, (text + "\n").encode())
    except OSError:  # pragma: no cover - no stderr
        pass


def install_ctrl_c(mode="train"):
    """Install a ``CtrlC`` handler (in ``mode``) if Python's default SIGINT handler is in
    place and this is the main thread; return ``(guard, previous handler)``. Otherwise
    (a program's own handler, an inherited ignored SIGINT in a background job, another
    thread, or a ``CtrlC`` already installed) install nothing and return the guard in
    place, or an inactive one, with ``None``."""
    try:
        current = signal.getsignal(signal.SIGINT)
    except ValueError:  # pragma: no cover - no signals here
        current = None
    if isinstance(current, CtrlC):
        return current, None
    if (threading.current_thread() is not threading.main_thread()
            or current is not signal.default_int_handler):
        return CtrlC(active=False, mode=mode), None
    guard = CtrlC(mode=mode)
    signal.signal(signal.SIGINT, guard)
    return guard, current


@contextmanager
def ctrl_c_guard():
    """A ``CtrlC`` handler for the block (see ``install_ctrl_c``); the previous handler
    is restored after it. Nested guards share the outer one; an outer guard in
    ``"raise"`` mode trains in ``"train"`` mode inside the block, and is back in
    ``"raise"`` after it unless the block chose another mode."""
    guard, previous = install_ctrl_c()
    if previous is None:
        outer = guard.mode
        if outer == "raise":
            guard.mode = "train"
        try:
            yield guard
        finally:
            if outer == "raise" and guard.mode == "train":  # a block that moved on to
                guard.mode = outer  # "defer" (saving its results) keeps that mode
        return
    try:
        yield guard
    finally:
        signal.signal(signal.SIGINT, previous)

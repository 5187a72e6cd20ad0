"""Ctrl-C while training: finish the current step, then stop; never a traceback.

``fit`` trains under ``ctrl_c_guard()``, and the ``micrograd`` command installs one
from the first line of its ``main`` (``install_ctrl_c(mode="hold")``): a press is then
held (a flag) and acted on at safe points (``checkpoint()``), never raised in the middle
of an import, a picture or a file write. Both install one ``CtrlC`` object as the SIGINT
handler; what a press does depends on its ``mode``, which the training loop and the
command switch as they go (set up, train, write the results, exit). Importing this
module installs nothing. Standard library only.
"""

from __future__ import annotations

import os
import signal
import threading
from contextlib import contextmanager

__all__ = ["CtrlC", "ctrl_c_guard", "install_ctrl_c", "checkpoint"]


class CtrlC:
    """What Ctrl-C (SIGINT) does while ``fit`` trains and a command saves its results.

    Installed as the SIGINT handler by ``ctrl_c_guard()`` (and by the command line from
    its first line). Its ``mode`` says what a press does:

    * ``"train"``: the first press sets ``hit`` (the loop stops after the current
      step); a later press interrupts at once, but only inside a step's loss and
      gradient computation or a test-set evaluation (``window``, opened by
      ``interruptible()``), never in the middle of an optimizer step or of the history's
      bookkeeping, nor while a module is imported or a string is ``exec``-ed (there it
      only counts);
    * ``"hold"``: a press is held (``pending``, and ``hit``) and acted on at the next
      safe point, ``checkpoint()``: the command line's imports and set-up, and between
      pictures;
    * ``"defer"``: like ``"hold"``, for writes that must not be cut short (history.json,
      model.json), with a note on stderr that the files are being finished;
    * ``"raise"``: a press raises ``KeyboardInterrupt`` at once (outside a ``fit``, as
      Python's own handler would);
    * ``"ignore"``: a press is only counted (a command that has finished and exits).

    ``presses`` counts every press. An inactive guard (another handler was installed,
    SIGINT is ignored, or not the main thread) never sees a press.
    """

    MODES = ("train", "hold", "defer", "raise", "ignore")

    def __init__(self, active=True, mode="train"):
        if mode not in self.MODES:
            raise ValueError(f"mode must be one of {', '.join(self.MODES)}, got {mode!r}")
        self.active = active
        self.mode = mode
        self.presses = 0
        self.hit = False
        self.window = False
        self.pending = False
        self.deferred = False

    def __call__(self, signum, frame):
        self.presses += 1
        mode = self.mode
        if mode == "ignore":
            return
        if mode == "raise":
            raise KeyboardInterrupt
        if mode in ("hold", "defer"):
            if mode == "defer" and not self.deferred:
                _note("Ctrl-C: finishing the files being written first")
                self.deferred = True
            self.pending = self.hit = True
            return
        if self.hit and self.window and not _no_place_to_raise(frame):
            raise KeyboardInterrupt
        self.hit = True

    def checkpoint(self):
        """A safe point: raise ``KeyboardInterrupt`` if a press is held (once)."""
        if self.pending:
            self.pending = False
            raise KeyboardInterrupt

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


def _no_place_to_raise(frame):
    """True if ``frame`` runs inside an import, or in the top level of code that
    ``exec`` or ``eval`` runs from a string (as ``dataclasses`` and ``namedtuple`` do).
    In an import a KeyboardInterrupt can leave a module half made, or come out as
    another error (a class being created wraps it in a RuntimeError). Out of a
    string's ``exec``, CPython marks it as never caught, even once it is: a
    ``python -m`` process then ends by killing itself with SIGINT at exit."""
    while frame is not None:
        code = frame.f_code
        if code.co_filename.startswith("<frozen importlib") or (
                code.co_filename == "<string>" and code.co_name == "<module>"):
            return True
        frame = frame.f_back
    return False


def checkpoint():
    """A safe point for the installed ``CtrlC`` (if any): raise ``KeyboardInterrupt``
    if it holds a press. Without one, nothing (Python's own handler raises at once)."""
    try:
        guard = signal.getsignal(signal.SIGINT)
    except ValueError:  # pragma: no cover - no signals here
        return
    if isinstance(guard, CtrlC):
        guard.checkpoint()


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
    ``"hold"`` or ``"raise"`` mode trains in ``"train"`` mode inside the block, and is
    back in its mode after it unless the block chose another mode."""
    guard, previous = install_ctrl_c()
    if previous is None:
        outer = guard.mode
        if outer in ("hold", "raise"):
            guard.mode = "train"
            guard.pending = False  # a press held until now: training stops after a step
        try:
            yield guard
        finally:
            if outer in ("hold", "raise") and guard.mode == "train":  # a block that moved
                guard.mode = outer  # on to "defer" (saving its results) keeps that mode
        return
    try:
        yield guard
    finally:
        signal.signal(signal.SIGINT, previous)

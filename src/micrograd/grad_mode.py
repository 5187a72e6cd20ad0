"""The engine's modes, per thread and per async task: ``no_grad`` / ``enable_grad`` and
``detect_anomaly``, with the errors anomaly detection raises.

    >>> from micrograd.engine import Value, no_grad
    >>> x = Value(3.0)
    >>> with no_grad():
    ...     y = x * 2
    >>> y._prev, y.data
    ((), 6.0)

The modes are one small integer per thread and per async task (``current()``; kept in
a context variable, as PyTorch keeps its grad mode per thread): bit ``NO_GRAD`` =
gradients disabled, bit ``ANOMALY`` = anomaly detection on. A block entered in one
thread never changes another thread. ``micrograd.engine`` re-exports every public name
here.

The integer is worked out from the blocks open in this thread or task (the context
variable holds them, innermost last): a block's exit takes that block out wherever it
stands, so blocks need not close in the order they opened (two generators, each
suspended inside a block). A block may close in another thread or task than the one it
opened in (an async generator finalised by asyncio's own task, a generator closed by
another thread): that raises no error, leaves the closing context as it was, and the
opening context stops reading the block at once (its integer is worked out from its
blocks still open, not kept from the last time it opened or closed one).

A KeyboardInterrupt may land between any two bytecodes, so neither entering nor leaving a
block relies on reaching a ``try:``. The ``with`` statement holds the block's exit
(``_Exit``, watched by a ``_Watch``) from just before it enters the block; an exit that
runs to its end drops the watch, and if the statement drops the exit first (the entry
was cut short after the block opened, or the exit before it closed it, its first line
included), the watch closes the block (idempotent: it finishes a close cut halfway).
"""

from __future__ import annotations

import contextvars
import itertools
import math
import sys
import weakref
from functools import partial, wraps

from . import ops as _ops

__all__ = ["no_grad", "enable_grad", "is_grad_enabled", "detect_anomaly", "AnomalyError",
           "watch_no_grad"]

NO_GRAD = 1
ANOMALY = 2
#: the blocks open in this thread or task (a ``_Stack``), or 0 when there is none
_modes = contextvars.ContextVar("micrograd_modes", default=0)
#: 0 unless a block is open here (then ``current()`` says which modes are on)
blocks = _modes.get
#: one token (an int) for each opening of a block still open, in any thread or task.
#: The engine's hot path reads it first (``if OPEN and blocks():``): empty, the usual
#: case, says no mode is on here without a call. An opening's token is added before the
#: block opens and removed after it has closed, so a block open here always has its
#: token in the set (a token per opening, not the block: a block object closed in one
#: thread and entered again at once in another keeps the new opening's token). A close
#: cut short may leave a token behind: that costs every op the call, never a mode.
OPEN = set()
_openings = itertools.count()
#: a new number at every close, from any thread or task (a fold kept from an older one
#: is stale)
_ticks = itertools.count()
_tick = next(_ticks)
_isfinite = math.isfinite


class AnomalyError(FloatingPointError):
    """Raised under ``detect_anomaly()`` where a nan or inf first appears."""


def is_grad_enabled():
    """True unless inside ``no_grad()`` (in this thread or async task)."""
    return not current() & NO_GRAD


def current():
    """The modes on in this thread or task: ``NO_GRAD``, ``ANOMALY``, both, or 0. The
    fold of its blocks still open, innermost last: a block closed from another context
    counts no more from that moment (every close moves ``_tick`` on, and a stack's fold
    kept from an older tick is worked out again)."""
    stack = _modes.get()
    if not stack:
        return 0
    tick, mode = stack.fold
    if tick != _tick:
        tick = _tick  # read before the blocks: a close after this moves it on again
        mode = 0
        for b in stack.blocks:
            if b.is_open:
                mode = (mode | b.bit) if b.on else (mode & ~b.bit)
        stack.fold = (tick, mode)  # one store: threads sharing the stack see a pair
    return mode


class _Stack:
    """The blocks open in one thread or task, innermost last, and their fold as of a
    tick. The blocks never change (a context copied into a new task shares the stack
    until either opens or closes a block); the fold is a cache."""

    __slots__ = ("blocks", "fold")

    def __init__(self, blocks):
        self.blocks = blocks
        self.fold = (None, 0)  # no tick yet: worked out at the first read


def _open_block(block):
    """Put ``block`` on this context's stack (dropping any closed elsewhere)."""
    token = block.token = next(_openings)
    OPEN.add(token)  # before it opens: from here on every context asks its own blocks
    stack = _modes.get()
    blocks = (tuple(b for b in stack.blocks if b.is_open) if stack else ()) + (block,)
    block.is_open = True
    _modes.set(_Stack(blocks))


def _close_block(block):
    """Take ``block`` off this context's stack, wherever it stands; idempotent (run again
    after an interruption halfway, it finishes the job). Closed from another context,
    the block counts no more there either: ``current()`` reads ``is_open``."""
    global _tick
    token = block.token  # this opening's (another thread may open the block anew)
    stack = _modes.get()
    if stack:
        blocks = tuple(b for b in stack.blocks if b is not block and b.is_open)
        _modes.set(_Stack(blocks) if blocks else 0)
    block.is_open = False
    _tick = next(_ticks)  # after ``is_open``: every fold kept from before is stale
    OPEN.discard(token)  # last: no context counts this opening any more


class _Exit(partial):
    """What a ``with`` statement holds to leave a block: ``_ModeBlock.leave`` bound to
    the block."""

    __slots__ = ()


class _Watch(weakref.ref):
    """Watches the ``with`` statement's ``_Exit``: if the statement drops it with the
    block still open (the exit was interrupted before its first line ran, or the entry
    after the block was pushed), the block is closed. The statement drops it as the
    interruption passes through, in the same thread and task. A block that leaves
    normally drops its watch first: no Python code runs when the ``_Exit`` goes."""

    __slots__ = ("block",)


def _exit_dropped(watch):
    block = getattr(watch, "block", None)  # None: interrupted before it was set
    if block is None:
        return
    if block.handed is watch:  # ``block.__exit__`` read elsewhere: not the statement's
        block.handed = None
    if block.armed is watch:
        block.armed = None
        if block.is_open or block.token in OPEN:  # open, or cut short on the way
            _close_block(block)


class _ExitSlot:
    """``_ModeBlock.__exit__``: from the class, the plain function (as ``ExitStack``
    reads it); from a block, an ``_Exit`` (the ``with`` statement reads it just before
    it calls ``__enter__``, which arms its watch)."""

    def __get__(self, block, owner=None):
        if block is None:
            return _ModeBlock.leave
        exit_ = _Exit(_ModeBlock.leave, block)
        watch = _Watch(exit_, _exit_dropped)
        watch.block = block
        block.handed = watch
        return exit_


class _ModeBlock:
    """One ``with`` block of a mode: sets ``bit`` on (or off) in this thread or task
    until the block ends. One object, one block at a time (``with`` it again once it
    has ended)."""

    __slots__ = ("bit", "on", "is_open", "handed", "armed", "token")

    def __init__(self, bit, on):
        self.bit, self.on, self.is_open = bit, on, False
        self.handed = self.armed = None  # the last ``_Watch`` made; the open block's
        self.token = None  # its last opening's, in ``OPEN`` while that opening lasts

    def __enter__(self):
        if self.is_open:
            raise RuntimeError("this mode block is already open: write `with no_grad():` "
                               "for each block")
        seen = _no_grad_seen.get()
        if seen is not None and self.bit == NO_GRAD and self.on:
            seen.append(_opened_at(sys._getframe(1)))
        self.armed, self.handed = self.handed, None  # cut short from here on, the
        _open_block(self)  # with statement drops its _Exit: the watch closes the block

    def leave(self, exc_type=None, exc=None, tb=None):
        _close_block(self)  # cut short, the watch finishes it
        self.armed = None  # done: the watch goes, unfired
        return False

    __exit__ = _ExitSlot()

    def __call__(self, fn):
        """``@no_grad()`` over a function (as in PyTorch): each call runs inside a block
        of its own, so the function may call itself; over a generator function, each
        resumption of the generator does (its caller keeps its own mode between), and
        ``send``, ``throw`` and ``close`` reach the generator (``_over_generator``)."""
        # imported here: ``inspect`` brings ``ast``, ``re``, ``dis`` ... (about 2,000 more
        # objects for the cyclic collector to walk at every full collection)
        from inspect import isgeneratorfunction

        bit, on = self.bit, self.on
        if isgeneratorfunction(fn):
            return _over_generator(fn, bit, on)

        @wraps(fn)
        def inside(*args, **kwargs):
            with _ModeBlock(bit, on):
                return fn(*args, **kwargs)
        return inside

    def __repr__(self):
        name = {NO_GRAD: "no_grad" if self.on else "enable_grad", ANOMALY: "detect_anomaly"}
        return f"<{name[self.bit]} block, {'open' if self.is_open else 'closed'}>"


def _over_generator(fn, bit, on):
    """The generator function ``fn`` with each resumption inside a block of its own, as
    PyTorch wraps one: what the caller sends goes in, an exception thrown in (``throw``)
    is raised at the inner generator's ``yield`` (its ``except`` and ``finally`` see it;
    it may handle it and yield again), and ``close()`` closes it, all inside the mode."""
    @wraps(fn)
    def resumed(*args, **kwargs):
        gen = fn(*args, **kwargs)
        step, arg = gen.send, None
        while True:
            with _ModeBlock(bit, on):
                try:
                    item = step(arg)
                except StopIteration as done:
                    return done.value
            step, arg = gen.send, None  # nothing held while suspended
            try:
                arg = yield item
            except GeneratorExit:
                with _ModeBlock(bit, on):
                    gen.close()
                raise
            except BaseException as exc:  # thrown in by the caller: passed on
                step, arg = gen.throw, exc
    return resumed


#: where ``no_grad`` blocks opened in this context while ``watch_no_grad`` watches
_no_grad_seen = contextvars.ContextVar("micrograd_no_grad_seen", default=None)


class watch_no_grad:  # noqa: N801 - a context manager, named as no_grad is
    """``with watch_no_grad() as seen:``: ``seen`` gets ``(file, line)`` for each
    ``no_grad`` block opened in this thread or task while it lasts (the tracer refuses
    them: what such a block computes is a plain number, frozen into a program)."""

    def __enter__(self):
        self.seen = []
        self.reset = _no_grad_seen.set(self.seen)
        return self.seen

    def __exit__(self, *exc):
        _no_grad_seen.reset(self.reset)
        return False


def _opened_at(frame):
    """The first frame outside this module (``@no_grad()`` opens blocks from here)."""
    while frame is not None and frame.f_code.co_filename == __file__:
        frame = frame.f_back
    return (frame.f_code.co_filename, frame.f_lineno) if frame else ("?", 0)


def no_grad():
    """Context manager: operations inside build no graph (results are plain leaves).

    Use it for evaluation and for optimizer updates. It holds for the current thread
    (and async task) only, as in PyTorch: another thread keeps building graphs. As in
    PyTorch, a generator suspended inside the block leaves it on for its caller until
    the generator resumes and leaves the block.
    """
    return _ModeBlock(NO_GRAD, True)


def enable_grad():
    """Context manager: re-enable graph building inside a ``no_grad()`` block."""
    return _ModeBlock(NO_GRAD, False)


def detect_anomaly():
    """Context manager: raise ``AnomalyError`` where a nan or inf first appears.

    In the forward pass the error names the op and its inputs when finite inputs give a
    non-finite output; in the backward pass, when a finite upstream gradient gives a
    non-finite contribution. Slower; for debugging. Per thread, like ``no_grad``.
    """
    return _ModeBlock(ANOMALY, True)


def _describe(fn, prev, arg):
    args = ", ".join(f"{p.label or 'x'}={p.data!r}" for p in prev)
    name = fn.label(arg) if fn is not None else "leaf"
    return f"{name}({args})"


def check_forward(fn, a, b, arg, data):
    """Under ``detect_anomaly()``: op ``fn`` made ``data``, a nan or inf; an error if its
    inputs ``a`` (and ``b``) are finite."""
    prev = (a,) if b is None else (a, b)
    if all(_isfinite(p.data) for p in prev):
        raise AnomalyError(
            f"forward: op {_describe(fn, prev, arg)} gave {data!r} from finite inputs")


def check_backward(v, i, c, g):
    """Under ``detect_anomaly()``: an error if node ``v``'s contribution ``c`` to its
    input ``i`` is nan or inf although the upstream grad ``g`` is finite."""
    if not _isfinite(c) and _isfinite(g):
        prev = v._prev
        d = _ops.local_grads(v._fn, [p.data for p in prev], v.data, v._arg)[i]
        raise AnomalyError(
            f"backward: op {_describe(v._fn, prev, v._arg)} (output {v.data!r}) "
            f"gave local derivative {d!r} for input {i} ({prev[i].label or 'x'}), "
            f"contribution {c!r} from finite upstream grad {g!r}")

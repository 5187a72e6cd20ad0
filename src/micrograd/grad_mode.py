"""The engine's modes, per thread and per async task: ``no_grad`` / ``enable_grad`` and
``detect_anomaly``, with the errors anomaly detection raises.

    >>> from micrograd.engine import Value, no_grad
    >>> x = Value(3.0)
    >>> with no_grad():
    ...     y = x * 2
    >>> y._prev, y.data
    ((), 6.0)

The modes are one small integer per thread and per async task (a context variable, as
PyTorch keeps its grad mode per thread): bit ``NO_GRAD`` = gradients disabled, bit
``ANOMALY`` = anomaly detection on. A block entered in one thread never changes another
thread. ``micrograd.engine`` re-exports every public name here.
"""

from __future__ import annotations

import contextvars
import math
from contextlib import contextmanager

from . import ops as _ops

__all__ = ["no_grad", "enable_grad", "is_grad_enabled", "detect_anomaly", "AnomalyError"]

NO_GRAD = 1
ANOMALY = 2
_modes = contextvars.ContextVar("micrograd_modes", default=0)
#: the modes now: 0 unless one is on (the engine's hot path makes this one call)
current = _modes.get
_isfinite = math.isfinite


class AnomalyError(FloatingPointError):
    """Raised under ``detect_anomaly()`` where a nan or inf first appears."""


def is_grad_enabled():
    """True unless inside ``no_grad()`` (in this thread or async task)."""
    return not current() & NO_GRAD


@contextmanager
def _set_bit(bit, on):
    before = current()
    token = _modes.set((before | bit) if on else (before & ~bit))
    try:
        yield
    finally:
        _modes.reset(token)


def no_grad():
    """Context manager: operations inside build no graph (results are plain leaves).

    Use it for evaluation and for optimizer updates. It holds for the current thread
    (and async task) only, as in PyTorch: another thread keeps building graphs.
    """
    return _set_bit(NO_GRAD, True)


def enable_grad():
    """Context manager: re-enable graph building inside a ``no_grad()`` block."""
    return _set_bit(NO_GRAD, False)


def detect_anomaly():
    """Context manager: raise ``AnomalyError`` where a nan or inf first appears.

    In the forward pass the error names the op and its inputs when finite inputs give a
    non-finite output; in the backward pass, when a finite upstream gradient gives a
    non-finite contribution. Slower; for debugging. Per thread, like ``no_grad``.
    """
    return _set_bit(ANOMALY, True)


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

"""The one home of the small argument checks: a clear error that names the argument, its
type and the allowed range, never an ``assert``.

    >>> integer(3, "epochs", low=0)
    3
    >>> number(0.5, "lr", low=0.0, low_open=True)
    0.5
    >>> number(float("inf"), "lr")
    Traceback (most recent call last):
    ...
    ValueError: lr must be a finite number, got inf

Standard library only: every layer may use it.
"""

from __future__ import annotations

import math
from numbers import Real

from .intpow import abbreviate

__all__ = ["integer", "number", "as_float", "show", "clip", "Number", "one_per_input",
           "nesterov_rule"]


def nesterov_rule(momentum, nesterov, dampening, name=str):
    """Nesterov momentum needs momentum > 0 and dampening = 0 (as ``torch.optim.SGD``):
    None, or ``("nesterov", message)``, ``name(setting)`` naming each setting as the
    caller does. The one statement of it: ``optim.momentum_rule`` (every SGD, the
    Playground, the command line) and the tracer's SGD ask it.

        >>> nesterov_rule(0.0, True, 0.0)
        ('nesterov', 'nesterov needs momentum > 0')
    """
    if nesterov and momentum <= 0:
        return "nesterov", f"{name('nesterov')} needs {name('momentum')} > 0"
    if nesterov and dampening != 0:
        return "nesterov", f"{name('nesterov')} needs {name('dampening')} = 0"
    return None


def show(x, width=40):
    """``x`` as a message quotes it: its repr cut to ``width`` characters, and an int
    past 30 digits abbreviated (``1e400``): an int of 5,000 digits has no repr
    (Python refuses to write more than 4,300), and a message must never fail."""
    if isinstance(x, int) and not isinstance(x, bool) and abs(x) >= 10**30:
        return abbreviate(x)
    return f"{x!r:.{width}}"


def clip(text, n):
    """``text`` quoted as a message quotes what it was sent: its repr, or that of its
    first ``n`` characters saying how long it was (a megabyte is never echoed)."""
    text = str(text)
    if len(text) <= n:
        return repr(text)
    return f"{text[:n]!r}... (the first {n} of {len(text)} characters)"


def integer(x, name, low=None):
    """``x`` if it is an int (not a bool) of at least ``low``; else a TypeError or
    ValueError that names ``name``."""
    if isinstance(x, bool) or not isinstance(x, int):
        raise TypeError(f"{name} must be an int, got {type(x).__name__}: {show(x)}")
    if low is not None and x < low:
        raise ValueError(f"{name} must be at least {low}, got {show(x)}")
    return x


def number(x, name, low=None, low_open=False, high=None, high_open=False):
    """``float(x)`` for a finite real number in the given range (``low``/``high``
    inclusive, or open with ``low_open``/``high_open``); else a TypeError or ValueError
    that names ``name``. A huge int (``10**400``) is infinite, hence refused."""
    if isinstance(x, bool) or not isinstance(x, Real):
        raise TypeError(f"{name} must be a number, got {type(x).__name__}: {show(x)}")
    try:
        x = float(x)
    except OverflowError:
        x = math.inf if x > 0 else -math.inf
    if not math.isfinite(x):
        raise ValueError(f"{name} must be a finite number, got {x}")
    below = low is not None and (x <= low if low_open else x < low)
    above = high is not None and (x >= high if high_open else x > high)
    if below or above:
        lo = "(-inf" if low is None else ("(" if low_open else "[") + f"{low}"
        hi = "inf)" if high is None else (f"{high})" if high_open else f"{high}]")
        raise ValueError(f"{name} must be in {lo}, {hi}, got {x}")
    return x


def as_float(x, what="Value"):
    """A real number as a float, for the engine's arithmetic: unlike ``number``, any
    float passes (inf and nan are IEEE values a graph may carry), and an int too big for
    a float (``10**400``) is the infinity of its sign, as the op would overflow to. A
    bool is 0.0 or 1.0. Anything else is a TypeError that names ``what`` and the type.

        >>> as_float(3), as_float(10**400), as_float(True)
        (3.0, inf, 1.0)
        >>> as_float("3", "lr")
        Traceback (most recent call last):
        ...
        TypeError: lr needs a real number (int or float), got str: '3'
    """
    if isinstance(x, (float, bool)):  # NumPy's float64 is a float: no ABC check
        return float(x)
    if isinstance(x, Real):
        try:
            return float(x)
        except OverflowError:
            return math.inf if x > 0 else -math.inf
    raise TypeError(
        f"{what} needs a real number (int or float), got {type(x).__name__}: {x!r:.60}")


class Number:
    """An attribute checked by ``number`` whenever it is set: in the constructor and at
    any time after, with the same message (an optimizer's ``opt.eps = 0`` is refused as
    ``Adam(eps=0)`` is, not met as a ZeroDivisionError in ``step()``).

        >>> class Opt:
        ...     lr = Number(low=0.0)
        >>> opt = Opt()
        >>> opt.lr = 0.5
        >>> opt.lr = -1
        Traceback (most recent call last):
        ...
        ValueError: lr must be in [0.0, inf), got -1.0
        >>> opt.lr
        0.5

    ``rule(obj, name, x)``, if given, sees the checked number before it is stored and
    may refuse it against the object's other settings (an error leaves the old value).
    """

    def __init__(self, low=None, low_open=False, high=None, high_open=False, rule=None):
        self.bounds = {"low": low, "low_open": low_open, "high": high,
                       "high_open": high_open}
        self.rule = rule
        self.name = self.slot = None

    def __set_name__(self, owner, name):
        self.name, self.slot = name, "_" + name

    def __get__(self, obj, owner=None):
        return self if obj is None else getattr(obj, self.slot)

    def __set__(self, obj, value):
        x = number(value, self.name, **self.bounds)
        if self.rule is not None:
            self.rule(obj, self.name, x)
        setattr(obj, self.slot, x)


def one_per_input(rule, key, arity):
    """An op's derivative rule, checked on every call to return one contribution per
    input: a tuple (or list) of ``arity`` of them. Anything else is an error that names
    the op, never an extra contribution silently dropped or an unpacking error that
    names nothing. (A ``rule`` that is not callable is handed back as it is, for the
    caller's own check to refuse.)"""
    if not callable(rule):
        return rule

    def checked(*args):
        out = rule(*args)
        if not isinstance(out, (tuple, list)):
            raise TypeError(f"op {key!r}: its rule must return one contribution per input "
                            f"in a tuple, such as (g * ...,), got {type(out).__name__}")
        if len(out) != arity:
            raise ValueError(f"op {key!r}: its rule returned {len(out)} contribution"
                             f"{'s' if len(out) != 1 else ''} for {arity} input"
                             f"{'s' if arity != 1 else ''}: return one per input, in order")
        return out

    checked.__wrapped__ = rule
    checked.__name__ = getattr(rule, "__name__", "rule")
    return checked

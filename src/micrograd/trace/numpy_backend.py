"""The NumPy backend of the op table: the same forward values and local derivatives as
``micrograd.ops``, elementwise on float64 arrays.

IEEE like the eager engine: inf and nan, never an exception; the runtime calls these
under ``np.errstate(all="ignore")`` so that NumPy prints no warnings either.
"""

from __future__ import annotations

import numpy as np

from .. import ops as _ops


def _np_sigmoid(x):
    # branch on sign: exp only sees -|x|, so it never overflows
    e = np.exp(-np.abs(x))
    return np.where(x >= 0.0, 1.0 / (1.0 + e), e / (1.0 + e))


def _np_pow(x, y):
    r = np.power(x, y)
    # NOTE: NumPy gives nan for (-inf) ** y with y not an integer; C99 (and the eager
    # engine, through math.pow) give +-inf for y > 0 and +-0 for y < 0
    m = (x == -np.inf) & (y == y) & (y != 0.0)
    if np.any(m):
        odd = (np.mod(y, 2.0) == 1.0)
        fix = np.where(y > 0.0, np.where(odd, -np.inf, np.inf), np.where(odd, -0.0, 0.0))
        r = np.where(m, fix, r)
    return r


def _np_pow_base(x, n, out=None):
    # d x^n / dx = n x^(n-1); 0 where n == 0 (torch's convention)
    return np.where(n == 0.0, 0.0, n * _np_pow(x, n - 1.0))


def _np_pow_exponent(x, y, out):
    # d x^y / dy = x^y log x; 0 where x == 0 and y >= 0 (torch's convention)
    return np.where((x == 0.0) & (y >= 0.0), 0.0, out * np.log(x))


def _np_relu(x):
    return np.maximum(x, 0.0)  # nan stays nan, like the eager op


def _np_sign(x):
    # sign with sign(0) = 0 and nan -> nan (the eager rule: x * 0.0 at zero and nan)
    return np.where(x > 0.0, 1.0, np.where(x < 0.0, -1.0, x * 0.0))


def _np_sqrt(x):
    return np.where(x >= 0.0, np.sqrt(np.where(x >= 0.0, x, 0.0)), np.nan)


def _np_softplus(x):
    # log(1 + e^x) = max(x, 0) + log1p(e^-|x|)
    return np.maximum(x, 0.0) + np.log1p(np.exp(-np.abs(x)))


class NpOp:
    """One op of the NumPy backend: ``forward(*xs[, arg])``, ``local(*xs, out[, arg])``."""

    __slots__ = ("key", "forward", "local", "has_arg")

    def __init__(self, key, forward, local):
        self.key = key
        self.forward = forward
        self.local = local
        self.has_arg = _ops.OPS[key].has_arg

    def __repr__(self):
        return f"NpOp({self.key!r})"


#: op key -> NpOp, one entry for every key of micrograd.ops.OPS (a test checks that)
NP_OPS = {
    # ---- binary ----
    "add": NpOp("add", lambda x, y: x + y,
                lambda x, y, out: (1.0, 1.0)),
    "mul": NpOp("mul", lambda x, y: x * y,
                lambda x, y, out: (y, x)),
    "pow": NpOp("pow", _np_pow,
                lambda x, y, out: (_np_pow_base(x, y), _np_pow_exponent(x, y, out))),
    # ---- unary with a constant ----
    "powc": NpOp("powc", lambda x, n: _np_pow(x, np.float64(n)),
                 lambda x, out, n: (_np_pow_base(x, np.float64(n)),)),
    # ---- unary ----
    "exp": NpOp("exp", np.exp, lambda x, out: (out,)),
    "log": NpOp("log", np.log, lambda x, out: (1.0 / x,)),
    "tanh": NpOp("tanh", np.tanh, lambda x, out: (1.0 - out * out,)),
    "sigmoid": NpOp("sigmoid", _np_sigmoid, lambda x, out: (out * (1.0 - out),)),
    "relu": NpOp("relu", _np_relu, lambda x, out: (x > 0.0,)),  # NOTE: relu'(0) = 0
    "abs": NpOp("abs", np.abs, lambda x, out: (_np_sign(x),)),
    "sqrt": NpOp("sqrt", _np_sqrt, lambda x, out: (0.5 / out,)),
    "softplus": NpOp("softplus", _np_softplus, lambda x, out: (_np_sigmoid(x),)),
    "sin": NpOp("sin", np.sin, lambda x, out: (np.cos(x),)),
    "cos": NpOp("cos", np.cos, lambda x, out: (-np.sin(x),)),
}


def _np_op(key):
    try:
        return NP_OPS[key]
    except KeyError:
        raise NotImplementedError(
            f"op {key!r} of micrograd.ops has no NumPy rule in micrograd.trace.NP_OPS; "
            f"add one there") from None


def np_forward(key, xs, arg=None):
    """The op's output on arrays ``xs`` (a tuple, one array per input)."""
    op = _np_op(key)
    return op.forward(*xs, arg) if op.has_arg else op.forward(*xs)


def np_local(key, xs, out, arg=None):
    """The op's local derivatives on arrays, one per input (scalars broadcast)."""
    op = _np_op(key)
    return op.local(*xs, out, arg) if op.has_arg else op.local(*xs, out)

"""The NumPy backend of the op table: forward kernels and the math namespace ``NUMPY``.

The calculus is not written here: the tracer runs each op's one derivative rule
(``micrograd.ops``) with ``NUMPY`` as its math namespace, on whole arrays. What stays
per backend is the forward kernel of each op (``NP_FORWARD``), IEEE like the eager
engine's float kernels: inf and nan, never an exception; the runtime calls them under
``np.errstate(all="ignore")`` so that NumPy prints no warnings either. A user-defined
op (``micrograd.engine.define_op``) traces when it brings its own ``np_forward``.
"""

from __future__ import annotations

import math

import numpy as np

from .. import ops as _ops
from .ir import TraceError, no_numpy_kernel


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


def _np_relu(x):
    # 0 where x < 0, else x itself: relu(nan) = nan and relu(-0.0) = -0.0, as torch's clamp
    return np.where(x < 0.0, 0.0, x)


def _np_sqrt(x):
    return np.where(x >= 0.0, np.sqrt(np.where(x >= 0.0, x, 0.0)), np.nan)


def _np_softplus(x):
    # log(1 + e^x) = max(x, 0) + log1p(e^-|x|)
    return np.maximum(x, 0.0) + np.log1p(np.exp(-np.abs(x)))


def _np_powc(x, n):
    # x ** n for a constant n with PyTorch's special exponents (see ops._fpowc)
    if n == 1:
        return x  # pow(x, 1) is x exactly (nan, inf and -0.0 included): the slope of x**2
    if n == 2:
        return x * x
    if n == 3:
        return x * x * x
    if n == 0.5:
        return _np_sqrt(x)
    if n == -0.5:
        return 1.0 / _np_sqrt(x)
    if n == -1:
        return 1.0 / x
    if n == -2:
        return 1.0 / (x * x)
    return _np_pow(x, np.float64(n))


class NumpyMath:
    """The op table's math namespace on NumPy arrays: the tracer runs each op's one
    derivative rule (``micrograd.ops``) with it, on a whole batch at once."""

    div = staticmethod(np.divide)
    log = staticmethod(np.log)
    exp = staticmethod(np.exp)
    sin = staticmethod(np.sin)
    cos = staticmethod(np.cos)
    sigmoid = staticmethod(_np_sigmoid)
    tanh = staticmethod(np.tanh)
    sqrt = staticmethod(_np_sqrt)
    where = staticmethod(np.where)
    le = staticmethod(np.less_equal)
    ge = staticmethod(np.greater_equal)
    eq = staticmethod(np.equal)
    both = staticmethod(np.logical_and)

    @staticmethod
    def pow(x, n):
        return _np_pow(x, n)

    powc = staticmethod(_np_powc)

    @staticmethod
    def sign(x):
        return np.where(x > 0.0, 1.0, np.where(x < 0.0, -1.0, 0.0))  # torch.sign: nan -> 0


NUMPY = NumpyMath()

class UpdateMath:
    """The namespace the traced optimizers' updates (``optimizers.SGDUpdate``,
    ``AdamUpdate``) run in on arrays: a number (the step count, a bias correction) stays
    a Python float, computed as ``micrograd.optim`` computes it."""

    @staticmethod
    def sqrt(x):
        return math.sqrt(x) if isinstance(x, (float, int)) else np.sqrt(x)

    pow = staticmethod(_ops.FLOAT.pow)
    zeros = staticmethod(np.zeros)  # (an optimizer's state vectors)

    @staticmethod
    def eq(x, y):
        return x == y

    @staticmethod
    def where(cond, a, b):
        return (a if cond else b) if isinstance(cond, bool) else np.where(cond, a, b)


UPDATE_MATH = UpdateMath()

#: op key -> NumPy forward kernel (the float kernels' twins; the calculus is the table's)
NP_FORWARD = {
    "add": np.add, "mul": np.multiply, "div": np.divide, "pow": _np_pow,
    "powc": _np_powc,
    "exp": np.exp, "log": np.log, "tanh": np.tanh, "sigmoid": _np_sigmoid,
    "relu": _np_relu, "abs": np.abs, "sqrt": _np_sqrt, "softplus": _np_softplus,
    "sin": np.sin, "cos": np.cos,
}


def kernel(key):
    """The NumPy forward kernel of op ``key``: a built-in's from ``NP_FORWARD``, a
    user-defined op's own ``np_forward``; TraceError naming the op when there is none."""
    fn = NP_FORWARD.get(key)
    if fn is None:
        op = _ops.OPS.get(key)
        fn = op.np_forward if op is not None else None
    if fn is None:
        raise TraceError(no_numpy_kernel(key))
    return fn


def np_forward(key, xs, arg=None):
    """The op's output on arrays ``xs`` (a tuple, one array per input)."""
    fn = kernel(key)
    return fn(*xs, arg) if _ops.OPS[key].has_arg else fn(*xs)


def np_contributions(key, g, xs, out, arg=None):
    """The op's rule on arrays: what it adds to each input's grad, for upstream ``g``."""
    return _ops.contributions(_ops.OPS[key], NUMPY, g, xs, out, arg)

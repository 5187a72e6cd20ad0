"""The table of primitive operations: forward value and local derivatives side by side.

Every op the engine knows is one ``Op`` entry below. An entry gives

* ``forward(*xs[, arg])``: the output value, computed on plain floats, written to follow
  IEEE float64 like PyTorch (``inf`` on overflow, ``nan`` when invalid, never a Python
  ``OverflowError`` / ``ZeroDivisionError`` / ``ValueError``);
* ``local(*xs, out[, arg])``: the local derivatives d out / d x_i, one per input, given
  the inputs and the op's own output (so ``exp`` reuses ``out``, ``tanh`` is
  ``1 - out*out``).

The derivative rules use only arithmetic and the generic helpers of this module
(``_pow``, ``_recip``, ``_log``, ``_data``), so the same rule runs on floats (the ordinary
backward pass), on ``Value`` objects (gradients that are graphs themselves, for higher
order derivatives) and in forward mode. Composite ops (neg, sub, div, ...) are not in
the table: ``Value`` builds them from these primitives.

``arg`` is a constant that is part of the op rather than an input (the ``n`` of ``x**n``);
only ops with ``has_arg=True`` take it.
"""

from __future__ import annotations

import math

inf = math.inf
nan = math.nan


class Op:
    """One primitive: its name, number of inputs, forward function and local derivatives."""

    __slots__ = ("name", "arity", "forward", "local", "has_arg", "doc")

    def __init__(self, name, arity, forward, local, has_arg=False, doc=""):
        self.name = name
        self.arity = arity
        self.forward = forward
        self.local = local
        self.has_arg = has_arg
        self.doc = doc

    def label(self, arg=None):
        """The short text shown for this op in a graph (``'+'``, ``'tanh'``, ``'**2'``)."""
        if self.has_arg:
            return f"{self.name}{_fmt(arg)}"
        return self.name

    def __repr__(self):
        return f"Op({self.name!r}, arity={self.arity})"


def _fmt(x):
    """An exponent as micrograd prints it: ``**2`` for 2 and 2.0, ``**-1``, ``**0.5``."""
    if isinstance(x, float) and x.is_integer():
        return str(int(x))
    return str(x)


# ---------------------------------------------------------------------------------------
# IEEE-safe scalar helpers. Python's float arithmetic raises where float64 would give
# inf or nan; these give what PyTorch's float64 gives.
# ---------------------------------------------------------------------------------------


def _is_odd_int(n):
    return float(n).is_integer() and abs(n) < 2**53 and int(n) % 2 == 1


def _fpow(x, n):
    """x ** n on floats as IEEE pow: 0**-1 = inf, (-8)**(1/3) = nan, 10**400 = inf."""
    try:
        return math.pow(x, n)
    except OverflowError:
        return -inf if (x < 0 and _is_odd_int(n)) else inf
    except ValueError:  # 0 ** negative, or negative ** non-integer
        if x == 0.0:
            return math.copysign(inf, x) if _is_odd_int(n) else inf
        return nan


def _fexp(x):
    try:
        return math.exp(x)
    except OverflowError:
        return inf


def _flog(x):
    if x > 0.0:
        return math.log(x)  # log(inf) = inf
    if x == 0.0:
        return -inf
    return nan  # negative or nan


def _frecip(x):
    if x == 0.0:
        return math.copysign(inf, x)
    return 1.0 / x


def _data(x):
    """The float inside a Value, or the number itself (for rules at a kink).

    NOTE: a plain number is tested first: ``numpy.float64`` is a float that also has a
    ``.data`` attribute (a memoryview), so ``getattr(x, "data", x)`` would be wrong."""
    if isinstance(x, (float, int)):
        return x
    return x.data


def _generic(float_fn, value_method):
    """A helper that applies ``float_fn`` to floats and ``Value.<value_method>`` to Values."""

    def fn(x, *rest):
        if isinstance(x, float):
            return float_fn(x, *rest)
        if isinstance(x, int) and not isinstance(x, bool):
            return float_fn(float(x), *rest)
        return getattr(x, value_method)(*rest)

    fn.__name__ = value_method
    return fn


_pow = _generic(_fpow, "__pow__")  # x ** n
_log = _generic(_flog, "log")  # log x
_sin = _generic(lambda x: _fsin(x), "sin")
_cos = _generic(lambda x: _fcos(x), "cos")
_sigmoid_generic = _generic(lambda x: _sigmoid(x), "sigmoid")


def _recip(x):
    """1 / x on a float (IEEE: 1/0 = inf) or on a Value (as x ** -1)."""
    if isinstance(x, (float, int)):
        return _frecip(float(x))
    return x**-1


# ---------------------------------------------------------------------------------------
# Stable forward functions.
# ---------------------------------------------------------------------------------------


def _sigmoid(x):
    # branch on sign: exp only ever sees a non-positive number, so it never overflows
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def _softplus(x):
    # log(1 + e^x) = max(x, 0) + log1p(e^-|x|)
    if x != x:
        return x
    return max(x, 0.0) + math.log1p(math.exp(-abs(x)))


def _fsqrt(x):
    if x >= 0.0:
        return math.sqrt(x)  # sqrt(inf) = inf, sqrt(-0.0) = -0.0
    return nan


def _relu_fwd(x):
    if x != x:
        return x
    return x if x > 0.0 else 0.0


def _sign(x):
    """sign with sign(0) = 0 (torch.sign); nan stays nan."""
    x = _data(x)
    if x > 0.0:
        return 1.0
    if x < 0.0:
        return -1.0
    return x * 0.0  # 0.0 for +-0, nan for nan


def _step(x):
    """d relu / dx: 1 where x > 0, else 0 (relu'(0) = 0, as JAX and PyTorch)."""
    return 1.0 if _data(x) > 0.0 else 0.0


def _fsin(x):
    return math.sin(x) if math.isfinite(x) else nan


def _fcos(x):
    return math.cos(x) if math.isfinite(x) else nan


def _pow_local_exponent(a, b, out):
    """d (a**b) / db = a**b * log(a); 0 where a == 0 and b >= 0 (torch's convention)."""
    if _data(a) == 0.0 and _data(b) >= 0.0:
        return 0.0
    return out * _log(a)


def _pow_local_base(a, n):
    """d (a**n) / da = n * a**(n-1); 0 where n == 0 (torch's convention, so 0**0 has 0)."""
    if _data(n) == 0.0:
        return 0.0
    return n * _pow(a, n - 1)


# ---------------------------------------------------------------------------------------
# THE TABLE. name, arity, forward(inputs), local derivatives(inputs, out)
# ---------------------------------------------------------------------------------------

# ---- binary ----
ADD = Op("+", 2, lambda x, y: x + y,
         lambda x, y, out: (1.0, 1.0),                        # d(x+y) = dx + dy
         doc="x + y")
MUL = Op("*", 2, lambda x, y: x * y,
         lambda x, y, out: (y, x),                            # d(xy) = y dx + x dy
         doc="x * y")
POW = Op("**", 2, _fpow,
         lambda x, y, out: (_pow_local_base(x, y),            # d/dx x^y = y x^(y-1)
                            _pow_local_exponent(x, y, out)),  # d/dy x^y = x^y log x
         doc="x ** y, both inputs Values")

# ---- unary with a constant ----
POWC = Op("**", 1, _fpow,
          lambda x, out, n: (_pow_local_base(x, n),),         # d/dx x^n = n x^(n-1)
          has_arg=True, doc="x ** n for a constant number n")

# ---- unary ----
EXP = Op("exp", 1, _fexp,
         lambda x, out: (out,),                               # d e^x = e^x
         doc="e ** x")
LOG = Op("log", 1, _flog,
         lambda x, out: (_recip(x),),                         # d log x = 1/x
         doc="natural log; log(0) = -inf, log(x<0) = nan")
TANH = Op("tanh", 1, math.tanh,
          lambda x, out: (1.0 - out * out,),                  # d tanh = 1 - tanh^2
          doc="tanh, stable for any input")
SIGMOID = Op("sigmoid", 1, _sigmoid,
             lambda x, out: (out * (1.0 - out),),             # d s = s (1 - s)
             doc="1 / (1 + e^-x), stable for any input")
RELU = Op("ReLU", 1, _relu_fwd,
          lambda x, out: (_step(x),),                         # NOTE: relu'(0) = 0
          doc="max(x, 0); derivative 1 for x > 0 and 0 for x <= 0")
ABS = Op("abs", 1, abs,
         lambda x, out: (_sign(x),),                          # NOTE: abs'(0) = 0 (torch.sgn)
         doc="|x|; derivative sign(x), 0 at 0")
SQRT = Op("sqrt", 1, _fsqrt,
          lambda x, out: (0.5 * _recip(out),),                # d sqrt x = 1 / (2 sqrt x)
          doc="square root; sqrt(x<0) = nan, derivative inf at 0")
SOFTPLUS = Op("softplus", 1, _softplus,
              lambda x, out: (_sigmoid_generic(x),),          # d log(1+e^x) = sigmoid(x)
              doc="log(1 + e^x), stable for any input")
SIN = Op("sin", 1, _fsin,
         lambda x, out: (_cos(x),),                           # d sin = cos
         doc="sine")
COS = Op("cos", 1, _fcos,
         lambda x, out: (-_sin(x),),                          # d cos = -sin
         doc="cosine")

#: every primitive by a unique key (the key is what tests and other backends index by)
OPS = {
    "add": ADD, "mul": MUL, "pow": POW, "powc": POWC,
    "exp": EXP, "log": LOG, "tanh": TANH, "sigmoid": SIGMOID, "relu": RELU,
    "abs": ABS, "sqrt": SQRT, "softplus": SOFTPLUS, "sin": SIN, "cos": COS,
}

KEY = {op: key for key, op in OPS.items()}


def local_grads(op, xs, out, arg=None):
    """The tuple of local derivatives of ``op`` at inputs ``xs`` (floats or Values)."""
    if op.has_arg:
        return op.local(*xs, out, arg)
    return op.local(*xs, out)

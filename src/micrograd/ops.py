"""The table of primitive operations: each op's forward kernel and its one derivative rule.

Every op the engine knows is one ``Op`` entry below. An entry gives

* ``forward(*xs[, arg])``: the output value on plain floats, written to follow IEEE
  float64 like PyTorch (``inf`` on overflow, ``nan`` when invalid, never a Python
  ``OverflowError`` / ``ZeroDivisionError`` / ``ValueError``);
* ``grad(m, g, *xs, out[, arg])``: the op's ONE derivative rule. Given the upstream
  gradient ``g``, the inputs ``xs`` and the op's own output ``out`` (so ``exp`` reuses
  ``out`` and ``tanh`` is ``1 - out*out``), it returns one contribution per input: what
  the chain rule adds to that input's gradient (``g * local derivative``, or a selection
  such as relu's ``where(x <= 0, 0, g)``);
* ``formula`` and ``rule``: the text that graph views and the web page show for it.

The rule is written with Python's ``+ - *`` and with the small math namespace ``m``,
never with ``math`` directly: ``m.div``, ``m.pow``, ``m.powc`` (a constant exponent),
``m.exp``, ``m.log``, ``m.sin``,
``m.cos``, ``m.tanh``, ``m.sigmoid``, ``m.sqrt``, ``m.sign``, the comparisons ``m.le``,
``m.ge``, ``m.eq``, ``m.both`` (and) and the selection ``m.where(cond, a, b)``. That is
what lets one rule serve every mode:

* ``m = FLOAT``: the ordinary backward pass on floats (``Value.backward``);
* ``m = VALUE``: the rule applied to the graph's own Values builds the gradient as a
  graph (``backward(create_graph=True)``, ``grad(grad(f))``, ``hessian``);
* forward mode (``jvp``, ``jacfwd``): for a scalar op the contribution to input ``i`` is
  linear in ``g``, so the tangent of the output is ``sum_i grad(m, t_i, ...)[i]``;
* the NumPy tracer (``micrograd.trace``) runs the same rule on whole arrays with its own
  NumPy namespace.

A selection (``m.where``) is not a multiplication by 0: at a dead relu an upstream
``inf`` or ``nan`` gives 0, as PyTorch's ``threshold_backward`` does. Where PyTorch
multiplies (``abs`` is ``g * sign(x)``), so does the rule, and the numbers agree there
too.

``arg`` is a constant that is part of the op rather than an input (the ``n`` of
``x**n``); only ops with ``has_arg=True`` take it.

A new primitive is one ``Op`` here (or, from user code, ``micrograd.engine.define_op``),
which puts it in ``OPS``: every mode of the engine, the graph views and the expression
language read it from there. Beside it, a built-in op has its one-line ``Value`` method
in ``micrograd.engine`` and a forward in each of the tracer's backend tables, keyed by
the op's key (``NP_FORWARD``, ``TORCH_FORWARD``, ``LOWERED_FORWARD``); a rule that asks
``m`` for a function the namespaces lack adds it to each of them.
"""

from __future__ import annotations

import math

from . import intpow

inf = math.inf
nan = math.nan


class Op:
    """One primitive: its key, label, arity, forward kernel and derivative rule.

    ``key`` names it uniquely (``"tanh"``, ``"powc"``); ``name`` is the label a graph
    shows (``"+"``, ``"tanh"``, ``"**"``). ``np_forward`` is an optional NumPy kernel for
    the tracer (the built-in ops have theirs in the tracer; a user-defined op brings its
    own). ``method`` is the name of the ``Value`` method that applies it, if any.
    """

    __slots__ = ("key", "name", "arity", "forward", "grad", "has_arg", "formula", "rule",
                 "np_forward", "method")

    def __init__(self, key, name, arity, forward, grad, *, has_arg=False, formula="",
                 rule="", np_forward=None, method=None):
        self.key = key
        self.name = name
        self.arity = arity
        self.forward = forward
        self.grad = grad
        self.has_arg = has_arg
        self.formula = formula
        self.rule = rule
        self.np_forward = np_forward
        self.method = method

    def label(self, arg=None):
        """The short text shown for this op in a graph (``'+'``, ``'tanh'``, ``'**2'``)."""
        if self.has_arg:
            return f"{self.name}{_fmt(arg)}"
        return self.name

    def __repr__(self):
        return f"Op({self.key!r}, arity={self.arity})"


def _fmt(x):
    """An exponent as micrograd prints it: ``**2`` for 2 and 2.0, ``**-1``, ``**0.5``;
    one past 16 digits abbreviated (``**(1e400)``), never written out in full."""
    if isinstance(x, int) and not isinstance(x, bool) and abs(x) >= 10**16:
        return f"({intpow.abbreviate(x)})"
    if isinstance(x, float) and x.is_integer():
        return str(int(x)) if abs(x) < 1e16 else f"({x:g})"
    return str(x)


# ---------------------------------------------------------------------------------------
# IEEE-safe float kernels. Python's float arithmetic raises where float64 would give
# inf or nan; these give what PyTorch's float64 gives.
# ---------------------------------------------------------------------------------------


def _is_odd_int(n):
    if isinstance(n, int):
        return n % 2 == 1  # exact for every int, 10**400 + 1 included
    return float(n).is_integer() and abs(n) < 2**53 and int(n) % 2 == 1


#: the ints that are floats exactly; past them ``float(n)`` rounds n (and its parity)
_EXACT_INT = 2**53


def _fpow(x, n):
    """x ** n on floats as IEEE pow: 0**-1 = inf, (-8)**(1/3) = nan, 10**400 = inf.

    An int n past 2**53 is taken exactly (``intpow.power``), not rounded to a float."""
    if isinstance(n, int) and not -_EXACT_INT <= n <= _EXACT_INT:
        return intpow.power(x, n)
    try:
        return math.pow(x, n)
    except OverflowError:
        return -inf if (x < 0 and _is_odd_int(n)) else inf
    except ValueError:  # 0 ** negative, or negative ** non-integer
        if x == 0.0:
            return math.copysign(inf, x) if _is_odd_int(n) else inf
        return nan


def _powc_slope(m, x, n):
    """n * x**(n-1), the slope of x**n, for an n past 2**53 (the rule writes it out
    below that, as PyTorch does): on a float with an int n, the exact value rounded once
    (``float(n)`` would round n first)."""
    if type(x) is float and isinstance(n, int):
        return intpow.power(x, n - 1, n)
    return n * m.powc(x, n - 1)


def _fpowc(x, n):
    """x ** n for a constant n, computed as PyTorch does: its kernel turns the exponents
    2, 3, 0.5, -0.5, -1, -2 into products, square roots and reciprocals, which differ
    from C's pow at the edges ((-inf) ** 0.5 is nan, (-0.0) ** 0.5 is -0.0)."""
    if n == 2:
        return x * x
    if n == 3:
        return x * x * x
    if n == 0.5:
        return _fsqrt(x)
    if n == -0.5:
        return _fdiv(1.0, _fsqrt(x))
    if n == -1:
        return _fdiv(1.0, x)
    if n == -2:
        return _fdiv(1.0, x * x)
    return _fpow(x, n)


def _fdiv(x, y):
    """x / y as IEEE division: 1/0 = inf, -1/0 = -inf, 1/-0.0 = -inf, 0/0 = nan."""
    try:
        return x / y
    except ZeroDivisionError:
        if x != x or x == 0.0:
            return nan
        return math.copysign(inf, x) * math.copysign(1.0, y)


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


def _fsigmoid(x):
    # branch on sign: exp only ever sees a non-positive number, so it never overflows
    if x >= 0.0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def _fsoftplus(x):
    # log(1 + e^x) = max(x, 0) + log1p(e^-|x|)
    if x != x:
        return x
    return max(x, 0.0) + math.log1p(math.exp(-abs(x)))


def _fsqrt(x):
    if x >= 0.0:
        return math.sqrt(x)  # sqrt(inf) = inf, sqrt(-0.0) = -0.0
    return nan


def _frelu(x):
    # max(x, 0) as torch's clamp: relu(nan) = nan and relu(-0.0) = -0.0
    return x if (x >= 0.0 or x != x) else 0.0


def _fsign(x):
    """sign as torch.sign: -1, 0 or 1; sign(+-0) = 0 and sign(nan) = 0."""
    if x > 0.0:
        return 1.0
    if x < 0.0:
        return -1.0
    return 0.0


def _fsin(x):
    return math.sin(x) if math.isfinite(x) else nan


def _fcos(x):
    return math.cos(x) if math.isfinite(x) else nan


# ---------------------------------------------------------------------------------------
# The math namespaces the rules are written in. Each has the same methods; a backend
# (floats, Values, NumPy arrays) is one namespace. Comparisons look at numbers only, so
# on Values they read ``.data``: a selection is made on the value, never differentiated.
# ---------------------------------------------------------------------------------------


def _num(x):
    """The number inside a Value, or the number itself.

    NOTE: a plain number is tested first: ``numpy.float64`` is a float that also has a
    ``.data`` attribute (a memoryview), so ``getattr(x, "data", x)`` would be wrong."""
    if isinstance(x, (float, int)):
        return x
    return x.data


class FloatMath:
    """Rules on plain floats: the ordinary backward pass."""

    div = staticmethod(_fdiv)
    log = staticmethod(_flog)
    exp = staticmethod(_fexp)
    sin = staticmethod(_fsin)
    cos = staticmethod(_fcos)
    sigmoid = staticmethod(_fsigmoid)
    tanh = staticmethod(math.tanh)
    sqrt = staticmethod(_fsqrt)
    pow = staticmethod(_fpow)
    powc = staticmethod(_fpowc)
    sign = staticmethod(_fsign)

    @staticmethod
    def where(cond, a, b):
        return a if cond else b

    @staticmethod
    def le(x, y):
        return x <= y

    @staticmethod
    def ge(x, y):
        return x >= y

    @staticmethod
    def eq(x, y):
        return x == y

    @staticmethod
    def both(p, q):
        return p and q


def _value_unary(name, float_fn):
    """``float_fn`` on a plain number, ``x.<name>()`` on a Value."""

    def apply(x):
        return float_fn(float(x)) if isinstance(x, (float, int)) else getattr(x, name)()

    apply.__name__ = name
    return staticmethod(apply)


class ValueMath(FloatMath):
    """Rules on Values (duck-typed: anything with the engine's methods): gradients that
    are graphs themselves, for higher-order derivatives. A constant (a float) stays a
    float, so constants build no nodes they do not need."""

    log = _value_unary("log", _flog)
    exp = _value_unary("exp", _fexp)
    sin = _value_unary("sin", _fsin)
    cos = _value_unary("cos", _fcos)
    sigmoid = _value_unary("sigmoid", _fsigmoid)
    tanh = _value_unary("tanh", math.tanh)
    sqrt = _value_unary("sqrt", _fsqrt)

    @staticmethod
    def div(x, y):
        if isinstance(x, (float, int)) and isinstance(y, (float, int)):
            return _fdiv(float(x), float(y))
        if isinstance(x, (float, int)):
            return y.__rtruediv__(x)
        return x / y

    @staticmethod
    def pow(x, n):
        if isinstance(x, (float, int)) and isinstance(n, (float, int)):
            return _fpow(float(x), n)
        if isinstance(x, (float, int)):
            return n.__rpow__(x)
        return x**n

    @staticmethod
    def powc(x, n):
        if isinstance(x, (float, int)):
            return _fpowc(float(x), n)
        return x**n

    @staticmethod
    def sign(x):
        return _fsign(_num(x))  # piecewise constant: its derivative is 0

    @staticmethod
    def le(x, y):
        return _num(x) <= _num(y)

    @staticmethod
    def ge(x, y):
        return _num(x) >= _num(y)

    @staticmethod
    def eq(x, y):
        return _num(x) == _num(y)


FLOAT = FloatMath()
VALUE = ValueMath()


# ---------------------------------------------------------------------------------------
# THE TABLE. key, label, arity, forward kernel, derivative rule (upstream g -> one
# contribution per input). Each rule is written the way PyTorch's derivative table
# writes it, so the numbers agree at the edges too.
# ---------------------------------------------------------------------------------------

# ---- binary ----
ADD = Op("add", "+", 2, lambda x, y: x + y,
         lambda m, g, x, y, out: (g, g),                              # d(x+y) = dx + dy
         formula="x + y", method="__add__",
         rule="addition copies the upstream grad: d(x + y)/dx = d(x + y)/dy = 1")
MUL = Op("mul", "*", 2, lambda x, y: x * y,
         lambda m, g, x, y, out: (g * y, g * x),                      # d(xy) = y dx + x dy
         formula="x * y", method="__mul__",
         rule="multiplication swaps: d(x*y)/dx = y, d(x*y)/dy = x")
DIV = Op("div", "/", 2, _fdiv,
         lambda m, g, x, y, out: (m.div(g, y),                        # d(x/y)/dx = 1/y
                                  -g * m.div(m.div(x, y), y)),        # d(x/y)/dy = -x/y^2
         formula="x / y", method="__truediv__",
         rule="d(x/y)/dx = 1/y, d(x/y)/dy = -x/y**2")
POW = Op("pow", "**", 2, _fpow,
         # NOTE: d/dx is 0 where y == 0 (a selection: 0**0 has slope 0); d/dy is
         # x^y log x, taken as 0 where x == 0 and y >= 0 (torch's convention)
         lambda m, g, x, y, out: (
             m.where(m.eq(y, 0.0), 0.0, g * (y * m.pow(x, y - 1.0))),  # y x^(y-1)
             g * m.where(m.both(m.eq(x, 0.0), m.ge(y, 0.0)), 0.0, out * m.log(x))),
         formula="x ** y", method="__pow__",
         rule="d(x**y)/dx = y*x**(y-1), d(x**y)/dy = x**y * log(x)")

# ---- unary with a constant ----
POWC = Op("powc", "**", 1, _fpowc,
          # NOTE: x**0 has slope 0 everywhere, 0**0 included (a selection, as torch);
          # past 2**53 (written out: a constant, no lookup on this hot path) n is exact
          lambda m, g, x, out, n: (
              m.where(n == 0, 0.0, g * (n * m.powc(x, n - 1)            # n x^(n-1)
                                        if -9007199254740992 <= n <= 9007199254740992
                                        else _powc_slope(m, x, n))),),
          has_arg=True, formula="x ** n", method="__pow__",
          rule="d(x**n)/dx = n * x**(n-1)")

# ---- unary ----
EXP = Op("exp", "exp", 1, _fexp,
         lambda m, g, x, out: (g * out,),                             # d e^x = e^x
         formula="exp(x)", method="exp", rule="d exp(x)/dx = exp(x) = out")
LOG = Op("log", "log", 1, _flog,
         lambda m, g, x, out: (m.div(g, x),),                         # d log x = 1/x
         formula="log(x)", method="log", rule="d log(x)/dx = 1/x")
TANH = Op("tanh", "tanh", 1, math.tanh,
          lambda m, g, x, out: (g * (1.0 - out * out),),              # d tanh = 1 - tanh^2
          formula="tanh(x)", method="tanh",
          rule="d tanh(x)/dx = 1 - tanh(x)**2 = 1 - out**2")
SIGMOID = Op("sigmoid", "sigmoid", 1, _fsigmoid,
             lambda m, g, x, out: (g * (1.0 - out) * out,),           # d s = s (1 - s)
             formula="sigmoid(x)", method="sigmoid",
             rule="d sigmoid(x)/dx = out * (1 - out)")
RELU = Op("relu", "ReLU", 1, _frelu,
          # NOTE: relu'(0) = 0, and a selection: a dead unit passes no inf or nan back
          lambda m, g, x, out: (m.where(m.le(x, 0.0), 0.0, g),),
          formula="relu(x)", method="relu", rule="d relu(x)/dx = 1 if x > 0 else 0")
ABS = Op("abs", "abs", 1, abs,
         lambda m, g, x, out: (g * m.sign(x),),                       # NOTE: abs'(0) = 0
         formula="|x|", method="abs", rule="d |x|/dx = sign(x), 0 at 0")
SQRT = Op("sqrt", "sqrt", 1, _fsqrt,
          lambda m, g, x, out: (m.div(g, 2.0 * out),),                # 1 / (2 sqrt x)
          formula="sqrt(x)", method="sqrt", rule="d sqrt(x)/dx = 1 / (2 sqrt(x))")
SOFTPLUS = Op("softplus", "softplus", 1, _fsoftplus,
              lambda m, g, x, out: (g * m.sigmoid(x),),               # d log(1+e^x) = s(x)
              formula="softplus(x)", method="softplus",
              rule="d softplus(x)/dx = sigmoid(x)")
SIN = Op("sin", "sin", 1, _fsin,
         lambda m, g, x, out: (g * m.cos(x),),                        # d sin = cos
         formula="sin(x)", method="sin", rule="d sin(x)/dx = cos(x)")
COS = Op("cos", "cos", 1, _fcos,
         lambda m, g, x, out: (g * -m.sin(x),),                       # d cos = -sin
         formula="cos(x)", method="cos", rule="d cos(x)/dx = -sin(x)")

#: every primitive by its key; ``register`` adds user-defined ones
OPS = {op.key: op for op in (ADD, MUL, DIV, POW, POWC, EXP, LOG, TANH, SIGMOID, RELU, ABS,
                             SQRT, SOFTPLUS, SIN, COS)}

def unary_functions():
    """``{name: op}``: the functions of one input that a Value has as methods
    (``x.tanh()``). The expression language, the CLI and the page offer exactly these."""
    return {op.method or op.key: op for op in OPS.values()
            if op.arity == 1 and not op.has_arg and not (op.method or "").startswith("_")}


class _Functions:
    """A live read-only view of ``unary_functions()``: ops defined later appear in it."""

    def __getitem__(self, name):
        return unary_functions()[name]

    def __contains__(self, name):
        return name in unary_functions()

    def __iter__(self):
        return iter(unary_functions())

    def __len__(self):
        return len(unary_functions())

    def keys(self):
        return unary_functions().keys()

    def __repr__(self):
        return f"FUNCTIONS({', '.join(unary_functions())})"


#: the functions of one input, by name, always up to date with the table
FUNCTIONS = _Functions()


def register(op, replace=False):
    """Add ``op`` to the table (``micrograd.engine.define_op`` is the friendly way)."""
    if not isinstance(op, Op):
        raise TypeError(f"register needs an Op, got {type(op).__name__}")
    if not isinstance(op.key, str) or not op.key.isidentifier():
        raise ValueError(f"an op's key must be an identifier, got {op.key!r}")
    if op.arity not in (1, 2):
        raise ValueError(f"op {op.key!r}: arity must be 1 or 2, got {op.arity!r}")
    if op.has_arg and op.arity != 1:
        raise ValueError(f"op {op.key!r}: only a one-input op can take a constant argument")
    if not callable(op.forward) or not callable(op.grad):
        raise TypeError(f"op {op.key!r}: forward and grad must be callables")
    old = OPS.get(op.key)
    if old is not None and not replace:
        raise ValueError(f"an op named {op.key!r} exists already (replace=True to replace "
                         f"a user-defined one)")
    if old is not None and old in _BUILTIN:
        raise ValueError(f"{op.key!r} is a built-in op and cannot be replaced")
    OPS[op.key] = op
    return op


#: the built-in primitives (``OPS`` also holds the user-defined ones)
BUILTIN = dict(OPS)
_BUILTIN = frozenset(BUILTIN.values())


def contributions(op, m, g, xs, out, arg=None):
    """The rule of ``op``: one contribution per input, for upstream gradient ``g``.

    The one place an op's rule is called (by arity and ``has_arg``): every mode runs its
    rules through here, with the inputs ``xs`` and output ``out`` as floats, Values or
    arrays of the namespace ``m`` (only ``backward()``'s ``+`` and ``*`` are written out,
    for speed, in ``engine_fast.push_grads``)."""
    if op.has_arg:  # one input and a constant (``register`` allows no other)
        return op.grad(m, g, xs[0], out, arg)
    if op.arity == 1:
        return op.grad(m, g, xs[0], out)
    return op.grad(m, g, xs[0], xs[1], out)


def local_grads(op, xs, out, arg=None, m=None):
    """The local derivatives d out / d x_i: the rule with an upstream gradient of 1.

    On floats they are numbers; given the graph's Values (``out`` a Value) they are
    nodes of a new graph. What graph views and the walk show on an edge. (Under a
    selection this is 0 or 1; the backward pass itself always runs the rule with the
    real upstream gradient.)"""
    if m is None:
        m = FLOAT if isinstance(out, (float, int)) else VALUE
    return contributions(op, m, 1.0, xs, out, arg)


def forward(op, xs, arg=None):
    """The float value of ``op`` at inputs ``xs``."""
    if op.has_arg:
        return op.forward(*xs, arg)
    return op.forward(*xs)

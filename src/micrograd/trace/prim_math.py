"""The recording math namespace: each op's forward and its one rule, written as primitives.

``PrimMath`` has the methods of the op table's math namespace (``m.div``, ``m.exp``,
``m.where``, ``m.powc``, ...; see ``micrograd.ops``) and the operators ``+ - * /`` on its
values, but computes nothing: every call appends a primitive instruction
(``micrograd.trace.prims``) to a list and returns a ``Sym``, the name of the buffer that
will hold the result. Running an op's rule with it (``ops.contributions(op, m, g, xs,
out)``) therefore writes that rule down as instructions, once; the calculus stays in
``ops.py``. The composites that a namespace provides (``sigmoid``, ``sign``, the special
exponents of ``powc``) are written here in primitives, the same formulas as the NumPy
backend's, so that the two agree to the bit where their primitives round correctly.

``LOWERED_FORWARD`` is the forward of every built-in op written in this namespace (the
twin of the NumPy backend's ``NP_FORWARD``). A user-defined op lowers when its forward
is added there (``LOWERED_FORWARD["cube"] = lambda m, x: x * x * x``); its rule needs
nothing more.
"""

from __future__ import annotations

import math
from numbers import Real

from .. import ops as _ops
from .ir import LoweringError
from .prims import check_instruction

BATCH = "B"  # the size of a buffer with one element per sample


def _is_num(x):
    return isinstance(x, Real) and not isinstance(x, bool)


def encode_number(x):
    """A float as the wire writes it: a JSON number, or "inf", "-inf", "nan"."""
    x = float(x)
    if math.isfinite(x):
        return x
    return "nan" if x != x else ("inf" if x > 0 else "-inf")


def _flog1p(a):
    if a > -1.0:
        return math.log1p(a)  # log1p(inf) = inf
    return -math.inf if a == -1.0 else math.nan


def _joint_size(syms):
    sizes = {s.size for s in syms if s.size != 1}
    if len(sizes) > 1:
        raise LoweringError(f"operands of different sizes {sorted(map(str, sizes))} meet "
                            f"in one instruction")
    return sizes.pop() if sizes else 1


class Sym:
    """A buffer of the program being written (``ref``: its name, or ``[name, index]``
    for one element of a vector), ``size`` elements: 1, ``"B"`` (one per sample) or a
    count. The arithmetic operators write instructions through the namespace ``m``."""

    __slots__ = ("m", "ref", "size")

    def __init__(self, m, ref, size):
        self.m, self.ref, self.size = m, ref, size

    def __add__(self, other):
        return self.m.add(self, other)

    def __radd__(self, other):
        return self.m.add(other, self)

    def __sub__(self, other):
        return self.m.sub(self, other)

    def __rsub__(self, other):
        return self.m.sub(other, self)

    def __mul__(self, other):
        return self.m.mul(self, other)

    def __rmul__(self, other):
        return self.m.mul(other, self)

    def __truediv__(self, other):
        return self.m.div(self, other)

    def __rtruediv__(self, other):
        return self.m.div(other, self)

    def __neg__(self):
        return self.m.neg(self)

    def __pos__(self):
        return self

    def __abs__(self):
        return self.m.abs(self)

    def __pow__(self, other):
        return self.m.powc(self, other) if _is_num(other) else self.m.pow(self, other)

    def __rpow__(self, other):
        return self.m.pow(other, self)

    def __lt__(self, other):
        return self.m.lt(self, other)

    def __le__(self, other):
        return self.m.le(self, other)

    def __gt__(self, other):
        return self.m.gt(self, other)

    def __ge__(self, other):
        return self.m.ge(self, other)

    def __eq__(self, other):
        return self.m.eq(self, other)

    def __ne__(self, other):
        return self.m.sub(1.0, self.m.eq(self, other))

    __hash__ = object.__hash__

    def _decision(self, *_):
        raise LoweringError("the code reads the numbers of an array value (an if/else, "
                            "float(), max() on it): write it with m.where and the "
                            "comparisons m.le, m.ge, m.eq instead")

    __bool__ = __float__ = __int__ = __index__ = _decision

    def __repr__(self):
        return f"Sym({self.ref!r}, size={self.size!r})"


class PrimMath:
    """The math namespace that writes instructions (see the module's docs).

    ``code`` is the list instructions go to (``section`` switches it); constants go to
    ``consts`` (an executor runs them before everything else); ``buffers`` declares every
    buffer this namespace made, with its size."""

    def __init__(self):
        self.code = []
        self.consts = []
        self.buffers = {}
        self._const = {}
        self._count = 0

    # ---- buffers and instructions ------------------------------------------------------

    def section(self, code):
        """Write the following instructions into ``code`` (a list)."""
        self.code = code

    def buffer(self, name, size):
        """A buffer that exists outside this namespace (an input, the parameters)."""
        return Sym(self, name, size)

    def element(self, name, index):
        """Element ``index`` of the vector ``name``, as a buffer of size 1."""
        return Sym(self, [name, index], 1)

    def temp(self, size):
        name = f"v{self._count}"
        self._count += 1
        self.buffers[name] = size
        return Sym(self, name, size)

    def const(self, x):
        """A buffer holding the number ``x`` (one per distinct number, -0.0 and nan
        included)."""
        x = float(x)
        key = repr(x)
        s = self._const.get(key)
        if s is None:
            name = f"c{len(self._const)}"
            self.buffers[name] = 1
            s = self._const[key] = Sym(self, name, 1)
            self.consts.append(["const", name, encode_number(x)])
        return s

    def operand(self, x):
        if isinstance(x, Sym):
            return x
        if _is_num(x):
            return self.const(x)
        raise LoweringError(f"a value of type {type(x).__name__} ({x!r:.40}) met an array "
                            f"instruction: only numbers and array values can")

    def emit(self, prim, *args, size=None):
        """Append ``[prim, out, *args]`` with a fresh ``out``; returns ``out``."""
        syms = [self.operand(a) for a in args]
        out = self.temp(_joint_size(syms) if size is None else size)
        self.write(out, prim, *syms)
        return out

    def write(self, out, prim, *args):
        """Append ``[prim, out, *args]`` writing into the existing buffer ``out``."""
        ins = [prim, out.ref] + [self.operand(a).ref for a in args]
        check_instruction(ins)
        self.code.append(ins)

    def fill(self, out, x):
        """Fill the existing buffer ``out`` with the number ``x``."""
        ins = ["const", out.ref, encode_number(x)]
        check_instruction(ins)
        self.code.append(ins)

    # ---- the primitives (numbers fold to numbers) -----------------------------------

    def _binary(self, prim, fold, x, y):
        if _is_num(x) and _is_num(y):
            return fold(float(x), float(y))
        return self.emit(prim, x, y)

    def _unary(self, prim, fold, x):
        return fold(float(x)) if _is_num(x) else self.emit(prim, x)

    def add(self, x, y):
        return self._binary("add", lambda a, b: a + b, x, y)

    def sub(self, x, y):
        return self._binary("sub", lambda a, b: a - b, x, y)

    def mul(self, x, y):
        return self._binary("mul", lambda a, b: a * b, x, y)

    def div(self, x, y):
        return self._binary("div", _ops.FLOAT.div, x, y)

    def pow(self, x, y):
        return self._binary("pow", _ops.FLOAT.pow, x, y)

    def neg(self, x):
        return self._unary("neg", lambda a: -a, x)

    def abs(self, x):
        return self._unary("abs", abs, x)

    def exp(self, x):
        return self._unary("exp", _ops.FLOAT.exp, x)

    def log(self, x):
        return self._unary("log", _ops.FLOAT.log, x)

    def log1p(self, x):
        return self._unary("log1p", _flog1p, x)

    def tanh(self, x):
        return self._unary("tanh", _ops.FLOAT.tanh, x)

    def sin(self, x):
        return self._unary("sin", _ops.FLOAT.sin, x)

    def cos(self, x):
        return self._unary("cos", _ops.FLOAT.cos, x)

    def sqrt(self, x):
        return self._unary("sqrt", _ops.FLOAT.sqrt, x)

    def lt(self, x, y):
        return self._binary("lt", lambda a, b: a < b, x, y)

    def le(self, x, y):
        return self._binary("le", lambda a, b: a <= b, x, y)

    def gt(self, x, y):
        return self._binary("gt", lambda a, b: a > b, x, y)

    def ge(self, x, y):
        return self._binary("ge", lambda a, b: a >= b, x, y)

    def eq(self, x, y):
        return self._binary("eq", lambda a, b: a == b, x, y)

    def where(self, cond, a, b):
        """``a`` where ``cond`` holds, else ``b``: a selection (the branch not taken
        may be inf or nan). A condition known now (a test on a constant, such as
        powc's ``n == 0``) picks its branch now."""
        if not isinstance(cond, Sym):
            return a if cond else b
        return self.emit("select", cond, a, b)

    def both(self, p, q):
        """``p and q`` on masks: their product (masks are exactly 0 or 1)."""
        if not isinstance(p, Sym):
            return q if p else False
        if not isinstance(q, Sym):
            return p if q else False
        return self.mul(p, q)

    def sum(self, terms):
        """``terms[0] + terms[1] + ...``, left to right, as one instruction."""
        if len(terms) == 1:
            return self.operand(terms[0])
        return self.emit("sum", *terms)

    def total(self, x):
        """The sum of all elements of ``x`` (a batch's), one number."""
        return self.emit("total", x, size=1)

    # ---- the composites of the rule namespace, in primitives ---------------------------
    # (the formulas of the NumPy backend, operation for operation)

    def sigmoid(self, x):
        if _is_num(x):
            return _ops.FLOAT.sigmoid(float(x))
        e = self.exp(-self.abs(x))  # exp only sees -|x|: it never overflows
        d = 1.0 + e
        return self.where(self.ge(x, 0.0), self.div(1.0, d), self.div(e, d))

    def sign(self, x):
        """-1, 0 or 1 as torch.sign: sign(+-0) = 0 and sign(nan) = 0 (not Math.sign)."""
        if _is_num(x):
            return _ops.FLOAT.sign(float(x))
        return self.where(self.gt(x, 0.0), 1.0, self.where(self.lt(x, 0.0), -1.0, 0.0))

    def powc(self, x, n):
        """``x ** n`` for a constant ``n``, with PyTorch's special exponents (products,
        square roots and reciprocals, which differ from pow at the edges)."""
        if _is_num(x):
            return _ops.FLOAT.powc(float(x), n)
        if not _is_num(n):
            raise LoweringError(f"powc needs a constant exponent, got {n!r}")
        if n == 1:
            return x  # x itself: nan, inf and -0.0 included
        special = {2: lambda: x * x, 3: lambda: x * x * x,
                   0.5: lambda: self.sqrt(x), -0.5: lambda: self.div(1.0, self.sqrt(x)),
                   -1: lambda: self.div(1.0, x), -2: lambda: self.div(1.0, x * x)}
        if n in special:
            return special[n]()
        return self.pow(x, float(n))

    def relu(self, x):
        """0 where x < 0, else x itself: relu(nan) = nan, relu(-0) = -0."""
        return self.where(self.lt(x, 0.0), 0.0, x)


#: op key -> its forward written in ``PrimMath`` (``m``, the inputs, the op's constant)
LOWERED_FORWARD = {
    "add": lambda m, x, y: x + y,
    "mul": lambda m, x, y: x * y,
    "div": lambda m, x, y: m.div(x, y),
    "pow": lambda m, x, y: m.pow(x, y),
    "powc": lambda m, x, n: m.powc(x, n),
    "exp": lambda m, x: m.exp(x),
    "log": lambda m, x: m.log(x),
    "tanh": lambda m, x: m.tanh(x),
    "sigmoid": lambda m, x: m.sigmoid(x),
    "relu": lambda m, x: m.relu(x),
    "abs": lambda m, x: m.abs(x),
    "sqrt": lambda m, x: m.sqrt(x),
    # log(1 + e^x) = max(x, 0) + log1p(e^-|x|), as the float and NumPy kernels
    "softplus": lambda m, x: m.relu(x) + m.log1p(m.exp(-m.abs(x))),
    "sin": lambda m, x: m.sin(x),
    "cos": lambda m, x: m.cos(x),
}


def lower_forward(m, key, xs, arg=None):
    """Write op ``key``'s forward on the buffers ``xs``; LoweringError naming the op
    when it has no lowering."""
    fn = LOWERED_FORWARD.get(key)
    if fn is None:
        raise LoweringError(
            f"op {key!r} has no lowering: its forward is not written in primitives (add "
            f"micrograd.trace.LOWERED_FORWARD[{key!r}] = lambda m, x: ...), so a program "
            f"using it cannot leave Python: run it eagerly")
    op = _ops.OPS[key]
    try:
        return fn(m, *xs, arg) if op.has_arg else fn(m, *xs)
    except LoweringError as exc:
        raise LoweringError(f"the forward of op {key!r} cannot be lowered: {exc}") from None


def lower_rule(m, key, g, xs, out, arg=None):
    """Write op ``key``'s one derivative rule (``micrograd.ops``) on the buffers: one
    contribution per input."""
    op = _ops.OPS[key]
    try:
        return tuple(_ops.contributions(op, m, g, list(xs), out, arg))
    except Exception as exc:  # a rule using something the namespace has no lowering for
        raise LoweringError(f"the rule of op {key!r} cannot be lowered: "
                            f"{type(exc).__name__}: {exc}") from None

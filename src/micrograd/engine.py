"""The autograd engine: ``Value`` wraps one number and remembers how it was made.

    >>> from micrograd.engine import Value
    >>> a, b, c, f = Value(2.0), Value(-3.0), Value(10.0), Value(-2.0)
    >>> L = (a*b + c) * f
    >>> L.backward()
    >>> a.grad, b.grad, c.grad, f.grad
    (6.0, -4.0, -2.0, 4.0)

Every operation builds a new ``Value`` that records its inputs (``_prev``, in order; a
reused input appears twice) and the primitive that made it (``_fn``, an entry of the op
table in ``micrograd.ops``; ``_op`` is its short label such as ``'+'`` or ``'tanh'``).
``backward()`` walks the graph in reverse topological order and accumulates
``grad += local derivative * upstream grad`` into every node.

A node holds no closure and no reference back to its consumers, so a graph has no
reference cycles: it is freed by reference counting alone, as soon as the last name
for its root goes away.

Gradient accumulation follows PyTorch: a leaf's ``grad`` accumulates over backward calls
(call ``zero_grad()`` / set ``grad = 0`` between training steps); the ``grad`` of an
interior node holds the gradient of the most recent backward pass.
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from numbers import Real

from . import ops as _ops
from .ops import ADD, MUL, POW, POWC

__all__ = ["Value", "no_grad", "enable_grad", "is_grad_enabled", "detect_anomaly",
           "AnomalyError"]

_isfinite = math.isfinite

# Engine modes. One module-level integer keeps the hot path to a single test:
# bit 1 = gradients disabled (no_grad), bit 2 = anomaly detection on.
# NOTE: the modes are process-wide, not per thread.
_NO_GRAD = 1
_ANOMALY = 2
_mode = 0


class AnomalyError(FloatingPointError):
    """Raised under ``detect_anomaly()`` where a nan or inf first appears."""


def _as_float(x, what="Value"):
    """Turn a plain real number into a float; refuse anything else with a TypeError."""
    if isinstance(x, bool):
        return float(x)
    if isinstance(x, Real):
        try:
            return float(x)
        except OverflowError:
            return math.inf if x > 0 else -math.inf
    raise TypeError(
        f"{what} needs a real number (int or float), got {type(x).__name__}: {x!r:.60}")


class Value:
    """A scalar that records the operations applied to it, for reverse-mode autodiff."""

    # A node is its number, its grad, and how it was made: the op (an entry of the op
    # table), its constant argument if any, and at most two inputs ``_a`` and ``_b``
    # (every op in the table takes one or two). No tuple of children is stored: ``_prev``
    # is built from ``_a`` and ``_b`` when asked for, which keeps a node to one object
    # (less memory, less work for the garbage collector). ``_oplabel`` is only set for a
    # node built by hand with ``Value(data, children, op)``.
    __slots__ = ("data", "grad", "label", "_a", "_b", "_fn", "_arg", "_oplabel",
                 "__weakref__")

    def __init__(self, data, _children=(), _op="", label=""):
        self.data = data if type(data) is float else _as_float(data)
        self.grad = 0.0
        self.label = label
        self._fn = None  # the Op that made this node (None for a leaf)
        self._arg = None  # the op's constant argument (the n of x**n), if any
        self._prev = _children
        self._oplabel = _op

    @property
    def _prev(self):
        """The inputs of this node, in order: ``a*a`` has ``(a, a)``; a leaf has ``()``."""
        a = self._a
        if a is None:
            return ()
        b = self._b
        return (a,) if b is None else (a, b)

    @_prev.setter
    def _prev(self, children):
        children = tuple(children)
        if len(children) > 2:
            raise ValueError(f"a Value has at most two inputs, got {len(children)}")
        for c in children:
            if not isinstance(c, Value):
                raise TypeError(f"the inputs of a Value must be Values, got "
                                f"{type(c).__name__}")
        self._a = children[0] if children else None
        self._b = children[1] if len(children) == 2 else None

    @property
    def _op(self):
        """The short label of the op that made this node: '+', '*', '**2', 'tanh', ''."""
        try:
            return self._oplabel  # a node built by hand, or a label set by the user
        except AttributeError:
            fn = self._fn
            return "" if fn is None else fn.label(self._arg)

    @_op.setter
    def _op(self, text):
        self._oplabel = text

    # -- primitives (thin wrappers over the op table) --------------------------------

    def _unary(self, fn):
        return _make(fn.forward(self.data), fn, self)

    def __add__(self, other):
        if type(other) is not Value:
            other = _coerce(other)
            if other is NotImplemented:
                return other
        return _make(self.data + other.data, ADD, self, other)  # ADD.forward, inline

    def __mul__(self, other):
        if type(other) is not Value:
            other = _coerce(other)
            if other is NotImplemented:
                return other
        return _make(self.data * other.data, MUL, self, other)  # MUL.forward, inline

    def __pow__(self, other):
        if isinstance(other, Value):
            return _make(POW.forward(self.data, other.data), POW, self, other)
        if isinstance(other, Real):
            n = other if type(other) in (int, float) else float(other)
            return _make(POWC.forward(self.data, n), POWC, self, None, n)
        return NotImplemented

    def exp(self):
        return self._unary(_ops.EXP)

    def log(self):
        return self._unary(_ops.LOG)

    def tanh(self):
        return self._unary(_ops.TANH)

    def sigmoid(self):
        return self._unary(_ops.SIGMOID)

    def relu(self):
        return self._unary(_ops.RELU)

    def abs(self):
        return self._unary(_ops.ABS)

    __abs__ = abs

    def sqrt(self):
        return self._unary(_ops.SQRT)

    def softplus(self):
        return self._unary(_ops.SOFTPLUS)

    def sin(self):
        return self._unary(_ops.SIN)

    def cos(self):
        return self._unary(_ops.COS)

    # -- composites: built from the primitives above ---------------------------------

    def __neg__(self):  # -x = x * -1
        return self * -1.0

    def __radd__(self, other):  # n + x = x + n
        if not isinstance(other, Real):
            return NotImplemented
        return self + other

    def __sub__(self, other):  # x - y = x + (-y)
        if not isinstance(other, (Value, Real)):
            return NotImplemented
        return self + (-other)

    def __rsub__(self, other):  # n - x = n + (-x)
        if not isinstance(other, Real):
            return NotImplemented
        return (-self) + other

    def __rmul__(self, other):  # n * x = x * n
        if not isinstance(other, Real):
            return NotImplemented
        return self * other

    def __truediv__(self, other):  # x / y = x * y**-1
        if isinstance(other, Value):
            return self * other**-1
        if not isinstance(other, Real):
            return NotImplemented
        return self * _ops._frecip(_as_float(other))  # x / n = x * (1/n)

    def __rtruediv__(self, other):  # n / x = n * x**-1
        if not isinstance(other, Real):
            return NotImplemented
        return self**-1 * other

    def __rpow__(self, other):  # n ** x, with n a constant leaf
        other = _coerce(other)
        if other is NotImplemented:
            return other
        return other**self

    def __pos__(self):
        return self

    # -- the backward pass -----------------------------------------------------------

    def backward(self, grad=1.0, create_graph=False):
        """Backpropagate from this node: fill ``.grad`` of every node it depends on.

        Seeds ``grad`` (1.0 by default: dL/dL = 1) at this node and accumulates
        ``grad += local derivative * upstream grad`` through the graph. Leaf grads
        accumulate across calls, as in PyTorch: zero them between steps.

        With ``create_graph=True`` every ``.grad`` becomes a ``Value`` built from the
        same op table, so it can be differentiated again (see ``micrograd.autodiff``).
        """
        if create_graph:
            from .autodiff import backward as _graph_backward  # autodiff imports engine

            return _graph_backward(self, grad, create_graph=True)
        # Phase 1: order the graph. Iterative depth-first search: every node is placed
        # after all of its inputs, whatever the depth of the graph.
        topo = _topo_order(self)

        # Phase 2: the chain rule, from the root back to the leaves. Interior grads start
        # from zero on every pass, so only this pass's contributions flow through them.
        for v in topo:
            if v._fn is not None:
                v.grad = 0.0
        self.grad += grad
        if _mode & _ANOMALY:
            return _backward_checked(topo)
        for v in reversed(topo):
            fn = v._fn
            # NOTE: + and * (nine nodes in ten) are the op table's rules written inline,
            # to save a call per node; tests check them against the table.
            if fn is MUL:  # d(xy) = y dx + x dy
                a = v._a
                b = v._b
                g = v.grad
                a.grad += b.data * g
                b.grad += a.data * g
            elif fn is ADD:  # d(x+y) = dx + dy
                g = v.grad
                v._a.grad += g
                v._b.grad += g
            elif fn is not None:
                _push_grad(v)

    def _backward(self):
        """Push this node's grad to its inputs (``grad[p] += local * grad``), one node.

        ``backward()`` does this for every node in order; this method exists so that the
        seeds' hand-written loop (``for v in reversed(order): v._backward()``) works too.
        """
        if self._fn is not None:
            _push_grad(self)

    def zero_grad(self):
        """Set the grad of this node and of every node it depends on to zero."""
        for v in _topo_order(self):
            v.grad = 0.0

    # -- display -----------------------------------------------------------------------

    def __repr__(self):
        label = f", label={self.label!r}" if self.label else ""
        return f"Value(data={self.data}, grad={self.grad}{label})"

    def _repr_svg_(self):
        """Jupyter shows a Value as the drawing of its graph (needs micrograd.viz)."""
        try:
            from .viz import to_svg
        except ImportError:  # pragma: no cover - viz ships with the package
            return None
        return to_svg(self)

    # Values hash by identity (they are graph nodes, kept in sets and dicts); comparing
    # them with < or == would silently compare numbers and hide the graph, so == stays
    # identity and there is no ordering.
    __hash__ = object.__hash__


_new = object.__new__


def _make(data, fn, a, b=None, arg=None):
    """The node that op ``fn`` makes from inputs ``a`` (and ``b``): the one place op
    results are built."""
    out = _new(Value)
    out.data = data
    out.grad = 0.0
    out.label = ""
    if _mode:
        if _mode & _ANOMALY and not _isfinite(data):
            _anomaly_forward(fn, a, b, arg, data)
        if _mode & _NO_GRAD:  # a plain leaf: no inputs, no op
            a = b = fn = arg = None
    out._a = a
    out._b = b
    out._fn = fn
    out._arg = arg
    return out


def _coerce(x):
    """A plain number as a constant leaf Value; anything else NotImplemented."""
    if isinstance(x, Value):
        return x
    if type(x) is float or type(x) is int or isinstance(x, Real):
        v = _new(Value)
        v.data = x if type(x) is float else _as_float(x)
        v.grad = 0.0
        v.label = ""
        v._a = v._b = v._fn = v._arg = None
        return v
    return NotImplemented


def _push_grad(v):
    """The chain rule at one node: each input's grad += local derivative * v.grad."""
    g = v.grad
    a = v._a
    b = v._b
    if b is not None:
        da, db = v._fn.local(a.data, b.data, v.data)
        a.grad += da * g
        b.grad += db * g
    elif v._fn.has_arg:
        a.grad += v._fn.local(a.data, v.data, v._arg)[0] * g
    else:
        a.grad += v._fn.local(a.data, v.data)[0] * g


def _topo_order(*roots):
    """All nodes reachable from ``roots``, each after all of its inputs (a root last
    among the nodes it reaches).

    Iterative depth-first search, so any depth works: look at the node on top of the
    stack; push each input not placed yet (a leaf is placed at once) and come back to
    the node later; once every input is placed, place the node. Each node is looked at
    at most twice, and nothing is allocated per node but its place in the list and set.
    """
    order = []
    placed = set()
    place = placed.add
    append = order.append
    for root in roots:
        if root not in placed:
            _place_from(root, placed, place, append)
    return order


def _place_from(root, placed, place, append):
    """The depth-first walk of ``_topo_order`` from one root."""
    stack = [root]
    while stack:
        v = stack[-1]
        a = v._a
        if a is not None and a not in placed:
            if a._a is None:  # a leaf has no inputs: place it now
                place(a)
                append(a)
            else:
                stack.append(a)
        b = v._b
        if b is not None and b not in placed:
            if b._a is None:
                place(b)
                append(b)
            else:
                stack.append(b)
        if stack[-1] is v:  # every input placed: place v
            stack.pop()
            if v not in placed:  # v may have been pushed twice (two users)
                place(v)
                append(v)


def _describe(fn, prev, arg):
    args = ", ".join(f"{p.label or 'x'}={p.data!r}" for p in prev)
    name = fn.label(arg) if fn is not None else "leaf"
    return f"{name}({args})"


def _anomaly_forward(fn, a, b, arg, data):
    prev = (a,) if b is None else (a, b)
    if all(_isfinite(p.data) for p in prev):
        raise AnomalyError(
            f"forward: op {_describe(fn, prev, arg)} gave {data!r} from finite inputs")


def _backward_checked(topo):
    """The chain rule as in ``backward``, checking every contribution for nan/inf."""
    for v in reversed(topo):
        fn = v._fn
        if fn is None:
            continue
        g = v.grad
        prev = v._prev
        locals_ = _ops.local_grads(fn, [p.data for p in prev], v.data, v._arg)
        for i, (p, d) in enumerate(zip(prev, locals_)):
            contrib = d * g
            if not _isfinite(contrib) and _isfinite(g):
                raise AnomalyError(
                    f"backward: op {_describe(fn, prev, v._arg)} (output {v.data!r}) "
                    f"gave local derivative {d!r} for input {i} "
                    f"({prev[i].label or 'x'}), contribution {contrib!r} "
                    f"from finite upstream grad {g!r}")
            p.grad += contrib


# ---------------------------------------------------------------------------------------
# Modes
# ---------------------------------------------------------------------------------------


def is_grad_enabled():
    """True unless inside ``no_grad()``."""
    return not _mode & _NO_GRAD


@contextmanager
def _set_bit(bit, on):
    global _mode
    before = _mode
    _mode = (_mode | bit) if on else (_mode & ~bit)
    try:
        yield
    finally:
        _mode = before


def no_grad():
    """Context manager: operations inside build no graph (results are plain leaves).

    Use it for evaluation and for optimizer updates. Process-wide, not per thread.
    """
    return _set_bit(_NO_GRAD, True)


def enable_grad():
    """Context manager: re-enable graph building inside a ``no_grad()`` block."""
    return _set_bit(_NO_GRAD, False)


def detect_anomaly():
    """Context manager: raise ``AnomalyError`` where a nan or inf first appears.

    In the forward pass the error names the op and its inputs when finite inputs give a
    non-finite output; in the backward pass, when a finite upstream gradient gives a
    non-finite contribution. Slower; for debugging.
    """
    return _set_bit(_ANOMALY, True)

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

import contextvars
import math
import sys
import threading
from contextlib import contextmanager
from numbers import Real

from . import checks
from . import ops as _ops
from .ops import ADD, DIV, FLOAT, MUL, POW, POWC, VALUE

__all__ = ["Value", "no_grad", "enable_grad", "is_grad_enabled", "detect_anomaly",
           "AnomalyError", "define_op", "apply_op"]

_isfinite = math.isfinite

# Engine modes, one small integer per thread and per async task (a context variable, as
# PyTorch keeps its grad mode per thread): bit 1 = gradients disabled (no_grad), bit 2 =
# anomaly detection on. A block entered in one thread never changes another thread.
_NO_GRAD = 1
_ANOMALY = 2
_modes = contextvars.ContextVar("micrograd_modes", default=0)
_mode = _modes.get  # the hot path's one call: _mode() is 0 unless a mode is on

#: draws a Value as SVG for Jupyter; set by the package to the graph views' renderer
_svg_renderer = None


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

    # A node is five fields: its number, its grad, its inputs ``_a`` and ``_b`` (every op
    # in the table takes one or two; ``None`` where absent) and ``_how``, how it was
    # made: ``None`` for a plain leaf, the op (an entry of the op table) for a plain op
    # node, or an ``_Extra`` record when the node carries more (the constant of x**n, a
    # label, an op label set by hand). No tuple of children, no closure, no weakref
    # slot: one small object per node, less memory and less work for the garbage
    # collector, which visits every field of every live node. ``_prev``, ``_fn``,
    # ``_arg``, ``_op`` and ``label`` read these fields.
    __slots__ = ("data", "grad", "_a", "_b", "_how")

    def __init__(self, data, _children=(), _op="", label=""):
        self.data = data if type(data) is float else _as_float(data)
        self.grad = 0.0
        self._a = self._b = self._how = None
        if _children:  # built by hand, as the lecture does: a real op node
            self._prev = _children
            if self._a is not None:
                self._how = _extra(*_op_from_label(_op, self._prev, self.data))
        if _op and self._a is None:
            self._how = _Extra(None, None, "", _op)
        if type(label) is not str or label:
            self.label = label  # checked there

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
    def _fn(self):
        """The op (an entry of ``micrograd.ops``) that made this node; None for a leaf."""
        how = self._how
        return how.fn if type(how) is _Extra else how

    @property
    def _arg(self):
        """The op's constant argument (the n of x**n), or None."""
        how = self._how
        return how.arg if type(how) is _Extra else None

    @property
    def label(self):
        """A name for this node, shown by graph views ('' when it has none)."""
        how = self._how
        return how.label if type(how) is _Extra else ""

    @label.setter
    def label(self, label):
        if label is None:
            label = ""
        elif not isinstance(label, str):
            raise TypeError(f"a Value's label must be a str, got {type(label).__name__}: "
                            f"{label!r:.60}")
        how = self._how
        if type(how) is _Extra:
            self._how = _extra(how.fn, how.arg, label, how.oplabel)
        elif label:
            self._how = _Extra(how, None, label, None)

    @property
    def _op(self):
        """The short label of the op that made this node: '+', '*', '**2', 'tanh', ''."""
        how = self._how
        if type(how) is _Extra:
            if how.oplabel is not None:
                return how.oplabel  # a node built by hand, or a label set by the user
            how, arg = how.fn, how.arg
        else:
            arg = None
        return "" if how is None else how.label(arg)

    @_op.setter
    def _op(self, text):
        how = self._how
        if type(how) is _Extra:
            self._how = _Extra(how.fn, how.arg, how.label, text)
        else:
            self._how = _Extra(how, None, "", text)

    # -- primitives (thin wrappers over the op table) --------------------------------

    def _unary(self, fn):
        return _make(fn.forward(self.data), fn, self)

    # NOTE: + and * (nine nodes in ten) build their node inline, _make's work without
    # its call; the forward is the op's own (ADD.forward, MUL.forward), written out.
    def __add__(self, other):
        if type(other) is not Value:
            other = _coerce(other)
            if other is NotImplemented:
                return other
        out = _new(Value)
        out.data = self.data + other.data
        out.grad = 0.0
        if _mode():
            return _moded(out, ADD, self, other)
        out._a = self
        out._b = other
        out._how = ADD
        return out

    def __mul__(self, other):
        if type(other) is not Value:
            other = _coerce(other)
            if other is NotImplemented:
                return other
        out = _new(Value)
        out.data = self.data * other.data
        out.grad = 0.0
        if _mode():
            return _moded(out, MUL, self, other)
        out._a = self
        out._b = other
        out._how = MUL
        return out

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
        if type(other) is Value:
            return NotImplemented
        return self.__add__(other)  # a plain number becomes a constant leaf there

    def __sub__(self, other):  # x - y = x + (-y)
        if not isinstance(other, (Value, Real)):
            return NotImplemented
        return self + (-other)

    def __rsub__(self, other):  # n - x = n + (-x)
        if not isinstance(other, Real):
            return NotImplemented
        return (-self) + other

    def __rmul__(self, other):  # n * x = x * n
        if type(other) is Value:
            return NotImplemented
        return self.__mul__(other)

    def __truediv__(self, other):
        # NOTE: the lecture composes x / y = x * y**-1; a primitive division gives
        # PyTorch's numbers where that composition rounds differently (1e-300 / 1e-300)
        if type(other) is not Value:
            other = _coerce(other)
            if other is NotImplemented:
                return other
        return _make(_ops._fdiv(self.data, other.data), DIV, self, other)

    def __rtruediv__(self, other):  # n / x = x**-1 * n, as PyTorch computes it
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

        With ``create_graph=True`` every ``.grad`` becomes a ``Value`` built by running
        the op table's rules on the graph's own Values, so it can be differentiated again
        (see ``micrograd.autodiff``). As in PyTorch, a leaf's ``.grad`` then refers to a
        graph that refers back to the leaf.
        """
        if create_graph:
            if not isinstance(grad, Value):
                grad = _as_float(grad, "backward's grad")
            return _backward_graph(self, _topo_order(self), grad)
        if type(grad) is not float:
            grad = _as_float(grad, "backward's grad")
        if _mode() & _ANOMALY:
            return _backward_checked(self, _topo_order(self), grad)

        # Phase 1: order the graph's interior nodes, each after all of its inputs
        # (iterative depth-first search: any depth works). Their grads start from zero
        # on every pass, so only this pass's contributions flow through them.
        order = _interior_order(self)

        # Phase 2: the chain rule, from the root back to the leaves.
        self.grad += grad
        for v in reversed(order):
            fn = v._how
            # NOTE: + and * (nine nodes in ten) are the op table's rules written inline,
            # to save a call per node; tests check them against the table.
            if fn is MUL:  # d(xy) = y dx + x dy
                a = v._a
                b = v._b
                g = v.grad
                a.grad += g * b.data
                b.grad += g * a.data
            elif fn is ADD:  # d(x+y) = dx + dy
                g = v.grad
                v._a.grad += g
                v._b.grad += g
            else:
                _push_grad(v)

    def _backward(self):
        """Push this node's grad to its inputs (``grad[p] += local * grad``), one node.

        ``backward()`` does this for every node in order; this method exists so that the
        lecture's hand-written loop (``for v in reversed(order): v._backward()``) works too.
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
        """Jupyter shows a Value as the drawing of its graph. The renderer is handed in
        by the package (``micrograd/__init__.py``), so the engine imports nothing above
        it."""
        return None if _svg_renderer is None else _svg_renderer(self)

    def __bool__(self):
        # as PyTorch's bool(tensor): false only for zero (nan is true)
        return self.data != 0.0

    # Values hash by identity (they are graph nodes, kept in sets and dicts); comparing
    # them with < or == would silently compare numbers and hide the graph, so == stays
    # identity and there is no ordering.
    __hash__ = object.__hash__


_new = object.__new__


class _Extra:
    """How a node was made, when that is more than an op: the op (None for a leaf), its
    constant argument, the node's label, an op label set by hand (None if not).
    Never changed once made (a node that changes gets a new one), so nodes may share
    one: every ``x**2`` has the same."""

    __slots__ = ("fn", "arg", "label", "oplabel")

    def __init__(self, fn, arg, label, oplabel):
        self.fn = fn
        self.arg = arg
        self.label = label
        self.oplabel = oplabel


_shared_extras = {}


def _extra(fn, arg=None, label="", oplabel=None):
    """What goes in a node's ``_how`` for op ``fn`` with ``arg``, ``label``, ``oplabel``:
    the op itself when there is nothing more, else an ``_Extra`` (shared between nodes
    that only carry the same constant)."""
    if label or oplabel is not None:
        return _Extra(fn, arg, label, oplabel)
    if arg is None:
        return fn
    key = (fn, type(arg), arg)
    try:
        return _shared_extras[key]
    except KeyError:
        how = _Extra(fn, arg, "", None)
        # a zero keeps its sign and a nan is not equal to itself: not shared; the
        # cache is bounded, any constant beyond it gets its own record
        if arg == arg and arg != 0 and len(_shared_extras) < 1024:
            _shared_extras[key] = how
        return how
    except TypeError:  # an argument that cannot be a key
        return _Extra(fn, arg, "", None)


def _make(data, fn, a, b=None, arg=None):
    """The node that op ``fn`` makes from inputs ``a`` (and ``b``): the one place op
    results are built (``+`` and ``*`` write it inline)."""
    out = _new(Value)
    out.data = data
    out.grad = 0.0
    if _mode():
        return _moded(out, fn, a, b, arg)
    out._a = a
    out._b = b
    out._how = fn if arg is None else _extra(fn, arg)
    return out


def _moded(out, fn, a, b=None, arg=None):
    """Finish node ``out`` under a mode: anomaly detection checks its number; under
    ``no_grad()`` it becomes a plain leaf (no inputs, no op)."""
    mode = _mode()
    if mode & _ANOMALY and not _isfinite(out.data):
        _anomaly_forward(fn, a, b, arg, out.data)
    if mode & _NO_GRAD:
        out._a = out._b = out._how = None
    else:
        out._a = a
        out._b = b
        out._how = fn if arg is None else _extra(fn, arg)
    return out


def _affine(b, ws, xs):
    """``b + ws[0]*xs[0] + ws[1]*xs[1] + ...``: the nodes the operators build, in their
    order (a ``*`` node then a ``+`` node per term), with their numbers. A neuron of
    ``micrograd.nn`` calls this instead of looping over ``act = act + w*x``: one call
    instead of two operator dispatches per term. Terms that are not two Values, and any
    mode (``no_grad``, ``detect_anomaly``), take the operators themselves."""
    V, new, tp = Value, _new, type  # locals: this loop builds most nodes of a network
    act = b
    fast = tp(act) is V and not _mode()
    for w, x in zip(ws, xs):
        if fast and tp(w) is V and tp(x) is V:
            p = w.data * x.data  # MUL.forward
            m = new(V)
            m.data = p
            m.grad = 0.0
            m._a = w
            m._b = x
            m._how = MUL
            out = new(V)
            out.data = act.data + p  # ADD.forward
            out.grad = 0.0
            out._a = act
            out._b = m
            out._how = ADD
            act = out
        else:
            act = act + w * x
            # the operators may have run other code: look at the mode again
            fast = tp(act) is V and not _mode()
    return act


def _coerce(x):
    """A plain number as a constant leaf Value; anything else NotImplemented."""
    if type(x) is float:
        v = _new(Value)
        v.data = x
    elif isinstance(x, Value):
        return x
    elif type(x) is int or isinstance(x, Real):
        v = _new(Value)
        v.data = _as_float(x)
    else:
        return NotImplemented
    v.grad = 0.0
    v._a = v._b = v._how = None
    return v


# ---------------------------------------------------------------------------------------
# The chain rule: one rule per op (micrograd.ops), run by every sweep below
# ---------------------------------------------------------------------------------------


def _contributions(v, m, g):
    """What node ``v`` adds to each of its inputs' grads, for upstream ``g``: the op's
    rule run in math namespace ``m`` (floats: ``ops.FLOAT``; Values: ``ops.VALUE``)."""
    fn = v._fn
    a = v._a
    b = v._b
    if m is FLOAT:
        if b is not None:
            return fn.grad(m, g, a.data, b.data, v.data)
        if fn.has_arg:
            return fn.grad(m, g, a.data, v.data, v._arg)
        return fn.grad(m, g, a.data, v.data)
    if b is not None:
        return fn.grad(m, g, a, b, v)
    if fn.has_arg:
        return fn.grad(m, g, a, v, v._arg)
    return fn.grad(m, g, a, v)


def _push_grad(v):
    """The chain rule at one node, on floats: each input's grad += its contribution."""
    g = v.grad
    a = v._a
    b = v._b
    fn = v._how
    if type(fn) is _Extra:
        fn, arg = fn.fn, fn.arg
    else:
        arg = None
    if b is not None:
        da, db = fn.grad(FLOAT, g, a.data, b.data, v.data)
        a.grad += da
        b.grad += db
    elif fn.has_arg:
        a.grad += fn.grad(FLOAT, g, a.data, v.data, arg)[0]
    else:
        a.grad += fn.grad(FLOAT, g, a.data, v.data)[0]


def _sweep(topo, grads, m=FLOAT, needed=None, check=None):
    """The reverse sweep: the chain rule over ``topo`` (inputs before users), backward.

    ``grads`` maps nodes to their gradients so far (the seeds, and any starting values);
    every contribution is added into it (``old + c``, in the order of ``topo`` reversed)
    and it is returned. ``m`` is the math namespace the rules run in (floats, or Values
    for gradients that are graphs). With ``needed``, only nodes in it receive
    contributions. ``check(v, i, c, g)`` sees every contribution (anomaly detection).

    ``backward()`` (float fast path aside), ``detect_anomaly``, ``create_graph`` and
    every reverse-mode function of ``micrograd.autodiff`` are this loop.
    """
    get = grads.get
    for v in reversed(topo):
        if v._fn is None:
            continue
        g = get(v)
        if g is None:
            continue
        prev = v._prev
        if needed is not None and not any(p in needed for p in prev):
            continue
        for i, (p, c) in enumerate(zip(prev, _contributions(v, m, g))):
            if needed is not None and p not in needed:
                continue
            if check is not None:
                check(v, i, c, g)
            old = get(p)
            grads[p] = c if old is None else old + c
    return grads


def _backward_checked(root, topo, grad):
    """``backward()`` under ``detect_anomaly()``: the same sums in the same order as the
    fast path, every contribution checked for a nan or inf that a finite upstream made."""
    grads = {v: v.grad for v in topo if v._fn is None}
    grads[root] = grads.get(root, 0.0) + grad
    _sweep(topo, grads, FLOAT, check=_anomaly_backward)
    for v in topo:
        v.grad = grads.get(v, 0.0)


def _backward_graph(root, topo, grad):
    """``backward(create_graph=True)``: the rules run on Values; interior grads are this
    pass's gradients, leaf grads accumulate (a zero float grad is replaced, not added to,
    so no ``0 + g`` node is built)."""
    with enable_grad():
        grads = _sweep(topo, {root: grad}, VALUE)
        for v in topo:
            g = grads.get(v, 0.0)
            if v._fn is not None:
                v.grad = _as_node(g)
            else:
                old = v.grad
                if type(old) is float and old == 0.0:
                    v.grad = _as_node(g)
                else:
                    v.grad = _as_node(old + g)


def _as_node(x):
    return x if isinstance(x, Value) else _coerce(x)


def _depends_on(topo, inputs):
    """The nodes of ``topo`` that are one of ``inputs`` or are computed from one (the one
    reachability walk: forward from ``inputs`` through ``topo``)."""
    needed = set(inputs)
    for v in topo:
        if v not in needed:
            for p in v._prev:
                if p in needed:
                    needed.add(v)
                    break
    return needed


def _topo_order(*roots, inputs_of=None):
    """All nodes reachable from ``roots``, each after all of its inputs (a root last
    among the nodes it reaches): the one topological sort of the project.

    Iterative depth-first search, so any depth works: look at the node on top of the
    stack; push each input not placed yet and come back to the node later; once every
    input is placed, place the node. Each node is looked at at most twice. ``inputs_of``
    gives a node's inputs for graphs that are not Values (the tracer's, the walk's);
    Values use their two input slots directly (the fast path).
    """
    order = []
    placed = set()
    if inputs_of is None:
        for root in roots:
            if root not in placed:
                _place_values(root, placed, placed.add, order.append)
        return order
    for root in roots:
        if root in placed:
            continue
        stack = [(root, iter(inputs_of(root)))]
        while stack:
            node, it = stack[-1]
            for p in it:
                if p not in placed:
                    stack.append((p, iter(inputs_of(p))))
                    break
            else:
                stack.pop()
                if node not in placed:
                    placed.add(node)
                    order.append(node)
    return order


def _place_values(root, placed, place, append):
    """The depth-first walk of ``_topo_order`` from one Value."""
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


def _fresh_zero(one=1.0):
    """A float object equal to 0.0 that no node holds yet: the arithmetic makes a new
    object at every call (in CPython, where a float's identity is its object)."""
    return one - one


#: whether ``_fresh_zero`` gives a new object each time (CPython: yes; an interpreter
#: where equal floats are always identical would not, and takes the set-based walk)
_ZERO_IS_FRESH = _fresh_zero() is not _fresh_zero()


def _interior_order(root):
    """The interior (non-leaf) nodes that ``root`` depends on, ``root`` among them if it
    is one, each after all of its interior inputs, in ``_topo_order``'s order; every
    one's grad is set to 0.0. ``backward()``'s own walk.

    The reset is also the walk's mark: a node's grad is set to a float object ``zero``
    made for this walk as the node is placed, so ``grad is zero`` says "placed" without
    a set of visited nodes. (Leaves are never marked: their grads accumulate.) One walk
    at a time: two threads' walks over shared nodes would each take the other's marks
    for stale grads."""
    if root._a is None:
        return []
    if not _ZERO_IS_FRESH:
        order = [v for v in _topo_order(root) if v._a is not None]
        for v in order:
            v.grad = 0.0
        return order
    with _walk_lock:
        return _marked_walk(root, _fresh_zero())


_walk_lock = threading.RLock()


def _marked_walk(root, zero):
    order = []
    append = order.append
    stack = [root]
    push = stack.append
    pop = stack.pop
    while stack:
        v = stack[-1]
        a = v._a
        b = v._b
        if a._a is not None and a.grad is not zero:  # an interior input not placed yet
            push(a)
            if b is not None and b._a is not None and b.grad is not zero:
                push(b)
        elif b is not None and b._a is not None and b.grad is not zero:
            push(b)
        else:  # every input placed: place v (it may have been pushed twice)
            pop()
            if v.grad is not zero:
                v.grad = zero
                append(v)
    return order


# ---------------------------------------------------------------------------------------
# Nodes built by hand, and ops defined by the user
# ---------------------------------------------------------------------------------------


def _op_from_label(label, prev, data):
    """``(op, arg)`` for a node built by hand, ``Value(data, (a, b), '+')``.

    The label must name an op of the table with that many inputs (``'+'``, ``'*'``,
    ``'tanh'``, ``'**2'``, a key such as ``'relu'``), and ``data`` must be what that op
    gives: such a node then backpropagates like any other. Anything else is refused,
    never drawn as a leaf that silently passes no gradient."""
    n = len(prev)
    if not isinstance(label, str) or not label:
        raise ValueError(
            "a Value built with inputs needs the op that made it, e.g. "
            "Value(a.data * b.data, (a, b), '*')")
    found = None
    for op in _ops.OPS.values():
        if op.arity == n and not op.has_arg and label in (op.name, op.key):
            found, arg = op, None
            break
    if found is None and n == 1 and label.startswith("**"):
        try:
            arg = float(label[2:])
        except ValueError:
            arg = None
        if arg is not None and math.isfinite(arg):
            found = POWC
            arg = int(arg) if arg.is_integer() else arg
    if found is None:
        known = sorted({op.name for op in _ops.OPS.values() if op.arity == n} |
                       ({"**n"} if n == 1 else set()))
        raise ValueError(
            f"Value(data, children, op): {label!r} is not an op of {n} input"
            f"{'s' if n > 1 else ''} (known: {', '.join(known)}). Build nodes with "
            f"operators and methods (a + b, a.tanh()), or add an op with "
            f"micrograd.engine.define_op")
    want = _ops.forward(found, [p.data for p in prev], arg)
    if not _same_number(want, data):
        raise ValueError(
            f"Value({data!r}, children, {label!r}): {label} of the inputs "
            f"({', '.join(repr(p.data) for p in prev)}) is {want!r}, not {data!r}")
    return found, arg


def _same_number(x, y):
    if x != x or y != y:
        return x != x and y != y
    return x == y or math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-300)


def apply_op(op, *inputs, arg=None):
    """Apply a primitive of the table to Values (plain numbers become constants)."""
    if not isinstance(op, _ops.Op):
        raise TypeError(f"apply_op needs an Op, got {type(op).__name__}")
    if len(inputs) != op.arity:
        raise TypeError(f"op {op.key!r} takes {op.arity} input{'s' if op.arity > 1 else ''}, "
                        f"got {len(inputs)}")
    vs = []
    for i, x in enumerate(inputs):
        v = _coerce(x)
        if v is NotImplemented:
            raise TypeError(f"op {op.key!r}: input {i} must be a Value or a real number, "
                            f"got {type(x).__name__}")
        vs.append(v)
    if op.has_arg:
        arg = _as_float(arg, f"op {op.key!r}'s argument") if not isinstance(arg, int) else arg
    elif arg is not None:
        raise TypeError(f"op {op.key!r} takes no argument")
    data = _ops.forward(op, [v.data for v in vs], arg)
    if type(data) is not float:
        data = _as_float(data, f"the forward of op {op.key!r}")
    return _make(data, op, vs[0], vs[1] if len(vs) == 2 else None, arg)


def define_op(key, forward, grad, *, arity=1, name=None, formula="", rule="",
              np_forward=None, method=True, has_arg=False):
    """Add a primitive op from user code; returns a function that applies it.

    ``forward(*xs[, arg])`` computes the value on floats; ``grad(m, g, *xs, out[, arg])``
    is its one derivative rule: given the upstream gradient ``g``, return one
    contribution per input, written with ``+ - *`` and the math namespace ``m``
    (``m.div``, ``m.exp``, ``m.log``, ``m.where``, ...; see ``micrograd.ops``) so that it
    runs on floats, on Values (higher order) and on NumPy arrays (the tracer).
    ``np_forward`` is the NumPy kernel the tracer needs. With ``method=True`` Values get
    a method of the op's name (``x.cube()``); the expression language and the graph
    views know the op at once.

        >>> cube = define_op("cube", lambda x: x**3,
        ...                  lambda m, g, x, out: (g * 3.0 * x * x,),
        ...                  formula="x**3", rule="d x**3/dx = 3 x**2")
        >>> x = Value(2.0); y = cube(x); y.backward()
        >>> y.data, x.grad
        (8.0, 12.0)
    """
    if not isinstance(key, str) or not key.isidentifier() or key.startswith("_"):
        raise ValueError(f"an op's key must be a public identifier, got {key!r}")
    meth = key if method is True else (method or None)
    if meth is not None and meth in vars(Value) and not _is_user_method(meth):
        raise ValueError(f"Value already has a method {meth!r}: choose another name")
    op = _ops.register(_ops.Op(
        key, name or key, arity, forward, checks.one_per_input(grad, key, arity),
        has_arg=has_arg,
        formula=formula or f"{key}({', '.join('xy'[:arity])})", rule=rule,
        np_forward=np_forward, method=meth), replace=True)

    def apply(*xs, arg=None):
        return apply_op(op, *xs, arg=arg)

    apply.__name__ = key
    apply.__doc__ = f"The user-defined op {key!r}: {op.formula}."
    apply.op = op
    if meth is not None:
        def method_(self, *rest, arg=None):
            return apply_op(op, self, *rest, arg=arg)
        method_.__name__ = meth
        method_._user_op = True
        setattr(Value, meth, method_)
    return apply


def _is_user_method(name):
    return getattr(vars(Value).get(name), "_user_op", False)


# ---------------------------------------------------------------------------------------
# Anomaly detection
# ---------------------------------------------------------------------------------------


def _describe(fn, prev, arg):
    args = ", ".join(f"{p.label or 'x'}={p.data!r}" for p in prev)
    name = fn.label(arg) if fn is not None else "leaf"
    return f"{name}({args})"


def _anomaly_forward(fn, a, b, arg, data):
    prev = (a,) if b is None else (a, b)
    if all(_isfinite(p.data) for p in prev):
        raise AnomalyError(
            f"forward: op {_describe(fn, prev, arg)} gave {data!r} from finite inputs")


def _anomaly_backward(v, i, c, g):
    """A contribution that is nan or inf although the upstream grad is finite."""
    if not _isfinite(c) and _isfinite(g):
        prev = v._prev
        d = _ops.local_grads(v._fn, [p.data for p in prev], v.data, v._arg)[i]
        raise AnomalyError(
            f"backward: op {_describe(v._fn, prev, v._arg)} (output {v.data!r}) "
            f"gave local derivative {d!r} for input {i} ({prev[i].label or 'x'}), "
            f"contribution {c!r} from finite upstream grad {g!r}")


# ---------------------------------------------------------------------------------------
# Modes (per thread and per async task)
# ---------------------------------------------------------------------------------------


def is_grad_enabled():
    """True unless inside ``no_grad()`` (in this thread or async task)."""
    return not _mode() & _NO_GRAD


@contextmanager
def _set_bit(bit, on):
    before = _mode()
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
    return _set_bit(_NO_GRAD, True)


def enable_grad():
    """Context manager: re-enable graph building inside a ``no_grad()`` block."""
    return _set_bit(_NO_GRAD, False)


def detect_anomaly():
    """Context manager: raise ``AnomalyError`` where a nan or inf first appears.

    In the forward pass the error names the op and its inputs when finite inputs give a
    non-finite output; in the backward pass, when a finite upstream gradient gives a
    non-finite contribution. Slower; for debugging. Per thread, like ``no_grad``.
    """
    return _set_bit(_ANOMALY, True)


# ---------------------------------------------------------------------------------------
# CPython 3.10: warm the backward pass up
# ---------------------------------------------------------------------------------------

#: how many calls CPython 3.10 waits before a function caches its attribute lookups
_OPCACHE_MIN_RUNS = 1024


def _warm_up(runs=_OPCACHE_MIN_RUNS + 16):
    """Run ``backward()`` ``runs`` times on a three-node graph of its own.

    CPython 3.10 caches the attribute lookups of a function (``v._a``, ``v.grad``: most
    of the work of a backward pass) only once that function has been called 1,024
    times. ``backward()`` runs once per training step, so its loops would never get
    there (they run about 1.5x slower). From 3.11 on, a function specialises itself
    while it runs and this is not needed. Costs a few milliseconds at import."""
    a = Value(1.0)
    root = a * a + a
    for _ in range(runs):
        root.backward()


if sys.version_info < (3, 11):
    _warm_up()

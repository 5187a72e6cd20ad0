"""The autograd engine: ``Value`` wraps one number and remembers how it was made.

One switch, the environment variable ``MICROGRAD_SPEED``, read once when this module is
imported, kept in ``SPEED``: ``on`` (the default) or ``off``; any other value is an error.
Off, what runs is this file as it reads. On, ``micrograd.engine_fast`` stands in for
``+`` and ``*`` (written out), ``affine`` (a neuron's sum, built folded) and
``backward()`` (its sort and loop written for speed), with the same numbers to the bit;
``backward(create_graph=True)`` and ``backward()`` under ``detect_anomaly()`` run the
loop here either way.

    >>> from micrograd.engine import Value
    >>> a, b, c, f = Value(2.0), Value(-3.0), Value(10.0), Value(-2.0)
    >>> L = (a*b + c) * f
    >>> L.backward()
    >>> a.grad, b.grad, c.grad, f.grad
    (6.0, -4.0, -2.0, 4.0)

Read it top down, as the lecture builds it: ``Value`` and its ops, each one line over the
op table (``micrograd.ops``: every op's forward and its ONE derivative rule), then
``backward()``: ``topological_order`` (the lecture's ``build_topo``) and ``for v in
reversed(topo): v._backward()``, each node's rule adding its contributions to its inputs'
grads. The modes are in ``micrograd.grad_mode``, a node's record beyond its op (a label,
a constant) in ``micrograd.node_record``.

A node records its inputs (``_prev``, in order: a reused input appears twice) and its op
(``_fn``; ``_op`` is its label, ``'+'``, ``'tanh'``). It holds no closure and no link to
its users, so a graph has no reference cycles: reference counting frees it as soon as
the last name for its root goes. A leaf's ``grad`` accumulates over backward calls, as
in PyTorch (zero it between steps); an interior node's holds the last pass's gradient.
"""

from __future__ import annotations

import math
import os
from numbers import Real

from . import engine_fast as _fast
from . import grad_mode as _gm
from . import ops as _ops
from .checks import as_float, one_per_input
from .engine_fast import record as _record  # ``_how``, a neuron's folded sum unfolded
from .grad_mode import AnomalyError, detect_anomaly, enable_grad, is_grad_enabled, no_grad
from .node_record import (Extra, arg_of, extra, fn_of, label_of, op_from_label, op_label_of,
                          with_label, with_op_label)
from .ops import (ABS, ADD, COS, DIV, EXP, FLOAT, LOG, MUL, POW, POWC, RELU, SIGMOID, SIN,
                  SOFTPLUS, SQRT, TANH, VALUE, contributions)

__all__ = ["Value", "no_grad", "enable_grad", "is_grad_enabled", "detect_anomaly",
           "AnomalyError", "define_op", "apply_op", "topological_order", "SPEED"]


def _speed_switch(environ=os.environ):
    """``MICROGRAD_SPEED``: True for ``on`` (or unset), False for ``off``."""
    text = environ.get("MICROGRAD_SPEED", "on")
    if text not in ("on", "off"):
        raise ValueError(f"MICROGRAD_SPEED={text!r}: the engine's speed switch takes 'on' "
                         "(the default: micrograd.engine_fast) or 'off' (the plain engine)")
    return text == "on"


#: the speed switch, read once at import (``MICROGRAD_SPEED``: ``on`` or ``off``)
SPEED = _speed_switch()

_blocks = _gm.blocks  # 0 unless a mode block is open here
_OPEN = _gm.OPEN  # empty unless a mode block is open somewhere: the hot path reads it first

#: draws a Value as SVG for Jupyter; set by the package to the graph views' renderer
_svg_renderer = None


class Value:
    """A scalar that records the operations applied to it, for reverse-mode autodiff."""

    # Six fields: the number, its grad, the inputs ``_a`` and ``_b`` (every op takes one
    # or two; ``None`` where absent), ``_how``: ``None`` for a leaf, the op (an entry of
    # the table) or an ``Extra`` record for a node that carries more (the constant of
    # x**n, a label, an op label set by hand: ``node_record``), and ``_c`` for a neuron's
    # folded sum only (``engine_fast``). One small object a node: no tuple of children,
    # no closure.
    __slots__ = ("data", "grad", "_a", "_b", "_how", "_c")

    def __init__(self, data, _children=(), _op="", label=""):
        self.data = data if type(data) is float else as_float(data)
        self.grad = 0.0
        self._a = self._b = self._how = None
        if _children:  # built by hand, as the lecture does: a real op node
            _set_inputs(self, _children)
            if self._a is not None:
                self._how = extra(*op_from_label(_op, self._prev, self.data))
        if _op and self._a is None:
            self._how = Extra(None, None, "", _op)
        if type(label) is not str or label:
            self.label = label  # checked there

    # -- the ops: one line each over the op table --------------------------------------

    def __add__(self, other): return _binary(ADD, self, other)
    def __mul__(self, other): return _binary(MUL, self, other)
    if SPEED:  # x + y, x * y of two Values written out, the same nodes in one call
        __add__, __mul__ = _fast.add, _fast.mul
    # NOTE: the lecture composes x / y = x * y**-1; a primitive division gives PyTorch's
    # numbers where that composition rounds differently (1e-300 / 1e-300)
    def __truediv__(self, other): return _binary(DIV, self, other)
    def __pow__(self, other): return _power(self, other)  # x**y (POW), x**n (POWC)
    def exp(self): return _unary(EXP, self)
    def log(self): return _unary(LOG, self)
    def tanh(self): return _unary(TANH, self)
    def sigmoid(self): return _unary(SIGMOID, self)
    def relu(self): return _unary(RELU, self)
    def abs(self): return _unary(ABS, self)
    def sqrt(self): return _unary(SQRT, self)
    def softplus(self): return _unary(SOFTPLUS, self)
    def sin(self): return _unary(SIN, self)
    def cos(self): return _unary(COS, self)
    __abs__ = abs

    # -- composites: built from the ops above ------------------------------------------

    def __neg__(self):  # -x = x * -1
        return self * -1.0

    def __radd__(self, other):  # n + x = x + n (a plain number becomes a constant leaf)
        return NotImplemented if type(other) is Value else _binary(ADD, self, other)

    def __sub__(self, other):  # x - y = x + (-y)
        return self + (-other) if isinstance(other, (Value, Real)) else NotImplemented

    def __rsub__(self, other):  # n - x = n + (-x)
        return (-self) + other if isinstance(other, Real) else NotImplemented

    def __rmul__(self, other):  # n * x = x * n
        return NotImplemented if type(other) is Value else _binary(MUL, self, other)

    def __rtruediv__(self, other):  # n / x = x**-1 * n, as PyTorch computes it
        return self**-1 * other if isinstance(other, Real) else NotImplemented

    def __rpow__(self, other):  # n ** x, with n a constant leaf
        other = _coerce(other)
        return other if other is NotImplemented else other**self

    def __pos__(self):
        return self

    # -- the backward pass -----------------------------------------------------------

    def backward(self, grad=1.0, create_graph=False):
        """Backpropagate from this node: fill ``.grad`` of every node it depends on.

        Seeds ``grad`` (1.0 by default: dL/dL = 1) here and accumulates ``grad +=
        local derivative * upstream grad`` through the graph. Leaf grads accumulate
        across calls, as in PyTorch: zero them between steps.

        With ``create_graph=True`` every ``.grad`` becomes a ``Value`` built by running
        the op table's rules on the graph's own Values, so it can be differentiated again
        (see ``micrograd.autodiff``). As in PyTorch, a leaf's ``.grad`` then refers to a
        graph that refers back to the leaf.
        """
        checked = _OPEN and _gm.current() & _gm.ANOMALY  # detect_anomaly() is on here
        if SPEED and not create_graph and not checked and _fast.ZERO_IS_FRESH:
            return _fast.backward(self, grad)  # the same sums, for speed (engine_fast)
        if not (create_graph and isinstance(grad, Value)):
            grad = as_float(grad, "backward's grad")
        with _fast.ONE_PASS:  # one pass at a time
            topo = topological_order(self)  # every node after its inputs, self last
            with _fast.PASS:  # code run inside the pass may read the graph, not change it
                for v in topo:  # this pass's grads start from zero; a leaf's accumulate
                    if v._a is not None:
                        v.grad = 0.0
                if not create_graph:
                    self.grad += grad
                    for v in reversed(topo):  # the chain rule, from self to the leaves
                        v._backward()
                    return
                with enable_grad():  # the same loop, the rules run on the Values
                    old = self.grad
                    self.grad = grad if type(old) is float and old == 0.0 else old + _coerce(grad)
                    for v in reversed(topo):
                        v._backward(create_graph=True)
                    for v in topo:
                        if type(v.grad) is not Value:  # a rule gave a number: a constant
                            v.grad = _coerce(v.grad)

    def _backward(self, create_graph=False):
        """The chain rule at this node (the lecture's ``node._backward()``): its op's rule
        (``ops.contributions``, the one dispatcher) turns its grad into one contribution
        per input, added to that input's grad. With ``create_graph`` the rule runs on the
        Values themselves (``ops.VALUE``), each contribution a graph, and a zero float grad
        is replaced by it, not added to (no ``0 + c`` node)."""
        if self._a is None:
            return  # a leaf: nothing to pass on
        inputs, g = self._prev, self.grad
        if create_graph:
            cs = contributions(self._fn, VALUE, g, inputs, self, self._arg)
        else:
            xs = [p.data for p in inputs]
            cs = contributions(self._fn, FLOAT, g, xs, self.data, self._arg)
        checked = not create_graph and _OPEN and _gm.current() & _gm.ANOMALY
        for i, (p, c) in enumerate(zip(inputs, cs)):
            if checked:  # detect_anomaly(): a nan or inf that a finite upstream made
                _gm.check_backward(self, i, c, g)
            if create_graph and type(p.grad) is float and p.grad == 0.0:
                p.grad = c
            else:
                p.grad += c

    def zero_grad(self):
        """Set the grad of this node and of every node it depends on to zero."""
        _fast.check_no_pass("the grads (zero_grad())")  # the grads a pass is summing
        for v in topological_order(self):
            v.grad = 0.0

    # -- the node's record: its inputs, its op, its label -------------------------------

    @property
    def _prev(self):
        """The inputs of this node, in order: ``a*a`` has ``(a, a)``; a leaf has ``()``."""
        if type(self._how) is float:  # a neuron's folded sum: its product node made now
            return _fast.unfolded_inputs(self)
        a, b = self._a, self._b
        return () if a is None else (a,) if b is None else (a, b)

    @_prev.setter
    def _prev(self, children):
        _fast.record_to_change(self, inputs=True)
        _set_inputs(self, children, new_node=False)

    @property
    def _fn(self):
        """The op (an entry of ``micrograd.ops``) that made this node; None for a leaf."""
        return fn_of(_record(self))

    @property
    def _arg(self):
        """The op's constant argument (the n of x**n), or None."""
        return arg_of(_record(self))

    @property
    def label(self):
        """A name for this node, shown by graph views ('' when it has none)."""
        return label_of(_record(self))

    @label.setter
    def label(self, label):
        self._how = with_label(_fast.record_to_change(self), label)

    @property
    def _op(self):
        """The short label of the op that made this node: '+', '*', '**2', 'tanh', ''."""
        return op_label_of(_record(self))

    @_op.setter
    def _op(self, text):
        self._how = with_op_label(_fast.record_to_change(self), text)

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

    # Values hash by identity (graph nodes, kept in sets and dicts); == stays identity and
    # there is no ordering: comparing numbers would silently hide the graph.
    __hash__ = object.__hash__
    __reduce_ex__ = _fast.reduce_unfolded  # copies: a folded sum unfolded first


def _set_inputs(v, children, new_node=True):  # ``_prev``'s checks and stores
    if not hasattr(children, "__iter__"):
        raise TypeError(f"a Value's inputs are a tuple of Values, not {type(children).__name__}")
    children = tuple(children)
    # a leaf stays one: no op to pass a grad on (and folded sums count on leaf weights)
    if children and not new_node and v._a is None:
        raise ValueError("a leaf Value cannot be given inputs: build the node with its op, "
                         "e.g. Value(a.data * b.data, (a, b), '*'), or with the operators")
    if len(children) > 2:
        raise ValueError(f"a Value has at most two inputs, got {len(children)}")
    for c in children:
        if not isinstance(c, Value):
            raise TypeError(f"the inputs of a Value must be Values, got {type(c).__name__}")
    v._a = children[0] if children else None
    v._b = children[1] if len(children) == 2 else None


# ---------------------------------------------------------------------------------------
# Building nodes: every op's result is made by _make
# ---------------------------------------------------------------------------------------

_new = object.__new__


def _make(data, fn, a, b=None, arg=None):
    """The node that op ``fn`` makes from inputs ``a`` (and ``b``): the one place op
    results are built. Under ``no_grad()`` it is a plain leaf; under ``detect_anomaly()``
    a nan or inf made from finite inputs raises."""
    out = _new(Value)
    out.data = data
    out.grad = 0.0
    mode = _OPEN and _blocks() and _gm.current()
    if mode:
        if mode & _gm.ANOMALY and not math.isfinite(data):
            _gm.check_forward(fn, a, b, arg, data)
        if mode & _gm.NO_GRAD:
            out._a = out._b = out._how = None
            return out
    out._a = a
    out._b = b
    out._how = fn if arg is None else Extra(fn, arg, "", None)
    return out


def _unary(fn, x):
    return _make(fn.forward(x.data), fn, x)


def _binary(fn, x, y):
    """``fn(x, y)``, ``y`` a Value or a plain number (which becomes a constant leaf)."""
    if type(y) is not Value:
        y = _coerce(y)
        if y is NotImplemented:
            return y
    return _make(fn.forward(x.data, y.data), fn, x, y)


def _power(x, n):
    if isinstance(n, Value):
        return _make(POW.forward(x.data, n.data), POW, x, n)
    if isinstance(n, Real):
        n = n if type(n) in (int, float) else float(n)
        return _make(POWC.forward(x.data, n), POWC, x, None, n)
    return NotImplemented


def _coerce(x):
    """A number as a constant leaf Value; a Value itself; anything else NotImplemented."""
    if type(x) is not float:  # a float, the usual constant (``y - 1.0``), goes straight on
        if isinstance(x, Value):
            return x
        if type(x) is not int and not isinstance(x, Real):
            return NotImplemented
        x = as_float(x)
    return Value(x)


def _affine(b, ws, xs):
    act = b
    for w, x in zip(ws, xs):
        act = act + w * x
    return act


#: ``affine(b, ws, xs)``: ``b + ws[0]*xs[0] + ws[1]*xs[1] + ...``, what a neuron of ``nn``
#: computes: the operators' nodes and numbers, term by term (with speed on, in one call,
#: each ``+ w*x`` one folded node until read: ``engine_fast.make_affine``)
affine = _fast.make_affine(Value, _blocks) if SPEED else _affine


# ---------------------------------------------------------------------------------------
# The topological sort
# ---------------------------------------------------------------------------------------


def _inputs(v):
    return v._prev


def topological_order(*roots, inputs_of=_inputs):
    """Every node the ``roots`` depend on, each after all of its inputs (a root last among
    the nodes it reaches): the lecture's ``build_topo``,

        def build_topo(v):
            if v not in visited:
                visited.add(v)
                for child in v._prev:
                    build_topo(child)
                topo.append(v)

    made iterative, so that any depth works: the stack holds the nodes being built, each
    with what is left of its inputs. ``inputs_of(node)`` gives a node's inputs in order
    (a Value's ``_prev`` by default, which unfolds a neuron's folded sum), so the same sort
    orders any graph: the drawing's, the tracer's program."""
    topo, visited = [], set()
    for root in roots:
        if root in visited:
            continue
        visited.add(root)
        stack = [(root, iter(inputs_of(root)))]
        while stack:
            v, children = stack[-1]
            for child in children:
                if child not in visited:
                    visited.add(child)
                    stack.append((child, iter(inputs_of(child))))
                    break
            else:  # every input built: v comes after them
                stack.pop()
                topo.append(v)
    return topo


# ---------------------------------------------------------------------------------------
# Nodes built by hand, and ops defined by the user
# ---------------------------------------------------------------------------------------


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
        arg = as_float(arg, f"op {op.key!r}'s argument") if not isinstance(arg, int) else arg
    elif arg is not None:
        raise TypeError(f"op {op.key!r} takes no argument")
    data = _ops.forward(op, [v.data for v in vs], arg)
    if type(data) is not float:
        data = as_float(data, f"the forward of op {op.key!r}")
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
    if meth is not None and meth in vars(Value) and not hasattr(vars(Value)[meth], "op"):
        raise ValueError(f"Value already has a method {meth!r}: choose another name")
    op = _ops.register(_ops.Op(
        key, name or key, arity, forward, one_per_input(grad, key, arity), has_arg=has_arg,
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
        method_.op = op  # a method of a user-defined op: another define_op may replace it
        setattr(Value, meth, method_)
    return apply


if SPEED:
    _fast.use_class(Value, _binary)  # the class + and * build, and their plain path
    _fast.warm_up(Value)  # CPython 3.10 only (engine_fast)

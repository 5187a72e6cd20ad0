"""A graph as plain data: the nodes and edges behind a ``Value``, with stable ids, and
its numbers and ops as text (what the drawings, the walk and the wire form share).

    >>> from micrograd.engine import Value
    >>> from micrograd.graph import nodes_and_edges
    >>> a = Value(3.0, label="a"); f = a * a; f.label = "f"
    >>> nodes, edges = nodes_and_edges(f)
    >>> [n.id for n in nodes], [(e.src, e.dst, e.index) for e in edges]
    (['n0', 'n1'], [('n0', 'n1', 0), ('n0', 'n1', 1)])

Node ids are ``n0, n1, ...`` in forward order (every node after all of its inputs, the
inputs of a node explored first-to-last, the root last), so the same expression gets
the same ids every run. A reused input (``a*a``) is two edges, told apart by ``index``
(the position of the input in the consumer's ``_prev``). Every edge carries its local
derivative d dst / d src, computed from the single op table (``micrograd.ops``).

``trace`` is the older name of ``nodes_and_edges``, kept for code that calls
``trace(root)``; the lecture's ``trace`` (sets of Values) is ``micrograd.viz.digraph``'s,
and ``micrograd.trace`` is the compiler.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from . import ops as _ops
from .engine import Value, topological_order


@dataclass
class Node:
    """One value of the graph. ``op`` is the display string (``'+'``, ``'tanh'``,
    ``'**2'``) or ``None`` for a leaf; ``op_key`` the op-table key (``'add'``)."""

    id: str
    label: str
    data: float
    grad: float
    op: str | None
    op_key: str | None
    arg: float | None
    inputs: tuple = ()
    value: object = field(default=None, repr=False, compare=False)

    @property
    def leaf(self):
        return self.op is None

    @property
    def name(self):
        """The label, or the number for an unlabelled constant leaf, or the id."""
        if self.label:
            return self.label
        if self.leaf:
            return fmt(self.data)
        return self.id

    def to_dict(self):
        return {"id": self.id, "label": self.label, "name": self.name,
                "data": num(self.data), "grad": num(self.grad), "op": self.op,
                "op_key": self.op_key, "arg": num(self.arg) if self.arg is not None else None,
                "leaf": self.leaf, "inputs": list(self.inputs)}


@dataclass
class Edge:
    """Input ``src`` feeds consumer ``dst`` as its input number ``index``."""

    id: str
    src: str
    dst: str
    index: int
    local: float

    def to_dict(self):
        return {"id": self.id, "src": self.src, "dst": self.dst, "index": self.index,
                "local": num(self.local)}


def num(x):
    """A float for JSON: finite floats as they are, else ``'Infinity'``, ``'-Infinity'``
    or ``'NaN'`` (strings JavaScript's ``Number()`` reads back; JSON has no inf/nan).
    An int past the largest float (the n of ``x**10**400``) is infinite here."""
    try:
        x = float(x)
    except OverflowError:
        x = math.inf if x > 0 else -math.inf
    if math.isfinite(x):
        return x
    if x != x:
        return "NaN"
    return "Infinity" if x > 0 else "-Infinity"


def fmt(x, digits=6):
    """A short human form of a number: 10.0 -> '10', 0.70710678 -> '0.707107'."""
    x = float(x)
    if x != x:
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0.0:
        return "0"
    return f"{x:.{digits}g}"


def check_root(root):
    """``root`` if it is a ``Value``; else a TypeError that names its type."""
    if not isinstance(root, Value):
        raise TypeError(f"expected a micrograd Value, got {type(root).__name__}")
    return root


def forward_order(root):
    """Every node reachable from ``root``, inputs before users, inputs in order.

    The engine's one topological sort (iterative, any depth), which walks each node's
    inputs in order, so the drawing numbers nodes the same on every run.
    """
    check_root(root)
    return topological_order(root)


def local_derivatives(v):
    """The local derivatives d v / d input_i as floats (nan if the rule fails)."""
    fn = v._fn
    if fn is None:
        return ()
    xs = [p.data for p in v._prev]
    try:
        return tuple(float(d) for d in _ops.local_grads(fn, xs, v.data, v._arg))
    except (ArithmeticError, ValueError):  # pragma: no cover - the table is IEEE-safe
        return tuple(math.nan for _ in xs)


def nodes_and_edges(root):
    """``(nodes, edges)`` of the graph that computed ``root``, numbered.

    ``nodes`` is a list of :class:`Node` in forward order (root last); ``edges`` a list
    of :class:`Edge`, grouped by consumer in node order, inputs in order. ``a*a`` gives
    two edges from ``a``, with ``index`` 0 and 1.
    """
    order = forward_order(root)
    ids = {v: f"n{i}" for i, v in enumerate(order)}
    nodes, edges = [], []
    for v in order:
        fn = v._fn
        nodes.append(Node(
            id=ids[v], label=v.label or "", data=v.data, grad=v.grad,
            op=(v._op or fn.label(v._arg)) if fn is not None else None,
            op_key=fn.key if fn is not None else None,
            arg=v._arg, inputs=tuple(ids[p] for p in v._prev), value=v))
        for i, (p, d) in enumerate(zip(v._prev, local_derivatives(v))):
            edges.append(Edge(f"e{len(edges)}", ids[p], ids[v], i, d))
    return nodes, edges


#: the older name of ``nodes_and_edges``, kept for code that calls ``trace(root)``
trace = nodes_and_edges


def fmt4(x):
    """The lecture's ``%.4f``, switching to ``%.4e`` for very large or tiny numbers."""
    x = float(x)
    if x != x:
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0.0 or 1e-4 <= abs(x) < 1e7:
        return f"{x:.4f}"
    return f"{x:.4e}"



def describe_op(nd, names=None):
    """``'a*b'``, ``'a + b'``, ``'tanh(n)'``, ``'x**2'`` for a node (names of inputs
    taken from ``names``: id -> display name; ids if not given)."""
    ins = [names.get(i, i) if names else i for i in nd.inputs]
    op = nd.op
    if op == "+" and len(ins) == 2:
        return f"{ins[0]} + {ins[1]}"
    if op in ("*", "**") and len(ins) == 2:
        return f"{ins[0]}{op}{ins[1]}"
    if op and op.startswith("**") and len(ins) == 1:
        return f"{ins[0]}{op}"
    return f"{op}({', '.join(ins)})"

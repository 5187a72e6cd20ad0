"""The chain rule over a whole graph, on a table of gradients: a topological sort and the
reverse sweep.

    >>> from micrograd.engine import Value
    >>> from micrograd.chain_rule import sweep, topological_order
    >>> a, b = Value(2.0), Value(-3.0)
    >>> L = a * b + a
    >>> order = topological_order(L)          # every node after all of its inputs
    >>> grads = sweep(reversed(order), {L: 1.0})
    >>> grads[a], grads[b]                    # dL/da = b + 1, dL/db = a
    (-2.0, 2.0)

``topological_order`` is the lecture's ``build_topo``, iterative so that any depth works.
``sweep`` is its second half: from the root back to the leaves, every node's op rule
(``ops.contributions``, the one dispatcher) turns the node's gradient into one
contribution per input, added to that input's gradient. It works on a table of
gradients, so it never touches ``.grad``: ``backward()`` under ``detect_anomaly()`` and
with ``create_graph=True``, every reverse mode of ``micrograd.autodiff`` and the teaching
walk run it. (``Value.backward()`` itself runs the same chain rule on the nodes' own
``grad`` fields, faster, with a sort of its own: ``micrograd.engine_fast``'s
``interior_order``.)

Everything here reads a node through ``_a``, ``_b``, ``_prev``, ``_fn``, ``_arg`` and
``data``, so it sits below the engine and imports only the op table and
``engine_fast``'s unfolding of a neuron's folded sum.
"""

from __future__ import annotations

from .engine_fast import unfolded_inputs
from .ops import FLOAT, contributions

__all__ = ["topological_order", "sweep", "sweep_steps", "contributions_at"]


def topological_order(*roots, inputs_of=None):
    """All nodes reachable from ``roots``, each after all of its inputs (a root last
    among the nodes it reaches): the sort of every whole graph (``backward()``'s first
    phase has its own, over interior nodes only: ``engine_fast.interior_order``).

    Iterative depth-first search, so any depth works: look at the node on top of the
    stack; push each input not placed yet and come back to the node later; once every
    input is placed, place the node. Two loops: ``inputs_of`` gives a node's inputs for
    graphs that are not Values (the tracer's; the drawing's, which explores inputs first
    to last); Values use their two input slots directly, each node looked at at most
    twice (``_place_values``).
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
    """The depth-first search of ``topological_order`` from one Value."""
    stack = [root]
    while stack:
        v = stack[-1]
        if type(v._how) is float:  # a neuron's folded sum: its product node made now
            a, b = unfolded_inputs(v)
        else:
            a = v._a
            b = v._b
        if a is not None and a not in placed:
            if a._a is None:  # a leaf has no inputs: place it now
                place(a)
                append(a)
            else:
                stack.append(a)
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


def contributions_at(v, g, m=FLOAT):
    """What node ``v`` adds to each of its inputs' gradients for upstream gradient ``g``:
    its op's rule on the node's numbers (``m = ops.FLOAT``), or on its Values
    (``ops.VALUE``: the contributions are then graphs themselves)."""
    if m is FLOAT:
        return contributions(v._fn, m, g, [p.data for p in v._prev], v.data, v._arg)
    return contributions(v._fn, m, g, v._prev, v, v._arg)


def sweep_steps(order, grads, m=FLOAT, needed=None):
    """The reverse sweep, one node at a time: the chain rule along ``order``.

    ``order`` has every node before its inputs (``reversed(topological_order(root))``);
    ``grads`` maps nodes to their gradients so far (the seeds). At each node, its op's
    rule turns its gradient into one contribution per input, added to that input's
    entry; ``m`` is the math namespace the rules run in (``ops.FLOAT``, or ``ops.VALUE``
    for gradients that are graphs); with ``needed``, only nodes in it receive
    contributions. At each node of ``order`` it yields ``(v, g, pushes)``: ``g`` the
    gradient ``v`` had (None if none reached it), ``pushes`` what it added, one
    ``(i, c, before, after)`` per input ``i`` (``before`` None: no entry yet).
    """
    for v in order:
        g = grads.get(v)
        pushes = []
        if g is not None and v._a is not None:
            inputs = v._prev
            if needed is None or any(p in needed for p in inputs):
                for i, c in enumerate(contributions_at(v, g, m)):
                    p = inputs[i]
                    if needed is None or p in needed:
                        before = grads.get(p)
                        after = c if before is None else before + c
                        grads[p] = after
                        pushes.append((i, c, before, after))
        yield v, g, pushes


def sweep(order, grads, m=FLOAT, needed=None):
    """``sweep_steps`` run to its end: ``grads``, every contribution added in."""
    for _ in sweep_steps(order, grads, m, needed):
        pass
    return grads

"""The chain rule over a whole graph on a table of gradients: the reverse sweep.

    >>> from micrograd.engine import Value, topological_order
    >>> from micrograd.chain_rule import sweep
    >>> a, b = Value(2.0), Value(-3.0)
    >>> L = a * b + a
    >>> order = topological_order(L)          # every node after all of its inputs
    >>> grads = sweep(reversed(order), {L: 1.0})
    >>> grads[a], grads[b]                    # dL/da = b + 1, dL/db = a
    (-2.0, 2.0)

``sweep`` is ``Value.backward()``'s loop (``for v in reversed(topo): v._backward()``) run
into a table instead of the nodes' ``.grad`` fields: from the root back to the leaves,
every node's op rule (``ops.contributions``, the one dispatcher) turns the node's
gradient into one contribution per input, added to that input's gradient. It never
touches ``.grad``: every reverse mode of ``micrograd.autodiff`` and the teaching walk
run it. The order comes from the engine's one topological sort,
``micrograd.engine.topological_order``.

Everything here reads a node through ``_prev``, ``_fn``, ``_arg`` and ``data``, so it
imports only the op table.
"""

from __future__ import annotations

from .ops import FLOAT, contributions

__all__ = ["sweep", "sweep_steps", "contributions_at"]


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

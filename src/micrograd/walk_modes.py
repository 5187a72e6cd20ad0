"""The teaching walk's modes: the backward pass each one runs, the correct one and the
classic mistakes of a hand-written backward pass.

Each mistake below is ``backward``, the correct pass, with ONE line changed (the tests
check that on the source), and runs the engine's one reverse sweep
(``chain_rule.sweep_steps``) on a table of gradients, never on the Values' ``.grad``.
So each gives, step by step, the numbers the mistake gives in real life:

* ``assign``: ``=`` instead of ``+=``. A reused input keeps only its last contribution
  (``a*a`` at 3 gives grad 3, not 6). Its sweep, ``sweep_steps_assign``, is the engine's
  with that one line changed.
* ``recursive``: the recursive backward once proposed for micrograd (``self._backward();
  for child in self._prev: child.backward()``), with no topological sort. A node reached
  by two paths is visited, and pushes its grad, once per path, before its grad is
  complete (``a = 1; b = a + a; c = b + b`` gives grad[a] = 8, not 4).
* ``no_zero_grad``: a pass without ``zero_grad()`` first, as micrograd's published engine
  runs it. Run twice, the root is set to 1 each time and every other grad, interior ones
  too, keeps adding up, so an interior node pushes on the sum of both passes (the
  lecture's ``L = (a*b + c)*f`` gives grad[a] = 24 after two passes, not 6).
* ``no_zero_grad_leaves``: the same mistake in PyTorch and in this package's engine,
  whose ``backward()`` starts every interior grad from zero itself: only this pass's
  gradient flows through the graph and only the leaves add up (grad[a] = 12 there). Its
  root is an op node: a graph that is one leaf has nothing to pass on (and there the
  engine's root, a leaf, would add up its seeds), so the page compares no passes on it.

``CONVENTIONS`` names the two ``no_zero_grad`` passes by the engines that run them, and
``after_passes`` runs one pass several times on one table, as calling ``backward()``
again without ``zero_grad()`` does.

Every pass takes ``nodes``, the graph with every node after its inputs and the root last,
and the table ``grads``; it yields the sweep's steps, ``(v, g, pushes)``. (The gallery of
``micrograd.mistakes`` runs the learner's own code for these and more mistakes.)
"""

from __future__ import annotations

from .chain_rule import contributions_at, sweep_steps
from .ops import FLOAT

__all__ = ["BY_MODE", "CONVENTIONS", "backward", "assign", "recursive", "no_zero_grad",
           "no_zero_grad_leaves", "after_passes", "every_path", "sweep_steps_assign",
           "start_interior_from_zero"]


def backward(nodes, grads):
    order = reversed(nodes)  # every node before its inputs
    grads.clear()  # zero_grad()
    grads[nodes[-1]] = 1.0  # dL/dL = 1
    yield from sweep_steps(order, grads)  # the chain rule, node by node


def assign(nodes, grads):
    order = reversed(nodes)  # every node before its inputs
    grads.clear()  # zero_grad()
    grads[nodes[-1]] = 1.0  # dL/dL = 1
    yield from sweep_steps_assign(order, grads)  # THE MISTAKE: = instead of +=


def recursive(nodes, grads):
    order = every_path(nodes[-1])  # THE MISTAKE: no topological sort
    grads.clear()  # zero_grad()
    grads[nodes[-1]] = 1.0  # dL/dL = 1
    yield from sweep_steps(order, grads)  # the chain rule, node by node


def no_zero_grad(nodes, grads):
    order = reversed(nodes)  # every node before its inputs
    # THE MISTAKE: no zero_grad(), so this pass adds onto the last one's grads
    grads[nodes[-1]] = 1.0  # dL/dL = 1
    yield from sweep_steps(order, grads)  # the chain rule, node by node


def no_zero_grad_leaves(nodes, grads):
    order = reversed(nodes)  # every node before its inputs
    start_interior_from_zero(nodes, grads)  # THE MISTAKE: no zero_grad(); leaves add up
    grads[nodes[-1]] = 1.0  # dL/dL = 1
    yield from sweep_steps(order, grads)  # the chain rule, node by node


#: the walk's modes and the backward pass each runs
BY_MODE = {"correct": backward, "assign": assign, "recursive": recursive,
           "no_zero_grad": no_zero_grad}

#: two backward passes without zero_grad, by the engines that run them so: micrograd's
#: published engine (every grad adds up) and PyTorch's and ours (only the leaves do)
CONVENTIONS = {"micrograd": no_zero_grad, "pytorch": no_zero_grad_leaves}


def start_interior_from_zero(nodes, grads):
    """What ``backward()`` of PyTorch and of this package does before its sweep: every
    interior node's grad starts from zero (is dropped from the table); leaves keep
    theirs."""
    for v in nodes:
        if v._a is not None:
            grads.pop(v, None)


def after_passes(nodes, one_pass, passes=2):
    """The grads after each of ``passes`` runs of ``one_pass`` on one table (the second
    and later runs see what the earlier ones left): a list of ``{node: grad}``."""
    grads, out = {}, []
    for _ in range(passes):
        for _ in one_pass(nodes, grads):
            pass
        out.append(dict(grads))
    return out


def every_path(root):
    """The visits of the recursive backward: a node, then all the visits of its first
    input, then of its second; a node reached by n paths comes n times."""
    stack = [root]
    while stack:
        v = stack.pop()
        yield v
        stack.extend(reversed(v._prev))


def sweep_steps_assign(order, grads, m=FLOAT, needed=None):
    """``chain_rule.sweep_steps`` with ``=`` where it has ``+=``."""
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
                        after = c  # THE MISTAKE: the input's grad so far is overwritten
                        grads[p] = after
                        pushes.append((i, c, before, after))
        yield v, g, pushes

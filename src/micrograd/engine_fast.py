"""What the engine does only for speed, in one place.

Each item here gives exactly the numbers of the plain code it stands for (the tests
compare them), and says what it buys: ``benchmarks/engine.py``'s demo step (MLP(2, [16,
16, 1]) on 100 points, about 66,000 nodes a step), CPU time, the item taken out alone,
medians of 6 interleaved rounds on CPython 3.10 and 3.12:

* ``interior_order``: backward()'s phase 1 marks a placed node by its grad instead of
  keeping a set of visited nodes: backward() 1.2x faster, a step about 5%.
* ``push_grads``: backward()'s phase 2 as one loop, the rules of ``+`` and ``*`` (nine
  nodes in ten) written out, instead of ``v._backward()`` a node: backward() 2.9x (3.12)
  to 3.5x (3.10) faster, a step 1.5x to 1.9x.
* ``make_affine``: a neuron's ``b + w0*x0 + w1*x1 + ...`` in one call instead of two
  operator calls a term: a step 10% (3.12) to 28% (3.10) faster.
* ``warm_up``: CPython 3.10 only: backward() 1.4x faster, a step 22%.

Two bought less than 5% and are gone: ``+`` and ``*`` written out in the operators
themselves (a step within 1% either way: the demo builds nine nodes in ten through
``make_affine``), and a record of x**n's constant shared between nodes (memory only: 64
bytes a power node; the demo has none).

This module sits below the engine and imports nothing of it: it reads the five fields
of a node (``data``, ``grad``, ``_a``, ``_b``, ``_how``) and is handed the ``Value``
class where it builds nodes. It never touches the garbage collector's settings.
"""

from __future__ import annotations

import sys
import threading

from .ops import ADD, FLOAT, MUL, Op, contributions


# ---------------------------------------------------------------------------------------
# backward()'s phase 1: the topological order of the interior nodes, marked by their grad
# ---------------------------------------------------------------------------------------


def _fresh_zero(one=1.0):
    """A float equal to 0.0 that no node holds yet: CPython makes a new float object
    at every subtraction (a float's identity is its object)."""
    return one - one


#: whether ``_fresh_zero`` gives a new object each time (CPython: yes). An interpreter
#: where equal floats are one object would not: the engine then sweeps a table instead.
ZERO_IS_FRESH = _fresh_zero() is not _fresh_zero()

#: one marked search at a time: two threads' searches over shared nodes would each take
#: the other's marks for stale grads
_marking = threading.RLock()


def interior_order(root):
    """``topological_order(root)`` without its leaves, every node's grad set to 0.0.

    The interior (non-leaf) nodes ``root`` depends on, ``root`` among them if it is one,
    each after all of its interior inputs. The reset (this pass's grads start from zero)
    is also the search's mark: a node's grad is set, as the node is placed, to a float
    object ``zero`` made for this pass, so ``grad is zero`` says "placed" without a set
    of visited nodes. Leaves are never marked: their grads accumulate."""
    if root._a is None:
        return []
    with _marking:
        return _order_by_marks(root, _fresh_zero())


def _order_by_marks(root, zero):
    """The depth-first search of ``interior_order``: the node on top of the stack is placed
    once its interior inputs are; an input still open is pushed (at most twice a node)."""
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
# backward()'s phase 2: the chain rule at every node, on floats
# ---------------------------------------------------------------------------------------


def push_grads(nodes):
    """``v._backward()`` for every node of ``nodes`` in turn (interior nodes, users first),
    in one loop: each input's grad += the node's contribution to it.

    ``+`` and ``*`` (nine nodes in ten) are their rules in the op table written out; every
    other op's rule is called through the one dispatcher, ``ops.contributions``."""
    xs = [0.0, 0.0]  # the inputs' numbers, a list of this call's own (no allocation a node)
    for v in nodes:
        how = v._how
        a = v._a
        b = v._b
        g = v.grad
        if how is MUL:  # MUL's rule: (g * y, g * x)
            a.grad += g * b.data
            b.grad += g * a.data
        elif how is ADD:  # ADD's rule: (g, g)
            a.grad += g
            b.grad += g
        else:
            fn, arg = (how, None) if type(how) is Op else (how.fn, how.arg)
            xs[0] = a.data
            if b is None:
                a.grad += contributions(fn, FLOAT, g, xs, v.data, arg)[0]
            else:
                xs[1] = b.data
                da, db = contributions(fn, FLOAT, g, xs, v.data, arg)
                a.grad += da
                b.grad += db


# ---------------------------------------------------------------------------------------
# A neuron's sum in one call
# ---------------------------------------------------------------------------------------


def make_affine(Value, mode):
    """``affine(b, ws, xs)`` for nodes of class ``Value``: ``b + ws[0]*xs[0] + ...``.

    The nodes the operators build, in their order (a ``*`` node, then a ``+`` node, per
    term), with their numbers (``ADD.forward`` and ``MUL.forward``, written out). Terms
    that are not two Values, and any mode (``mode()`` is not 0: ``no_grad``,
    ``detect_anomaly``), take the operators themselves."""
    node_class, modes = Value, mode

    def affine(b, ws, xs):
        # locals: this loop builds most nodes of a network
        V, new, tp, mode = node_class, object.__new__, type, modes
        act = b
        fast = tp(act) is V and not mode()
        for w, x in zip(ws, xs):
            if fast and tp(w) is V and tp(x) is V:
                p = w.data * x.data
                m = new(V)
                m.data = p
                m.grad = 0.0
                m._a = w
                m._b = x
                m._how = MUL
                out = new(V)
                out.data = act.data + p
                out.grad = 0.0
                out._a = act
                out._b = m
                out._how = ADD
                act = out
            else:
                act = act + w * x
                # the operators may have run other code: look at the mode again
                fast = tp(act) is V and not mode()
        return act

    return affine


# ---------------------------------------------------------------------------------------
# CPython 3.10: warm backward() up at import
# ---------------------------------------------------------------------------------------

#: how many calls CPython 3.10 waits before a function caches its attribute lookups
OPCACHE_MIN_RUNS = 1024


def warm_up(Value, runs=OPCACHE_MIN_RUNS + 16):
    """On CPython 3.10, run ``backward()`` ``runs`` times on a three-node graph of its own.

    3.10 caches the attribute lookups of a function (``v._a``, ``v.grad``: most of the
    work of a backward pass) only once that function has been called 1,024 times;
    ``backward()`` runs once a training step, so its loops would never get there. From
    3.11 on a function specialises itself while it runs, and this does nothing. It costs
    a few milliseconds and leaves nothing behind (the graph is freed on return)."""
    if sys.version_info >= (3, 11):
        return
    a = Value(1.0)
    root = a * a + a
    for _ in range(runs):
        root.backward()

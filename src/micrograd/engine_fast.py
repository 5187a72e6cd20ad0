"""What the engine does only for speed, in one place: what runs with the speed switch on
(``MICROGRAD_SPEED``, read by ``micrograd.engine``; on by default).

Each item here gives exactly the numbers of the plain code it stands for, in
``engine.py`` (the tests run both and compare them to the bit), and says why it is
faster; what each buys, measured, with its command, is in docs/performance.md.

* ``interior_order``: ``backward()``'s sort, for ``topological_order(root)``: the same
  order, with the leaves left out and every grad set to 0.0. It reads a node's two input
  slots instead of calling ``inputs_of`` and making an iterator a node; it marks a
  placed node by its grad (set to a float object made for the pass: the reset the pass
  needs anyway) instead of hashing it into a set; and it walks a folded sum (below) as
  any ``+`` node, with no case of its own (its ``x`` in ``_b``, its ``w``, a leaf, in
  ``_c``): no type check a visit.
* ``push_grads``: ``backward()``'s loop, for ``v._backward()`` at every node: one loop,
  with the rules of ``+`` and ``*`` (nine nodes in ten) written out instead of a call to
  the dispatcher a node and the properties that read a node's record.
* ``make_affine``: a neuron's ``b + w0*x0 + w1*x1 + ...`` in one call, for two operator
  calls a term (``engine.affine``).
* folded sums (``make_affine``, ``unfold``): each ``act + w*x`` of a neuron is one
  object, not two, until something asks for its ``*`` node (``_prev``, ``_fn``,
  ``topological_order`` unfold it first: the operators' node, with its number and
  grad); ``backward()`` reads it as it is, with the operators' grads to the bit (its
  product's share pushed at the sum's turn, which is where the plain order runs the
  ``*`` node: just after the sum). Half the objects a step makes, so half the work of
  the cyclic collector, which walks the live graphs (and whatever else the program
  keeps, a notebook's imports) on each full collection.
* ``add`` and ``mul``: ``Value.__add__`` and ``__mul__`` (``_binary`` with ``ADD`` or
  ``MUL``), assigned in the class body: ``x + y`` and ``x * y`` of two Values in one
  call instead of four (operator, ``_binary``, the forward, ``_make``). A float operand
  becomes its constant leaf at once (``leaf``), for ``_coerce``'s check against the
  abstract ``Real`` and ``Value.__init__``.
* ``grad_mode.OPEN``, read before the context variable: each op asks its own thread's
  mode blocks only when some block is open somewhere (``if OPEN and blocks():``), a
  set's truth instead of a call.
* ``no_grad`` alone (``only_no_grad``): a neuron's sum and ``+``/``*`` of two Values
  make their plain leaf at once, as ``_make`` does under that mode, instead of the
  operators' four calls a node and a look at the mode in each.
* ``warm_up``: CPython 3.10 only, for nothing in the plain code (it changes no number):
  backward() run at import until 3.10 caches its attribute lookups.

Both ways, with the switch on or off, use what is here besides: ``PASS``, the backward
pass running (code run inside it, an op's rule or a signal handler, may read the graph
but not change what the pass reads), ``ONE_PASS``, and the unfolding of folded sums
built before (``unfold``, ``record``).

This module sits below the engine and imports nothing of it: it reads the six fields
of a node (``data``, ``grad``, ``_a``, ``_b``, ``_how``, ``_c``) and is handed the
``Value`` class where it builds nodes. It never touches the garbage collector's
settings.
"""

from __future__ import annotations

import sys
import threading

from . import grad_mode as _gm
from .checks import as_float
from .ops import ADD, FLOAT, MUL, Op, contributions


# ---------------------------------------------------------------------------------------
# backward() for speed: its sort, then its loop
# ---------------------------------------------------------------------------------------


#: one backward pass, or one unfolding, at a time: two threads' passes over shared nodes
#: would reset and sum each other's grads, and a pass must not see a folded sum half
#: unfolded
ONE_PASS = threading.RLock()


def backward(root, grad):
    """``root.backward(grad)``: the plain loop's sums in its order (``engine.py``), on the
    nodes' grads: ``interior_order`` (phase 1), the seed, then ``push_grads`` (phase 2)."""
    if type(grad) is not float:
        grad = as_float(grad, "backward's grad")
    with ONE_PASS, PASS:  # one pass at a time; code run inside it may read the graph
        order = interior_order(root)
        root.grad += grad
        push_grads(reversed(order))


def interior_order(root):
    """``engine.topological_order(root)`` without its leaves, every node's grad set to 0.0:
    the one sort, written for speed (call it holding ``ONE_PASS``).

    The same depth-first search, giving the same order (a node's first input built,
    then its second, then the node), with three differences, each for speed. It reads a
    node's two input slots, ``_a`` and ``_b``, instead of calling ``inputs_of`` and
    making an iterator a node, and pushes both inputs at once, the second below the
    first (so the first is built first; an input reached again while the first is built
    is built there, and its older entry passed over). It goes over interior nodes only:
    a leaf passes nothing on, and its grad accumulates. And it keeps no set of placed
    nodes: a node's grad is set, as the node is placed, to a float object ``zero`` made
    for this pass (the reset this pass needs anyway), so ``grad is zero`` says "placed"
    without hashing the node (``ZERO_IS_FRESH``: no node holds that object before).

    A folded sum (``make_affine``) needs no case of its own: it holds ``act`` in ``_a``
    and ``x`` in ``_b``, so it is placed where the operators' ``act + w*x`` is, less its
    ``*`` node, which the plain order puts just before it; its ``w``, in ``_c``, is a
    leaf (a sum is folded only over a leaf ``w``, and a leaf cannot be given inputs
    afterwards: the ``_prev`` setter refuses)."""
    if root._a is None:
        return []
    if UNFOLDING:  # a folded sum left half unfolded by an interrupt: finish it first
        finish_unfolding()
    zero = _fresh_zero()
    order = []
    append = order.append
    stack = [root]
    push = stack.append
    pop = stack.pop
    while stack:
        v = stack[-1]
        a = v._a
        b = v._b
        if b is not None and b._a is not None and b.grad is not zero:
            push(b)  # an interior input not placed yet: the second below the first
            if a._a is not None and a.grad is not zero:
                push(a)
            continue
        if a._a is not None and a.grad is not zero:
            push(a)
            continue
        pop()  # every input placed: place v, unless an older entry of it was
        if v.grad is not zero:
            v.grad = zero
            append(v)
    return order


def _fresh_zero(one=1.0):
    """A float equal to 0.0 that no node holds yet: CPython makes a new float object
    at every subtraction (a float's identity is its object)."""
    return one - one


#: whether ``_fresh_zero`` gives a new object each time (CPython: yes). An interpreter
#: where equal floats are one object would not: ``backward()`` then runs the plain loop.
ZERO_IS_FRESH = _fresh_zero() is not _fresh_zero()


# ---------------------------------------------------------------------------------------
# backward()'s phase 2: the chain rule at every node, on floats
# ---------------------------------------------------------------------------------------


def push_grads(nodes):
    """``v._backward()`` for every node of ``nodes`` in turn (interior nodes, users first),
    in one loop: each input's grad += the node's contribution to it.

    ``+`` and ``*`` (nine nodes in ten) are their rules in the op table written out; every
    other op's rule is called through the one dispatcher, ``ops.contributions``."""
    for v in nodes:
        how = v._how
        if how is MUL:  # MUL's rule: (g * y, g * x)
            a = v._a
            b = v._b
            g = v.grad
            a.grad += g * b.data
            b.grad += g * a.data
        elif how is ADD:  # ADD's rule: (g, g)
            g = v.grad
            v._a.grad += g
            v._b.grad += g
        elif type(how) is float:  # a folded act + w*x (x in _b, w in _c): ADD's rule,
            g = v.grad            # then MUL's with the product's grad, g (its one user's)
            v._a.grad += g
            b = v._b
            w = v._c
            w.grad += g * b.data
            b.grad += g * w.data
        else:  # any other op: its rule through the one dispatcher
            fn, arg = (how, None) if type(how) is Op else (how.fn, how.arg)
            a = v._a
            b = v._b
            if b is None:
                a.grad += contributions(fn, FLOAT, v.grad, (a.data,), v.data, arg)[0]
            else:
                da, db = contributions(fn, FLOAT, v.grad, (a.data, b.data), v.data, arg)
                a.grad += da
                b.grad += db


# ---------------------------------------------------------------------------------------
# A neuron's sum in one call
# ---------------------------------------------------------------------------------------


#: a token for each mode block open, in any thread or task: empty, no mode is on anywhere
_OPEN = _gm.OPEN


def only_no_grad(blocks):
    """Whether the one mode on here is ``no_grad`` (``detect_anomaly`` off): a node is
    then a plain leaf holding its number (``engine._make``)."""
    return blocks() and _gm.current() == _gm.NO_GRAD


def make_affine(Value, blocks):
    """``affine(b, ws, xs)`` for nodes of class ``Value``: ``b + ws[0]*xs[0] + ...``.

    The nodes the operators build, in their order (a ``*`` node, then a ``+`` node, per
    term), with their numbers (``ADD.forward`` and ``MUL.forward``, written out). Terms
    that are not two Values or whose ``w`` is not a leaf, and any mode block open
    (``blocks()`` is not 0: ``no_grad``, ``detect_anomaly``, ``enable_grad``), take the
    operators themselves, except ``no_grad`` alone: the same sums in the same order, one
    leaf at the end."""
    node_class, modes = Value, blocks

    def affine(b, ws, xs):
        # locals: this loop builds most nodes of a network
        V, new, tp, mode = node_class, object.__new__, type, modes
        if _OPEN and mode() and only_no_grad(mode):
            return _plain_affine(V, b, ws, xs)
        act = b
        fast = tp(act) is V and not (_OPEN and mode())
        for w, x in zip(ws, xs):
            if fast and tp(w) is V and tp(x) is V and w._a is None:
                p = w.data * x.data
                if tp(p) is not float:  # numbers set by hand to ints: no folding
                    act = act + w * x
                    continue
                out = new(V)  # act + w*x folded: the product kept as its number p
                out.data = act.data + p
                out.grad = 0.0
                out._a = act
                out._b = x
                out._c = w  # a leaf: backward()'s phase 1 never needs to push it
                out._how = p
                act = out
            else:
                act = act + w * x
                # the operators may have run other code: look at the mode again
                fast = tp(act) is V and not (_OPEN and mode())
        return act

    return affine


def leaf(V, data):
    """A leaf of class ``V`` holding ``data`` (a float), made at once."""
    out = object.__new__(V)
    out.data = data
    out.grad = 0.0
    out._a = out._b = out._how = None
    return out


def _plain_affine(V, b, ws, xs):
    """``b + ws[0]*xs[0] + ...`` under ``no_grad`` alone: ``ADD.forward`` and
    ``MUL.forward`` written out over the numbers, term by term as the operators add them;
    a term that is not two Values (or a bias that is not a Value) takes the operators."""
    terms = iter(zip(ws, xs))
    if type(b) is not V:
        return _operators(b, terms)
    s = b.data
    for w, x in terms:
        if type(w) is V and type(x) is V:
            s = s + w.data * x.data
        else:
            return _operators(leaf(V, s) + w * x, terms)
    return leaf(V, s)


def _operators(act, terms):
    for w, x in terms:
        act = act + w * x
    return act


# ---------------------------------------------------------------------------------------
# + and * of two Values in one call
# ---------------------------------------------------------------------------------------


def use_class(Value, binary):
    """Make ``add`` and ``mul`` build nodes of class ``Value`` (the engine hands it over
    once the class is made) and leave what they do not write out to ``binary`` (the
    plain path, ``engine._binary``)."""
    global _Node, _binary
    _Node, _binary = Value, binary


_Node = _binary = None  # set by use_class
_new = object.__new__
_blocks = _gm.blocks  # 0 unless a mode block is open here


def add(self, other):
    """``Value.__add__`` (``engine._binary(ADD, ...)``), written out: a module function
    reading its globals, not a closure (a closure copies its cells into every call's
    frame)."""
    if type(other) is not _Node:
        if type(other) is not float:
            return _binary(ADD, self, other)
        other = leaf(_Node, other)  # a constant: ``_coerce``'s leaf
    if _OPEN and _blocks():
        if only_no_grad(_blocks):
            return leaf(_Node, self.data + other.data)
        return _binary(ADD, self, other)
    out = _new(_Node)
    out.data = self.data + other.data
    out.grad = 0.0
    out._a = self
    out._b = other
    out._how = ADD
    return out


def mul(self, other):
    """``Value.__mul__`` (``engine._binary(MUL, ...)``), written out as ``add`` is."""
    if type(other) is not _Node:
        if type(other) is not float:
            return _binary(MUL, self, other)
        other = leaf(_Node, other)  # a constant: ``_coerce``'s leaf
    if _OPEN and _blocks():
        if only_no_grad(_blocks):
            return leaf(_Node, self.data * other.data)
        return _binary(MUL, self, other)
    out = _new(_Node)
    out.data = self.data * other.data
    out.grad = 0.0
    out._a = self
    out._b = other
    out._how = MUL
    return out


# ---------------------------------------------------------------------------------------
# Folded sums: a neuron's act + w*x as one object until its product is asked for
# ---------------------------------------------------------------------------------------


def unfold(v):
    """Make the folded sum ``v`` the ``+`` node the operators build; returns its op.

    A folded sum (``make_affine``) holds ``act`` in ``_a``, ``x`` in ``_b``, ``w`` (a
    leaf) in ``_c`` and the product's number in ``_how`` (a float: how to tell it). Its
    ``*`` node is made here, once, with that number and the grad a backward pass gave it
    (its one user's, added to its zero), and ``v`` becomes ``act + (w*x)``. Everything
    that reads a node's inputs or op by name (``_prev``, ``_fn``, ``topological_order``,
    and so engine.py's own loop) calls this first; only ``backward`` here (its sort and
    its loop) reads a folded sum as it is.

    Read during a backward pass (a rule, a trace function, a signal handler, a debugger
    stopped in the pass), ``v`` stays folded until the pass ends, since the pass reads it
    folded: its readers see the ``*`` node it will have (``unfolded_inputs``), and the
    pass puts it in place when it ends (``PASS``), with its grad."""
    with ONE_PASS:
        if v in UNFOLDING:  # an unfolding cut short (an interrupt): finish it
            _finish(v)
        # (``running()`` may finish a pass an interrupt cut short, unfolding v)
        if type(v._how) is float and PASS.frame is not None and PASS.running():
            if v not in DEFERRED:  # the pass reads v folded: its product is shown now
                DEFERRED[v] = _product_of(v)  # and put in place when the pass ends
            return ADD
        if type(v._how) is float:
            UNFOLDING[v] = _product_of(v)  # cut short anywhere, the next reader finishes
            _finish(v)
        return v._how


def unfolded_inputs(v):
    """``(a, b)``, the inputs of the folded sum ``v`` as its readers see them: ``act`` and
    its ``*`` node (made now; put in place now, or when the pass reading it ends)."""
    with ONE_PASS:
        unfold(v)
        return v._a, DEFERRED.get(v, v._b)


def _product_of(v):
    """The ``*`` node of the folded sum ``v``: its number, and the grad of its one user."""
    g = v.grad
    m = object.__new__(type(v))
    m.data = v._how
    m.grad = 0.0 + g if type(g) is float else 0.0
    m._a = v._c
    m._b = v._b
    m._how = MUL
    return m


#: folded sums being unfolded, each with its product node: the three stores that make
#: ``v`` the ``+`` node are not one step, and an interrupt (Ctrl-C) can land between
#: them; whatever reads ``v`` next (``unfold``, ``interior_order``) finishes the job
UNFOLDING = {}

#: folded sums read during the backward pass running, each with the product node its
#: readers were shown: unfolded when the pass ends
DEFERRED = {}


def _finish(v):
    v._b = UNFOLDING[v]
    v._c = None
    v._how = ADD
    del UNFOLDING[v]


def finish_unfolding():
    """Finish every unfolding an interrupt cut short (a backward pass starts so)."""
    with ONE_PASS:
        for v in list(UNFOLDING):
            _finish(v)


class _Pass:
    """The backward pass running, entered inside ``ONE_PASS`` (so at most one, in the
    thread holding that lock): ``with ONE_PASS, PASS:``.

    While it runs, whatever else runs in its thread (a ``define_op`` rule, a trace
    function, a signal handler, a ``gc`` callback, a finalizer) may read the graph but
    not change what the pass reads: folded sums read then are unfolded when it ends
    (``DEFERRED``), a node's label, op or inputs cannot be set on a folded sum, and a
    second ``backward()`` is refused (its first phase would reset the grads this one is
    summing). ``frame`` is the frame of the function running the pass: one that is no
    longer on the stack is a pass an interrupt ended before its end ran (Ctrl-C as
    ``__exit__`` starts), finished by whoever asks next."""

    __slots__ = ("frame",)

    def __init__(self):
        self.frame = None

    def running(self):
        """Whether a pass runs in this thread (call it holding ``ONE_PASS``)."""
        if self.frame is None:
            return False
        f = sys._getframe(1)
        while f is not None:
            if f is self.frame:
                return True
            f = f.f_back
        self.__exit__()  # its frame is gone: a pass cut short as it ended
        return False

    def __enter__(self):
        if self.frame is not None and self.running():
            raise RuntimeError(
                "backward() was called while another backward pass runs in this thread "
                "(from an op's rule, a trace function, a signal handler, a gc callback or "
                "a finalizer): the two passes would reset each other's grads. Call it "
                "after the pass ends, or use micrograd.autodiff.grad, which leaves .grad "
                "alone")
        self.frame = sys._getframe(1)

    def __exit__(self, *exc):
        # the frame is let go last: cut short before that, the pass is still seen as one
        # whose end has not run (``running``), and that end runs again
        if DEFERRED:
            with ONE_PASS:
                for v, m in list(DEFERRED.items()):
                    g = v.grad  # the pass's grad of the sum: its product's too
                    m.grad = 0.0 + g if type(g) is float else 0.0
                    UNFOLDING[v] = m
                    del DEFERRED[v]
                    _finish(v)
        self.frame = None
        return False


PASS = _Pass()


def record(v):
    """``v._how`` as every reader of a node by name sees it: a folded sum unfolded."""
    how = v._how
    return unfold(v) if type(how) is float else how


def record_to_change(v, inputs=False):
    """``record(v)`` for a setter (a label, an op label, ``inputs``): refused while a
    backward pass runs in this thread, for inputs on any node (the pass would push grads
    along the old ones or the new), for the rest on a folded sum (read folded)."""
    how = v._how
    if type(how) is not float and not inputs:
        return how
    check_no_pass("a node's inputs" if inputs else "a node of a neuron's sum (label, op)")
    return unfold(v) if type(how) is float else how


def check_no_pass(what):
    """Refuse a change to ``what`` while a backward pass runs in this thread."""
    if PASS.frame is not None:
        with ONE_PASS:
            if PASS.running():
                raise RuntimeError(f"{what} cannot be changed while backward() runs in "
                                   "this thread: change it before or after the pass")


def reduce_unfolded(v, protocol):
    """``Value.__reduce_ex__``, what ``copy.copy`` and ``copy.deepcopy`` call: a folded
    sum is unfolded first (an unfolding cut short is finished), so a copy is one of the
    operators' node: a shallow copy shares the original's ``*`` node, a deep copy carries
    a copy of it, each with its number and grad. Copied folded, a shallow copy would make
    a ``*`` node of its own, and the two folded sums would each push a product's share to
    ``w`` and ``x``: other sums, rounded otherwise, than the operators' one. Copied while
    a backward pass reads it folded, the copy is the ``+`` node its readers see."""
    with ONE_PASS:
        record(v)
        reduced = object.__reduce_ex__(v, protocol)
        if v in DEFERRED:  # the slots as they will be once the pass ends
            fields = reduced[2][1]
            fields.update(_b=DEFERRED[v], _how=ADD)
            fields.pop("_c", None)
        return reduced


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
    3.11 on a function specialises itself while it runs, and this does nothing. It
    leaves nothing behind (the graph is freed on return)."""
    if sys.version_info >= (3, 11):
        return
    a = Value(1.0)
    root = a * a + a
    for _ in range(runs):
        root.backward()

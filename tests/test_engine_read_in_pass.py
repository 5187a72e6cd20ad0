"""The graph read while ``backward()`` runs: whatever runs inside a pass (an op's rule, a
trace function or a debugger, a signal handler, a ``gc`` callback, a finalizer) may read
the graph, by any door (``topological_order``, ``_prev``, a drawing, ``repr``,
``.label``, a copy), and the pass gives the grads it gives with nobody looking, to the
bit, on folded sums (a network's neurons) and on the operators' nodes alike. What would
change the pass's graph is refused with a clear error: a second pass in the same thread,
a label or inputs set on a folded sum."""

import copy
import gc
import random
import signal
import sys
import weakref

import pytest

from micrograd import engine, engine_fast
from micrograd.engine import topological_order
from micrograd.engine import Value, affine, define_op, detect_anomaly
from micrograd.nn import ACTIVATIONS, MLP
from micrograd.viz.digraph import draw_dot

from line_interrupts import interrupt_at_line

#: what holds only where folded sums are built: with the speed switch on
folded_sums = pytest.mark.skipif(not engine.SPEED, reason="folded sums are built with the "
                                 "speed switch on (MICROGRAD_SPEED)")


def operators_sum(b, ws, xs):
    act = b
    for w, x in zip(ws, xs):
        act = act + w * x
    return act


# -- the ways in: each runs ``hook()`` inside the pass, at the node ``peek`` marks ------

HOOK = [None]  # what the marked nodes' rule runs, or None
_BUSY = []  # the hook running: a drawing runs the rule again (its local derivative)


def _peek_rule(m, g, x, out):
    if HOOK[0] is not None and not _BUSY:
        _BUSY.append(True)
        try:
            HOOK[0]()
        finally:
            _BUSY.clear()
    return (g,)


peek = define_op("pass_reader_peek", lambda x: x, _peek_rule)


def backward_with(hook, root):
    """``root.backward()`` with ``hook`` run at every marked node (``peek``)."""
    HOOK[0] = hook
    try:
        root.backward()
    finally:
        HOOK[0] = None


def by_rule(read):
    return read


def by_signal(read):
    def handler(signum, frame):
        read()

    def hook():
        old = signal.signal(signal.SIGUSR1, handler)
        try:
            signal.raise_signal(signal.SIGUSR1)  # the handler runs at once, in the pass
        finally:
            signal.signal(signal.SIGUSR1, old)
    return hook


def by_gc_callback(read):
    def callback(phase, info):
        if phase == "stop":
            read()

    def hook():
        gc.callbacks.append(callback)
        try:
            gc.collect()
        finally:
            gc.callbacks.remove(callback)
    return hook


def by_finalizer(read):
    class Thing:
        pass

    def hook():
        thing = Thing()
        weakref.finalize(thing, read)
        del thing  # the finalizer runs now, inside the pass
    return hook


def by_trace_function(read):
    """A trace function (what a debugger is) reading the graph at lines of the pass's
    own loops, not only at the marked nodes."""
    loops = {engine_fast.push_grads.__code__, Value.backward.__code__}  # fast, plain
    count = [0]

    def tracer(frame, event, arg):
        if frame.f_code not in loops:
            return None

        def line(f, e, a):
            if e == "line":
                count[0] += 1
                if count[0] in (40, 400, 2000):  # early, middle, late
                    read()
            return line
        return line

    def hook():  # the first marked node turns tracing on for the rest of the pass, as
        if sys.gettrace() is None:  # a debugger's breakpoint does: its frame traced too
            f = sys._getframe()
            while f is not None and f.f_code not in loops:
                f = f.f_back
            f.f_trace = tracer(f, "call", None)
            sys.settrace(tracer)
    return hook


WAYS_IN = [by_rule, by_signal, by_gc_callback, by_finalizer, by_trace_function]


# -- what a reader reads ---------------------------------------------------------------


def read_order(root):
    topological_order(root)


def read_prev(root):  # a debugger's walk down ``_prev``
    stack, seen = [root], set()
    while stack:
        v = stack.pop()
        if v not in seen:
            seen.add(v)
            stack.extend(v._prev)


def read_drawing(root):
    draw_dot(root, format="dot")


def read_names(root):  # repr, label, op and op function of every node
    for v in topological_order(root):
        repr(v), v.label, v._op, v._fn, v._arg


def read_copies(root):
    for v in topological_order(root):
        copy.copy(v)


READERS = [read_order, read_prev, read_drawing, read_names, read_copies]


# -- the network, with marked nodes in the middle of the pass and at its root -------------


def network_loss(model, rows, folded):
    """An MLP's hinge loss over ``rows``; the first layer's outputs and the loss marked
    (``peek``), so the hook runs before, between and after the folded sums' turns."""
    xs = [[Value(x) for x in row] for row in rows]
    scores = []
    for row in xs:
        h = row
        for depth, layer in enumerate(model.layers):
            outs = []
            for nrn in layer.neurons:
                act = affine(nrn.b, nrn.w, h) if folded else operators_sum(nrn.b, nrn.w, h)
                f = ACTIVATIONS[nrn.activation]
                act = act if f is None else f(act)
                outs.append(peek(act) if depth == 0 else act)
            h = outs
        scores.append(h[0])
    loss = sum((1 + -s * (1.0 if i % 2 else -1.0)).relu() for i, s in enumerate(scores))
    return peek(loss), [x for row in xs for x in row]


def rows_of(seed, n=2):
    rng = random.Random(seed)
    return [[rng.uniform(-2, 2) for _ in range(3)] for _ in range(n)]


def snapshot(root, model, xs):
    """Every grad the pass gave (leaves and interior nodes) and the graph's shape, read
    after the pass."""
    return ([p.grad for p in model.parameters()], [x.grad for x in xs],
            [(v._op, v.data, v.grad) for v in topological_order(root)])


def run(folded, hook, seed=3, plain=False):
    model = MLP(3, [8, 8, 1], seed=seed)
    loss, xs = network_loss(model, rows_of(seed), folded)
    HOOK[0] = hook(loss) if hook else None
    try:
        if plain:  # engine.py's own loop, which detect_anomaly() runs with speed on too
            with detect_anomaly():
                loss.backward()
        else:
            loss.backward()
    finally:
        HOOK[0] = None
        sys.settrace(None)
    return snapshot(loss, model, xs)


@pytest.mark.parametrize("plain", [False, True], ids=["backward", "plain loop"])
@pytest.mark.parametrize("folded", [True, False], ids=["folded", "operators"])
@pytest.mark.parametrize("reader", READERS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("way_in", WAYS_IN, ids=lambda f: f.__name__)
def test_the_graph_read_during_a_pass_leaves_its_grads_as_they_are(way_in, reader, folded,
                                                                   plain):
    want = run(folded, None)
    reads = [0]

    def hook(loss):
        way = way_in(lambda: (reads.__setitem__(0, reads[0] + 1), reader(loss)))
        calls = [0]

        def at_some_marks():  # the root's mark (first), one in the middle, the last one
            calls[0] += 1
            if calls[0] in (1, 9, 17):
                way()
        return at_some_marks

    got = run(folded, hook, plain=plain)
    assert reads[0] > 0  # the reader did run inside the pass
    assert got[0] == want[0]  # parameters
    assert got[1] == want[1]  # inputs
    assert got[2] == want[2]  # every node, its number and its grad, interior ones too
    assert not engine_fast.DEFERRED and engine_fast.PASS.frame is None


@folded_sums
def test_a_folded_sum_read_in_a_pass_shows_the_product_it_has_after_the_pass():
    w, x, b = Value(3.0), Value(2.0), Value(0.5)
    seen = []

    def read():
        s = out._prev[0]._prev[0]  # the folded sum b + w*x, under tanh and peek
        seen.append((s._op, s._prev, s._prev[1]._prev, s._prev[1].data, copy.copy(s)))

    out = peek(affine(b, [w], [x]).tanh())
    backward_with(read, out)
    op, inputs, product_inputs, product, copied = seen[0]
    s = out._prev[0]._prev[0]
    assert (op, inputs[0], product_inputs, product) == ("+", b, (w, x), 6.0)
    assert s._prev[1] is inputs[1]  # the product shown is the one put in place
    assert copied._prev == s._prev and copied._op == "+"
    g = 1 - out.data ** 2
    assert (s.grad, s._prev[1].grad, w.grad, x.grad) == (g, g, g * 2.0, g * 3.0)


def outer_backward(loss, plain):
    """``loss.backward()``; ``plain``: the engine's own loop (under ``detect_anomaly()``,
    which runs it with speed on too)."""
    if plain:
        with detect_anomaly():
            loss.backward()
    else:
        loss.backward()


@pytest.mark.parametrize("plain", [False, True], ids=["backward", "plain loop"])
def test_backward_inside_a_pass_is_refused_and_the_next_pass_is_right(plain):
    model = MLP(3, [4, 1], seed=1)
    loss, _ = network_loss(model, rows_of(1, 2), folded=True)
    loss.backward()
    want = [p.grad for p in model.parameters()]
    for p in model.parameters():
        p.grad = 0.0
    for inner in (lambda: loss.backward(), lambda: Value(1.0).tanh().backward(),
                  lambda: loss.backward(create_graph=True)):
        HOOK[0] = inner
        try:
            with pytest.raises(RuntimeError, match="another backward pass runs in this thread"):
                outer_backward(loss, plain)
        finally:
            HOOK[0] = None
        assert engine_fast.PASS.frame is None
    for p in model.parameters():
        p.grad = 0.0
    loss.backward()
    assert [p.grad for p in model.parameters()] == want


@folded_sums
def test_a_folded_sum_cannot_be_relabelled_during_a_pass_but_any_other_node_can():
    model = MLP(3, [4, 1], seed=2)
    loss, _ = network_loss(model, rows_of(2, 2), folded=True)
    folded_sum, stack = None, [loss]
    while folded_sum is None:  # a folded sum, found without reading it by name
        v = stack.pop()
        if type(v._how) is float:
            folded_sum = v
        stack.extend(p for p in (v._a, v._b) if p is not None)
    other = loss._prev[0]
    calls, errors = [0], []

    def rename():
        calls[0] += 1
        other.label = "the loss before peek"  # an op's node: fine
        for change in (lambda: setattr(folded_sum, "label", "s"),
                       lambda: setattr(folded_sum, "_op", "plus"),
                       lambda: setattr(folded_sum, "_prev", ())):
            try:
                change()
            except RuntimeError as e:
                errors.append(str(e))

    backward_with(rename, loss)
    assert calls[0] > 1 and len(errors) == 3 * calls[0]
    assert all("cannot be changed while backward() runs in this thread" in e
               for e in errors)
    assert other.label == "the loss before peek"
    folded_sum.label = "s"  # after the pass: the sum unfolds and takes its label
    assert (folded_sum.label, folded_sum._op, type(folded_sum._how) is float) == (
        "s", "+", False)


@folded_sums
def test_an_interrupt_as_a_pass_ends_leaves_the_same_grads():
    """The pass unfolds the sums read during it as it ends: a KeyboardInterrupt at each
    line of that in turn; whatever reads the graph next finishes the job."""
    import inspect

    code = engine_fast._Pass.__exit__.__code__
    lines, first = inspect.getsourcelines(engine_fast._Pass.__exit__)
    with_line = first + next(i for i, t in enumerate(lines) if "with ONE_PASS:" in t)

    def make():
        b, w, x = Value(0.5), Value(3.0), Value(2.0)
        return peek(affine(b, [w], [x]).tanh()), w, x

    ref, rw, rx = make()
    ref.backward()
    want = snapshot_small(ref)
    interrupted = 0
    for n in range(1, 40):
        out, w, x = make()
        tracer, seen = interrupt_at_line((code,), n, with_line)
        HOOK[0] = lambda out=out: topological_order(out)
        sys.settrace(tracer)
        try:
            out.backward()
        except KeyboardInterrupt:
            interrupted += 1
        finally:
            sys.settrace(None)
            HOOK[0] = None
        assert (w.grad, x.grad) == (rw.grad, rx.grad), n
        assert snapshot_small(out) == want, n
        assert not engine_fast.PASS.running()  # a pass cut short as it ended is over
        if seen[0] < n:
            break
    assert interrupted >= 3
    assert not engine_fast.DEFERRED and not engine_fast.UNFOLDING


def snapshot_small(root):
    return [(v._op, v.data, v.grad) for v in topological_order(root)]


@pytest.mark.parametrize("plain_loop", [False, True], ids=["backward", "plain loop"])
def test_zero_grad_or_new_inputs_during_a_pass_are_refused_on_any_node(plain_loop):
    """Either would change what the pass sums: zero_grad() the grads it has summed so
    far, new inputs where it pushes them (on the operators' nodes as on folded sums)."""
    for folded in (True, False):
        model = MLP(3, [4, 1], seed=4)
        loss, _ = network_loss(model, rows_of(4, 2), folded)
        loss.backward()
        want = [p.grad for p in model.parameters()]
        for p in model.parameters():
            p.grad = 0.0
        plain = loss._prev[0]._prev[0]  # the relu sum under the root's peek: an op node
        errors = []

        def change(plain=plain, loss=loss, errors=errors):
            for do in (loss.zero_grad, lambda: setattr(plain, "_prev", ())):
                try:
                    do()
                except RuntimeError as err:
                    errors.append(str(err))

        HOOK[0] = change
        try:
            outer_backward(loss, plain_loop)
        finally:
            HOOK[0] = None
        assert len(errors) >= 2 and all("while backward() runs in this thread" in e
                                        for e in errors), errors
        assert [p.grad for p in model.parameters()] == want, folded
        loss.zero_grad()  # after the pass: as ever
        assert all(p.grad == 0.0 for p in model.parameters())

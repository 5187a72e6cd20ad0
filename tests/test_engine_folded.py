"""A neuron's sum is built folded (``engine_fast.make_affine``, with the speed switch on):
each ``act + w*x`` is one object until something asks for its ``*`` node. What a user can
see is the operators' graph, number for number and bit for bit, also where a node feeds
several terms of one sum; what folding buys is one tracked object a term instead of
two."""

import gc
import random
import threading

import pytest

from micrograd import engine, ops
from micrograd.engine import topological_order
from micrograd.engine import Value, affine, detect_anomaly
from micrograd.nn import ACTIVATIONS, MLP, Neuron

from line_interrupts import interrupt_at_line

pytestmark = pytest.mark.skipif(not engine.SPEED, reason="folded sums are built with the "
                                "speed switch on (MICROGRAD_SPEED)")


def operators_sum(b, ws, xs):
    """The lecture's neuron: ``act = act + wi * xi``, node after node."""
    act = b
    for w, x in zip(ws, xs):
        act = act + w * x
    return act


def twin_networks(seed=3, n=6):
    """The same MLP twice and the same inputs twice: one built by ``nn`` (folded), one by
    the operators, as micrograd's ``Neuron`` writes it."""
    rng = random.Random(seed)
    folded = MLP(3, [8, 8, 1], seed=seed)
    plain = MLP(3, [8, 8, 1], seed=seed)
    rows = [[rng.uniform(-2, 2) for _ in range(3)] for _ in range(n)]
    return folded, plain, rows


def loss_of(model, rows, by_operators):
    xs = [[Value(x) for x in row] for row in rows]
    scores = []
    for row in xs:
        h = row
        for layer in model.layers:
            outs = []
            for nrn in layer.neurons:
                act = (operators_sum(nrn.b, nrn.w, h) if by_operators else affine(nrn.b, nrn.w, h))
                f = ACTIVATIONS[nrn.activation]  # None for a linear neuron
                outs.append(act if f is None else f(act))
            h = outs
        scores.append(h[0])
    loss = sum((1 + -s * (1.0 if i % 2 else -1.0)).relu() for i, s in enumerate(scores))
    return loss, [x for row in xs for x in row]


def test_backward_through_folded_sums_gives_the_operators_numbers_bit_for_bit():
    folded, plain, rows = twin_networks()
    lf, xf = loss_of(folded, rows, by_operators=False)
    lp, xp = loss_of(plain, rows, by_operators=True)
    assert lf.data == lp.data
    lf.backward()  # before anything unfolds
    lp.backward()
    assert [p.grad for p in folded.parameters()] == [p.grad for p in plain.parameters()]
    assert [x.grad for x in xf] == [x.grad for x in xp]
    # unfolded afterwards: the same graph, node for node, interior grads included
    of, op_ = topological_order(lf), topological_order(lp)
    assert len(of) == len(op_)
    assert [(v._op, v.data, v.grad) for v in of] == [(v._op, v.data, v.grad) for v in op_]


def test_a_term_is_one_tracked_object_until_its_product_is_asked_for():
    n = Neuron(16, activation="linear", seed=1)
    xs = [Value(float(i)) for i in range(16)]
    gc.collect()
    before = sum(type(o) is Value for o in gc.get_objects())
    out = n(xs)
    made = sum(type(o) is Value for o in gc.get_objects()) - before
    assert made == 16  # the operators make 32: a * node and a + node a term
    assert len(topological_order(out)) == 16 + 16 + 1 + 32  # leaves, b, then 32 nodes
    assert sum(type(o) is Value for o in gc.get_objects()) - before == 32


def test_a_product_keeps_the_number_it_had_when_the_sum_was_built():
    n = Neuron(2, activation="linear", seed=0)
    n.w = [Value(3.0), Value(5.0)]
    n.b = Value(0.5)
    out = n([Value(2.0), Value(7.0)])
    n.w[0].data = 100.0  # an optimizer step before anyone drew the graph
    n.b.data = -1.0
    first, product = out._prev
    assert (out.data, product.data, product._op, product._prev[1].data) == (
        41.5, 35.0, "*", 7.0)
    assert (first.data, first._prev[1].data, first._prev[1]._prev[0] is n.w[0]) == (
        6.5, 6.0, True)


def test_reading_a_folded_sum_by_name_unfolds_it_into_the_operators_nodes():
    a, b = Value(2.0), Value(-3.0)
    w, x = Value(0.5), Value(4.0)
    for read in ("_prev", "_fn", "_op", "label", "_arg"):
        out = Neuron(1, activation="linear", seed=0)
        out.b, out.w = a, [w]
        v = out([x])
        getattr(v, read)
        assert v._fn is ops.ADD and v._prev[0] is a
        m = v._prev[1]
        assert (m._fn, m._prev, m.data) == (ops.MUL, (w, x), 2.0)
    v.label = "sum"
    v._op = "plus"
    assert (v.label, v._op, v._fn, v.data) == ("sum", "plus", ops.ADD, 4.0)
    del b


def test_a_product_made_after_backward_carries_its_grad():
    n = Neuron(2, activation="linear", seed=0)
    xs = [Value(1.5), Value(-2.0)]
    out = n(xs) * 3.0
    out.backward()
    s = out._prev[0]
    assert s._prev[1].grad == s.grad == 3.0
    with detect_anomaly():  # the sweep over the unfolded graph: the same numbers
        grads = [p.grad for p in n.parameters() + xs]
        for p in n.parameters() + xs:
            p.grad = 0.0
        out.backward()
    assert [p.grad for p in n.parameters() + xs] == grads


def test_weights_made_by_ops_take_the_operators_and_get_their_grads():
    # weights computed from other Values (shared, or scaled): backward() must reach
    # them and what they were made from, in the operators' order, bit for bit
    rng = random.Random(5)
    for trial in range(20):
        base = [Value(rng.uniform(-1, 1)) for _ in range(3)]
        ws = [base[0] * 2.0, base[1], (base[2] * base[0]).tanh()]
        hs = [Value(rng.uniform(-2, 2)) for _ in range(3)]
        hs = [h.tanh() for h in hs[:2]] + [hs[2]]
        b = Value(0.25)
        roots = []
        for build in (affine, operators_sum):
            for v in [*base, *hs, b]:
                v.grad = 0.0
            out = (build(b, ws, hs) * hs[0]).tanh()
            out.backward()
            roots.append([v.grad for v in [*base, *hs, b, *ws]])
        assert roots[0] == roots[1], trial


def test_a_node_feeding_several_terms_of_one_sum_gets_the_operators_sums_bit_for_bit():
    # ``w1*x + w2*x + w3*x``: the folded sum adds each product's share to x at the sum's
    # turn; the operators' graph at its ``*`` node's turn, which the one sort puts just
    # after the sum's (a node's first input is built first, so its ``*`` node, the last
    # input, just before it): the same shares added in the same order, to the last bit
    rng = random.Random(11)
    for trial in range(200):
        n = rng.randint(3, 6)
        x = Value(rng.uniform(-2, 2))
        ws = [Value(rng.uniform(-1, 1)) for _ in range(n)]
        grads = []
        for build in (affine, operators_sum):
            for v in [x, *ws]:
                v.grad = 0.0
            out = build(Value(0.5), ws, [x] * n).tanh()
            out.backward()
            grads.append([v.grad for v in [x, *ws]])
        assert grads[0] == grads[1], trial


def test_a_leaf_cannot_be_given_inputs_afterwards():
    w, u = Value(0.5), Value(2.0)
    out = affine(Value(0.0), [w], [Value(3.0)])
    with pytest.raises(ValueError, match="leaf Value cannot be given inputs"):
        w._prev = (u,)
    out.backward()
    assert (w.grad, u.grad, w._prev) == (3.0, 0.0, ())
    cut = u * w
    cut._prev = ()  # an interior node may be cut from its inputs: a leaf from then on
    with pytest.raises(ValueError, match="leaf Value cannot be given inputs"):
        cut._prev = (u, w)


def test_numbers_set_by_hand_to_ints_take_the_operators():
    n = Neuron(2, activation="linear", seed=0)
    n.w[0].data = 2  # an int: the product is an int, never taken for a folded sum
    xs = [Value(1.0), Value(3.0)]
    xs[0].data = 4
    out = n(xs)
    out.backward()
    assert out.data == n.b.data + 8 + n.w[1].data * 3.0
    assert (n.w[0].grad, xs[0].grad) == (4, 2)


def test_threads_unfolding_and_running_backward_on_one_graph():
    folded, _, rows = twin_networks(seed=5, n=4)
    loss, _ = loss_of(folded, rows, by_operators=False)
    loss.backward()
    want = [p.grad for p in folded.parameters()]
    errors = []

    def backward_again():
        try:
            for _ in range(5):
                for p in folded.parameters():
                    p.grad = 0.0
                loss.backward()
        except Exception as e:  # noqa: BLE001 - handed back to the test
            errors.append(e)

    def draw():
        try:
            topological_order(loss)
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    ts = [threading.Thread(target=backward_again), threading.Thread(target=draw)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(60)
    assert not errors
    for p in folded.parameters():
        p.grad = 0.0
    loss.backward()
    assert [p.grad for p in folded.parameters()] == want


def test_an_interrupt_anywhere_in_an_unfolding_leaves_the_same_grads():
    """Ctrl-C can land between the stores that turn a folded sum into its + node (a
    drawing of a big graph in Jupyter reads every node): whatever reads the node next,
    or the next backward pass, finishes the job. A KeyboardInterrupt is raised at each
    line of the unfolding in turn; the grads and the product node are the operators'."""
    import sys

    from micrograd import engine_fast

    import inspect
    import threading

    codes = (engine_fast.unfold.__code__, engine_fast._finish.__code__)
    # not on the `with ONE_PASS:` line: an interrupt there, as the block is left, skips
    # the lock's release in any Python code (the lock's own matter, not the unfolding's)
    lines, first = inspect.getsourcelines(engine_fast.unfold)
    with_line = first + next(i for i, t in enumerate(lines) if "with ONE_PASS:" in t)

    def make():
        b, w, x = Value(0.5), Value(3.0), Value(2.0)
        return affine(b, [w], [x]).tanh(), w, x

    ref, rw, rx = make()
    ref.backward()
    interrupted = 0
    for n in range(1, 60):
        out, w, x = make()
        tracer, seen = interrupt_at_line(codes, n, with_line)
        sys.settrace(tracer)
        try:
            _ = out._prev[0]._prev  # a reader unfolds the sum
        except KeyboardInterrupt:
            interrupted += 1
        finally:
            sys.settrace(None)
        out.backward()
        assert (w.grad, x.grad) == (rw.grad, rx.grad), n
        m = out._prev[0]._prev[1]
        assert m._op == "*" and [p.data for p in m._prev] == [3.0, 2.0], n
        if seen[0] < n:  # ran to its end without reaching the n-th line: every line done
            break
    assert interrupted >= 10 and not engine_fast.UNFOLDING
    free = []  # the lock is free for another thread again

    def take_and_give_back():
        got = engine_fast.ONE_PASS.acquire(timeout=5)
        free.append(got)
        if got:
            engine_fast.ONE_PASS.release()

    t = threading.Thread(target=take_and_give_back)
    t.start()
    t.join()
    assert free == [True]

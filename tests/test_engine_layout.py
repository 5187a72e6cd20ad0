"""The engine's compact node and its fast paths (``micrograd.engine_fast``), by what they
promise: memory per node, what a node carries beyond its op, backward's numbers equal to
the lecture's loop over the op table, a neuron's sum equal to the operators' graph, and
no change to the garbage collector."""

import gc
import math
import random
import subprocess
import sys
import threading
import tracemalloc

import pytest

from micrograd import engine, ops
from micrograd.chain_rule import sweep
from micrograd.engine import topological_order
from micrograd.engine import Value, no_grad
from micrograd.nn import Neuron


def random_graph(seed, n=400):
    """A graph with reused nodes, constants, hand-set labels and every kind of op."""
    rng = random.Random(seed)
    leaves = [Value(rng.uniform(-1, 1), label=f"x{i}") for i in range(6)]
    nodes = list(leaves)
    for i in range(n):
        x, y = rng.choice(nodes[-25:]), rng.choice(nodes)
        pick = rng.randrange(7)
        if pick == 0:
            v = x + y
        elif pick == 1:
            v = x * y
        elif pick == 2:
            v = (x * 0.5).tanh()
        elif pick == 3:
            v = (x * x + 1.0) ** rng.choice([0.5, -1, 2, 3.0])
        elif pick == 4:
            v = 2.0 * x - y / (y * y + 1.0)
        elif pick == 5:
            v = (x.abs() + 0.5) ** y.sigmoid()
        else:
            v = (1 + -x * y).relu()
        if rng.random() < 0.1:
            v.label = f"n{i}"
        nodes.append(v)
    return leaves, nodes[-1] + nodes[-2] * 0.3


def grads_by_the_table(root):
    """The chain rule by the book: the topological order, then every node's rule called
    through the op table's one dispatcher (``chain_rule.sweep``), into a table: no
    ``+`` or ``*`` written out, no grad field touched."""
    order = topological_order(root)
    grads = sweep(reversed(order), {root: 1.0})
    return [grads.get(v, 0.0) for v in order]


# ---- the node --------------------------------------------------------------------------


def test_a_node_is_one_small_object():
    a, b = Value(2.0), Value(3.0)
    assert (a * b)._fn is ops.MUL and (a + b)._fn is ops.ADD and a._fn is None
    # GC head and six fields (the sixth serves a neuron's folded sum): 80 bytes, the block
    # CPython's allocator gave five fields too (its blocks are multiples of 16 bytes)
    assert sys.getsizeof(a * b) <= sys.getsizeof(object()) + 16 + 6 * 8
    assert not hasattr(a * b, "__dict__")


def test_memory_per_node_is_its_object_and_its_number():
    x, c, d = Value(0.5), Value(1.0001), Value(0.001)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(20_000):
            x = x * c + d  # two nodes a round, each with a number of its own
        used = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    nodes = len(topological_order(x)) - 3
    assert nodes == 40_000
    # the node's 80 bytes and its float's 24, nothing more
    assert used / nodes <= 105, f"{used / nodes:.1f} bytes per node"


def test_power_nodes_keep_their_constant_and_their_own_label():
    a, b = Value(2.0), Value(3.0)
    p, q, r = a**2, b**2, a**2.0
    assert (p._fn, p._arg, q._arg, r._arg) == (ops.POWC, 2, 2, 2.0)
    assert type(p._arg) is int and type(r._arg) is float  # the exponent as given
    p.label = "p"
    assert (p.label, q.label, p._fn, p._arg, p._op) == ("p", "", ops.POWC, 2, "**2")
    p.label = ""
    assert (p.label, p._fn, p._arg, p._op) == ("", ops.POWC, 2, "**2")
    # zeros keep their sign, a nan stays a nan
    plus, minus = a**0.0, a**-0.0
    assert math.copysign(1.0, plus._arg) == 1.0 and math.copysign(1.0, minus._arg) == -1.0
    assert math.isnan((a**math.nan)._arg)
    c = (p * 3.0) ** 2
    c.backward()
    assert (c.data, a.grad) == (144.0, 2 * 12.0 * 3.0 * 2 * 2.0)  # a labelled power too


def test_labels_and_hand_set_op_labels_live_beside_the_op():
    a = Value(2.0, label="a")
    e = a * 3.0
    assert (a.label, a._fn, e.label) == ("a", None, "")
    e.label = "e"
    assert (e.label, e._fn, e._op, e._prev[0]) == ("e", ops.MUL, "*", a)
    e._op = "times"
    assert (e.label, e._fn, e._op) == ("e", ops.MUL, "times")
    e.label = None
    assert (e.label, e._op) == ("", "times")
    leaf = Value(1.0, (), "input")
    assert (leaf._op, leaf._fn, leaf._prev, leaf.label) == ("input", None, (), "")
    with pytest.raises(TypeError, match="label must be a str, got float"):
        e.label = 1.5
    assert e.label == ""
    e.backward()
    assert a.grad == 3.0  # a labelled node backpropagates like any other


def test_plain_numbers_on_either_side_become_constant_leaves():
    x = Value(2.0)
    for v, const in ((1 + x, 1.0), (x + 1, 1.0), (3 * x, 3.0), (x * 3, 3.0)):
        assert v._prev[0] is x and v._prev[1]._fn is None and v._prev[1].data == const
    assert x.__radd__(Value(1.0)) is NotImplemented  # a Value + Value never lands here
    assert x.__rmul__(Value(1.0)) is NotImplemented
    with pytest.raises(TypeError, match="unsupported operand"):
        None + x
    with pytest.raises(TypeError, match="unsupported operand"):
        None * x


def test_a_node_has_no_weakref_slot():
    # NOTE: the price of five fields; a graph frees itself by reference counting
    with pytest.raises(TypeError, match="weak reference"):
        import weakref

        weakref.ref(Value(1.0))


# ---- backward's two phases -------------------------------------------------------------


@pytest.mark.parametrize("seed", range(4))
def test_backward_gives_the_tables_numbers_on_every_node(seed):
    # the same sums in the same order as the lecture's loop over the topological order,
    # rule by rule from the table: equal to the last bit, on every node
    leaves, root = random_graph(seed)
    root.backward()
    fast = [v.grad for v in topological_order(root)]
    assert grads_by_the_table(root) == fast
    # the lecture's own loop, one node's step at a time, gives them too
    order = topological_order(root)
    root.zero_grad()
    root.grad = 1.0
    for v in reversed(order):
        v._backward()
    assert [v.grad for v in order] == fast


@pytest.mark.parametrize("seed", range(2))
def test_stale_interior_grads_do_not_leak_into_a_pass(seed):
    leaves, root = random_graph(seed)
    root.backward()
    fresh = [v.grad for v in topological_order(root)]
    for v in topological_order(root):
        if v._fn is not None:
            v.grad = 7.0  # an earlier pass's numbers, or anything a user wrote there
        else:
            v.grad = 0.0
    root.backward()
    assert [v.grad for v in topological_order(root)] == fresh


@pytest.mark.parametrize("seed", range(3))
def test_backward_by_the_sweep_gives_the_same_numbers(seed):
    # detect_anomaly (and an interpreter whose float zeros are not new objects) take the
    # one reverse sweep over a table: the same sums in the same order as backward()
    leaves, root = random_graph(seed)
    root.backward()
    root.backward()  # leaves accumulate
    fast = [v.grad for v in topological_order(root)]
    root.zero_grad()
    with engine.detect_anomaly():
        root.backward()
        root.backward()
    assert [v.grad for v in topological_order(root)] == fast


def test_a_second_backward_resets_interior_grads_marked_by_the_first():
    a = Value(1.5)
    b = a * a
    c = b + b
    d = c * c
    d.backward()
    first = (a.grad, b.grad, c.grad)
    d.backward()  # the interior marks of the first pass must not look placed
    assert (b.grad, c.grad) == first[1:] and a.grad == 2 * first[0]


def test_an_interrupted_pass_leaves_zeros_and_the_next_pass_recovers(monkeypatch):
    def bad_grad(m, g, x, out):
        raise RuntimeError("rule failed")

    monkeypatch.setattr(ops, "OPS", dict(ops.OPS))  # the op stays out of the real table
    boom = engine.define_op("boom", lambda x: x, bad_grad, method=False)
    a = Value(2.0)
    inner = a * a
    y = boom(inner) * 3.0
    with pytest.raises(RuntimeError, match="rule failed"):
        y.backward()
    assert inner.grad == 0.0 and type(inner.grad) is float  # reset, no stray marker
    z = inner * 3.0
    z.backward()  # inner still holds the first pass's mark: it must not look placed
    assert (inner.grad, a.grad) == (3.0, 12.0)


def test_threads_running_backward_on_one_graph_finish_and_leave_it_usable():
    leaves, root = random_graph(5, n=300)
    errors = []

    def run():
        try:
            for _ in range(20):
                root.backward()
        except Exception as e:  # noqa: BLE001 - handed back to the test
            errors.append(e)

    ts = [threading.Thread(target=run) for _ in range(4)]
    for t in ts:
        t.start()
    for t in ts:
        t.join(60)
    assert not any(t.is_alive() for t in ts) and not errors
    # whatever the interleaving did to the grads, one more pass alone gives the numbers
    root.zero_grad()
    root.backward()
    alone = [v.grad for v in topological_order(root)]
    assert grads_by_the_table(root) == alone


def test_no_grad_nodes_are_leaves_backward_passes_by():
    a = Value(2.0)
    with no_grad():
        c = a * 3.0
    d = c * a
    d.backward()
    assert c._fn is None and c.grad == 2.0 and a.grad == 6.0


# ---- a neuron's sum in one call --------------------------------------------------------


def loop_sum(b, ws, xs):
    """The lecture's neuron: sum((wi*xi for wi, xi in zip(w, x)), b)."""
    act = b
    for w, x in zip(ws, xs):
        act = act + w * x
    return act


def shape(root, names):
    """The graph as (op, arg, data, inputs by position) per node; leaves by name."""
    order = topological_order(root) if isinstance(root, Value) else []
    pos = {v: i for i, v in enumerate(order)}
    return [(v._op, v._arg, v.data, names.get(v) if v._fn is None else None,
             tuple(pos[p] for p in v._prev)) for v in order]


def neuron_and_inputs(case):
    import numpy as np

    rng = random.Random(3)
    n = Neuron(5, activation="linear", seed=3)
    n.b = Value(0.25)
    xs = [Value(rng.uniform(-1, 1)) for _ in range(5)]
    if case == "numbers":
        xs[1], xs[3] = 2.0, -3
    elif case == "numpy":
        xs[2] = np.float64(0.5)
    elif case == "float bias":
        n.b = 0.75
    return n, xs


@pytest.mark.parametrize("case", ["values", "numbers", "numpy", "float bias"])
def test_a_neuron_builds_the_operators_graph(case):
    n, xs = neuron_and_inputs(case)
    names = {v: f"w{i}" for i, v in enumerate(n.w)}
    names.update({v: f"x{i}" for i, v in enumerate(xs) if isinstance(v, Value)})
    if isinstance(n.b, Value):
        names[n.b] = "b"
    fast, slow = n(xs), loop_sum(n.b, n.w, xs)
    assert shape(fast, names) == shape(slow, names)
    fast.backward()
    g_fast = [v.grad for v in n.w + xs if isinstance(v, Value)]
    for v in n.w + xs:
        if isinstance(v, Value):
            v.grad = 0.0
    slow.backward()
    assert g_fast == [v.grad for v in n.w + xs if isinstance(v, Value)]


def test_a_neuron_under_the_modes_is_the_operators():
    from micrograd.engine import AnomalyError, detect_anomaly

    n = Neuron(2, activation="linear")
    n.w, n.b = [Value(2.0), Value(3.0)], Value(1.0)
    with no_grad():
        out = n([Value(4.0), Value(5.0)])
    assert out.data == 24.0 and out._prev == ()  # a plain leaf, as b + w*x gives
    n.w = [Value(1e200), Value(1e200)]
    with detect_anomaly():
        with pytest.raises(AnomalyError, match="forward: op"):
            n([Value(1e200), Value(1e200)])


# ---- the garbage collector and import ------------------------------------------------


def collector_state():
    return gc.isenabled(), gc.get_threshold(), gc.get_freeze_count()


def test_importing_the_engine_changes_no_collector_setting_and_leaves_no_node():
    # the engine warms backward() up at import on CPython 3.10: on its own graph, gone
    # on return; and it never touches the collector, on import or anywhere else
    code = ("import gc; before = (gc.isenabled(), gc.get_threshold(), gc.get_freeze_count())\n"
            "import micrograd.engine as e\n"
            "after = (gc.isenabled(), gc.get_threshold(), gc.get_freeze_count())\n"
            "gc.collect()\n"
            "alive = sum(type(o) is e.Value for o in gc.get_objects())\n"
            "print(before == after, alive, e.is_grad_enabled())")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=120)
    assert done.stdout.split() == ["True", "0", "True"]


def test_ops_and_backward_leave_the_collector_alone():
    before = collector_state()
    leaves, root = random_graph(7, n=200)
    root.backward()
    with engine.detect_anomaly():
        root.backward(create_graph=True)
    Neuron(3)([1.0, 2.0, 3.0]).backward()
    assert collector_state() == before


# ---- the examples in the docstrings ------------------------------------------------------


def test_the_engine_modules_examples_run(monkeypatch):
    import doctest

    from micrograd import chain_rule, grad_mode, node_record

    # define_op's example adds an op "cube": to a copy of the table, and a method that
    # goes again afterwards
    monkeypatch.setattr(ops, "OPS", dict(ops.OPS))
    monkeypatch.setattr(Value, "cube", getattr(Value, "cube", None), raising=False)
    monkeypatch.delattr(Value, "cube")
    for module in (engine, chain_rule, grad_mode, node_record):
        result = doctest.testmod(module)
        assert result.attempted >= 1 and result.failed == 0, module.__name__

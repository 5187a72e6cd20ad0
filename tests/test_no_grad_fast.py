"""Under ``no_grad`` alone, a neuron's sum and ``+``/``*`` of two Values make their leaf
at once (``engine_fast``): the numbers are the operators' bit for bit, the result holds
no graph, and every other mode still takes the operators (``detect_anomaly`` still
names the op that made a nan; ``enable_grad`` inside still builds the graph)."""

import random

import pytest

from micrograd.engine import Value
from micrograd.grad_mode import AnomalyError, detect_anomaly, enable_grad, no_grad
from micrograd.nn import MLP, Neuron


def forward_numbers(model, rows):
    return [model(x).data for x in rows]


@pytest.mark.parametrize("seed", range(5))
def test_an_mlps_numbers_under_no_grad_are_the_graphs_bit_for_bit(seed):
    rng = random.Random(seed)
    model = MLP(3, [16, 16, 1], seed=seed)
    rows = [[rng.uniform(-3, 3) for _ in range(3)] for _ in range(20)]
    rows += [[Value(rng.gauss(0, 1)) for _ in range(3)] for _ in range(20)]
    with_graph = forward_numbers(model, rows)
    with no_grad():
        plain = forward_numbers(model, rows)
        outs = [model(x) for x in rows[:3]]
    assert [v.hex() for v in plain] == [v.hex() for v in with_graph]
    assert all(len(o._prev) == 0 for o in outs)


def linear_neuron(weights, bias):
    n = Neuron(len(weights), nonlin=False)
    for w, number in zip(n.w, weights):
        w.data = number
    n.b.data = bias
    return n


def test_a_long_sum_keeps_the_operators_order():
    """Floating-point sums depend on their order: ((1e16 + 1) + 1) ... is not
    1e16 + (1 + 1 + ...)."""
    n = linear_neuron([1.0] * 6, 1e16)
    x = [1.0, 1.0, 1.0, 1.0, -1e16, 0.5]
    want = n(x).data
    with no_grad():
        got = n(x).data
    assert got.hex() == want.hex()
    assert got != 1e16 + (1.0 + 1.0 + 1.0 + 1.0 - 1e16 + 0.5)  # the order matters here


def test_ints_set_by_hand_and_mixed_terms_give_the_operators_numbers():
    n = linear_neuron([3, 0.5, -2, 1], 2)  # ints, as a learner may set them
    for x in ([1, 2, 3, 4], [Value(1), 2.5, Value(-3), 7], [Value(2 ** 60), 1, 1, 1],
              [Value(3), Value(2), Value(1), Value(0)]):
        want = n(x).data
        with no_grad():
            got = n(x).data
        assert (type(got), got) == (type(want), want), x


def test_sum_and_product_of_two_values_under_no_grad_are_leaves_with_the_numbers():
    a, b = Value(0.1), Value(0.2)
    with no_grad():
        s, p = a + b, a * b
    assert (s.data, p.data) == (0.1 + 0.2, 0.1 * 0.2)
    assert len(s._prev) == 0 and len(p._prev) == 0 and s._op == "" and p._op == ""
    s.backward()
    assert a.grad == 0.0 and b.grad == 0.0  # no graph: nothing flows back


@pytest.mark.parametrize("make, op", [
    (lambda: Value(1e308) + Value(1e308), r"op \+"),
    (lambda: Value(1e308) * Value(10.0), r"op \*"),
    (lambda: linear_neuron([1e308, 1e308], 0.0)([Value(10.0), Value(1.0)]), r"op \*"),
    (lambda: linear_neuron([1e308, 1e308], 0.0)([1.0, 1.0]), r"op \+"),
])
def test_anomaly_inside_no_grad_still_names_the_op(make, op):
    with no_grad(), detect_anomaly():
        with pytest.raises(AnomalyError, match=op + r".*gave inf from finite inputs"):
            make()


def test_enable_grad_inside_no_grad_builds_the_graph():
    a, b = Value(2.0), Value(3.0)
    n = linear_neuron([1.0, 1.0], 0.0)
    with no_grad():
        with enable_grad():
            s, p, o = a + b, a * b, n([a, b])
    assert len(s._prev) == 2 and len(p._prev) == 2 and len(o._prev) == 2
    o.backward()
    assert (a.grad, b.grad) == (1.0, 1.0)

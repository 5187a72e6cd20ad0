"""Code written for micrograd's published package runs here with the same numbers.

The reference is ``benchmarks/published_micrograd.py``: an independent implementation of
micrograd's published algorithm (closures, a set of inputs, a recursive topological sort,
int grads; the speed benchmark measures against the real package instead). Our
``micrograd.nn`` must build the same network from the same draws of Python's global
``random``, print the same reprs, and train micrograd's demo to the same loss at every
step.
"""

import contextlib
import gc
import math
import pathlib
import random
import sys

import pytest
import torch

from micrograd.engine import Value
from micrograd.nn import MLP, Layer, Neuron

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "benchmarks"))
from published_micrograd import MLP as RefMLP  # noqa: E402
from published_micrograd import Layer as RefLayer  # noqa: E402
from published_micrograd import Neuron as RefNeuron  # noqa: E402
from published_micrograd import Value as RefValue  # noqa: E402
from published_micrograd import release_graph  # noqa: E402


def weights(model):
    return [p.data for p in model.parameters()]


# ---- the network: same draws, same reprs ------------------------------------------------

@pytest.mark.parametrize("nin,nouts", [(2, [16, 16, 1]), (3, [4, 4, 1]), (1, [1]), (5, [3, 2])])
def test_mlp_draws_micrograds_weights_in_micrograds_order(nin, nouts):
    random.seed(1337)
    ours = MLP(nin, nouts)
    after_ours = random.random()  # the same number of draws leaves the same state
    random.seed(1337)
    ref = RefMLP(nin, nouts)
    after_ref = random.random()
    assert weights(ours) == weights(ref) and after_ours == after_ref
    assert repr(ours) == repr(ref)
    assert all(n.b.data == 0.0 for layer in ours.layers for n in layer.neurons)


def test_reprs_are_micrograds():
    random.seed(0)
    model = MLP(2, [16, 16, 1])
    assert repr(model) == ("MLP of [Layer of [" + ", ".join(["ReLUNeuron(2)"] * 16)
                           + "], Layer of [" + ", ".join(["ReLUNeuron(16)"] * 16)
                           + "], Layer of [LinearNeuron(16)]]")
    assert repr(Neuron(2)) == "ReLUNeuron(2)" and repr(Neuron(16, nonlin=False)) == (
        "LinearNeuron(16)")
    assert repr(Layer(3, 2)) == "Layer of [ReLUNeuron(3), ReLUNeuron(3)]"


@pytest.mark.parametrize("make_ours,make_ref", [
    (lambda: Neuron(3), lambda: RefNeuron(3)),
    (lambda: Neuron(3, False), lambda: RefNeuron(3, False)),     # nonlin by position
    (lambda: Neuron(3, nonlin=False), lambda: RefNeuron(3, nonlin=False)),
    (lambda: Layer(3, 4), lambda: RefLayer(3, 4)),
    (lambda: Layer(3, 4, nonlin=False), lambda: RefLayer(3, 4, nonlin=False)),
    (lambda: Layer(2, 1), lambda: RefLayer(2, 1)),
])
def test_neuron_and_layer_are_micrograds(make_ours, make_ref):
    random.seed(42)
    ours = make_ours()
    random.seed(42)
    ref = make_ref()
    assert weights(ours) == weights(ref) and repr(ours) == repr(ref)
    nin = len(ours.w if isinstance(ours, Neuron) else ours.neurons[0].w)
    x = [0.5, -1.5, 2.0][:nin]
    out, ref_out = ours(x), ref([RefValue(v) for v in x])
    out = out if isinstance(out, list) else [out]
    ref_out = ref_out if isinstance(ref_out, list) else [ref_out]
    assert [o.data for o in out] == [r.data for r in ref_out]
    for o in out:
        o.backward()
    for r in ref_out:
        r.backward()
    assert [p.grad for p in ours.parameters()] == [p.grad for p in ref.parameters()]
    ours.zero_grad()
    ref.zero_grad()
    assert [p.grad for p in ours.parameters()] == [p.grad for p in ref.parameters()]


def test_nonlin_flag_reads_and_writes_as_in_micrograd():
    n = Neuron(2)
    assert n.nonlin is True and Neuron(2, nonlin=False).nonlin is False
    n.nonlin = False  # micrograd keeps a plain attribute; code may flip it
    assert repr(n) == "LinearNeuron(2)" and n([1.0, 1.0])._op == "+"
    n.nonlin = True
    assert repr(n) == "ReLUNeuron(2)" and n([1.0, 1.0])._op == "ReLU"


# ---- the engine: micrograd's own engine tests, against torch float64 --------------------

def _sanity(V):
    x = V(-4.0)
    z = 2 * x + 2 + x
    q = z.relu() + z * x
    h = (z * z).relu()
    y = h + q + q * x
    y.backward()
    return x, y


def _more_ops(V):
    a, b = V(-4.0), V(2.0)
    c = a + b
    d = a * b + b ** 3
    c += c + 1
    c += 1 + c + (-a)
    d += d * 2 + (b + a).relu()
    d += 3 * d + (b - a).relu()
    e = c - d
    f = e ** 2
    g = f / 2.0
    g += 10.0 / f
    g.backward()
    return a, b, g


def _torch_leaf(x):
    return torch.tensor([x], dtype=torch.float64, requires_grad=True)


def test_micrograds_engine_tests_pass_exactly():
    # micrograd's test_sanity_check asserts exact equality with torch: so do we
    x, y = _sanity(Value)
    tx, ty = _sanity(lambda v: _torch_leaf(v) if isinstance(v, float) else v)
    assert y.data == ty.item() and x.grad == tx.grad.item()
    rx, ry = _sanity(RefValue)
    assert (y.data, x.grad) == (ry.data, rx.grad)
    # micrograd's test_more_ops allows 1e-6; ours agrees with torch far closer
    a, b, g = _more_ops(Value)
    ta, tb, tg = _more_ops(lambda v: _torch_leaf(v) if isinstance(v, float) else v)
    assert math.isclose(g.data, tg.item(), rel_tol=1e-14)
    assert math.isclose(a.grad, ta.grad.item(), rel_tol=1e-14)
    assert math.isclose(b.grad, tb.grad.item(), rel_tol=1e-14)


def test_a_fresh_grad_is_a_float_zero_equal_to_micrograds_int_zero():
    # the decision documented in docs/engine.md: grads are always floats here; micrograd
    # starts them at the int 0. Every comparison a test makes sees no difference.
    v, r = Value(2.0), RefValue(2.0)
    assert v.grad == r.grad == 0 and type(v.grad) is float
    assert repr(v) == "Value(data=2.0, grad=0.0)" and repr(r) == "Value(data=2.0, grad=0)"
    model = MLP(2, [3, 1], seed=0)
    model.zero_grad()
    assert all(p.grad == 0 and type(p.grad) is float for p in model.parameters())


# ---- micrograd's demo, step for step ----------------------------------------------------

def run_micrograds_demo(Val, Net, X, y, after_step=lambda loss: None):
    """micrograd's demo notebook: max-margin loss + 1e-4 L2, SGD 1.0 - 0.9*k/100."""
    random.seed(1337)
    model = Net(2, [16, 16, 1])
    shape = (repr(model), len(model.parameters()), weights(model))
    history = []
    for k in range(100):
        inputs = [list(map(Val, xrow)) for xrow in X]
        scores = list(map(model, inputs))
        losses = [(1 + -yi * scorei).relu() for yi, scorei in zip(y, scores)]
        data_loss = sum(losses) * (1.0 / len(losses))
        alpha = 1e-4
        reg_loss = alpha * sum((p * p for p in model.parameters()))
        total_loss = data_loss + reg_loss
        accuracy = [(yi > 0) == (scorei.data > 0) for yi, scorei in zip(y, scores)]
        acc = sum(accuracy) / len(accuracy)
        model.zero_grad()
        total_loss.backward()
        learning_rate = 1.0 - 0.9 * k / 100
        for p in model.parameters():
            p.data -= learning_rate * p.grad
        history.append((total_loss.data, acc))
        after_step(total_loss)
    return shape, history


@contextlib.contextmanager
def cycle_collector_paused():
    """Both runs build 100 graphs of ~66,000 nodes; the cycle collector would scan the
    whole heap (torch included) many times a step. Refcounting frees our graphs, and
    ``release_graph`` the reference's."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
        gc.collect()


@pytest.mark.slow
def test_micrograds_demo_prints_the_published_losses_at_every_step():
    import numpy as np
    from sklearn.datasets import make_moons

    np.random.seed(1337)
    X, y = make_moons(n_samples=100, noise=0.1)
    y = y * 2 - 1  # labels -1 / +1
    with cycle_collector_paused():
        # ours runs the notebook as written, on NumPy rows and NumPy int labels
        shape, ours = run_micrograds_demo(Value, MLP, X, y)
        # the reference on the same numbers as Python floats and ints (NumPy's float64
        # scalars do the same IEEE arithmetic, ten times slower)
        ref_shape, ref = run_micrograds_demo(RefValue, RefMLP, X.tolist(), y.tolist(),
                                             after_step=release_graph)
    assert shape == ref_shape  # same reprs, 337 parameters, the same initial weights
    assert shape[1] == 337
    for k, ((loss, acc), (ref_loss, ref_acc)) in enumerate(zip(ours, ref)):
        assert math.isclose(loss, ref_loss, rel_tol=1e-12), (k, loss, ref_loss)
        assert acc == ref_acc, (k, acc, ref_acc)
    assert ours[0][0] > 0.5 and ours[-1][0] < 0.05 and ours[-1][1] == 1.0  # it learned

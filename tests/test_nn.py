"""micrograd.nn: MLP forward and backward against a torch model with the same weights."""

import math
import random

import pytest

from micrograd.engine import Value
from micrograd.nn import ACTIVATIONS, MLP, Layer, Module, Neuron


def torch_act(torch, name):
    return {"tanh": torch.tanh, "relu": torch.relu, "sigmoid": torch.sigmoid,
            "softplus": lambda x: torch.logaddexp(x, torch.zeros_like(x)),
            "linear": lambda x: x}[name]


def torch_twin(torch, model):
    """(weights, biases) per layer as float64 leaf tensors carrying the model's numbers."""
    layers = []
    for layer in model.layers:
        W = torch.tensor([[w.data for w in n.w] for n in layer.neurons], dtype=torch.float64,
                         requires_grad=True)
        b = torch.tensor([n.b.data for n in layer.neurons], dtype=torch.float64,
                         requires_grad=True)
        layers.append((W, b, layer.neurons[0].activation))
    return layers


def torch_forward(torch, layers, X):
    h = torch.tensor(X, dtype=torch.float64)
    for W, b, act in layers:
        h = torch_act(torch, act)(h @ W.T + b)
    return h[:, 0]


@pytest.mark.parametrize("nin,nouts,act,out_act", [
    (3, [4, 4, 1], "tanh", None),  # the lecture
    (2, [16, 16, 1], "relu", "linear"),  # micrograd's repository
    (4, [5, 3], "sigmoid", "softplus"),
])
def test_mlp_forward_and_backward_match_torch(torch, nin, nouts, act, out_act):
    rng = random.Random(7)
    model = MLP(nin, nouts, act, out_act, seed=3, bias_init="uniform")  # biases move too
    X = [[rng.uniform(-2, 2) for _ in range(nin)] for _ in range(6)]
    ys = [rng.choice([-1.0, 1.0]) for _ in X]

    outs = [model(x) for x in X]
    outs = [o if isinstance(o, Value) else o[0] for o in outs]
    loss = sum((o - y) ** 2 for o, y in zip(outs, ys))  # the lecture's loss
    model.zero_grad()
    loss.backward()

    layers = torch_twin(torch, model)
    t_out = torch_forward(torch, layers, X)
    t_loss = ((t_out - torch.tensor(ys, dtype=torch.float64)) ** 2).sum()
    t_loss.backward()

    assert math.isclose(loss.data, t_loss.item(), rel_tol=1e-12)
    for o, t in zip(outs, t_out.tolist()):
        assert math.isclose(o.data, t, rel_tol=1e-12, abs_tol=1e-15)
    for layer, (W, b, _) in zip(model.layers, layers):
        for i, n in enumerate(layer.neurons):
            for j, w in enumerate(n.w):
                assert math.isclose(w.grad, W.grad[i, j].item(), rel_tol=1e-10,
                                    abs_tol=1e-13)
            assert math.isclose(n.b.grad, b.grad[i].item(), rel_tol=1e-10, abs_tol=1e-13)


def test_parameter_counts():
    assert len(MLP(3, [4, 4, 1]).parameters()) == 41
    assert MLP(3, [4, 4, 1]).num_parameters() == 41
    assert len(MLP(2, [16, 16, 1]).parameters()) == 337
    assert len(Layer(2, 3).parameters()) == 9
    assert len(Neuron(2).parameters()) == 3
    assert Module().parameters() == []


def weights(model):
    return [p.data for p in model.parameters()]


def test_seed_reproducibility():
    assert weights(MLP(3, [4, 4, 1], seed=1)) == weights(MLP(3, [4, 4, 1], seed=1))
    assert weights(MLP(3, [4, 4, 1], seed=1)) != weights(MLP(3, [4, 4, 1], seed=2))
    assert weights(MLP(3, [4, 4, 1], rng=random.Random(1))) == weights(
        MLP(3, [4, 4, 1], seed=1))
    random.seed(1337)
    first = weights(MLP(3, [4, 4, 1]))
    random.seed(1337)
    assert weights(MLP(3, [4, 4, 1])) == first  # micrograd's random.seed works too
    assert all(-1.0 <= w <= 1.0 for w in first)
    assert weights(Neuron(3, seed=5)) == weights(Neuron(3, seed=5))
    assert weights(Layer(3, 2, seed=5)) == weights(Layer(3, 2, seed=5))


def test_default_is_micrograds_network():
    model = MLP(2, [3, 1], seed=0)
    assert (model.activation, model.output_activation, model.bias_init) == (
        "relu", "linear", "zero")
    assert MLP(2, [3, 1], activation="tanh").output_activation == "linear"


def test_lecture_style_is_tanh_everywhere_with_random_biases():
    model = MLP(3, [4, 4, 1], style="lecture", seed=0)
    assert {n.activation for layer in model.layers for n in layer.neurons} == {"tanh"}
    assert model.bias_init == "uniform"
    # the lecture's draws: each neuron's weights, then its bias, from one generator
    rng = random.Random(0)
    want = [rng.uniform(-1, 1) for _ in range(len(model.parameters()))]
    assert weights(model) == want
    # any part can still be chosen on its own, and the keyword wins over the style
    mixed = MLP(2, [3, 1], style="lecture", output_activation="linear", bias_init="zero")
    assert (mixed.activation, mixed.output_activation, mixed.bias_init) == (
        "tanh", "linear", "zero")
    assert repr(Neuron(3, style="lecture")) == "TanhNeuron(3)"
    draws = random.Random(1)
    want = [draws.uniform(-1, 1) for _ in range(4)]
    assert weights(Neuron(3, style="lecture", seed=1)) == want  # w0, w1, w2, then b


def test_bias_init_zero_and_activations():
    model = MLP(2, [3, 1], "relu", "linear", bias_init="zero", seed=0)
    assert all(n.b.data == 0.0 for layer in model.layers for n in layer.neurons)
    assert [n.activation for n in model.layers[0].neurons] == ["relu"] * 3
    assert model.layers[1].neurons[0].activation == "linear"
    assert model([1.0, -1.0])._op == "+"  # linear last: the sum itself
    assert set(ACTIVATIONS) == {"tanh", "relu", "sigmoid", "softplus", "linear"}


def test_nonlin_keyword_of_micrograds_repository():
    assert Neuron(2, nonlin=False).activation == "linear"
    assert Neuron(2, nonlin=True).activation == "relu" and Neuron(2).nonlin
    model = MLP(2, [3, 1], nonlin=True)
    assert (model.activation, model.output_activation) == ("relu", "linear")
    model = MLP(2, [3, 1], nonlin=False)
    assert (model.activation, model.output_activation) == ("linear", "linear")


def test_one_output_is_a_value_many_are_a_list():
    x = [1.0, 2.0]
    assert isinstance(Layer(2, 1, seed=0)(x), Value)
    out = Layer(2, 3, seed=0)(x)
    assert isinstance(out, list) and len(out) == 3
    assert isinstance(MLP(2, [3, 1], seed=0)(x), Value)
    assert len(MLP(2, [3, 2], seed=0)(x)) == 2


def test_neuron_forward_is_the_lecture_sum():
    n = Neuron(3, style="lecture", seed=4)
    x = [0.5, -1.0, 2.0]
    out = n(x)
    want = math.tanh(sum((w.data * xi for w, xi in zip(n.w, x)), n.b.data))
    assert out.data == want
    # the graph is b + w0*x0 + w1*x1 + w2*x2, left to right, then tanh
    s = out._prev[0]
    assert s._op == "+" and s._prev[1]._op == "*" and s._prev[1]._prev[0] is n.w[2]
    first = s._prev[0]._prev[0]
    assert first._prev[0] is n.b and first._prev[1]._prev[0] is n.w[0]


def test_zero_grad_and_config():
    model = MLP(3, [4, 1], style="lecture", seed=0)
    model([1.0, 2.0, 3.0]).backward()
    assert any(p.grad != 0.0 for p in model.parameters())
    model.zero_grad()
    assert all(p.grad == 0.0 for p in model.parameters())
    cfg = model.config()
    assert cfg == {"nin": 3, "nouts": [4, 1], "activation": "tanh",
                   "output_activation": "tanh", "bias_init": "uniform"}
    # the config spells out every choice: it rebuilds the lecture's network by default
    again = MLP(**cfg, seed=0)
    assert again.config() == cfg and weights(again) == weights(MLP(3, [4, 1], style="lecture",
                                                                   seed=0))
    assert MLP(3, [4, 1]).config() == {"nin": 3, "nouts": [4, 1], "activation": "relu",
                                       "output_activation": "linear", "bias_init": "zero"}


@pytest.mark.parametrize("make,err,match", [
    (lambda: MLP(2, 0), TypeError, "nouts must be a list.*int"),
    (lambda: MLP(2, 3), TypeError, "nouts must be a list.*int"),
    (lambda: MLP(0, [1]), ValueError, "nin must be at least 1"),
    (lambda: MLP(2, [4, 0]), ValueError, "layer size must be at least 1"),
    (lambda: MLP(2, []), ValueError, "at least one layer"),
    (lambda: MLP(2.5, [1]), TypeError, "nin must be an int, got float"),
    (lambda: MLP(2, [1.5]), TypeError, "layer size must be an int, got float"),
    (lambda: MLP(2, [1], "gelu"), ValueError, "unknown activation 'gelu'.*tanh, relu"),
    (lambda: MLP(2, [1], "tanh", "swish"), ValueError, "unknown activation 'swish'"),
    (lambda: MLP(2, [1], bias_init="ones"), ValueError, "bias_init"),
    (lambda: MLP(2, [1], seed=1, rng=random.Random(1)), ValueError, "seed or rng"),
    (lambda: MLP(2, [1], seed="1"), TypeError, "seed must be an int, got str"),
    (lambda: MLP(2, [1], rng=1), TypeError, "rng must be a random.Random, got int"),
    (lambda: Neuron(True), TypeError, "nin must be an int, got bool"),
    (lambda: Layer(2, 0), ValueError, "nout must be at least 1"),
    (lambda: MLP(2, [1], seed=0)([1.0]), ValueError, "expects 2 inputs, got 1"),
    (lambda: MLP(2, [1], style="karpathy"), ValueError, "unknown style 'karpathy'.*lecture"),
    (lambda: Neuron(2, style=None), ValueError, "unknown style None"),
    (lambda: Neuron(2, "tanh"), TypeError, "nonlin is True or False.*activation='tanh'"),
    (lambda: Neuron(2, None), TypeError, "nonlin must be True or False, got NoneType"),
    (lambda: Neuron(2, False, activation="tanh"), ValueError, "nonlin=False.*'tanh'"),
    (lambda: MLP(2, [1], "tanh", nonlin=True), ValueError, "nonlin or activation"),
    (lambda: Layer(2, 2, bias_init=0), ValueError, "bias_init must be one of"),
])
def test_bad_arguments_give_clear_errors(make, err, match):
    with pytest.raises(err, match=match):
        make()


def test_readable_repr():
    assert repr(MLP(2, [3, 1], "tanh")) == (
        "MLP of [Layer of [TanhNeuron(2), TanhNeuron(2), TanhNeuron(2)], "
        "Layer of [LinearNeuron(3)]]")
    assert repr(Neuron(3, activation="sigmoid")) == "SigmoidNeuron(3)"
    assert repr(Neuron(3, activation="softplus")) == "SoftplusNeuron(3)"


def test_one_neuron_hidden_layer_chains():
    # a one-neuron Layer returns a bare Value (the lecture's behaviour); MLP passes it on
    model = MLP(2, [1, 1], style="lecture", seed=0)
    (n1,), (n2,) = (layer.neurons for layer in model.layers)
    x = [0.5, -0.25]
    h = math.tanh(n1.w[0].data * x[0] + n1.w[1].data * x[1] + n1.b.data)
    expected = math.tanh(n2.w[0].data * h + n2.b.data)
    out = model(x)
    assert isinstance(out, Value)
    assert math.isclose(out.data, expected, rel_tol=1e-15)


def test_mlp_takes_numpy_rows_and_a_bare_number(np):
    model = MLP(2, [3, 1], seed=4)
    row = np.array([0.5, -1.5])
    assert model(row).data == model([0.5, -1.5]).data
    one = MLP(1, [2, 1], seed=4)
    assert one(0.25).data == one([0.25]).data

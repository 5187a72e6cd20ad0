"""The traced runner of ``fit`` against the eager one, and the per-sample losses it traces."""

import math
import warnings

import pytest

from micrograd.data import make_blobs, make_disk, make_moons
from micrograd.engine import Value
from micrograd.losses import LOSSES
from micrograd.nn import MLP
from micrograd.optim import SGD, Adam
from micrograd.train import evaluate, fit
from micrograd.train_runners import EagerRunner, TracedRunner, get_runner


def _labels(spec, n, k):
    if spec.labels == "index":
        return [i % k for i in range(n)]
    if spec.labels == "01":
        return [float(i % 2) for i in range(n)]
    return [1.0 if i % 2 else -1.0 for i in range(n)]


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_mean_of_per_sample_losses_is_the_batch_loss(name):
    # value and every parameter gradient: the traced form equals the eager batch loss
    spec = LOSSES[name]
    k = 3 if spec.labels == "index" else 1
    X = [[0.3, -1.2], [1.5, 0.7], [-0.4, 0.1], [2.0, -2.0]]
    y = _labels(spec, len(X), k)
    model = MLP(2, [4, k], activation="tanh", output_activation="linear", seed=2)
    params = model.parameters()

    batch = spec([model(x) for x in X], y)
    batch.backward()
    g_batch = [p.grad for p in params]
    model.zero_grad()

    terms = []
    for x, t in zip(X, y):
        target = spec.target(t, k)
        target = [Value(v) for v in target] if isinstance(target, list) else Value(target)
        terms.append(spec.sample(model(x), target))
    mean = sum(terms[1:], terms[0]) * (1.0 / len(terms))
    mean.backward()
    assert math.isclose(mean.data, batch.data, rel_tol=1e-12)
    for p, g in zip(params, g_batch):
        assert math.isclose(p.grad, g, rel_tol=1e-9, abs_tol=1e-13)


def test_cross_entropy_per_sample_form_is_stable_at_extreme_logits():
    spec = LOSSES["ce"]
    z = [Value(1000.0), Value(-1000.0), Value(999.0)]
    loss = spec.sample(z, [Value(0.0), Value(0.0), Value(1.0)])
    loss.backward()
    # logsumexp = 1000 + log(1 + e^-1); the loss picks z[2] = 999
    assert math.isclose(loss.data, 1.0 + math.log1p(math.exp(-1.0)), rel_tol=1e-12)
    soft0 = 1 / (1 + math.exp(-1.0))
    assert math.isclose(z[0].grad, soft0, rel_tol=1e-12)
    assert math.isclose(z[2].grad, (1 - soft0) - 1.0, rel_tol=1e-12)
    assert z[1].grad == 0.0


def test_target_conversion_refuses_bad_labels():
    with pytest.raises(ValueError, match="class index in 0..2"):
        LOSSES["ce"].target(3, 3)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        LOSSES["bce"].target(-1.0)
    with pytest.raises(TypeError, match="str"):
        LOSSES["mse"].target("1")


CASES = [
    # data, hidden, activation, output, loss, l2, batch size, optimizer
    ("moons", [16, 16], "relu", "linear", "hinge", 1e-4, None, "sgd"),
    ("disk", [9], "tanh", None, "mse", 0.0, 16, "sgd"),
    ("blobs", [8], "relu", "linear", "ce", 1e-3, None, "adam"),
    ("moons", [6], "tanh", "linear", "bce", 0.0, 32, "adam"),
]


def _data(kind, loss):
    if kind == "moons":
        X, y = make_moons(80, noise=0.1, seed=4)
    elif kind == "disk":
        X, y = make_disk(n_samples=80, seed=4)
    else:
        X, y = make_blobs(90, n_classes=3, seed=4)
    if loss == "bce":
        y = [(t + 1) / 2 for t in y]
    return X, y


@pytest.mark.parametrize("case", CASES, ids=[c[4] for c in CASES])
def test_traced_fit_equals_eager_fit(case):
    kind, hidden, act, out, loss, l2, bs, opt = case
    X, y = _data(kind, loss)
    k = 3 if loss == "ce" else 1
    runs = {}
    for runner in ("eager", "traced"):
        model = MLP(2, hidden + [k], activation=act, output_activation=out, seed=5)
        params = model.parameters()
        optimizer = SGD(params, lr=0.05, momentum=0.9) if opt == "sgd" else Adam(params,
                                                                                  lr=0.01)
        hist = fit(model, X, y, loss=loss, l2=l2, optimizer=optimizer, epochs=8,
                   batch_size=bs, X_test=X[:20], y_test=y[:20], progress=False,
                   runner=runner)
        runs[runner] = (hist, [p.data for p in params])
    (he, we), (ht, wt) = runs["eager"], runs["traced"]
    assert (he.runner, ht.runner) == ("eager", "traced")
    for a, b in zip(we, wt):
        assert math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
    for key in ("train_loss", "test_loss"):
        for a, b in zip(getattr(he, key), getattr(ht, key)):
            assert math.isclose(a, b, rel_tol=1e-9)
    assert he.train_acc == ht.train_acc and he.test_acc == ht.test_acc


def test_runner_choice():
    assert isinstance(get_runner("eager"), EagerRunner)
    assert isinstance(get_runner("traced", "hinge"), TracedRunner)
    assert isinstance(get_runner("auto", "mse"), TracedRunner)
    custom = lambda outs, ys: sum((o - t) ** 2 for o, t in zip(outs, ys))  # noqa: E731
    assert isinstance(get_runner("auto", custom), EagerRunner)  # no per-sample form
    with pytest.raises(ValueError, match="cannot be traced"):
        get_runner("traced", custom)
    with pytest.raises(ValueError, match="runner must be one of"):
        get_runner("fast")
    eager = EagerRunner()
    assert get_runner(eager) is eager


def test_fit_auto_with_a_custom_loss_runs_eager_and_says_so():
    X, y = make_disk(n_samples=30, seed=1)
    model = MLP(2, [3, 1], seed=1)
    custom = lambda outs, ys: sum((o - t) ** 2 for o, t in zip(outs, ys))  # noqa: E731
    hist = fit(model, X, y, loss=custom, epochs=2, progress=False)
    assert hist.runner == "eager"
    hist = fit(model, X, y, loss="mse", epochs=2, progress=False)
    assert hist.runner == "traced"


def test_evaluate_agrees_between_runners():
    X, y = make_moons(50, noise=0.1, seed=2)
    model = MLP(2, [8, 1], activation="relu", output_activation="linear", seed=2)
    le, ae = evaluate(model, X, y, "hinge", 1e-4, runner="eager")
    lt, at = evaluate(model, X, y, "hinge", 1e-4, runner="traced")
    assert math.isclose(le, lt, rel_tol=1e-12) and ae == at


def _torch_mlp(model):
    import torch
    layers = []
    for i, layer in enumerate(model.layers):
        lin = torch.nn.Linear(len(layer.neurons[0].w), len(layer.neurons)).double()
        with torch.no_grad():
            lin.weight.copy_(torch.tensor([[w.data for w in n.w] for n in layer.neurons],
                                           dtype=torch.float64))
            lin.bias.copy_(torch.tensor([n.b.data for n in layer.neurons], dtype=torch.float64))
        layers.append(lin)
        if i < len(model.layers) - 1:
            layers.append(torch.nn.Tanh())
    return torch.nn.Sequential(*layers)


@pytest.mark.parametrize("name", ["mse", "hinge", "bce"])
def test_traced_sample_loss_averages_the_outputs_of_a_sample(name):
    # a sample with three outputs: its loss is the mean of its three terms, so that the
    # batch mean equals PyTorch's reduction="mean" over every element
    import torch
    import torch.nn.functional as F

    from micrograd.trace import trace_loss

    spec = LOSSES[name]
    X = [[0.3, -1.2], [1.5, 0.7], [-0.4, 0.1], [2.0, -2.0]]
    Y = [[1.0, -1.0, 1.0], [-1.0, -1.0, 1.0], [1.0, 1.0, -1.0], [-1.0, 1.0, 1.0]]
    if name == "bce":
        Y = [[(t + 1) / 2 for t in row] for row in Y]
    model = MLP(2, [4, 3], activation="tanh", output_activation="linear", seed=2)
    loss = trace_loss(lambda x, t: spec.sample(model(x), t), X, Y, cache=False)
    model.zero_grad()
    got = loss.backward(X, Y)
    got_g = [p.grad for p in model.parameters()]

    net = _torch_mlp(model)
    out = net(torch.tensor(X, dtype=torch.float64))
    target = torch.tensor(Y, dtype=torch.float64)
    ref = {"mse": lambda: F.mse_loss(out, target),
           "hinge": lambda: torch.relu(1 - target * out).mean(),
           "bce": lambda: F.binary_cross_entropy_with_logits(out, target)}[name]()
    ref.backward()
    want_g = []
    for layer in net:
        if isinstance(layer, torch.nn.Linear):
            for w_row, b in zip(layer.weight.grad, layer.bias.grad):
                want_g.extend(w_row.tolist() + [b.item()])
    assert math.isclose(got, ref.item(), rel_tol=1e-12)
    for a, b in zip(got_g, want_g):
        assert math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-13)


def test_the_old_name_engine_still_works_for_one_release_and_says_so():
    import micrograd.train as train

    X, y = make_disk(n_samples=20, seed=1)
    model = MLP(2, [3, 1], seed=1)
    with pytest.warns(DeprecationWarning, match="engine= is deprecated: use runner="):
        hist = fit(model, X, y, epochs=1, progress=False, engine="eager")
    assert hist.runner == "eager"  # the old keyword chose the runner ("auto" is traced)
    with pytest.warns(DeprecationWarning, match="History.engine is deprecated"):
        assert hist.engine == "eager"
    with pytest.warns(DeprecationWarning, match="use runner="):
        assert evaluate(model, X, y, engine="traced") == evaluate(model, X, y, "mse", 0.0,
                                                                  "traced")
    with pytest.raises(TypeError, match="give runner= only"), warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        fit(model, X, y, epochs=1, progress=False, runner="traced", engine="eager")
    for old, new in (("EagerEngine", EagerRunner), ("get_engine", get_runner)):
        with pytest.warns(DeprecationWarning, match=f"micrograd.train.{old} is deprecated"):
            assert getattr(train, old) is new
    with pytest.raises(AttributeError, match="no attribute 'TracedEngine'"):
        train.TracedEngine  # noqa: B018 - never public in micrograd.train

"""The digits benchmark in test size: its loss is right (against torch) and it learns."""

import importlib.util
import pathlib

import numpy as np
import pytest
import torch

from micrograd.engine import Value
from micrograd.trace import trace_loss

_PATH = pathlib.Path(__file__).resolve().parents[1] / "benchmarks" / "digits.py"


@pytest.fixture(scope="module")
def digits():
    spec = importlib.util.spec_from_file_location("bench_digits", _PATH)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_vmax_is_the_max_and_traces(digits):
    vals = [3.0, -1.0, 7.5, 7.25, 0.0]
    assert digits.vmax([Value(v) for v in vals]).data == 7.5
    assert digits.vmax([Value(2.0)]).data == 2.0


def test_cross_entropy_traced_matches_torch(digits):
    # logits far apart (+-300) too: the log-sum-exp must stay finite
    rng = np.random.default_rng(0)
    model = digits.make_model(seed=3)
    X = rng.uniform(0, 1, size=(6, 64))
    X[0] *= 400.0
    T = np.eye(10)[rng.integers(0, 10, size=6)]
    loss = trace_loss(lambda x, t: digits.cross_entropy(model(x), t), X, T, cache=False)
    model.zero_grad()
    got = loss.backward(X, T)
    g = [p.grad for p in model.parameters()]

    import sys
    sys.path.insert(0, str(_PATH.parent))
    from torch_reference import torch_mlp
    net = torch_mlp(model)
    ref = torch.nn.functional.cross_entropy(net(torch.tensor(X)),
                                            torch.tensor(T.argmax(1)))
    ref.backward()
    assert np.isfinite(got)
    assert got == pytest.approx(ref.item(), rel=1e-9)
    want = []
    for layer in net:
        if isinstance(layer, torch.nn.Linear):
            for w_row, b in zip(layer.weight.grad, layer.bias.grad):
                want.extend(w_row.tolist() + [b.item()])
    np.testing.assert_allclose(g, want, rtol=1e-9, atol=1e-12)


def test_digits_reaches_95_percent(digits):
    Xtr, Ttr, ytr, Xte, yte = digits.load()
    model = digits.make_model()
    digits.train(model, Xtr, Ttr, epochs=20)
    assert digits.accuracy(model, Xte, yte) >= 0.95

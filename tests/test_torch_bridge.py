"""micrograd.torch_bridge: an MLP into PyTorch and back, with the same weights and outputs."""

import math
import random
import subprocess
import sys

import pytest
import torch

from micrograd import io
from micrograd.engine import Value
from micrograd.nn import MLP
from micrograd.torch_bridge import from_torch, load_state_dict, state_dict, to_torch

CONFIGS = [
    dict(nin=2, nouts=[16, 16, 1]),                                   # micrograd's demo
    dict(nin=3, nouts=[4, 4, 1], style="lecture"),                    # the lecture's
    dict(nin=4, nouts=[5, 3], activation="sigmoid", output_activation="softplus",
         bias_init="uniform"),
    dict(nin=2, nouts=[3], activation="tanh", output_activation="tanh"),  # one layer
]


def weights(model):
    return [p.data for p in model.parameters()]


def batch(nin, n=7, seed=0):
    rng = random.Random(seed)
    return [[rng.uniform(-2, 2) for _ in range(nin)] for _ in range(n)]


def outputs(model, X):
    outs = [model(x) for x in X]
    return [[o.data] if isinstance(o, Value) else [v.data for v in o] for o in outs]


@pytest.mark.parametrize("cfg", CONFIGS)
def test_to_torch_gives_the_same_outputs_and_gradients(cfg):
    model = MLP(**cfg, seed=3)
    net = to_torch(model)
    assert all(p.dtype == torch.float64 for p in net.parameters())
    X = batch(cfg["nin"])
    got = net(torch.tensor(X, dtype=torch.float64))
    for row, want in zip(got.tolist(), outputs(model, X)):
        for g, w in zip(row, want):
            assert math.isclose(g, w, rel_tol=1e-13, abs_tol=1e-15)
    # gradients of the same loss, parameter for parameter in the state dict's order
    loss = sum((o - 0.5) ** 2 for row in (model(x) for x in X)
               for o in ([row] if isinstance(row, Value) else row))
    model.zero_grad()
    loss.backward()
    tloss = ((got - 0.5) ** 2).sum()
    tloss.backward()
    assert math.isclose(loss.data, tloss.item(), rel_tol=1e-12)
    tgrads = [g for lin in net if isinstance(lin, torch.nn.Linear)
              for g in (lin.weight.grad, lin.bias.grad)]
    for layer, i in zip(model.layers, range(0, len(tgrads), 2)):
        wg, bg = tgrads[i], tgrads[i + 1]
        for r, n in enumerate(layer.neurons):
            for c, w in enumerate(n.w):
                assert math.isclose(w.grad, wg[r, c].item(), rel_tol=1e-10, abs_tol=1e-13)
            assert math.isclose(n.b.grad, bg[r].item(), rel_tol=1e-10, abs_tol=1e-13)


def test_the_module_is_a_plain_sequential_named_as_pytorch_names_it():
    net = to_torch(MLP(2, [3, 1], seed=0))
    assert [type(m).__name__ for m in net] == ["Linear", "ReLU", "Linear"]
    assert list(net.state_dict()) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    net = to_torch(MLP(2, [3, 2, 1], style="lecture", seed=0))
    assert [type(m).__name__ for m in net] == ["Linear", "Tanh"] * 3


def test_dtype_and_device_on_request():
    model = MLP(3, [4, 1], style="lecture", seed=1)
    net32 = to_torch(model, dtype=torch.float32)
    assert all(p.dtype == torch.float32 for p in net32.parameters())
    X = batch(3)
    got = net32(torch.tensor(X, dtype=torch.float32)).tolist()
    for row, want in zip(got, outputs(model, X)):
        assert math.isclose(row[0], want[0], rel_tol=1e-5, abs_tol=1e-6)
    # a device torch knows: "meta" holds shapes only and exists on every machine
    meta = to_torch(model, device="meta")
    assert all(p.device.type == "meta" for p in meta.parameters())
    assert to_torch(model, device=torch.device("cpu"))[0].weight.device.type == "cpu"
    # and back from float32: the float32 numbers, exactly
    back = from_torch(net32)
    assert weights(back) == [float(torch.tensor(w, dtype=torch.float32)) for w in
                             weights(model)]


def test_from_torch_brings_a_torch_network_back():
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(3, 5), torch.nn.Tanh(),
                              torch.nn.Sequential(torch.nn.Linear(5, 4), torch.nn.Tanh()),
                              torch.nn.Linear(4, 2), torch.nn.Identity()).double()
    model = from_torch(net)
    assert model.config() == {"nin": 3, "nouts": [5, 4, 2], "activation": "tanh",
                              "output_activation": "linear", "bias_init": "zero"}
    X = batch(3)
    got = net(torch.tensor(X, dtype=torch.float64)).tolist()
    for row, want in zip(got, outputs(model, X)):
        for g, w in zip(row, want):
            assert math.isclose(g, w, rel_tol=1e-13, abs_tol=1e-15)
    # round trip: the same state dict, to the bit
    again = to_torch(model)
    flat = [t for t in net.state_dict().values()]
    assert all(torch.equal(a, b) for a, b in zip(again.state_dict().values(), flat))
    one = from_torch(torch.nn.Linear(2, 1).double())
    assert one.config()["nouts"] == [1] and one.output_activation == "linear"
    assert from_torch(torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.Softplus(),
                                          torch.nn.Linear(3, 1), torch.nn.Sigmoid())
                      ).config()["output_activation"] == "sigmoid"


@pytest.mark.parametrize("module,err,match", [
    (torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.GELU()), TypeError,
     r"module 1 \(GELU.*\) is not supported"),
    (torch.nn.Conv1d(1, 1, 3), TypeError, "Conv1d"),
    (torch.nn.Sequential(torch.nn.Linear(2, 3, bias=False)), ValueError, "has no bias"),
    (torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.Linear(4, 1)), ValueError,
     "takes 4 inputs, but the layer before it gives 3"),
    (torch.nn.Sequential(torch.nn.ReLU(), torch.nn.Linear(2, 1)), ValueError,
     "before any Linear"),
    (torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU(), torch.nn.Tanh()),
     ValueError, "follows another activation"),
    (torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.Softplus(beta=2)), ValueError,
     "beta=1"),
    (torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU(), torch.nn.Linear(3, 3),
                         torch.nn.Tanh(), torch.nn.Linear(3, 1)), ValueError,
     "different activations \\(relu, tanh\\)"),
    (torch.nn.Sequential(), ValueError, "no Linear layer"),
    ("Linear(2, 1)", TypeError, "expected a torch.nn.Module, got str"),
])
def test_from_torch_refuses_what_an_mlp_cannot_hold(module, err, match):
    with pytest.raises(err, match=match):
        from_torch(module)


@pytest.mark.parametrize("call,err,match", [
    (lambda: to_torch("model"), TypeError, "expected a micrograd.nn.MLP, got str"),
    (lambda: to_torch(MLP(2, [1], seed=0), dtype=torch.int64), TypeError,
     "floating torch.dtype"),
    (lambda: to_torch(MLP(2, [1], seed=0), dtype="float32"), TypeError, "floating"),
    (lambda: state_dict(None), TypeError, "got NoneType"),
    (lambda: load_state_dict(MLP(2, [1], seed=0), [1, 2]), TypeError, "state dict"),
    (lambda: load_state_dict(MLP(2, [1], seed=0), {"0.weight": torch.zeros(1, 2)}),
     KeyError, r"missing \['0.bias'\]"),
    (lambda: load_state_dict(MLP(2, [1], seed=0), {"0.weight": torch.zeros(1, 3),
                                                   "0.bias": torch.zeros(1)}),
     ValueError, r"0.weight has shape \(1, 3\), this MLP needs \(1, 2\)"),
    (lambda: load_state_dict(MLP(2, [1], seed=0), {"0.weight": [[0.0, 0.0]],
                                                   "0.bias": torch.zeros(1)}),
     TypeError, "0.weight must be a tensor, got list"),
    (lambda: load_state_dict(MLP(2, [1], seed=0), {"0.weight": torch.zeros(1, 2),
                                                   "0.bias": torch.tensor([math.nan])}),
     ValueError, "0.bias holds a value that is not finite"),
])
def test_bad_arguments_are_named(call, err, match):
    with pytest.raises(err, match=match):
        call()


def test_a_refused_state_dict_changes_nothing():
    model = MLP(2, [3, 1], seed=0)
    before = weights(model)
    sd = state_dict(model)
    sd["2.bias"] = torch.tensor([math.inf], dtype=torch.float64)
    sd["0.weight"] = sd["0.weight"] + 1.0
    with pytest.raises(ValueError, match="2.bias"):
        load_state_dict(model, sd)
    assert weights(model) == before


def test_a_saved_model_goes_through_pytorch_and_back(tmp_path):
    model = MLP(2, [5, 3, 1], style="lecture", seed=4)
    io.save(model, tmp_path / "ours.json")
    loaded = io.load(tmp_path / "ours.json")
    net = to_torch(MLP(2, [5, 3, 1], style="lecture", seed=99))  # other weights...
    net.load_state_dict(state_dict(loaded))                        # ...replaced
    assert all(torch.equal(a, b) for a, b in zip(net.state_dict().values(),
                                                 to_torch(model).state_dict().values()))
    # one SGD step in PyTorch, then the weights come back into an MLP and to JSON
    X = torch.tensor(batch(2), dtype=torch.float64)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    (net(X) ** 2).sum().backward()
    opt.step()
    back = load_state_dict(io.load(tmp_path / "ours.json"), net.state_dict())
    io.save(back, tmp_path / "trained.json")
    final = io.load(tmp_path / "trained.json")
    for layer, lin in zip(final.layers, (0, 2, 4)):
        assert [[w.data for w in n.w] for n in layer.neurons] == net[lin].weight.tolist()
        assert [n.b.data for n in layer.neurons] == net[lin].bias.tolist()
    assert weights(final) != weights(model)  # the step moved them


def test_importing_the_engine_never_imports_torch():
    code = ("import sys, micrograd, micrograd.engine, micrograd.nn, micrograd.io\n"
            "assert 'torch' not in sys.modules, 'torch was imported'\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_docs_page_prints_what_it_shows():
    """docs/pytorch.md: the same model trained both ways; the listing prints the table."""
    import contextlib
    import io as text_io
    import re
    from pathlib import Path

    page = (Path(__file__).resolve().parents[1] / "docs" / "pytorch.md").read_text()
    fenced = re.findall(r"```(\w*)\n(.*?)```", page, flags=re.S)  # (language, text)
    (lang, code), (_, shown) = fenced[-2], fenced[-1]  # the listing, then its output
    assert lang == "python"
    out = text_io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "docs/pytorch.md", "exec"), {})  # our own docs, not user input
    assert out.getvalue().strip() == shown.strip()
    assert "agree to 1e-12: True" in shown

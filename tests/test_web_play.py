"""The playground's engine side: features, layers, L1/L2, regression, classes, hand-edited
points, edited weights, restored sessions, optimizer state and one point's whole graph.

The references are PyTorch float64 (the same network rebuilt from the session's
weights) and formulas written out here independently of micrograd.
"""

import math
import warnings

import pytest
import torch

with warnings.catch_warnings():  # starlette warns about httpx vs httpx2 at import time
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from micrograd.data import make_gaussians, make_plane
from micrograd.web import create_app, limits
from micrograd.web import play_pictures as pictures
from micrograd.experiment import FEATURES, Experiment, ExperimentError
from micrograd.web.limits import MAX_POINT_GRAPH_NODES
from micrograd.web.play_session import PlayError, PlaySession

#: the input features, written with torch (the reference for micrograd's Value forms)
TORCH_FEATURES = {"x1": lambda a, b: a, "x2": lambda a, b: b, "x1^2": lambda a, b: a * a,
                  "x2^2": lambda a, b: b * b, "x1*x2": lambda a, b: a * b,
                  "sin x1": lambda a, b: torch.sin(a), "sin x2": lambda a, b: torch.sin(b)}
TORCH_ACT = {"tanh": torch.tanh, "relu": torch.relu, "sigmoid": torch.sigmoid,
             "softplus": torch.nn.functional.softplus, "linear": lambda z: z}


def setup(**fields):
    """A checked experiment (the page's older names read, as the server reads them)."""
    return Experiment.from_dict(fields)


@pytest.fixture(scope="module")
def client():
    return TestClient(create_app())


def boundary(pg):
    return pictures.boundary(pg, pg.scores_at(pg.grid))


def torch_net(pg):
    """The session's network in torch: leaf tensors (W, b) per layer, and a forward."""
    layers = []
    for layer in pg.model.layers:
        W = torch.tensor([[w.data for w in n.w] for n in layer.neurons],
                         dtype=torch.float64, requires_grad=True)
        b = torch.tensor([n.b.data for n in layer.neurons], dtype=torch.float64,
                         requires_grad=True)
        layers.append((W, b, layer.neurons[0].activation))

    def forward(X):
        X = torch.as_tensor(X, dtype=torch.float64)
        h = torch.stack([TORCH_FEATURES[f](X[:, 0], X[:, 1]) for f in pg.experiment.features], 1)
        for W, b, act in layers:
            h = TORCH_ACT[act](h @ W.T + b)
        return h
    return layers, forward


def torch_loss(pg, out, y, layers):
    y = torch.as_tensor(y, dtype=torch.float64)
    name = pg.experiment.loss
    if name == "mse":
        loss = ((out[:, 0] - y) ** 2).mean()
    elif name == "hinge":
        loss = torch.relu(1 - y * out[:, 0]).mean()
    elif name == "bce":
        loss = torch.nn.functional.binary_cross_entropy_with_logits(out[:, 0], y)
    else:
        loss = torch.nn.functional.cross_entropy(out, y.long())
    params = [t for W, b, _ in layers for t in (W, b)]
    loss = loss + pg.experiment.l1 * sum(p.abs().sum() for p in params)
    return loss + pg.experiment.l2 * sum((p * p).sum() for p in params)


def grads_by_name(pg, layers):
    out = {}
    for li, (W, b, _) in enumerate(layers):
        for j in range(W.shape[0]):
            for i in range(W.shape[1]):
                out[f"w{li + 1}.{j + 1}.{i + 1}"] = W.grad[j, i].item()
            out[f"b{li + 1}.{j + 1}"] = b.grad[j].item()
    return out


CASES = [
    dict(dataset="circle", features=["x1", "x2", "x1^2", "x2^2"], hidden=[3, 2], l1=1e-3,
         l2=1e-2, loss="mse"),
    dict(dataset="xor", features=["x1*x2", "sin x1", "sin x2"], hidden=[4], loss="hinge",
         activation="relu"),
    dict(dataset="moons", hidden=[5, 3, 2], loss="bce", activation="softplus", l2=1e-3),
    dict(dataset="spiral", classes=3, loss="ce", hidden=[6], l1=1e-3),
    dict(dataset="blobs", classes=4, loss="ce", hidden=[3, 3], activation="sigmoid"),
    dict(dataset="gaussians", hidden=[4, 4], loss="mse", noise=0.05),
]


@pytest.mark.parametrize("cfg", CASES, ids=[c["dataset"] for c in CASES])
def test_one_training_step_equals_torch(cfg):
    """Features, layers, the loss (incl. 3+ classes), L1 and L2: one SGD step's grads
    and new weights match torch float64."""
    pg = PlaySession(setup(samples=60, lr=0.3, **cfg))
    layers, forward = torch_net(pg)
    loss = torch_loss(pg, forward(pg.X_train), pg.y_train, layers)
    loss.backward()
    before = {n: p.data for n, p in zip(pg.names, pg.params)}
    pg.train(1)
    ref = grads_by_name(pg, layers)
    for name, p in zip(pg.names, pg.params):
        assert p.grad == pytest.approx(ref[name], rel=1e-9, abs=1e-12), name
        assert p.data == pytest.approx(before[name] - 0.3 * ref[name], rel=1e-9, abs=1e-12)
    assert pg.metrics["train_loss"] == pytest.approx(
        torch_loss(pg, forward(pg.X_train), pg.y_train, layers).item()
        - 0, rel=0.5)  # after the step: same magnitude (the weights moved)


@pytest.mark.parametrize("cfg", CASES, ids=[c["dataset"] for c in CASES])
def test_traced_equals_eager(cfg):
    fast = PlaySession(setup(samples=60, batch_size=8, optimizer="adam", lr=0.02, **cfg))
    slow = PlaySession(setup(samples=60, batch_size=8, optimizer="adam", lr=0.02, **cfg),
                       traced=False)
    assert fast.traced and not slow.traced
    fast.train(4)
    slow.train(4)
    for p, q in zip(fast.params, slow.params):
        assert p.data == pytest.approx(q.data, rel=1e-9, abs=1e-12)
    assert fast.metrics["train_loss"] == pytest.approx(slow.metrics["train_loss"], rel=1e-9)
    assert boundary(fast)["values"] == pytest.approx(boundary(slow)["values"], abs=2e-4)


def test_the_state_says_how_the_steps_run_under_the_new_name_and_the_old():
    # execution: traced, eager or lowered; engine, its old name, still sent with its old
    # values (runner for lowered), so a page or a script reading it keeps working
    from micrograd.web import schemas

    assert pictures.OLD_ENGINE == {"traced": "traced", "eager": "eager", "lowered": "runner"}
    for traced, want in ((True, "traced"), (False, "eager")):
        s = PlaySession(setup(samples=20, hidden=[2]), traced=traced)
        state = pictures.play_state(s)
        assert (state["execution"], state["engine"]) == (want, want)
        assert "execution_note" not in state and "engine_note" not in state
    s.execution_note = "eager: cube has no lowering"  # as a session left eager says why
    state = pictures.play_state(s)
    assert state["execution_note"] == state["engine_note"] == s.execution_note
    fields = schemas.PlayState.model_fields
    assert set(fields["execution"].annotation.__args__) == set(pictures.OLD_ENGINE)
    assert set(fields["engine"].annotation.__args__) == set(pictures.OLD_ENGINE.values())


def test_boundary_thumbnails_and_classes_are_the_network_on_the_grid():
    pg = PlaySession(setup(dataset="spiral", classes=3, loss="ce", hidden=[4],
                               features=["x1", "x2", "sin x1"], samples=60))
    pg.train(3)
    layers, forward = torch_net(pg)
    logits = forward(pg.grid).detach()
    b = boundary(pg)
    probs = torch.softmax(logits, 1)
    assert b["classes"] == logits.argmax(1).tolist()
    assert b["values"] == pytest.approx(probs.max(1).values.tolist(), abs=1e-4)
    th = pictures.thumbnails(pg, pg.on_grid(pictures.thumbnail_cells())[1])
    assert [len(layer) for layer in th] == [3, 4, 3]
    n, step = limits.GRID, limits.GRID // 20
    cells = [i * n + j for i in range(0, n, step) for j in range(0, n, step)]
    assert pictures.thumbnail_cells() == cells
    # the third feature's picture is sin x1 on the coarse grid
    assert th[0][2] == pytest.approx([math.sin(pg.grid[c][0]) for c in cells], abs=5e-3)
    assert th[2][1] == pytest.approx([logits[c, 1].item() for c in cells], abs=5e-3)


def test_point_graph_numbers_equal_torch():
    """One data point's graph: every parameter leaf's grad is d(loss)/d(param) at that
    point (torch), the root is the loss; the training grads are left alone."""
    pg = PlaySession(setup(dataset="moons", hidden=[3, 2], features=["x1", "x2", "x1^2"],
                               samples=40))
    pg.train(2)
    grads_before = [p.grad for p in pg.params]
    x, label = pg.X_train[0], pg.y_train[0]
    g = pictures.follow(pg, x[0], x[1], label)
    assert [p.grad for p in pg.params] == grads_before
    layers, forward = torch_net(pg)
    out = forward([x])
    loss = (out[0, 0] - label) ** 2
    loss.backward()
    ref = grads_by_name(pg, layers)
    nodes = g["layout"]["nodes"]
    named = {nd["label"]: i for i, nd in enumerate(nodes) if nd["label"]}
    for name, grad in ref.items():
        assert g["values"][named[name]][1] == pytest.approx(grad, rel=1e-9, abs=1e-12)
    assert g["output"] == pytest.approx(loss.item(), rel=1e-12) and g["root"] == "loss"
    assert g["values"][named["out"]][0] == pytest.approx(out[0, 0].item(), rel=1e-12)
    assert g["values"][named["x1^2"]][0] == pytest.approx(x[0] ** 2)
    # a later state carries the numbers of the trained network, same node order
    pg.train(1)
    g2 = pictures.play_state(pg)["graph"]
    assert g2["key"] == g["key"] and g2["n"] == g["n"] and g2["values"] != g["values"]
    # a point of the plane without a label: the graph of the output
    g3 = pictures.follow(pg, 0.25, -0.5)
    _, forward = torch_net(pg)  # the network after that step
    assert g3["output"] == pytest.approx(forward([[0.25, -0.5]])[0, 0].item(), rel=1e-12)
    with pytest.raises(PlayError, match="class is -1 or \\+1"):
        pictures.follow(pg, 0.0, 0.0, 0.5)


def test_point_graph_has_a_cap():
    pg = PlaySession(setup(hidden=[32, 32, 8], samples=40))
    with pytest.raises(PlayError, match=f"drawn up to {MAX_POINT_GRAPH_NODES}"):
        pictures.follow(pg, 0.0, 0.0)
    assert pg.inspect is None


def test_parameter_table_holds_adam_moments_and_the_last_update():
    pg = PlaySession(setup(optimizer="adam", lr=0.05, hidden=[3], samples=40))
    layers, forward = torch_net(pg)
    params = [t for W, b, _ in layers for t in (W, b)]
    opt = torch.optim.Adam(params, lr=0.05)
    for _ in range(3):
        before = [p.data for p in pg.params]
        pg.train(1)
        opt.zero_grad()
        torch_loss(pg, forward(pg.X_train), pg.y_train, layers).backward()
        opt.step()
    table = pictures.parameter_table(pg)
    assert table["state"] == ["m", "v"]
    rows = {r[0]: r for r in table["rows"]}
    for li, (W, _, _) in enumerate(layers):
        st = opt.state[W]
        for j in range(W.shape[0]):
            r = rows[f"w{li + 1}.{j + 1}.1"]
            assert r[1] == pytest.approx(W[j, 0].item(), rel=1e-9)
            assert r[3][0] == pytest.approx(st["exp_avg"][j, 0].item(), rel=1e-9, abs=1e-15)
            assert r[3][1] == pytest.approx(st["exp_avg_sq"][j, 0].item(), rel=1e-9,
                                            abs=1e-15)
    for (_, value, _, _, update), b in zip(table["rows"], before):
        assert update == pytest.approx(value - b, rel=1e-9, abs=1e-15)
    momentum = PlaySession(setup(optimizer="momentum", hidden=[2], samples=40))
    momentum.train(2)
    t = pictures.parameter_table(momentum)
    assert t["state"] == ["momentum"]
    assert all(r[3][0] == pytest.approx(momentum.opt.buf[i]) for i, r in enumerate(t["rows"]))


def test_zero_lines_lie_where_each_first_layer_sum_is_zero():
    pg = PlaySession(setup(hidden=[5], samples=40))
    lines = pictures.zero_lines(pg)
    assert len(lines) == 5
    x0, x1, y0, y1 = pg.extent
    for n, segs in zip(pg.model.layers[0].neurons, lines):
        assert len(segs) <= 1
        for seg in segs:
            for px, py in (seg[:2], seg[2:]):
                assert n.w[0].data * px + n.w[1].data * py + n.b.data == pytest.approx(
                    0, abs=1e-9)
                assert x0 - 1e-9 <= px <= x1 + 1e-9 and y0 - 1e-9 <= py <= y1 + 1e-9
    assert sum(len(s) for s in lines) >= 1


def test_zero_curves_of_other_features():
    """With x1^2 and sin x2 the zero set is a curve: traced through the grid, each
    segment's ends lie where the sum (written out here with math) is about 0."""
    pg = PlaySession(setup(hidden=[4], samples=40, features=["x1^2", "sin x2", "x1"],
                               init_seed=3))
    lines = pictures.zero_lines(pg)
    assert len(lines) == 4 and sum(len(s) for s in lines) > 10
    cell = (pg.extent[1] - pg.extent[0]) / 40
    for n, segs in zip(pg.model.layers[0].neurons, lines):
        w = [v.data for v in n.w]
        slope = sum(abs(v) for v in w) * 3  # a bound on the sum's gradient on the plot
        for seg in segs:
            for px, py in (seg[:2], seg[2:]):
                s = w[0] * px * px + w[1] * math.sin(py) + w[2] * px + n.b.data
                assert abs(s) <= slope * cell * cell + 1e-4, (s, seg)
    # the eager path (no tracing) finds the same curves
    eager = PlaySession(setup(hidden=[4], samples=40, features=["x1^2", "sin x2", "x1"],
                                   init_seed=3), traced=False)
    again = pictures.zero_lines(eager)
    assert [len(s) for s in again] == [len(s) for s in lines]
    for a, b in zip(again, lines):
        assert [c for seg in a for c in seg] == pytest.approx([c for seg in b for c in seg],
                                                              abs=2e-4)


def test_blobs_at_noise_zero_are_clusters_not_two_points():
    pg = PlaySession(setup(dataset="blobs", noise=0.0, samples=100))
    pts = {(round(x, 9), round(y, 9)) for x, y in pg.X_train + pg.X_test}
    assert len(pts) == 100


def test_regression_sets():
    X, y = make_plane(50, seed=3)
    assert y == pytest.approx([(a + b) / 2 for a, b in X])
    X, y = make_gaussians(200, seed=3)
    assert all(-1 <= t <= 1 for t in y) and min(y) < -0.5 and max(y) > 0.5
    assert make_gaussians(20, seed=4) == make_gaussians(20, seed=4)
    X, y = make_plane(50, noise=5.0, seed=1)
    assert all(-1 <= t <= 1 for t in y)  # noisy targets are clipped
    pg = PlaySession(setup(dataset="plane", samples=60))
    assert pg.kind == "regression" and pg.metrics["train_acc"] is None


def test_points_added_and_removed_by_hand():
    base = PlaySession(setup(samples=40))
    pts = pictures.data_points(base)
    ids = sorted(p[3] for p in pts["train"] + pts["test"])
    assert ids == list(range(40))
    pg = PlaySession(setup(samples=40, added=[[0.5, 0.5, -1], [-0.2, 0.1, 1]],
                               removed=[0, 7]))
    pts = pictures.data_points(pg)["train"] + pictures.data_points(pg)["test"]
    assert len(pts) == 40
    assert sorted(p[3] for p in pts if p[3] >= 0) == [i for i in range(40) if i not in (0, 7)]
    added = sorted(p[:3] for p in pts if p[3] == -1)
    assert added == [[-0.2, 0.1, 1], [0.5, 0.5, -1]]
    # two classes with the softmax: the page's labels are class indices, as the points'
    ce = PlaySession(setup(samples=40, loss="ce", added=[[0.5, 0.5, 1], [0.4, 0.4, 0]]))
    pts = pictures.data_points(ce)
    got = {tuple(p[:2]): p[2] for p in pts["train"] + pts["test"]}
    assert got[(0.5, 0.5)] == 1 and got[(0.4, 0.4)] == 0
    with pytest.raises(ExperimentError, match="class is 0 to 1"):
        PlaySession(setup(samples=40, loss="ce", added=[[0.5, 0.5, -1]]))
    # bce wants 0/1 labels: a +1 from the page becomes the target 1, -1 becomes 0
    bce = PlaySession(setup(samples=40, loss="bce", added=[[0.5, 0.5, -1]]))
    i = [k for k, x in enumerate(bce.X_train + bce.X_test) if x == [0.5, 0.5]][0]
    assert (bce.y_train + bce.y_test)[i] == 0


def test_api_weight_edit_restore_reset_and_inspect(client):
    s = client.post("/api/play", json={"samples": 40, "hidden": [3]}).json()
    sid = s["sid"]
    assert len(s["thumbnails"]) == 3 and s["params"]["rows"][0][0] == "w1.1.1"
    e = client.patch(f"/api/play/{sid}/weight", json={"name": "w1.2.1", "value": 2.5}).json()
    assert e["network"]["layers"][0]["w"][1][0] == 2.5
    assert e["boundary"] != s["boundary"] and e["step"] == 0
    r = client.patch(f"/api/play/{sid}/weight", json={"name": "w9.1.1", "value": 1})
    assert r.status_code == 400 and "no parameter 'w9.1.1'" in r.json()["error"]
    assert client.patch(f"/api/play/{sid}/weight",
                        json={"name": "b1.1", "value": 1e9}).status_code == 422
    stepped = client.post(f"/api/play/{sid}/step", json={"steps": 3}).json()
    weights = [r[1] for r in stepped["params"]["rows"]]
    # a lost session comes back with its weights, step and followed point
    back = client.post("/api/play", json={**stepped["config"], "weights": weights,
                                          "step": 3, "inspect": {"x": 0.1, "y": 0.2}}).json()
    assert back["network"] == stepped["network"] and back["step"] == 3
    assert back["boundary"] == stepped["boundary"] and back["graph"]["layout"]
    # reset with a new init seed: new weights, said in the config
    new = client.post(f"/api/play/{sid}/reset", json={"init_seed": 5}).json()
    assert new["config"]["init_seed"] == 5 and new["network"] != s["network"]
    assert new["step"] == 0
    g = client.post(f"/api/play/{sid}/inspect", json={"x": 0.3, "y": -0.1, "label": 1}).json()
    assert g["graph"]["layout"]["nodes"][-1]["label"] == "loss"
    st = client.post(f"/api/play/{sid}/step", json={"steps": 1}).json()
    assert st["graph"]["layout"] is None and len(st["graph"]["values"]) == g["graph"]["n"]
    assert client.delete(f"/api/play/{sid}/inspect").json()["graph"] is None
    r = client.post(f"/api/play/{sid}/inspect", json={"x": 0.3, "y": -0.1, "label": 2})
    assert r.status_code == 400 and "class" in r.json()["error"]
    assert client.post("/api/play/nope/inspect", json={"x": 0, "y": 0}).status_code == 404


def test_every_feature_is_a_value_op():
    from micrograd.engine import Value

    for name, f in FEATURES.items():
        a, b = Value(0.3), Value(-1.2)
        ref = TORCH_FEATURES[name](torch.tensor(0.3, dtype=torch.float64),
                                   torch.tensor(-1.2, dtype=torch.float64))
        assert f(a, b).data == pytest.approx(ref.item(), rel=1e-15)


def test_point_graph_of_k_classes_without_a_label_is_the_loss_of_its_own_answer():
    pg = PlaySession(setup(dataset="blobs", classes=3, loss="ce", hidden=[3],
                               samples=30))
    g = pictures.follow(pg, 0.4, -0.7)
    _, forward = torch_net(pg)
    z = forward([[0.4, -0.7]])
    c = int(z.argmax())
    ref = torch.nn.functional.cross_entropy(z, torch.tensor([c]))
    assert g["root"] == f"loss if class {c}"
    assert g["output"] == pytest.approx(ref.item(), rel=1e-12)

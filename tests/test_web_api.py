"""The ``micrograd serve`` API: every route's answers and refusals (FastAPI TestClient).

Numbers are checked against micrograd itself (``micrograd.expr`` + ``Value.backward``)
and against the seeds' worked values; refusals must be a 4xx with a message, never a 500.
"""

import json
import math
import socket
import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

with warnings.catch_warnings():  # starlette warns about httpx vs httpx2 at import time
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from micrograd.data import DATASETS, REGRESSION
from micrograd.expr import parse
from micrograd.web import create_app, limits
from micrograd.web import play_pictures as pictures
from micrograd.experiment import MAX_LAYERS, Experiment
from micrograd.web.play_session import PlaySession
from micrograd.web.server.sessions import SessionStore
from micrograd.walk_setup import PRESETS, WalkSetup


def setup(**fields):
    """A checked experiment (the page's older names read, as the server reads them)."""
    return Experiment.from_dict(fields)

_STATIC = Path(__file__).resolve().parent.parent / "src" / "micrograd" / "web" / "static"
STATIC_FILES = sorted(p.relative_to(_STATIC).as_posix() for p in _STATIC.rglob("*")
                      if p.is_file())


@pytest.fixture(scope="module")
def client():
    return TestClient(create_app(evict_after=0))  # many sessions: the oldest make room


def refused(r, status):
    """A refusal: the expected 4xx status, a JSON body with a non-empty message."""
    assert r.status_code == status, (r.status_code, r.text)
    body = r.json()
    assert isinstance(body.get("error"), str) and body["error"].strip(), body
    return body["error"]


def by_name(view):
    """name -> the node as drawn, with its walk's final and correct grads."""
    w = view["walk"]
    return {n["name"]: {**n, "grad": w["grads"][n["id"]], "true_grad": w["expected"][n["id"]]}
            for n in view["graph"]["nodes"]}


# ---------------------------------------------------------------------------------------
# the page and meta
# ---------------------------------------------------------------------------------------


def test_index_and_static_files_are_served(client):
    r = client.get("/")
    assert r.status_code == 200 and "text/html" in r.headers["content-type"]
    assert '<script type="module" src="static/app.js">' in r.text  # it imports the rest
    for name in STATIC_FILES:
        assert client.get(f"/static/{name}").status_code == 200


def test_page_loads_nothing_from_the_network(client):
    """No CDN: the page and its assets reference no absolute URL (works offline)."""
    for path in ["/"] + [f"/static/{name}" for name in STATIC_FILES]:
        text = client.get(path).text
        for bad in ("http://", "https://", "//cdn", "@import"):
            assert bad not in text.replace("http://www.w3.org/2000/svg", ""), (path, bad)


def test_meta_lists_presets_options_and_caps(client):
    m = client.get("/api/meta").json()
    assert [p["key"] for p in m["walk_presets"]] == list(PRESETS)
    # the older flat keys, canonical names (the set-ups' own descriptions beside them)
    # every data set of the library's two tables, then the learner's own points
    assert m["datasets"] == [*DATASETS, *REGRESSION, "own", "own_regression"]
    assert m["regression"] == [*REGRESSION, "own_regression"]
    assert {"moons", "circles", "disk", "xor", "plane", "gaussians"} <= set(m["datasets"])
    assert m["experiment"] == Experiment.spec() and m["walk"] == WalkSetup.spec()
    assert m["play_defaults"] == Experiment().to_dict()
    assert m["play_limits"]["max_layers"] == MAX_LAYERS == 6
    assert m["features"] == ["x1", "x2", "x1^2", "x2^2", "x1*x2", "sin x1", "sin x2"]
    assert {"sgd", "adam"} <= set(m["optimizers"])
    assert m["limits"]["max_expr_chars"] == limits.MAX_EXPR_CHARS
    assert m["play_defaults"]["hidden"] == [4, 2]


def test_unknown_route_and_method_are_json_refusals(client):
    assert "no such route" in refused(client.get("/api/nope"), 404)
    assert "not allowed" in refused(client.delete("/api/meta"), 405)
    assert "not allowed" in refused(client.get("/api/walk"), 405)


def test_body_over_the_cap_is_413(client):
    big = json.dumps({"expr": "a = 1", "pad": "x" * (limits.MAX_BODY_BYTES + 10)})
    refused(client.post("/api/walk", content=big, headers={"content-type":
                                                           "application/json"}), 413)


def test_invalid_json_is_422_with_a_message(client):
    msg = refused(client.post("/api/walk", content=b"{bad",
                              headers={"content-type": "application/json"}), 422)
    assert "not valid JSON" in msg


# ---------------------------------------------------------------------------------------
# the walk
# ---------------------------------------------------------------------------------------

SEED_GRADS = {  # seeds 002/003: the numbers the page must show
    "sum_times": {"a": 10.0, "b": 10.0, "c": -1.0},
    "lecture": {"a": 6.0, "b": -4.0, "c": -2.0, "f": 4.0},
    "square": {"a": 6.0},
    "diamond": {"a": 15.0},
}


@pytest.mark.parametrize("key", list(PRESETS))
def test_walk_preset_matches_the_engine(client, key):
    view = client.post("/api/walk", json={"preset": key}).json()
    root = parse(PRESETS[key].expr)
    root.backward()
    nodes = by_name(view)
    assert nodes[root.label]["data"] == root.data
    from micrograd.graph import trace
    for n in trace(root)[0]:
        if n.value.label:
            assert nodes[n.value.label]["grad"] == n.value.grad, n.value.label
            assert nodes[n.value.label]["data"] == n.value.data
    for name, g in SEED_GRADS.get(key, {}).items():
        assert nodes[name]["grad"] == g
    # the steps: forward, then the seed, and the last update of each node is its grad;
    # the records' texts are the steps' texts
    w = view["walk"]
    assert w["backward"][0]["kind"] == "seed" and w["backward"][0]["node"] == w["root"]
    last = {w["root"]: (1.0, w["backward"][0]["cell"])}
    for s in w["backward"]:
        for c in s["contributions"]:
            last[c["parent"]] = (c["grad_after"], c["cell"])
    for n in view["graph"]["nodes"]:
        assert n["grad"] == w["grads"][n["id"]]
        assert n["cells"][-1] == w["grad_cells"][n["id"]] == last[n["id"]][1]
        assert last[n["id"]][0] == n["grad"]
    assert [s["node"] for s in w["forward"]] == [n["id"] for n in view["graph"]["nodes"]
                                                 if not n["leaf"]]


def test_walk_neuron_w1_grad_and_root_value(client):
    nodes = by_name(client.post("/api/walk", json={"preset": "neuron"}).json())
    assert nodes["o"]["data"] == pytest.approx(math.sqrt(0.5), abs=1e-12)
    assert nodes["w1"]["grad"] == pytest.approx(1.0, abs=1e-12)
    assert nodes["w2"]["grad"] == 0.0


def test_walk_updates_are_upstream_times_local(client):
    view = client.post("/api/walk", json={"preset": "lecture"}).json()
    edges = {e["id"]: e for e in view["graph"]["edges"]}
    n_updates = 0
    for s in view["walk"]["backward"]:
        for u in s["contributions"]:
            n_updates += 1
            assert u["contribution"] == u["upstream"] * u["local"]
            assert u["grad_after"] == u["grad_before"] + u["contribution"]
            assert edges[u["edge"]]["local"] == u["local"]
            assert u["edge"] in view["edge_notes"]
    assert n_updates == 6


def test_walk_leaf_edit_recomputes_everything(client):
    view = client.post("/api/walk", json={"preset": "lecture", "values": {"a": 3.5}}).json()
    root = parse(PRESETS["lecture"].expr.replace("a = 2", "a = 3.5"))
    root.backward()
    nodes = by_name(view)
    assert nodes["L"]["data"] == root.data
    assert nodes["b"]["grad"] == pytest.approx(-2.0 * 3.5)  # dL/db = f * a
    assert [leaf["value"] for leaf in view["leaves"] if leaf["name"] == "a"] == [3.5]


def test_walk_own_expression(client):
    view = client.post("/api/walk", json={"expr": "x = 0.5; y = tanh(x) * x ** 2"}).json()
    root = parse("x = 0.5; y = tanh(x) * x ** 2")
    root.backward()
    assert by_name(view)["y"]["data"] == root.data
    assert by_name(view)["x"]["grad"] == pytest.approx(
        (1 - math.tanh(0.5) ** 2) * 0.25 + math.tanh(0.5) * 1.0, abs=1e-12)


def test_walk_teaching_modes(client):
    sq = client.post("/api/walk", json={"preset": "square", "assign": True}).json()
    assert by_name(sq)["a"]["grad"] == 3.0 and by_name(sq)["a"]["true_grad"] == 6.0
    assert not sq["walk"]["ok"] and "wrong: grad[a] = 3, correct 6" in sq["walk"]["notes"]
    assert all(" = " in u["text"] and "+=" not in u["text"]
               for s in sq["walk"]["backward"] for u in s["contributions"])
    rec = client.post("/api/walk", json={"expr": "a = 1; b = a + a; c = b + b",
                                         "recursive": True}).json()
    assert by_name(rec)["a"]["grad"] == 8.0 and by_name(rec)["a"]["true_grad"] == 4.0
    nz = client.post("/api/walk", json={"preset": "lecture", "no_zero_grad": True}).json()
    assert by_name(nz)["a"]["grad"] == 24.0
    ok = client.post("/api/walk", json={"preset": "square"}).json()
    assert ok["walk"]["ok"] and ok["walk"]["notes"] == ["every grad is correct"]


def test_walk_refusals(client):
    post = lambda body: client.post("/api/walk", json=body)  # noqa: E731
    assert "exactly one" in refused(post({}), 422)
    assert "exactly one" in refused(post({"preset": "square", "expr": "a = 1"}), 422)
    assert "unknown preset" in refused(post({"preset": "nope"}), 404)
    msg = refused(post({"expr": "a = 2; b = a +* 3"}), 400)
    assert "^" in msg and "a +* 3" in msg
    refused(post({"expr": "a = 1; b = __import__('os')"}), 400)
    refused(post({"expr": "a = 1; b = a.data"}), 400)
    assert "characters" in refused(post({"expr": "a = 1; " * 300}), 422)
    assert "nodes" in refused(post({"expr": "a = 1; b = " + "+".join(["a"] * 400)}), 400)
    assert "deep" in refused(post({"expr": "a = 1; b = " + "(" * 60 + "a" + ")" * 60}), 400)
    assert "no leaf named" in refused(post({"preset": "square", "values": {"zz": 1}}), 400)
    refused(post({"preset": "square", "values": {"a": "x"}}), 422)
    refused(client.post("/api/walk", content=b'{"preset": "square", "values": {"a": NaN}}',
                        headers={"content-type": "application/json"}), 422)
    refused(post({"preset": "square", "assign": "yes"}), 422)
    refused(post({"preset": "square", "colour": "red"}), 422)
    assert "one teaching mode" in refused(post({"preset": "square", "assign": True,
                                                "no_zero_grad": True}), 400)
    refused(post({"expr": ""}), 400)
    refused(post({"expr": 12}), 422)
    refused(client.post("/api/walk", content=b"[1, 2]",
                        headers={"content-type": "application/json"}), 422)


def test_walk_non_finite_numbers_travel_as_strings(client):
    view = client.post("/api/walk", json={"expr": "a = 1e200; b = a * a"}).json()
    assert by_name(view)["b"]["data"] == "Infinity"


def test_visit_order_diamond(client):
    ids = {n["name"]: n["id"] for n in
           client.post("/api/walk", json={"preset": "diamond"}).json()["graph"]["nodes"]}
    order = lambda names: [ids[n] for n in names]  # noqa: E731
    bad = client.post("/api/walk/order", json={"preset": "diamond",
                                               "order": order("adbc")}).json()
    assert not bad["ok"] and bad["walk"]["grads"][ids["a"]] == 0.0
    assert {x["source"] for x in bad["walk"]["lost"]} == {ids["b"], ids["c"]}
    assert "lost" in bad["message"] and "d -> b -> a" in bad["message"]
    half = client.post("/api/walk/order", json={"preset": "diamond",
                                                "order": order("dbac")}).json()
    assert half["walk"]["grads"][ids["a"]] == 6.0
    assert [x["source"] for x in half["walk"]["lost"]] == [ids["c"]]
    good = client.post("/api/walk/order", json={"preset": "diamond",
                                                "order": order("dbca")}).json()
    assert good["ok"] and good["walk"]["grads"][ids["a"]] == 15.0
    assert good["walk"]["lost"] == [] and good["walk"]["expected"][ids["a"]] == 15.0


def test_visit_order_refusals(client):
    post = lambda body: client.post("/api/walk/order", json=body)  # noqa: E731
    assert "unknown node" in refused(post({"preset": "diamond", "order": ["n99"]}), 400)
    assert "twice" in refused(post({"preset": "diamond", "order": ["n0", "n0"]}), 400)
    refused(post({"preset": "diamond"}), 422)
    refused(post({"preset": "diamond", "order": "n0,n1"}), 422)
    refused(post({"preset": "diamond", "order": ["n0"] * (limits.MAX_ORDER_LEN + 1)}), 422)
    refused(post({"expr": "a = (", "order": []}), 400)


def test_nudge(client):
    r = client.post("/api/walk/nudge", json={"preset": "neuron", "leaf": "w1"}).json()
    assert r["grad"] == pytest.approx(1.0, abs=1e-12)
    assert r["slope"] == pytest.approx(1.0, abs=1e-6) and r["ok"]
    assert r["abs_err"] == abs(r["slope"] - r["grad"]) and r["name"] == "w1"
    r = client.post("/api/walk/nudge", json={"preset": "diamond", "leaf": "a", "h": 1e-3,
                                             "values": {"a": 3.0}}).json()
    assert r["slope"] == pytest.approx(6 * 3.0 + 3, abs=1e-6)


def test_nudge_refusals(client):
    post = lambda body: client.post("/api/walk/nudge", json=body)  # noqa: E731
    assert "no leaf named" in refused(post({"preset": "square", "leaf": "f"}), 400)
    refused(post({"preset": "square", "leaf": "a", "h": 0}), 422)
    refused(post({"preset": "square", "leaf": "a", "h": -1e-3}), 422)
    refused(post({"preset": "square", "leaf": "a", "h": 5}), 422)
    refused(post({"preset": "square"}), 422)


def test_nudge_with_a_tiny_h(client):
    post = lambda h: client.post("/api/walk/nudge", json={  # noqa: E731
        "expr": "relu(a)", "values": {"a": 0}, "leaf": "a", "h": h})
    r = post(1e-110)  # relu's kink: the central slope 0.5 against the grad 0
    assert r.status_code == 200, r.text
    assert (r.json()["slope"], r.json()["grad"], r.json()["ok"]) == (0.5, 0.0, False)
    assert refused(post(1e-320), 400).startswith("h must be a positive finite number, at least")


# ---------------------------------------------------------------------------------------
# the playground
# ---------------------------------------------------------------------------------------


def small(**kw):
    return {"samples": 60, "hidden": [4], **kw}


def test_play_create_step_lr_reset_delete(client):
    s = client.post("/api/play", json=small()).json()
    sid = s["sid"]
    assert s["step"] == 0 and len(s["history"]) == 1
    assert s["execution"] == "traced"  # the page says how the steps run
    assert s["engine"] == "traced"  # (the field's old name, still sent)
    assert len(s["points"]["train"]) + len(s["points"]["test"]) == 60
    assert len(s["boundary"]["values"]) == limits.GRID ** 2
    assert s["network"]["sizes"] == [2, 4, 1]
    s2 = client.post(f"/api/play/{sid}/step", json={"steps": 3}).json()
    assert s2["step"] == 3 and len(s2["history"]) == 1 and "points" not in s2 or \
        s2["points"] is None
    # the learning rate changes without a reset
    r = client.patch(f"/api/play/{sid}", json={"lr": 0.02}).json()
    assert r["lr"] == 0.02
    s3 = client.post(f"/api/play/{sid}/step", json={"steps": 1, "lr": 0.03}).json()
    assert s3["step"] == 4 and s3["lr"] == 0.03
    full = client.get(f"/api/play/{sid}").json()
    assert [row[0] for row in full["history"]] == [0, 3, 4]
    s4 = client.post(f"/api/play/{sid}/reset", json={}).json()
    assert s4["step"] == 0 and s4["points"] == s["points"]
    assert s4["network"] == s["network"]  # same init seed: the same weights
    assert client.delete(f"/api/play/{sid}").json() == {"deleted": True}
    refused(client.get(f"/api/play/{sid}"), 404)


def test_play_same_config_same_data_and_model(client):
    a = client.post("/api/play", json=small(dataset="moons", seed=7)).json()
    b = client.post("/api/play", json=small(dataset="moons", seed=7)).json()
    c = client.post("/api/play", json=small(dataset="moons", seed=8)).json()
    assert a["points"] == b["points"] and a["points"] != c["points"]
    sa = client.post(f"/api/play/{a['sid']}/step", json={"steps": 5}).json()
    sb = client.post(f"/api/play/{b['sid']}/step", json={"steps": 5}).json()
    assert sa["network"] == sb["network"] and sa["metrics"] == sb["metrics"]


@pytest.mark.parametrize("dataset", ["circle", "moons", "xor", "spiral", "blobs"])
@pytest.mark.parametrize("loss", ["mse", "hinge", "bce"])
def test_play_every_dataset_and_loss(client, dataset, loss):
    s = client.post("/api/play", json=small(dataset=dataset, loss=loss, noise=0.1,
                                            batch_size=10, l2=1e-3,
                                            optimizer="adam", lr=0.01)).json()
    s = client.post(f"/api/play/{s['sid']}/step", json={"steps": 2}).json()
    assert s["step"] == 2 and s["epoch"] == 0
    assert all(-1.0 <= v <= 1.0 for v in s["boundary"]["values"])
    assert 0.0 <= s["metrics"]["train_acc"] <= 1.0


def test_play_refusals(client):
    post = lambda body: client.post("/api/play", json=body)  # noqa: E731
    refused(post({"dataset": "mnist"}), 422)
    refused(post({"samples": limits.MAX_SAMPLES + 1}), 422)
    refused(post({"samples": 5}), 422)
    refused(post({"hidden": []}), 422)
    refused(post({"hidden": [2] * (MAX_LAYERS + 1)}), 422)
    assert post({"hidden": [2] * MAX_LAYERS}).status_code == 200
    assert "neurons" in refused(post({"hidden": [limits.MAX_NEURONS + 1]}), 400)
    assert "parameters" in refused(post({"hidden": [32, 32, 32]}), 400)
    assert "batch size" in refused(post({"samples": 20, "batch_size": 15}), 400)
    refused(post({"lr": 0}), 422)
    refused(post({"lr": -1}), 422)
    refused(post({"activation": "gelu"}), 422)
    refused(post({"loss": "softmax"}), 422)
    assert "classes" in refused(post({"dataset": "circle", "classes": 3, "loss": "ce"}), 400)
    assert "use loss ce" in refused(post({"dataset": "spiral", "classes": 3}), 400)
    assert "'mse'" in refused(post({"dataset": "plane", "loss": "hinge"}), 400)
    refused(post({"features": []}), 422)
    refused(post({"features": ["x3"]}), 422)
    assert "twice" in refused(post({"features": ["x1", "x1"]}), 400)
    assert "class" in refused(post({"added": [[0.1, 0.2, 3]]}), 400)
    assert "[x1, x2, label]" in refused(post({"added": [[0.1, 0.2]]}), 400)
    assert "removed point" in refused(post({"samples": 20, "removed": [20]}), 400)
    assert "weights" in refused(post(small(weights=[0.5])), 400)
    refused(post({"optimizer": "lbfgs"}), 422)
    refused(post({"noise": -0.1}), 422)
    refused(post({"train_ratio": 1.0}), 422)
    refused(post({"hidden": [1.5]}), 422)
    refused(post({"epochs": 3}), 422)
    refused(client.post("/api/play", content=b'{"lr": Infinity}',
                        headers={"content-type": "application/json"}), 422)


def test_play_session_route_refusals(client):
    sid = client.post("/api/play", json=small()).json()["sid"]
    for r in (client.get("/api/play/nope"), client.post("/api/play/nope/step", json={}),
              client.patch("/api/play/nope", json={"lr": 0.1}),
              client.post("/api/play/nope/reset", json={}), client.delete("/api/play/nope")):
        assert "no playground session" in refused(r, 404)
    refused(client.post(f"/api/play/{sid}/step", json={"steps": 0}), 422)
    refused(client.post(f"/api/play/{sid}/step",
                        json={"steps": limits.MAX_STEPS_PER_REQUEST + 1}), 422)
    refused(client.post(f"/api/play/{sid}/step", json={"lr": 0}), 422)
    refused(client.patch(f"/api/play/{sid}", json={}), 422)
    refused(client.patch(f"/api/play/{sid}", json={"lr": 100}), 422)
    refused(client.post(f"/api/play/{sid}/reset", json={"init_seed": -1}), 422)


def test_sessions_are_capped_least_recently_used_first():
    c = TestClient(create_app(max_sessions=2, evict_after=0))
    a, b = (c.post("/api/play", json=small()).json()["sid"] for _ in range(2))
    c.get(f"/api/play/{a}")                      # a is now the most recently used
    third = c.post("/api/play", json=small()).json()["sid"]
    refused(c.get(f"/api/play/{b}"), 404)        # b was evicted
    assert c.get(f"/api/play/{a}").status_code == 200
    assert c.get(f"/api/play/{third}").status_code == 200


def test_session_store_idle_expiry_and_cap():
    now = [0.0]
    store = SessionStore(max_sessions=3, idle_seconds=10, evict_after=0,
                         clock=lambda: now[0])
    ids = [store.create(i) for i in range(3)]
    now[0] = 5.0
    assert store.get(ids[0]) == 0
    now[0] = 12.0                                # ids[1], ids[2] idle for 12 s: dropped
    with pytest.raises(KeyError):
        store.get(ids[1])
    assert len(store) == 1 and store.get(ids[0]) == 0
    for i in range(5):
        store.create(i)
    assert len(store) == 3 and store.evicted == 5
    with pytest.raises(ValueError):
        SessionStore(max_sessions=0)


def test_unexpected_errors_become_json_500(monkeypatch):
    import micrograd.web.walkview as walkview

    def boom(*a, **k):
        raise RuntimeError("boom")

    monkeypatch.setattr(walkview, "build_in_turns", boom)  # what the walk route runs
    c = TestClient(create_app(), raise_server_exceptions=False)
    r = c.post("/api/walk", json={"preset": "square"})
    assert r.status_code == 500 and "internal error (RuntimeError)" in r.json()["error"]


# JSON-like values, nested a few levels (st.deferred: st.recursive's "does extend use its
# argument" check misfires in some hypothesis versions once other tests have run)
_JSON_LEAF = (st.none() | st.booleans() | st.integers(-10**6, 10**6)
              | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=12))
JSONISH = st.deferred(lambda: _JSON_LEAF | st.lists(JSONISH, max_size=4)
                      | st.dictionaries(st.text(max_size=8), JSONISH, max_size=4))
FIELDS = st.fixed_dictionaries({}, optional={
    "preset": st.sampled_from(list(PRESETS) + ["x"]) | JSONISH,
    "expr": st.text(alphabet="ab12+-*/()=; .e", max_size=30) | JSONISH,
    "values": JSONISH, "order": JSONISH, "leaf": JSONISH, "h": JSONISH,
    "assign": JSONISH, "dataset": JSONISH, "samples": JSONISH, "hidden": JSONISH,
    "lr": JSONISH, "batch_size": JSONISH, "steps": JSONISH, "features": JSONISH,
    "classes": JSONISH, "l1": JSONISH, "inspect": JSONISH, "step": JSONISH,
    "added": st.lists(st.lists(st.floats(-20, 20) | st.integers(-3, 6), max_size=4),
                      max_size=3) | JSONISH,
    "removed": st.lists(st.integers(-5, 300), max_size=3) | JSONISH,
    "weights": st.lists(st.floats(-1e308, 1e308), min_size=25, max_size=25) | JSONISH})


@settings(max_examples=40, deadline=None)
@given(route=st.sampled_from(["/api/walk", "/api/walk/order", "/api/walk/nudge",
                              "/api/play"]), body=FIELDS | JSONISH)
def test_no_request_body_gives_a_500(route, body):
    c = _fuzz_client()
    r = c.post(route, json=body)
    assert r.status_code < 500, (route, body, r.text)
    if r.status_code >= 400:
        assert r.json()["error"]


_FUZZ = []


def _fuzz_client():
    if not _FUZZ:
        _FUZZ.append(TestClient(create_app(max_sessions=4, evict_after=0)))
    return _FUZZ[0]


# ---------------------------------------------------------------------------------------
# the engine paths agree
# ---------------------------------------------------------------------------------------


def test_traced_training_equals_eager_training():
    """The playground trains through micrograd.trace; the eager engine gives the same."""
    cfg = dict(samples=80, hidden=[5, 3], batch_size=16, l2=1e-3, optimizer="adam",
               lr=0.02, loss="hinge", activation="relu", dataset="moons", noise=0.1)
    fast = PlaySession(Experiment.from_dict(cfg))
    slow = PlaySession(Experiment.from_dict(cfg), traced=False)
    assert fast.traced and not slow.traced
    fast.train(7)
    slow.train(7)
    for p, q in zip(fast.params, slow.params):
        assert p.data == pytest.approx(q.data, rel=1e-9, abs=1e-12)
    for k in ("train_loss", "test_loss"):
        assert fast.metrics[k] == pytest.approx(slow.metrics[k], rel=1e-9)
    assert pictures.boundary(fast, fast.scores_at(fast.grid))["values"] == pytest.approx(
        pictures.boundary(slow, slow.scores_at(slow.grid))["values"], abs=1e-3)


def test_boundary_is_the_model_on_the_grid():
    pg = PlaySession(setup(samples=40, hidden=[3]))
    pg.train(3)
    vals = pictures.boundary(pg, pg.scores_at(pg.grid))["values"]
    for i in (0, 17, 999, len(pg.grid) - 1):
        assert vals[i] == pytest.approx(pg.model(pg.grid[i]).data, abs=1e-4)


# ---------------------------------------------------------------------------------------
# the command
# ---------------------------------------------------------------------------------------


def _serve_args(*argv):
    from micrograd.cli import build_parser

    return build_parser().parse_args(["serve", *argv])


def test_serve_help_and_bad_port(capsys):
    from micrograd.cli import main
    from micrograd.commands import serve

    with pytest.raises(SystemExit) as e:
        main(["serve", "--help"])
    assert e.value.code == 0 and "--port" in capsys.readouterr().out
    assert serve.run(_serve_args("--port", "70000")) == 2
    assert "--port" in capsys.readouterr().err


def test_serve_reports_a_busy_port(capsys):
    from micrograd.commands import serve

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(1)
        port = s.getsockname()[1]
        rc = serve.run(_serve_args("--port", str(port)))
    assert rc == 1 and "cannot bind" in capsys.readouterr().err

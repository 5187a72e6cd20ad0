"""The Walk's API in one shape: the encoder, the schemas made from the walk's dataclasses,
free variables, the questions (checked against ``Value.backward()``), the reused-node
lesson (against an independent recursive backward) and the neurons a drawing can fold."""

import dataclasses
import json
import math
import warnings

import pytest

with warnings.catch_warnings():  # starlette warns about httpx vs httpx2 at import time
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from micrograd import walk as walk_mod
from micrograd.expr import evaluate, parse
from micrograd.graph import num, trace
from micrograd.viz.layout import CELL_PAD, text_width
from micrograd.web import create_app, schemas
from micrograd.walk_setup import PRESETS
from micrograd.web.walkview import build, free_names
from micrograd.wire import encode


@pytest.fixture(scope="module")
def client():
    return TestClient(create_app())


def refused(r, status):
    assert r.status_code == status, (r.status_code, r.text)
    body = r.json()
    assert isinstance(body.get("error"), str) and body["error"].strip(), body
    return body


def engine(source, values=None):
    prog = evaluate(source, values, override=True)
    prog.root.backward()
    return prog.names


# ---------------------------------------------------------------------------------------
# one encoder, one schema
# ---------------------------------------------------------------------------------------


def test_encode_uses_the_one_wire_form_for_inf_and_nan():
    for x in (math.inf, -math.inf, math.nan, 0.0, -2.5, 1e308):
        assert encode(x) == num(x)
        assert encode([x]) == [num(x)] and encode({"k": (x,)}) == {"k": [num(x)]}
    assert encode(True) is True and encode(3) == 3 and encode(None) is None

    @dataclasses.dataclass
    class Step:
        pass_: int
        value: float
        back: object = dataclasses.field(default=None, metadata={"wire": False})

    assert encode(Step(2, math.nan, object())) == {"pass": 2, "value": "NaN"}
    with pytest.raises(TypeError, match="object"):
        encode(object())
    with pytest.raises(TypeError, match="dict key of type int"):
        encode({1: 2.0})


def test_the_schemas_are_the_dataclasses_fields():
    w = walk_mod.walk(parse("a = 2; b = a*a; c = log(b - b)"))
    sent = encode(w)
    json.dumps(sent, allow_nan=False)
    pairs = [(walk_mod.WalkResult, sent), (walk_mod.ForwardStep, sent["forward"][0]),
             (walk_mod.BackwardStep, sent["backward"][1]),
             (walk_mod.Contribution, sent["backward"][1]["contributions"][0]),
             (walk_mod.Nudge, encode(walk_mod.nudge(parse("a = 2; b = a*a"), "a")))]
    for cls, d in pairs:
        model = schemas.model_of(cls)
        assert list(model.model_fields) == list(d), cls.__name__
        # validating what is sent keeps it as it is (strings for inf/nan included)
        assert model.model_validate(d).model_dump(mode="json") == d
    # a field added to a dataclass appears in its schema by itself
    @dataclasses.dataclass
    class Later:
        x: float
        tags: list[str]
        maybe: float | None = None

    fields = schemas.model_of(Later).model_fields
    assert list(fields) == ["x", "tags", "maybe"]
    assert schemas.model_of(Later).model_validate({"x": "Infinity", "tags": [],
                                                  "maybe": None}).x == "Infinity"


def test_the_walk_route_sends_what_walk_produces(client):
    view = client.post("/api/walk", json={"preset": "lecture"}).json()
    mine = encode(walk_mod.walk(parse(PRESETS["lecture"].expr)))
    assert view["walk"] == mine
    nodes = {n["id"]: n for n in view["graph"]["nodes"]}
    for n in nodes.values():  # every record says the walk's final numbers, as texts
        assert n["cells"][-1] == mine["grad_cells"][n["id"]]
        assert sum(n["cell_widths"]) == pytest.approx(n["box"]["w"], abs=0.05)
    # every text a record shows during the walk fits its cell
    for s in view["walk"]["forward"]:
        i = 1 if nodes[s["node"]]["label"] else 0
        assert text_width(s["cell"]) + 2 * CELL_PAD <= nodes[s["node"]]["cell_widths"][i] + 1e-6
    for s in view["walk"]["backward"]:
        for nid, text in [(s["node"], s["cell"])] + [(c["parent"], c["cell"])
                                                      for c in s["contributions"]]:
            assert text_width(text) + 2 * CELL_PAD <= nodes[nid]["cell_widths"][-1] + 1e-6


def test_records_are_wide_enough_in_every_mode(client):
    for body in ({"preset": "reused", "recursive": True},
                 {"preset": "lecture", "no_zero_grad": True},
                 {"expr": "a = -0.001; b = a*a*a*1000000; c = b*b", "assign": True},
                 # correct mode: grad[a] passes through -999 on its way to 1
                 {"expr": "a = 1; b = a * 1000; c = a * -999; d = b + c"}):
        view = client.post("/api/walk", json=body).json()
        widths = {n["id"]: n["cell_widths"][-1] for n in view["graph"]["nodes"]}
        for s in view["walk"]["backward"]:
            for c in s["contributions"]:
                assert text_width(c["cell"]) + 2 * CELL_PAD <= widths[c["parent"]] + 1e-6


def test_every_node_a_step_names_is_named_in_the_drawing(client):
    view = client.post("/api/walk", json={
        "expr": "tanh(x1*w1 + x2*w2 + b)",
        "values": {"x1": 2, "w1": -3, "x2": 0, "w2": 1, "b": 6.88}}).json()
    drawn = {n["id"]: n["cells"][0] for n in view["graph"]["nodes"] if n["label"]}
    named = {s["node"]: s["name"] for s in view["walk"]["forward"]}
    named.update({c["parent"]: c["parent_name"] for s in view["walk"]["backward"]
                  for c in s["contributions"]})
    for nid, name in named.items():
        assert drawn[nid] == name
    assert set(view["edge_notes"]) == {e["id"] for e in view["graph"]["edges"]}


# ---------------------------------------------------------------------------------------
# free variables
# ---------------------------------------------------------------------------------------


def test_free_names():
    assert free_names("tanh(x1*w1 + x2*w2 + b)") == ["x1", "w1", "x2", "w2", "b"]
    assert free_names("a = 2; b = a*x; exp(b)") == ["x"]
    assert free_names("a = 2; b = a*a") == []


def test_free_variables_ask_for_values(client):
    body = refused(client.post("/api/walk", json={"expr": "tanh(x1*w1 + b)"}), 400)
    assert body["free"] == ["x1", "w1", "b"] and "x1, w1, b" in body["error"]
    body = refused(client.post("/api/walk", json={"expr": "tanh(x1*w1 + b)",
                                                  "values": {"x1": 1.0}}), 400)
    assert "w1, b" in body["error"] and "x1," not in body["error"]
    values = {"x1": 0.5, "w1": -1.5, "b": 0.25}
    view = client.post("/api/walk", json={"expr": "tanh(x1*w1 + b)", "values": values}).json()
    assert view["free"] == ["x1", "w1", "b"]
    assert [leaf["name"] for leaf in view["leaves"]] == ["x1", "w1", "b"]
    truth = engine("tanh(x1*w1 + b)", values)
    ids = {n["name"]: n["id"] for n in view["graph"]["nodes"]}
    for name in values:
        assert view["walk"]["grads"][ids[name]] == pytest.approx(truth[name].grad, abs=1e-15)
    t = math.tanh(0.5 * -1.5 + 0.25)
    assert view["walk"]["grads"][ids["w1"]] == pytest.approx((1 - t * t) * 0.5, rel=1e-12)


# ---------------------------------------------------------------------------------------
# questions
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("key, of, wrt", [("sum_times", "f", "a"), ("lecture", "L", "a"),
                                          ("neuron", "o", "w1"), ("diamond", "d", "a"),
                                          ("reused", "c", "a")])
def test_preset_questions_are_checked_against_the_engine(client, key, of, wrt):
    view = client.post("/api/walk", json={"preset": key}).json()
    q = view["question"]
    assert q["text"].endswith(f"what is d{of}/d{wrt}?")
    truth = engine(PRESETS[key].expr)[wrt].grad
    right = client.post("/api/walk/check", json={"preset": key, "answer": truth}).json()
    assert right["correct"] and right["grad"] == truth and right["hint"] == ""
    typed = float(f"{truth:.4f}")  # a learner types four decimals
    assert client.post("/api/walk/check", json={"preset": key, "answer": typed}).json()[
        "correct"]
    wrong = client.post("/api/walk/check", json={"preset": key,
                                                 "answer": truth + 1.0}).json()
    assert not wrong["correct"] and wrong["hint"] and wrong["grad"] is None


def test_the_lectures_question_words():
    view = build(PRESETS["sum_times"].expr, preset=PRESETS["sum_times"])
    assert view["question"]["text"] == "With a = 2, b = -3, c = 10, what is df/da?"
    view = build(PRESETS["diamond"].expr, preset=PRESETS["diamond"])
    assert view["question"]["text"].startswith("On the diamond, in the right order,")


def test_hints_name_the_slip(client):
    check = lambda answer, **kw: client.post("/api/walk/check", json={  # noqa: E731
        "preset": "diamond", "answer": answer, **kw}).json()
    assert "sign" in check(-15.0)["hint"]
    assert "one path's share" in check(6.0)["hint"] and "one path's share" in check(9.0)["hint"]
    assert "local derivative" in check(3.0)["hint"]
    assert "walk it backward" in check(100.0)["hint"]
    reused = lambda answer: client.post("/api/walk/check", json={  # noqa: E731
        "preset": "reused", "answer": answer}).json()["hint"]
    wrong = recursive_backward(parse(PRESETS["reused"].expr))["a"]
    assert "recursive backward without a topological sort" in reused(wrong)
    assert "without zero_grad" in client.post("/api/walk/check", json={
        "preset": "lecture", "answer": 24.0}).json()["hint"]


def test_a_teachers_question_about_any_expression(client):
    source = "a = 2; b = a*a; c = b*3 + a"
    body = {"expr": source, "ask": "a", "of": "b"}
    view = client.post("/api/walk", json=body).json()
    assert view["question"]["text"] == "With a = 2, what is db/da?"
    truth = engine("a = 2; b = a*a")["a"].grad  # the sub-graph's own backward
    assert client.post("/api/walk/check", json={**body, "answer": truth}).json()["correct"]
    assert not client.post("/api/walk/check", json={**body, "answer": 13.0}).json()["correct"]
    full = engine(source)["a"].grad
    assert client.post("/api/walk/check", json={"expr": source, "ask": "a",
                                                "answer": full}).json()["correct"]


def test_check_refusals(client):
    post = lambda body: client.post("/api/walk/check", json=body)  # noqa: E731
    assert "no single node named 'z'" in refused(post({"preset": "diamond", "ask": "z",
                                                       "answer": 1}), 400)["error"]
    refused(post({"preset": "diamond", "answer": "15"}), 422)
    refused(post({"preset": "diamond"}), 422)
    refused(client.post("/api/walk/check", content=b'{"preset": "diamond", "answer": NaN}',
                        headers={"content-type": "application/json"}), 422)
    assert "pick values" in refused(post({"expr": "a = 0; b = log(a)", "answer": 1}),
                                    400)["error"]
    assert "no leaf" in refused(post({"expr": "2 * 3", "answer": 1}), 400)["error"]
    msg = refused(post({"expr": "a = 2; b = a*a; c = b + 1", "ask": "c", "of": "b",
                        "answer": 0}), 400)["error"]
    assert msg.startswith("c does not feed b")
    assert "does not feed" in refused(client.post("/api/walk", json={
        "expr": "a = 2; b = a*a; c = b + 1", "ask": "c", "of": "b"}), 400)["error"]


# ---------------------------------------------------------------------------------------
# the reused-node lesson
# ---------------------------------------------------------------------------------------


def recursive_backward(root):
    """A recursive backward without a topological sort, written out here on the traced
    graph: grad the root, push the node's grad along its input edges, then recurse into
    each input in order (a node reached by two paths is pushed twice)."""
    nodes, edges = trace(root)
    grads = {n.id: 0.0 for n in nodes}
    grads[nodes[-1].id] = 1.0
    into = {n.id: [e for e in edges if e.dst == n.id] for n in nodes}

    def visit(nid):
        for e in into[nid]:
            grads[e.src] += grads[nid] * e.local
        for e in into[nid]:
            visit(e.src)

    visit(nodes[-1].id)
    return {n.label or n.id: grads[n.id] for n in nodes}


def test_the_reused_inner_node_shows_the_mistake(client):
    view = client.post("/api/walk", json={"preset": "reused", "recursive": True}).json()
    ids = {n["name"]: n["id"] for n in view["graph"]["nodes"]}
    mine = recursive_backward(parse(PRESETS["reused"].expr))
    truth = engine(PRESETS["reused"].expr)
    for name in "abc":
        assert view["walk"]["grads"][ids[name]] == mine[name]
        assert view["walk"]["expected"][ids[name]] == truth[name].grad
    assert mine["a"] != truth["a"].grad  # the mistake shows: 8 against 4
    assert not view["walk"]["ok"] and view["lesson"]["reused_inner"] == ["b"]


@pytest.mark.parametrize("key", [k for k in PRESETS if k != "reused"])
def test_the_other_presets_survive_and_say_why(client, key):
    view = client.post("/api/walk", json={"preset": key, "recursive": True}).json()
    mine = recursive_backward(parse(PRESETS[key].expr))
    truth = engine(PRESETS[key].expr)
    assert view["walk"]["ok"]
    for name, v in truth.items():
        assert mine[name] == pytest.approx(v.grad, rel=1e-12)
    assert view["lesson"]["reused_inner"] == []
    assert "happens to get every number right" in view["lesson"]["text"]


# ---------------------------------------------------------------------------------------
# neurons
# ---------------------------------------------------------------------------------------


def test_neurons_fold_what_feeds_only_them(client):
    source = ("x1 = 1; x2 = 2; a1 = 0.5; a2 = -1; b1 = 0.1; c1 = 2; c2 = 0.3; d1 = -0.2; "
              "h1 = tanh(x1*a1 + x2*a2 + b1); h2 = tanh(x1*c1 + x2*c2 + d1); y = h1 + h2")
    view = client.post("/api/walk", json={"expr": source}).json()
    names = {n["id"]: n["name"] for n in view["graph"]["nodes"]}
    groups = {names[g["output"]]: {names[m] for m in g["members"]} for g in view["neurons"]}
    assert set(groups) == {"h1", "h2"}
    assert {"a1", "a2", "b1", "h1"} <= groups["h1"] and not {"x1", "x2"} & groups["h1"]
    assert {"c1", "c2", "d1", "h2"} <= groups["h2"] and not groups["h1"] & groups["h2"]
    assert client.post("/api/walk", json={"expr": "x = 1; tanh(x)"}).json()["neurons"] == []


def test_edge_notes_carry_the_op_tables_rule(client):
    from micrograd.ops import OPS

    source = "x = 0.5; y = 2; z = exp(x*y) + log(y) - sigmoid(x)/y + relu(x)**2 + sin(x)"
    view = client.post("/api/walk", json={"expr": source}).json()
    keys = {n["id"]: n["op_key"] for n in view["graph"]["nodes"]}
    seen = set()
    for e in view["graph"]["edges"]:
        rule = OPS[keys[e["dst"]]].rule
        assert rule and view["edge_notes"][e["id"]].endswith("\n" + rule)
        seen.add(keys[e["dst"]])
    assert {"exp", "mul", "log", "sigmoid", "relu", "sin"} <= seen

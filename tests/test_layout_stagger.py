"""``micrograd.viz.layout``'s ``stagger``: the leaves that feed one op from the rank just
before it alternate between that rank and the one before, so a phone's top-to-bottom
drawing of the tanh neuron (four leaves in a row) is half as wide; asked for by the
Walk's page through the ``walk`` request's ``stagger`` field."""

import itertools
import warnings

import pytest

with warnings.catch_warnings():  # starlette warns about httpx vs httpx2 at import time
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from micrograd import viz
from micrograd.engine import Value
from micrograd.walk_setup import PRESETS
from micrograd.web import create_app
from micrograd.web.handlers.errors import Failure
from micrograd.web.handlers.walk import walk as walk_job
from micrograd.web.walkview import build

#: a phone's graph area (390 px window): 360 px, 8 px kept free either side
PHONE_DRAWING = 360 - 2 * 8


def walk_request(body):
    job = walk_job(body)
    while True:
        try:
            next(job)
        except StopIteration as done:
            return done.value


def drawn(key, **how):
    g = build(PRESETS[key].expr, rankdir="TB", stack=True, **how)["graph"]
    return g, {n["name"]: n for n in g["nodes"]}


def boxes(graph):
    return [b for n in graph["nodes"] for b in (n["box"], n["op_box"]) if b]


def overlaps(a, b):
    return (a["x"] < b["x"] + b["w"] and b["x"] < a["x"] + a["w"]
            and a["y"] < b["y"] + b["h"] and b["y"] < a["y"] + a["h"])


def test_the_neurons_leaves_take_two_rows_half_as_wide():
    flat, f = drawn("neuron")
    g, s = drawn("neuron", stagger=True)
    assert g["stagger"] is True and flat["stagger"] is False
    # one row of four leaves before; x1 above w1 and x2 above w2 after
    assert len({f[n]["box"]["y"] for n in ("x1", "w1", "x2", "w2")}) == 1
    assert s["x1"]["box"]["y"] == s["x2"]["box"]["y"] < s["w1"]["box"]["y"] == s["w2"]["box"]["y"]
    # b feeds its + beside a computed value, not beside a leaf: it stays where it was
    assert s["b"]["box"]["y"] - s["x1w1x2w2"]["box"]["y"] == \
        pytest.approx(f["b"]["box"]["y"] - f["x1w1x2w2"]["box"]["y"])
    # a phone's drawing at 11 px: too wide before, inside after; one rank longer
    assert flat["width"] * 11 / 12 > PHONE_DRAWING
    assert g["width"] * 11 / 12 <= PHONE_DRAWING
    assert g["height"] > flat["height"]


@pytest.mark.parametrize("key", list(PRESETS))
@pytest.mark.parametrize("rankdir", ["LR", "TB"])
def test_a_staggered_layout_keeps_boxes_apart_inside_and_every_text(key, rankdir):
    doc = build(PRESETS[key].expr, rankdir=rankdir, stack=True, stagger=True)
    flat = build(PRESETS[key].expr, rankdir=rankdir, stack=True)
    g = doc["graph"]
    for a, b in itertools.combinations(boxes(g), 2):
        assert not overlaps(a, b), (a, b)
    for b in boxes(g):
        assert b["x"] >= 0 and b["y"] >= 0
        assert b["x"] + b["w"] <= g["width"] + 1e-6 and b["y"] + b["h"] <= g["height"] + 1e-6
    placed = ("box", "op_box", "op_edge")
    assert [{k: v for k, v in n.items() if k not in placed} for n in g["nodes"]] == \
        [{k: v for k, v in n.items() if k not in placed} for n in flat["graph"]["nodes"]]
    assert len(g["edges"]) == len(flat["graph"]["edges"])


@pytest.mark.parametrize("key", ["square", "reused"])
def test_a_leaf_used_twice_by_one_op_is_not_moved(key):
    flat, _ = drawn(key)
    g, _ = drawn(key, stagger=True)
    assert (g["width"], g["height"]) == (flat["width"], flat["height"])
    assert [n["box"] for n in g["nodes"]] == [n["box"] for n in flat["nodes"]]


def test_every_other_leaf_of_a_long_row_moves_counting_from_the_last():
    a, b, c = Value(1.0, label="a"), Value(2.0, label="b"), Value(3.0, label="c")
    out = a * b
    out.label = "p"
    lay = viz.layout(out, rankdir="TB", stagger=True)
    ys = {n.node.label: n.box.y for n in lay.nodes}
    assert ys["a"] < ys["b"]  # the first of two moves up, the last stays by its op
    # a leaf and a computed value feeding one op: nothing to stagger
    q = out + c
    lay2 = viz.layout(q, rankdir="TB", stagger=True)
    flat2 = viz.layout(q, rankdir="TB")
    y2 = {n.node.label: n.box.y for n in lay2.nodes}
    f2 = {n.node.label: n.box.y for n in flat2.nodes}
    assert y2["c"] - y2["p"] == pytest.approx(f2["c"] - f2["p"])
    assert viz.layout(q, rankdir="TB").stagger is False and lay2.stagger is True


def test_stagger_is_a_request_field_the_same_over_http():
    r = walk_request({"preset": "neuron", "rankdir": "TB", "stack": True, "stagger": True})
    assert (r["graph"]["rankdir"], r["graph"]["stack"], r["graph"]["stagger"]) == \
        ("TB", True, True)
    assert walk_request({"preset": "neuron"})["graph"]["stagger"] is False  # the lecture's
    with pytest.raises(Failure) as err:
        walk_request({"preset": "neuron", "stagger": "yes"})
    assert getattr(err.value, "field", None) == "stagger", err.value
    client = TestClient(create_app())
    body = {"preset": "neuron", "rankdir": "TB", "stack": True, "stagger": True}
    got = client.post("/api/walk", json=body)
    assert got.status_code == 200, got.text
    assert got.json()["graph"] == walk_request(body)["graph"]

"""The layouts the Walk's graph view chooses from: ``micrograd.viz.layout``'s direction
(``rankdir``) and stacked records (``stack``), asked for by the page through
``walk``'s fields, the same over HTTP as in the handlers (the static site's door
is compared with HTTP in tests/test_site_doors.py)."""

import itertools
import warnings

import pytest

with warnings.catch_warnings():  # starlette warns about httpx vs httpx2 at import time
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from micrograd import viz
from micrograd.viz.layout import CELL_PAD, ROW_H, text_width
from micrograd.walk_setup import PRESETS
from micrograd.web import create_app
from micrograd.web.handlers.errors import Failure
from micrograd.web.handlers.walk import walk as walk_job
from micrograd.web.walkview import build


def walk_request(body):
    """The walk handler's answer (its job run through all of its turns)."""
    job = walk_job(body)
    while True:
        try:
            next(job)
        except StopIteration as done:
            return done.value

LAYOUTS = [("LR", False), ("LR", True), ("TB", False), ("TB", True)]


def boxes(graph):
    out = []
    for n in graph["nodes"]:
        out.append(n["box"])
        if n["op_box"]:
            out.append(n["op_box"])
    return out


def overlaps(a, b):
    return (a["x"] < b["x"] + b["w"] and b["x"] < a["x"] + a["w"]
            and a["y"] < b["y"] + b["h"] and b["y"] < a["y"] + a["h"])


@pytest.mark.parametrize("key", list(PRESETS))
@pytest.mark.parametrize("rankdir,stack", LAYOUTS)
def test_every_layout_of_every_preset_keeps_boxes_apart_and_inside(key, rankdir, stack):
    g = build(PRESETS[key].expr, rankdir=rankdir, stack=stack)["graph"]
    assert (g["rankdir"], g["stack"]) == (rankdir, stack)
    for a, b in itertools.combinations(boxes(g), 2):
        assert not overlaps(a, b), (a, b)
    for b in boxes(g):
        assert b["x"] >= 0 and b["y"] >= 0
        assert b["x"] + b["w"] <= g["width"] + 1e-6 and b["y"] + b["h"] <= g["height"] + 1e-6
    for n in g["nodes"]:  # a record is its cells, side by side or one above another
        widths = [text_width(c) + 2 * CELL_PAD for c in n["cells"]]
        if stack:
            assert n["box"]["w"] == pytest.approx(max(widths), abs=0.01)
            assert n["box"]["h"] == pytest.approx(ROW_H * len(n["cells"]))
        else:
            assert n["box"]["w"] == pytest.approx(sum(widths), abs=0.01)


@pytest.mark.parametrize("key", list(PRESETS))
def test_the_layouts_differ_only_in_places(key):
    """Every number and text is the same whatever the layout: only boxes and points move."""
    docs = [build(PRESETS[key].expr, rankdir=r, stack=s) for r, s in LAYOUTS]
    placed = ("box", "op_box", "op_edge", "cell_widths")
    strip = [{n["id"]: {k: v for k, v in n.items() if k not in placed}
              for n in d["graph"]["nodes"]} for d in docs]
    assert all(s == strip[0] for s in strip)
    assert all({k: v for k, v in d.items() if k != "graph"} ==
               {k: v for k, v in docs[0].items() if k != "graph"} for d in docs)


def test_stacked_records_make_the_neuron_narrow_enough_for_a_column():
    """The tanh neuron, the lecture's widest preset: side by side it needs 1,400 px at
    11 px text; with stacked records it fits a desktop's graph column, and top to bottom
    stacked it is narrower still (a phone's)."""
    side = build(PRESETS["neuron"].expr)["graph"]
    lr = build(PRESETS["neuron"].expr, stack=True)["graph"]
    tb = build(PRESETS["neuron"].expr, rankdir="TB", stack=True)["graph"]
    assert side["width"] * 11 / 12 > 1280
    assert lr["width"] * 11 / 12 < 900
    assert tb["width"] < lr["width"] / 1.5


def test_the_direction_and_stacking_are_request_fields():
    r = walk_request({"preset": "lecture", "rankdir": "TB", "stack": True})
    assert (r["graph"]["rankdir"], r["graph"]["stack"]) == ("TB", True)
    r = walk_request({"preset": "lecture"})
    assert (r["graph"]["rankdir"], r["graph"]["stack"]) == ("LR", False)  # the lecture's
    for body, text in [({"rankdir": "RL"}, "rankdir: one of 'LR', 'TB'"),
                       ({"stack": "yes"}, "stack")]:
        with pytest.raises(Failure) as err:
            walk_request({"preset": "lecture", **body})
        assert text in str(err.value) and getattr(err.value, "field", None) == \
            next(iter(body)), err.value
    with pytest.raises(ValueError, match="rankdir must be 'LR' or 'TB'"):
        viz.layout(_square(), rankdir="XY")


def _square():
    from micrograd.engine import Value
    a = Value(3.0, label="a")
    return a * a


def test_http_sends_the_stacked_layout_as_the_handlers_make_it():
    client = TestClient(create_app())
    body = {"preset": "neuron", "rankdir": "TB", "stack": True}
    r = client.post("/api/walk", json=body)
    assert r.status_code == 200, r.text
    assert r.json()["graph"] == walk_request(body)["graph"]
    assert client.post("/api/walk", json={"preset": "neuron", "rankdir": "up"}).status_code \
        in (400, 422)

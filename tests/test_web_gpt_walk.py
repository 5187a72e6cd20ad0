"""The GPT tab's walk on one position (gpt.walk, gpt.walk.block): plain handlers, as the
static site's worker runs them, and the HTTP routes. The answers hold the engine's
numbers, never more boxes or nodes than the graph cap, refuse in words, leave the run
untouched and keep no graph once answered."""

import gc
import tracemalloc
import warnings

import pytest

with warnings.catch_warnings():  # starlette warns about httpx vs httpx2 at import time
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from micrograd.gpt import blocks
from micrograd.web import create_app, limits
from micrograd.web.handlers import LocalSessions, dispatch, run_to_end

CAP = limits.MAX_GRAPH_NODES


def ok(route, request, sessions):
    out = run_to_end(dispatch(route, request, sessions))
    assert out["ok"], out
    return out["answer"]


def error(route, request, sessions):
    out = run_to_end(dispatch(route, request, sessions))
    assert not out["ok"], out
    return out["error"]


@pytest.fixture
def run():
    sessions = LocalSessions()
    made = ok("gpt.create", {"steps": 30}, sessions)
    ok("gpt.step", {"sid": made["sid"], "steps": 2}, sessions)
    return sessions, made["sid"]


def test_the_walk_is_the_position_folded_into_blocks(run):
    sessions, sid = run
    out = ok("gpt.walk", {"sid": sid, "name": "emma", "position": 2}, sessions)
    assert (out["name"], out["position"], out["positions"], out["step"]) == ("emma", 2, 5, 2)
    assert out["tokens"] == ["<BOS>", "e", "m", "m", "a"]
    assert (out["token"], out["target"]) == ("m", "m")
    assert out["cap"] == CAP and len(out["boxes"]) <= CAP
    assert sum(b["nodes"] for b in out["boxes"]) == out["graph_nodes"] > 10_000
    session = sessions.get(sid)
    pg = blocks.build(session.run.model, session.run.tokenizer.encode("emma"), 2)
    assert out["loss"] == pg.loss.data
    names = [b["name"] for b in out["boxes"] if b["kind"] == "block"]
    assert names == [b.name for b in pg.blocks]
    assert {b["kind"] for b in out["boxes"]} == {"block", "weights", "cache"}
    assert all(b["opens"] == (b["kind"] == "block") for b in out["boxes"])
    assert "folded into 15 blocks" in out["note"] and "300" in out["note"]
    assert not out["sampled"] and out["in_list"]


def test_a_name_left_out_is_sampled_and_the_position_defaults_to_the_last(run):
    sessions, sid = run
    out = ok("gpt.walk", {"sid": sid, "temperature": 0.7}, sessions)
    assert out["sampled"] and out["position"] == out["positions"] - 1
    # the last position predicts the name's end (a name past the context: its next letter)
    assert out["target"] == "<BOS>" or len(out["name"]) >= out["positions"] == 16


@pytest.mark.parametrize("request_, field, words", [
    ({"name": "emma", "position": 5}, "position", "outside 0..4"),
    ({"name": "em1"}, "name", "never saw"),
    ({"name": "emma", "temperature": 9}, "temperature", "outside 0.1"),
])
def test_refusals_are_words(run, request_, field, words):
    sessions, sid = run
    err = error("gpt.walk", {"sid": sid, **request_}, sessions)
    assert err["field"] == field and words in err["message"]


def test_every_block_unfolds_within_the_cap_with_the_engines_numbers(run):
    sessions, sid = run
    folded = ok("gpt.walk", {"sid": sid, "name": "christopher", "position": 11}, sessions)
    session = sessions.get(sid)
    pg = blocks.build(session.run.model, session.run.tokenizer.encode("christopher"), 11)
    values = {f"n{i}": v for i, v in enumerate(pg.order)}
    request = {"sid": sid, "name": "christopher", "position": 11}
    for box in folded["boxes"]:
        if not box["opens"]:
            err = error("gpt.walk.block", {**request, "block": box["id"]}, sessions)
            assert "summarized" in err["message"]
            continue
        out = ok("gpt.walk.block", {**request, "block": box["id"]}, sessions)
        assert out["title"] == box["name"] and out["nodes"] == box["nodes"]
        if out["kind"] == "parts":
            assert len(out["boxes"]) <= CAP < box["nodes"] and out["graph"] is None
            out = ok("gpt.walk.block", {**request, "block": box["id"], "path": [0]}, sessions)
        assert out["kind"] == "nodes" and len(out["graph"]["nodes"]) <= CAP
        for n in out["graph"]["nodes"]:
            v = values[n["id"]]
            assert (n["data"], n["grad"]) == (v.data, v.grad)


def test_the_mlp_opens_per_neuron_then_one_neuron_as_nodes(run):
    sessions, sid = run
    request = {"sid": sid, "name": "emma", "position": 1, "block": "b12"}
    parts = ok("gpt.walk.block", request, sessions)
    assert parts["kind"] == "parts" and len(parts["boxes"]) == 80
    assert "folded one level down into 80 parts" in parts["note"]
    neuron = ok("gpt.walk.block", {**request, "path": [3], "rankdir": "TB", "stack": True},
                sessions)
    assert neuron["kind"] == "nodes" and neuron["nodes"] == 34
    assert neuron["graph"]["rankdir"] == "TB" and neuron["graph"]["stack"]
    assert {i["from"] for i in neuron["inputs"]} == {"layer0.mlp_fc1 (weights)",
                                                    "layer0.mlp.rmsnorm"}
    err = error("gpt.walk.block", {**request, "path": [80]}, sessions)
    assert err["field"] == "path" and "outside 0..79" in err["message"]


def test_the_walk_leaves_the_run_as_it_was(run):
    sessions, sid = run
    twin = LocalSessions()
    other = ok("gpt.create", {"steps": 30}, twin)["sid"]
    ok("gpt.step", {"sid": other, "steps": 2}, twin)
    ok("gpt.walk", {"sid": sid, "name": "anna", "position": 3}, sessions)
    ok("gpt.walk.block", {"sid": sid, "name": "anna", "position": 3, "block": "b3",
                          "path": [2]}, sessions)
    params = sessions.get(sid).run.model.params
    assert all(p.grad == 0.0 for p in params)
    a = ok("gpt.step", {"sid": sid, "steps": 2}, sessions)["losses"]
    b = ok("gpt.step", {"sid": other, "steps": 2}, twin)["losses"]
    assert a == b


def test_no_graph_is_kept_between_requests(run):
    sessions, sid = run
    request = {"sid": sid, "name": "christopher", "position": 11}
    ok("gpt.walk", request, sessions)  # warm: the first call's imports and caches
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        ok("gpt.walk", request, sessions)
        ok("gpt.walk.block", {**request, "block": "b12"}, sessions)
        gc.collect()
        after, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert after - before < 200_000  # bytes: nothing of a ~13,000-node graph stays
    assert peak - before < 40_000_000  # the graph while it is built: a few MB


def test_the_routes_answer_over_http():
    client = TestClient(create_app())
    sid = client.post("/api/gpt", json={"steps": 20}).json()["sid"]
    r = client.post(f"/api/gpt/{sid}/walk", json={"name": "emma", "position": 0})
    assert r.status_code == 200 and r.json()["token"] == "<BOS>"
    assert len(r.json()["boxes"]) == 24  # no cache at position 0
    r = client.post(f"/api/gpt/{sid}/walk/block",
                    json={"name": "emma", "position": 0, "block": "b3"})
    assert r.status_code == 200 and r.json()["kind"] == "parts"
    assert r.json()["boxes"][0]["inputs"][0]["from"] == "layer0.attn_wq (weights)"
    r = client.post(f"/api/gpt/{sid}/walk/block",
                    json={"name": "emma", "position": 9, "block": "b3"})
    assert r.status_code == 400 and r.json()["field"] == "position"
    r = client.post("/api/gpt/nobody/walk", json={"name": "emma"})
    assert r.status_code == 404

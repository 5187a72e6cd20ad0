"""The server's turns (``web/server/schedule.py``): the walk never queues behind training,
a training turn is one unit of work, big walks come in several turns, every job keeps its
own modes, and ``--timing`` reports the waits. Nothing here is timed: each test waits for
states (events, futures); a timeout only bounds a hang, it measures nothing."""

from __future__ import annotations

import asyncio
import re
import threading
import warnings

import pytest

from micrograd.engine import Value, is_grad_enabled, no_grad
from micrograd.web.handlers import dispatch, run_to_end
from micrograd.web.server.schedule import WALK, TurnScheduler
from micrograd.web.walkview import build

with warnings.catch_warnings():  # starlette warns about httpx vs httpx2 at import time
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from micrograd.web import create_app  # noqa: E402

#: a bound on a hang (a broken scheduler would wait for ever), never a measure
HANG = 20


def big_graph(n=50):
    """A graph of about a hundred nodes (over walkview.TURN_NODES): each node the product
    of the two before it, plus a leaf."""
    parts = ["a = 0.5", "b = -0.3", "c = 0.7"]
    made = ["a", "b"]
    for k in range(n):
        parts.append(f"v{k} = {made[-1]}*{made[-2]} + {'abc'[k % 3]}")
        made.append(f"v{k}")
    return "; ".join(parts)


def turns_of(job):
    """(how many turns a job took, its outcome)."""
    turns = 0
    while True:
        turns += 1
        try:
            next(job)
        except StopIteration as stop:
            return turns, stop.value


def recorder(log, name, turns, gate=None):
    """A job of ``turns`` turns that notes each in ``log``; its first turn waits for
    ``gate`` (a threading.Event) if given."""
    for k in range(turns):
        if k == 0 and gate is not None:
            gate.wait(HANG)
        log.append((name, k))
        if k < turns - 1:
            yield
    return name


# ---------------------------------------------------------------------------------------
# the walk goes first: it never waits for the training turn in progress
# ---------------------------------------------------------------------------------------


def test_a_walk_request_behind_training_runs_while_a_training_turn_is_in_progress():
    log = []
    started, release = threading.Event(), threading.Event()

    def held_turn():  # a training turn that lasts until the test says so
        started.set()
        release.wait(HANG)
        log.append(("s0", 0))
        yield
        return "s0"

    async def main():
        turns = TurnScheduler()
        try:
            first = asyncio.ensure_future(turns.run("s0", held_turn()))
            await asyncio.get_running_loop().run_in_executor(None, started.wait, HANG)
            queued = [asyncio.ensure_future(turns.run(f"s{k}", recorder(log, f"s{k}", 3)))
                      for k in range(1, 6)]
            await asyncio.sleep(0)  # the five are queued behind the turn in progress
            walk = await asyncio.wait_for(turns.run(WALK, recorder(log, "walk", 1)), HANG)
            assert walk == "walk"
            assert log == [("walk", 0)]  # before the held turn ended, before the queue
            release.set()
            assert await asyncio.wait_for(asyncio.gather(first, *queued), HANG) == [
                "s0", "s1", "s2", "s3", "s4", "s5"]
        finally:
            release.set()
            turns.close()

    asyncio.run(main())


def test_a_small_walk_request_waits_for_one_turn_of_a_big_one_not_all_of_it():
    log = []
    gate = threading.Event()

    async def main():
        turns = TurnScheduler()
        try:
            big = asyncio.ensure_future(turns.run(WALK, recorder(log, "big", 5, gate)))
            await asyncio.sleep(0)
            small = asyncio.ensure_future(turns.run(WALK, recorder(log, "small", 1)))
            await asyncio.sleep(0)
            gate.set()
            await asyncio.wait_for(asyncio.gather(big, small), HANG)
        finally:
            gate.set()
            turns.close()

    asyncio.run(main())
    assert log.index(("small", 0)) <= 1  # right after the big one's first turn (or first)
    assert [e for e in log if e[0] == "big"] == [("big", k) for k in range(5)]


# ---------------------------------------------------------------------------------------
# training: a turn is one unit of work (one step), the sessions in rotation
# ---------------------------------------------------------------------------------------


def test_a_training_turn_is_one_step_however_quick_and_the_sessions_alternate():
    log = []
    gate = threading.Event()

    async def main():
        turns = TurnScheduler()
        try:
            jobs = [asyncio.ensure_future(turns.run(name, recorder(
                log, name, 4, gate if name == "a" else None))) for name in ("a", "b", "c")]
            await asyncio.sleep(0)
            gate.set()
            await asyncio.wait_for(asyncio.gather(*jobs), HANG)
        finally:
            gate.set()
            turns.close()

    asyncio.run(main())
    # steps that take microseconds still get one turn each: a bound in work, not time
    assert log == [(name, k) for k in range(4) for name in ("a", "b", "c")]


# ---------------------------------------------------------------------------------------
# the walk's handlers: a big graph in several turns, the same answer
# ---------------------------------------------------------------------------------------


def test_a_big_graphs_walk_comes_in_several_turns_with_the_same_document():
    source = big_graph()
    turns, outcome = turns_of(dispatch("walk", {"expr": source}, None))
    assert turns >= 10  # parse, walk, the layout's sweeps (one turn each), texts
    assert outcome["ok"]
    doc = dict(outcome["answer"])
    assert doc.pop("setup")["fields"]["expr"] == source  # the set-up it shows, besides
    assert doc == build(source)
    assert len(outcome["answer"]["graph"]["nodes"]) > 60
    small_turns, small = turns_of(dispatch("walk", {"preset": "lecture"}, None))
    assert small_turns == 1 and small["ok"]


def test_the_layout_in_turns_is_the_layout_one_sweep_a_turn():
    from micrograd.expr import evaluate
    from micrograd.viz import layout, layout_in_turns, layout_to_dict
    from micrograd.viz.layout import PLACE_PASSES

    root = evaluate(big_graph()).root
    root.backward()  # grads in the records
    turns, drawn = turns_of(layout_in_turns(root))
    assert layout_to_dict(drawn) == layout_to_dict(layout(root))
    assert turns >= 1 + PLACE_PASSES + 1  # ranks and chains, each pass, and more


def test_a_big_graphs_check_comes_in_several_turns_with_the_same_verdict():
    source = big_graph()
    truth = run_to_end(dispatch("walk", {"expr": source, "ask": "a"}, None))
    for answer in (1.0, 12345.0):
        turns, outcome = turns_of(dispatch("walk.check", {"expr": source, "ask": "a",
                                                          "answer": answer}, None))
        assert turns >= 2 and outcome["ok"], outcome
        assert outcome["answer"]["correct"] is False and outcome["answer"]["hint"]
    assert truth["ok"]


def test_a_big_walk_refused_midway_is_still_an_error_as_data():
    source = big_graph()  # its recursive walk is refused: too many paths to visit
    turns, outcome = turns_of(dispatch("walk", {"expr": source, "recursive": True}, None))
    assert turns == 2 and not outcome["ok"] and outcome["error"]["kind"] == "refused"
    assert "recursive walk" in outcome["error"]["message"]


# ---------------------------------------------------------------------------------------
# every job in its own context: a mode held across turns stays with its job
# ---------------------------------------------------------------------------------------


def test_a_job_suspended_inside_no_grad_does_not_turn_gradients_off_for_another():
    seen = {}
    queued = threading.Event()

    def holds_no_grad():
        queued.wait(HANG)  # the other job is in line before this one suspends
        with no_grad():
            yield  # suspended inside the block: the other job's turn comes now
            yield
            seen["inside, later"] = is_grad_enabled()
            return Value(2.0) * Value(3.0)

    def other():
        a = Value(1.5)
        b = a * a
        seen["other"] = is_grad_enabled()
        b.backward()
        return a.grad

    async def main():
        turns = TurnScheduler()
        try:
            held = asyncio.ensure_future(turns.run("s1", holds_no_grad()))
            await asyncio.sleep(0)
            grad = asyncio.ensure_future(turns.run("s2", yield_once(other)))
            await asyncio.sleep(0)
            queued.set()
            return await asyncio.wait_for(asyncio.gather(held, grad), HANG)
        finally:
            queued.set()
            turns.close()

    out, grad = asyncio.run(main())
    assert seen == {"other": True, "inside, later": False}
    assert grad == 3.0
    assert out.data == 6.0 and out._prev == ()  # built inside the job's own no_grad


def yield_once(fn):
    yield
    return fn()


# ---------------------------------------------------------------------------------------
# --timing: the waits, reported
# ---------------------------------------------------------------------------------------


def test_timing_is_reported_only_when_asked_for():
    with TestClient(create_app(timing=True)) as c:
        r = c.post("/api/walk", json={"expr": big_graph()})
        header = r.headers["server-timing"]
        metrics = dict(re.findall(r"(\w+);(?:dur|desc)=\"?([\d.]+)", header))
        assert set(metrics) == {"wait", "queue", "run", "longest", "turns"}
        assert 0 <= float(metrics["queue"]) <= float(metrics["wait"])
        assert int(metrics["turns"]) >= 4
        assert 0 <= float(metrics["longest"]) <= float(metrics["run"])
        report = c.get("/api/debug/turns").json()
        assert report["routes"]["walk"]["jobs"] == 1
        assert report["routes"]["walk"]["turns"] == int(metrics["turns"])
        assert report["threads"]["walk"]["turns"] == int(metrics["turns"])
        assert c.get("/api/debug/turns?reset=true").status_code == 400  # a GET changes nothing
        assert c.get("/api/debug/turns").json()["routes"]
        c.delete("/api/debug/turns")
        assert c.get("/api/debug/turns").json() == {"routes": {}, "threads": {}}
    with TestClient(create_app()) as c:
        r = c.post("/api/walk", json={"preset": "lecture"})
        assert r.status_code == 200 and "server-timing" not in r.headers
        assert c.get("/api/debug/turns").status_code == 404


def test_a_turn_note_counts_the_wait_from_the_arrival():
    from micrograd.web.server.schedule import TurnNote

    note = TurnNote("walk", arrival=10.0)
    assert note.wait is None
    note.start = 10.25
    assert note.wait == pytest.approx(0.25)


def test_micrograd_serve_timing_reports_the_waits_of_a_real_server():
    import http.client
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, PYTHONPATH=str(root / "src") + os.pathsep
               + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "micrograd", "serve", "--port", "0",
                             "--timing"], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True, env=env, cwd=root)
    port = int(re.search(r"127\.0\.0\.1:(\d+)/", proc.stdout.readline()).group(1))
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=HANG)
    try:
        conn.request("POST", "/api/walk", body=json.dumps({"preset": "lecture"}),
                     headers={"content-type": "application/json"})
        r = conn.getresponse()
        assert r.status == 200 and json.loads(r.read())["walk"]
        wait = float(re.search(r"wait;dur=([\d.]+)", r.getheader("server-timing")).group(1))
        conn.request("GET", "/api/debug/turns")
        report = json.loads(conn.getresponse().read())
        assert report["routes"]["walk"]["wait_ms"]["max"] == pytest.approx(wait, abs=1e-3)
    finally:
        conn.close()
        proc.terminate()
        proc.wait(HANG)
        proc.stdout.close()

"""The turn scheduler (``web/server/schedule.py``) when jobs end badly: a job that raises
what is not an ``Exception``, a job whose request is cancelled, a scheduler closed with
jobs in line, work threads nobody stops. Nothing here is timed: each test waits for
states (events, futures, threads ending); a timeout only bounds a hang."""

from __future__ import annotations

import asyncio
import inspect
import os
import re
import signal
import subprocess
import sys
import threading
import warnings
from pathlib import Path

import pytest

from micrograd.web.server.schedule import (
    WALK,
    JobAborted,
    SchedulerClosed,
    TurnScheduler,
)

with warnings.catch_warnings():  # starlette warns about httpx vs httpx2 at import time
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from micrograd.web import create_app  # noqa: E402

#: a bound on a hang (a broken scheduler would wait for ever), never a measure
HANG = 20
THREAD_NAMES = ("micrograd-walk", "micrograd-training")
SMALL_SETUP = {"dataset": "moons", "samples": 40, "hidden": [4]}


def work_threads():
    return {t for t in threading.enumerate() if t.name in THREAD_NAMES}


async def until(event):
    """Wait (off the event loop) for a threading.Event set by a work thread."""
    ok = await asyncio.get_running_loop().run_in_executor(None, event.wait, HANG)
    assert ok, "the work thread never got there"


async def until_state(check):
    """Wait for ``check()`` (a state of the scheduler) to hold."""
    for _ in range(HANG * 100):
        if check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("the scheduler never reached the state")


def logger(log, name, turns, gates=None, started=None):
    """A job of ``turns`` turns that notes each in ``log``; turn k waits for
    ``gates[k]`` (after setting ``started[k]``) when given; its ``finally`` notes the
    thread that closed it."""
    gates, started = gates or {}, started or {}
    try:
        for k in range(turns):
            if k in started:
                started[k].set()
            if k in gates:
                gates[k].wait(HANG)
            log.append(f"{name}{k}")
            if k < turns - 1:
                yield
        return name
    finally:
        log.append((f"{name} finished", threading.current_thread().name))


# ---------------------------------------------------------------------------------------
# a BaseException out of a job: the request gets it, the lane goes on
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("lane", [WALK, "s1"])
@pytest.mark.parametrize("kind", [SystemExit, KeyboardInterrupt])
def test_a_job_raising_a_base_exception_answers_its_request_and_its_lane_goes_on(kind, lane):
    def exits(log):
        log.append("first")
        yield
        raise kind(3)

    async def main():
        turns = TurnScheduler()
        log = []
        try:
            with pytest.raises(JobAborted, match=f"raised {kind.__name__}: 3") as info:
                await asyncio.wait_for(turns.run(lane, exits(log)), HANG)
            assert isinstance(info.value.__cause__, kind)
            # the lane's thread lives on: the next jobs of that lane run
            out = await asyncio.wait_for(asyncio.gather(
                turns.run(lane, logger(log, "a", 2)), turns.call(lane, lambda: 42)), HANG)
            assert out == ["a", 42]
        finally:
            turns.close()
        assert turns.join(HANG)

    asyncio.run(main())


# ---------------------------------------------------------------------------------------
# a cancelled job: closed on its own thread before the next turn, not at its own next
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("when", ["suspended", "in its turn"])
def test_a_cancelled_job_is_closed_on_its_work_thread_before_the_next_turn(when):
    """Sessions A (held in its first turn), then X, C, D queued; X is cancelled once it
    has run a turn (suspended) or while its first turn is held. Its generator is closed
    (its ``finally`` runs) on the training thread right after the turn in progress, not
    when the rotation comes back to it."""
    log = []
    gate_a, gate_c, gate_x = threading.Event(), threading.Event(), threading.Event()
    in_a, in_c, in_x = threading.Event(), threading.Event(), threading.Event()
    held = "x" if when == "in its turn" else "c"

    async def main():
        turns = TurnScheduler()
        try:
            a = asyncio.ensure_future(turns.run("A", logger(
                log, "a", 4, {0: gate_a}, {0: in_a})))
            await until(in_a)
            x = asyncio.ensure_future(turns.run("X", logger(
                log, "x", 4, {0: gate_x} if held == "x" else None, {0: in_x})))
            c = asyncio.ensure_future(turns.run("C", logger(
                log, "c", 2, {0: gate_c} if held == "c" else None, {0: in_c})))
            d = asyncio.ensure_future(turns.run("D", logger(log, "d", 2)))
            await until_state(lambda: turns.waiting() == (0, 4))
            gate_a.set()
            await until(in_x if held == "x" else in_c)  # the turn held while X is cancelled
            x.cancel()
            await asyncio.gather(x, return_exceptions=True)
            await asyncio.sleep(0)  # the future's callbacks run
            (gate_x if held == "x" else gate_c).set()
            assert await asyncio.wait_for(asyncio.gather(a, c, d), HANG) == ["a", "c", "d"]
        finally:
            for gate in (gate_a, gate_c, gate_x):
                gate.set()
            turns.close()
        assert turns.join(HANG)

    asyncio.run(main())
    closed = log.index(("x finished", "micrograd-training"))
    assert log[closed - 1] == f"{held}0"  # right after the turn in progress
    assert "x1" not in log
    assert log[closed + 1] == ("d0" if held == "c" else "c0")  # the next lane's turn


# ---------------------------------------------------------------------------------------
# close(): every job in line is answered, new ones refused, generators closed
# ---------------------------------------------------------------------------------------


def test_closing_answers_every_job_in_line_and_in_its_turn_and_refuses_new_ones():
    log = []
    gate_w, gate_s = threading.Event(), threading.Event()
    in_w, in_s = threading.Event(), threading.Event()

    async def main():
        turns = TurnScheduler()
        try:
            running = [asyncio.ensure_future(turns.run(WALK, logger(
                           log, "w", 3, {0: gate_w}, {0: in_w}))),
                       asyncio.ensure_future(turns.run("A", logger(
                           log, "s", 3, {1: gate_s}, {1: in_s})))]
            await until(in_w)
            await until(in_s)  # the session job ran a turn: suspended mid-way, then held
            queued = [asyncio.ensure_future(turns.run(lane, logger(log, name, 2)))
                      for lane, name in ((WALK, "v"), ("A", "t"), ("B", "u"))]
            await until_state(lambda: turns.waiting() == (2, 3))
            turns.close()
            out = await asyncio.wait_for(asyncio.gather(*running, *queued,
                                                        return_exceptions=True), HANG)
            assert all(isinstance(e, SchedulerClosed) for e in out), out
            assert "shutting down" in str(out[0])
            fresh = logger(log, "late", 1)
            with pytest.raises(SchedulerClosed, match="shutting down"):
                await turns.run("C", fresh)
            assert inspect.getgeneratorstate(fresh) == inspect.GEN_CLOSED
        finally:
            gate_w.set()
            gate_s.set()
        assert await asyncio.get_running_loop().run_in_executor(None, turns.join, HANG)

    asyncio.run(main())
    # the held turns finished, then no more turns: each started job was closed on the
    # thread that ran it; those that never ran ran nothing
    assert {e for e in log if isinstance(e, str)} == {"w0", "s0", "s1"}
    assert ("w finished", "micrograd-walk") in log
    assert ("s finished", "micrograd-training") in log
    assert not {e[0] for e in log if isinstance(e, tuple)} & {
        "v finished", "t finished", "u finished", "late finished"}


def test_a_request_waiting_when_the_server_shuts_down_is_answered_503_unavailable():
    """Through the route: a walk request waits behind a held walk job, the scheduler
    closes; the request gets an error as data (503, kind unavailable, Retry-After);
    a request after the close gets the same."""
    import httpx

    gate, started = threading.Event(), threading.Event()
    app = create_app()
    turns = app.state.turns

    def held():
        started.set()
        gate.wait(HANG)
        yield
        return "held"

    async def main():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as c:
            try:
                blocker = asyncio.ensure_future(turns.run(WALK, held()))
                await until(started)
                asked = asyncio.ensure_future(c.post("/api/walk", json={"preset": "lecture"}))
                await until_state(lambda: turns.waiting() == (2, 0))  # in line
                turns.close()
                waited = await asyncio.wait_for(asked, HANG)
                with pytest.raises(SchedulerClosed):
                    await asyncio.wait_for(blocker, HANG)
                later = await c.post("/api/walk", json={"preset": "lecture"})
            finally:
                gate.set()
        assert await asyncio.get_running_loop().run_in_executor(None, turns.join, HANG)
        return waited, later

    for r in asyncio.run(main()):
        assert r.status_code == 503, r.text
        assert "shutting down" in r.json()["error"]
        assert int(r.headers["retry-after"]) > 0


# ---------------------------------------------------------------------------------------
# the work threads: started by the first job, ended by the app's shutdown or when idle
# ---------------------------------------------------------------------------------------


def test_apps_created_and_closed_leave_no_work_thread_behind():
    before = work_threads()
    for _ in range(4):
        with TestClient(create_app()) as c:
            assert c.get("/").status_code == 200  # no job: no thread yet
            assert work_threads() <= before
            assert c.post("/api/walk", json={"preset": "lecture"}).status_code == 200
            assert c.post("/api/play", json=SMALL_SETUP).status_code == 200
            assert len(work_threads() - before) == 2
        assert work_threads() <= before  # the shutdown waited for them to end


def test_a_scheduler_nobody_closes_lets_its_idle_threads_end_and_starts_them_again():
    """An app used without its lifespan never closes its scheduler: its work threads
    end by themselves once idle, and the next job starts one again."""
    turns = TurnScheduler(idle_seconds=0.05)

    async def both():
        return await asyncio.wait_for(asyncio.gather(
            turns.call(WALK, lambda: "w"), turns.run("s", logger([], "s", 3))), HANG)

    for _ in range(2):
        assert asyncio.run(both()) == ["w", "s"]
        assert turns.join(HANG)  # no close: they end after their idle wait


# ---------------------------------------------------------------------------------------
# Ctrl-C still stops `micrograd serve`, cleanly
# ---------------------------------------------------------------------------------------


def test_ctrl_c_stops_micrograd_serve_after_it_has_served_both_threads():
    """The shutdown closes the turns and waits for the work threads: a press still
    ends the server at once, as the command's Ctrl-C (130, no traceback)."""
    import http.client
    import json

    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, PYTHONPATH=str(root / "src") + os.pathsep
               + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "micrograd", "serve", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, cwd=root)
    try:
        port = int(re.search(r"127\.0\.0\.1:(\d+)/", proc.stdout.readline()).group(1))
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=HANG)
        for path, body in (("/api/walk", {"preset": "lecture"}), ("/api/play", SMALL_SETUP)):
            conn.request("POST", path, body=json.dumps(body),
                         headers={"content-type": "application/json"})
            r = conn.getresponse()
            assert r.status == 200, r.read()
            r.read()
        conn.close()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=HANG)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, err  # the command's exit after Ctrl-C
    assert err.strip().splitlines()[-1] == "interrupted" and "Traceback" not in err

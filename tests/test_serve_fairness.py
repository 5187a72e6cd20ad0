"""``micrograd serve`` shares its work threads by CPU time, a page's requests in one lane,
and holds the walks of big graphs to a number the memory bound allows.

* the lanes (``web/server/lanes.py``): the next turn goes to the lane charged least; a
  lane back from idle starts at the clock (no credit banked, no debt wiped); lanes made
  new for each request cannot hold a lane with a charge back for ever;
* the scheduler charges each turn its thread's CPU time: a lane whose turns burn 20 ms
  gets fewer turns than a lane whose turns are short, counted;
* a page's requests (its token, ``X-Micrograd-Page``) share one lane: 40 CSV files read
  for one page do not hold up another page's training (counted in jobs done);
* the walks in turns are capped in all and per page: the one beyond is answered 503
  with ``Retry-After``, a plain walk is still answered.

Nothing is timed: the tests count turns and jobs; a timeout only bounds a hang.
"""

from __future__ import annotations

import asyncio
import threading
import time
import warnings

import pytest

from micrograd.web.server.lanes import MIN_CHARGE, Lanes
from micrograd.web.server.schedule import WALK, Busy, TurnScheduler

with warnings.catch_warnings():  # starlette warns about httpx vs httpx2 at import time
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from micrograd.web import create_app  # noqa: E402

#: a bound on a hang (a broken scheduler would wait for ever), never a measure
HANG = 30


async def until(check):
    """Wait for ``check()`` (a state of the scheduler) to hold."""
    end = time.monotonic() + HANG  # a bound on a hang, never a measure
    while not check():
        assert time.monotonic() < end, "the scheduler never reached the state"
        await asyncio.sleep(0.01)


def run_lanes(lanes, costs, turns):
    """Run ``turns`` turns of ``lanes`` whose jobs never end, lane ``k`` charged
    ``costs[k]`` seconds a turn; the lanes in the order they ran."""
    order = []
    for _ in range(turns):
        lane, job = lanes.first()
        order.append(lane)
        lanes.charge(lane, job, costs[lane], done=False)
    return order


# ---------------------------------------------------------------------------------------
# the lanes: least charged first, no credit banked
# ---------------------------------------------------------------------------------------


def test_lanes_charged_alike_take_turns_in_rotation():
    lanes = Lanes()
    for name in "abc":
        lanes.push(name, name)
    # turns shorter than the least charge count alike: a rotation, the first come first
    costs = {"a": MIN_CHARGE / 100, "b": MIN_CHARGE / 10, "c": MIN_CHARGE}
    assert run_lanes(lanes, costs, 9) == list("abc") * 3


def test_a_lane_whose_turns_cost_more_gets_fewer_of_them():
    lanes = Lanes()
    lanes.push("long", "job")
    lanes.push("short", "job")
    order = run_lanes(lanes, {"long": 0.020, "short": 0.002}, 110)
    assert order.count("short") == 100 and order.count("long") == 10  # 10 to 1: as much CPU
    assert order[:12] == ["long"] + ["short"] * 10 + ["long"]


def test_a_lane_back_from_idle_starts_at_the_clock_and_banks_no_credit():
    lanes = Lanes()
    lanes.push("busy", "job")
    lanes.push("idle", "one")
    lane, job = lanes.first()
    lanes.charge(lane, job, 0.01, done=False)  # busy
    lane, job = lanes.first()
    assert lane == "idle"
    lanes.charge(lane, job, 0.01, done=True)    # idle leaves the line
    run_lanes(lanes, {"busy": 0.01}, 100)       # busy alone for a second of CPU
    lanes.push("idle", "back")
    # back at the clock: the two alternate, the idle second was not saved up
    assert run_lanes(lanes, {"busy": 0.01, "idle": 0.01}, 6).count("idle") == 3
    assert lanes.charged("idle") == pytest.approx(lanes.charged("busy"), abs=0.011)


def test_a_lane_that_left_with_a_debt_comes_back_with_it():
    lanes = Lanes()
    for name in ("hog", "tab"):
        lanes.push(name, name)
    lane, job = lanes.first()
    assert lane == "hog"
    lanes.charge(lane, job, 0.5, done=True)      # one long turn, then the hog leaves
    lanes.push("hog", "again")                   # ...and comes straight back
    order = run_lanes(lanes, {"hog": 0.5, "tab": 0.01}, 40)
    assert order[:40] == ["tab"] * 40            # the tab's half second first


def test_a_debt_is_owed_to_the_lanes_waiting_not_to_those_that_come_later():
    """A lane back with a debt runs alone: the clock catches up with it (the least charge
    waiting), so a lane that comes after it finds no credit to spend."""
    lanes = Lanes()
    for name in ("hog", "tab"):
        lanes.push(name, name)
    for _ in range(2):
        lane, job = lanes.first()
        lanes.charge(lane, job, 0.5 if lane == "hog" else 0.01, done=True)
    lanes.push("hog", "again")                   # back with its debt, alone
    run_lanes(lanes, {"hog": 0.01}, 10)
    lanes.push("late", "job")
    assert run_lanes(lanes, {"hog": 0.01, "late": 0.01}, 6).count("late") == 3


def test_new_lanes_for_every_request_cannot_hold_a_charged_lane_back_for_ever():
    """A client that opens a connection a request gets a new lane each time, at the
    clock; the clock moves on with every turn, so a lane with a charge still runs."""
    lanes = Lanes()
    lanes.push("tab", "job")
    fresh = iter(range(10 ** 6))
    for _ in range(3):
        lanes.push(("conn", next(fresh)), "csv")
    order = []
    for _ in range(400):
        lane, job = lanes.first()
        order.append(lane)
        if lane == "tab":
            lanes.charge(lane, job, 0.002, done=False)
        else:  # a 10 ms request on a connection of its own, which another replaces
            lanes.charge(lane, job, 0.010, done=True)
            lanes.push(("conn", next(fresh)), "csv")
    # four lanes in line: the tab's share is a quarter of the time, 5 turns per request
    assert order.count("tab") >= 200, order.count("tab")


def test_lanes_charged_to_one_account_carry_its_debt_to_the_next():
    """The walk's jobs are lanes of their own, charged to their page: a page whose walks
    had the thread starts its next walk behind a page whose walks did not."""
    lanes = Lanes()
    lanes.push("big", "job", account="greedy")
    lanes.push("other", "job", account="other")
    for _ in range(2):
        lane, job = lanes.first()
        lanes.charge(lane, job, 0.5 if lane == "big" else 0.001, done=True)
    lanes.push("next", "job", account="greedy")
    lanes.push("plain", "job", account="other")
    assert lanes.first()[0] == "plain"
    assert lanes.charged("next") == pytest.approx(0.5)


def test_the_lanes_remember_a_bounded_number_of_charges():
    lanes = Lanes(remembered=8)
    lanes.push("tab", "job")
    for k in range(100):
        lanes.push(k, "once")
        lane, job = lanes.first()
        while lane != k:
            lanes.charge(lane, job, 0.001, done=False)
            lane, job = lanes.first()
        lanes.charge(lane, job, 1.0, done=True)  # ahead of the clock when it leaves
    assert len(lanes._left) <= 8 and len(lanes) == 1


# ---------------------------------------------------------------------------------------
# the scheduler charges a turn its CPU time
# ---------------------------------------------------------------------------------------


def burner(log, name, turns, cpu_seconds, gate=None):
    """A job of ``turns`` turns, each burning ``cpu_seconds`` of this thread's CPU time
    (not of the clock: the machine's load changes nothing), noted in ``log``."""
    for k in range(turns):
        if k == 0 and gate is not None:
            gate.wait(HANG)
        end = time.thread_time() + cpu_seconds
        while time.thread_time() < end:
            pass
        log.append(name)
        if k < turns - 1:
            yield
    return name


def test_a_lane_whose_turns_are_long_gets_fewer_turns_than_one_whose_turns_are_short():
    """Both lanes queued behind a held turn. Before (a turn each in rotation) they
    alternated; charged their CPU time, the short lane runs many turns (each charged the
    least charge, 1 ms) for each 20 ms turn of the long one, and the long one still
    finishes first: it is not starved."""
    log, gate = [], threading.Event()

    async def main():
        turns = TurnScheduler()
        try:
            held = asyncio.ensure_future(turns.run("gate", burner(log, "gate", 1, 0, gate)))
            long_ = asyncio.ensure_future(turns.run("long", burner(log, "L", 3, 0.020)))
            short = asyncio.ensure_future(turns.run("short", burner(log, "s", 200, 0)))
            await until(lambda: turns.waiting() == (0, 3))
            gate.set()
            return await asyncio.wait_for(asyncio.gather(held, long_, short), HANG)
        finally:
            gate.set()
            turns.close()

    assert asyncio.run(main()) == ["gate", "L", "s"]
    first, second = [k for k, name in enumerate(log) if name == "L"][:2]
    between = log[first + 1:second].count("s")
    assert between >= 5, log[:40]                    # before: 1 (a turn each)
    assert log.index("L", second + 1) < len(log) - 100  # the long lane done well before


# ---------------------------------------------------------------------------------------
# a page's requests: one lane
# ---------------------------------------------------------------------------------------


def csv_text(n=2000):
    return "x1,x2,label\n" + "\n".join(f"{k / n!r},{-k / n!r},{1 if k % 2 else -1}"
                                       for k in range(n))


def test_a_pages_requests_share_one_lane_whatever_they_ask(monkeypatch):
    lanes = []
    real = TurnScheduler.run

    def spy(self, lane, gen, note=None, *page):
        lanes.append((note.route, lane, *page))
        return real(self, lane, gen, note, *page)

    monkeypatch.setattr(TurnScheduler, "run", spy)
    page_a, page_b = {"X-Micrograd-Page": "a" * 32}, {"X-Micrograd-Page": "b" * 32}
    with TestClient(create_app()) as c:
        sid = c.post("/api/play", json={"samples": 40, "hidden": [2]},
                     headers=page_a).json()["sid"]
        c.post(f"/api/play/{sid}/step", json={"steps": 1}, headers=page_a)
        c.post("/api/play/csv", json={"text": csv_text(10)}, headers=page_a)
        c.get("/api/mistakes", headers=page_a)
        c.post("/api/play/csv", json={"text": csv_text(10)}, headers=page_b)
        c.post(f"/api/play/{sid}/step", json={"steps": 1})           # no token
        c.post("/api/play/csv", json={"text": csv_text(10)})          # no token
        c.post("/api/play/csv", json={"text": csv_text(10)},
               headers={"X-Micrograd-Page": "no good!"})              # not a token
        c.post("/api/walk", json={"preset": "lecture"}, headers=page_a)
    got = [entry[1] for entry in lanes]
    assert got[:4] == [("page", "a" * 32)] * 4          # create, step, CSV, gallery
    assert got[4] == ("page", "b" * 32)
    assert got[5] == sid                                 # a session's own lane
    assert got[6] == got[7] and got[6][0] == "connection"  # the connection's
    assert lanes[8][1:] == (WALK, ("page", "a" * 32))    # the walk's thread, its page


def test_forty_csv_files_read_for_one_page_do_not_hold_up_another_pages_training():
    """The training thread is held while page P sends 40 CSV files of 2,000 points and
    page Q asks for 20 steps. Counted in jobs finished, not seconds: before, each CSV
    read had a lane of its own and all 40 were read before Q's second step; now P's
    reads are one lane beside Q's, each charged its CPU time, and Q is answered with
    most of them still waiting."""
    app = create_app()
    turns = app.state.turns
    done, held, release = [], threading.Event(), threading.Event()

    class Log:
        def job(self, note):
            done.append(note.route)

        def turn(self, *args):
            pass

    def gate():
        held.set()
        release.wait(HANG)
        return "gate"
        yield  # pragma: no cover

    text = csv_text()
    with TestClient(app) as c:
        page_q = {"X-Micrograd-Page": "q" * 32}
        sid = c.post("/api/play", json={"samples": 40, "hidden": [2]},
                     headers=page_q).json()["sid"]
        turns.log = Log()
        threads = []
        try:
            c.portal.start_task_soon(turns.run, "gate", gate())
            assert held.wait(HANG)
            page_p = {"X-Micrograd-Page": "p" * 32}
            threads = [threading.Thread(target=c.post, args=("/api/play/csv",), kwargs={
                "json": {"text": text}, "headers": page_p}) for _ in range(40)]
            threads.append(threading.Thread(target=c.post, args=(
                f"/api/play/{sid}/step",), kwargs={"json": {"steps": 20}, "headers": page_q}))
            for t in threads:
                t.start()
            end = time.monotonic() + HANG
            while turns.waiting()[1] < 42:
                assert time.monotonic() < end, turns.waiting()
                time.sleep(0.01)
        finally:
            release.set()
            for t in threads:
                t.join(HANG)
    assert done.count("play.csv.read") == 40 and "play.step" in done
    read_first = done[:done.index("play.step")].count("play.csv.read")
    assert read_first <= 20, read_first  # before: all 40


# ---------------------------------------------------------------------------------------
# the walks in turns: capped in all and per page
# ---------------------------------------------------------------------------------------


def walk_job(log, name, turns, gates=None):
    """A walk job of ``turns`` turns (turn k waits for ``gates[k]`` when given); its
    ``finally`` notes that it was closed."""
    try:
        for k in range(turns):
            if gates and k in gates:
                gates[k].wait(HANG)
            log.append(f"{name}{k}")
            if k < turns - 1:
                yield
        return name
    finally:
        log.append(f"{name} closed")


def test_walks_in_turns_are_capped_in_all_and_per_page():
    log, gate = [], threading.Event()

    async def main():
        turns = TurnScheduler(walks=3, walks_per_page=2)
        try:
            held = asyncio.ensure_future(turns.call(WALK, gate.wait, HANG))
            jobs = [asyncio.ensure_future(turns.run(WALK, walk_job(log, name, n),
                                                    page=page))
                    for name, n, page in (("a", 4, "A"), ("b", 4, "A"), ("c", 4, "A"),
                                          ("d", 4, "B"), ("e", 4, "C"), ("plain", 1, "C"))]
            await until(lambda: turns.waiting()[0] == 7)
            gate.set()
            out = await asyncio.wait_for(asyncio.gather(held, *jobs,
                                                        return_exceptions=True), HANG)
            return out, turns.walks_in_turns()
        finally:
            gate.set()
            turns.close()

    out, left = asyncio.run(main())
    got = dict(zip("xabcde", out))
    assert [k for k, v in got.items() if isinstance(v, Busy)] == ["c", "e"]
    assert "2 from this page" in str(got["c"]) and "all 3" in str(got["e"])
    assert got["c"].retry_after > 0
    assert {got[k] for k in "abd"} == set("abd") and out[-1] == "plain"
    assert "c closed" in log and "c1" not in log and "e1" not in log  # closed after a turn
    assert left == 0


def test_a_walk_cancelled_in_turns_gives_its_place_back():
    log, gate = [], threading.Event()

    async def main():
        turns = TurnScheduler(walks=1, walks_per_page=1)
        try:
            first = asyncio.ensure_future(turns.run(WALK, walk_job(
                log, "a", 3, {1: gate}), page="A"))  # in turns, held in its second
            await until(lambda: turns.walks_in_turns() == 1)
            first.cancel()
            gate.set()
            await until(lambda: turns.walks_in_turns() == 0)
            return await asyncio.wait_for(turns.run(WALK, walk_job(log, "b", 3),
                                                    page="B"), HANG)
        finally:
            gate.set()
            turns.close()

    assert asyncio.run(main()) == "b"
    assert "a closed" in log


def big_walk(k):
    """A graph over the walk's turn size (60 nodes): ``a*b`` summed, one more term each."""
    return {"expr": "a = 2; b = -3; L = " + " + ".join(["a*b"] * (30 + k)),
            "mode": "no_zero_grad"}


def test_the_walk_beyond_the_cap_is_answered_503_with_retry_after_and_a_plain_walk_still():
    """Five pages post a big graph's walk while the walk thread is held, and a sixth the
    lecture's: with four walks in turns allowed, one of the five is told the server is
    busy with walks (503, Retry-After), the others and the plain walk are answered.
    Before: all five were held at once, and nothing refused them."""
    app = create_app()
    turns = app.state.turns
    held, release, answers = threading.Event(), threading.Event(), {}

    def gate():
        held.set()
        release.wait(HANG)
        return "gate"

    def post(name, body, page):
        r = c.post("/api/walk", json=body, headers={"X-Micrograd-Page": page * 16})
        answers[name] = r

    with TestClient(app) as c:
        threads = []
        try:
            c.portal.start_task_soon(turns.call, WALK, gate)
            assert held.wait(HANG)
            for k in range(5):
                threads.append(threading.Thread(target=post, args=(k, big_walk(k), "p" + str(k))))
            threads.append(threading.Thread(target=post, args=(
                "plain", {"preset": "lecture"}, "pz")))
            for t in threads:
                t.start()
            end = time.monotonic() + HANG
            while turns.waiting()[0] < 7:
                assert time.monotonic() < end, turns.waiting()
                time.sleep(0.01)
        finally:
            release.set()
            for t in threads:
                t.join(HANG)
    statuses = sorted(answers[k].status_code for k in range(5))
    assert statuses == [200] * 4 + [503], statuses
    busy = next(answers[k] for k in range(5) if answers[k].status_code == 503)
    assert int(busy.headers["retry-after"]) > 0 and "busy with walks" in busy.json()["error"]
    assert answers["plain"].status_code == 200 and answers["plain"].json()["graph"]["nodes"]
    assert turns.walks_in_turns() == 0  # every place given back


def test_one_page_gets_at_most_its_share_of_the_walks_in_turns():
    app = create_app()
    turns = app.state.turns
    held, release, answers = threading.Event(), threading.Event(), {}

    def gate():
        held.set()
        release.wait(HANG)

    with TestClient(app) as c:
        def post(k):
            answers[k] = c.post("/api/walk", json=big_walk(k),
                                headers={"X-Micrograd-Page": "one-page" * 4})

        threads = [threading.Thread(target=post, args=(k,)) for k in range(3)]
        try:
            c.portal.start_task_soon(turns.call, WALK, gate)
            assert held.wait(HANG)
            for t in threads:
                t.start()
            end = time.monotonic() + HANG
            while turns.waiting()[0] < 4:
                assert time.monotonic() < end, turns.waiting()
                time.sleep(0.01)
        finally:
            release.set()
            for t in threads:
                t.join(HANG)
    statuses = sorted(r.status_code for r in answers.values())
    assert statuses == [200, 200, 503], statuses
    assert any("from this page" in r.json()["error"] for r in answers.values()
               if r.status_code == 503)

"""A walk request beside 16 heavy training tabs: how long it waits for its turn, how long
it takes, and how long any turn holds the others.

    PYTHONPATH=src python benchmarks/serve_latency.py                    # 3 rounds, ~3 min
    PYTHONPATH=src python benchmarks/serve_latency.py --baseline ../old  # interleaved with
                                                                         # another checkout

Each round starts one real ``micrograd serve --port 0 --timing`` (127.0.0.1 only) and:

* opens 16 training tabs over HTTP, each on its own kept-alive connection, in a process
  of their own: the largest networks the caps allow (2-32-32-8-1 on two features and
  7-32-32-4-1 on all seven, alternately) on 2,000 spiral points, the whole training set
  (1,800 points) a batch, 20 steps a request, each tab asking again as soon as an answer
  comes;
* once every tab has trained, for ``--seconds``: a walk request (the lecture's preset, as
  the page sends it) every 0.25 s; then as long again with, besides, a big graph's walk
  (166 nodes, the heaviest kind of layout) every 2 s;
* reads what the server measured itself (``--timing``): each walk request's wait from
  its arrival (the event loop read its last byte) to its first turn, and the part of it
  spent in the scheduler's queue (the ``Server-Timing`` header) and, from
  ``GET /api/debug/turns``, the longest turn of each work thread and the longest hold
  of training (a session kept waiting between two training turns while something else
  ran), for each of the two phases;
* and the client's end-to-end time of each walk request, and the machine's load average
  (``os.getloadavg``) at the start and the end of the measurement.

It prints each round, then the median and the range over the rounds (and, with
``--baseline``, the same for the other checkout, its rounds interleaved with these, and
the ratio of the medians, this checkout's over the baseline's).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import re
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

from serve_load import Client, pct

ROOT = Path(__file__).resolve().parents[1]

SPIRAL = {"samples": 2000, "train_ratio": 0.9, "dataset": "spiral", "batch_size": 0}
#: the largest networks the caps allow (1,425 and 1,449 parameters), 20 steps a request
HEAVY = [dict(SPIRAL, hidden=[32, 32, 8]),
         dict(SPIRAL, hidden=[32, 32, 4],
              features=["x1", "x2", "x1^2", "x2^2", "x1*x2", "sin x1", "sin x2"])]
STEPS = 20
TABS = 16
LECTURE = {"preset": "lecture"}


def big_graph():
    """A 166-node graph in 1,000 characters: each node the product of the two before it
    plus a leaf, so long edges cross many ranks (the layout's heaviest work)."""
    leaves = "abcdef"
    parts = [f"{x}={v}" for x, v in zip(leaves, (0.5, -0.3, 0.7, 0.2, -0.9, 1.1))]
    names = [f"{p}{q}" for p in "ghijklmnopqrstuvwxyz" for q in "abcdefghijklmnopqrstuvwxyz"]
    made = ["a", "b"]
    for k, x in enumerate(names):
        part = f"{x}={made[-1]}*{made[-2]}+{leaves[k % 6]}"
        if len("; ".join(parts + [part])) > 1000:
            break
        parts.append(part)
        made.append(x)
    return {"expr": "; ".join(parts)}


class TimedClient(Client):
    """A kept-alive connection that also reads the answer's Server-Timing header."""

    def timed(self, path, body):
        """(status, end-to-end seconds, the server's {metric: ms})."""
        data = json.dumps(body).encode()
        t0 = time.perf_counter()
        self.conn.request("POST", path, body=data,
                          headers={"content-type": "application/json"})
        r = self.conn.getresponse()
        r.read()
        dt = time.perf_counter() - t0
        metrics = dict(re.findall(r"(\w+);dur=([\d.]+)", r.getheader("server-timing", "")))
        return r.status, dt, {k: float(v) for k, v in metrics.items()}


def start_server(source):
    env = dict(os.environ, PYTHONPATH=str(Path(source) / "src") + os.pathsep
               + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "micrograd", "serve", "--port", "0",
                             "--timing"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True, env=env, cwd=source)
    line = proc.stdout.readline()
    m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
    if not m:
        proc.kill()
        raise SystemExit(f"the server did not start: {line!r}")
    return proc, int(m.group(1))


def tabs_process(port, ready, stop, steps_done):
    """16 training tabs, each a thread on its own connection, until ``stop`` is set."""
    def tab(k):
        c = Client(port)
        status, body = c.call("POST", "/api/play", HEAVY[k % len(HEAVY)])
        if status != 200:
            raise SystemExit(f"tab {k}: the session was refused ({status}: {body})")
        sid = body["sid"]
        first = True
        while not stop.is_set():
            c.conn.request("POST", f"/api/play/{sid}/step", body=json.dumps(
                {"steps": STEPS}).encode(), headers={"content-type": "application/json"})
            r = c.conn.getresponse()
            r.read()  # the state, not decoded: the tabs' own work stays small
            if r.status != 200:
                raise SystemExit(f"tab {k}: a step failed ({r.status})")
            with steps_done.get_lock():
                steps_done.value += STEPS
            if first:
                ready.release()
                first = False
        c.call("DELETE", f"/api/play/{sid}")
        c.close()

    threads = [threading.Thread(target=tab, args=(k,), daemon=True) for k in range(TABS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def probe(port, body, every, seconds, out):
    """``body`` sent to /api/walk every ``every`` s for ``seconds``: (end-to-end s, the
    server's metrics) appended to ``out``."""
    c = TimedClient(port)
    end = time.monotonic() + seconds
    next_at = time.monotonic()
    while time.monotonic() < end:
        status, dt, metrics = c.timed("/api/walk", body)
        if status != 200:
            raise SystemExit(f"a walk request failed ({status})")
        out.append((dt, metrics))
        next_at += every
        time.sleep(max(0.0, next_at - time.monotonic()))
    c.close()


def measure(port, admin, seconds, steps, with_big):
    """One phase: the lecture's walk every 0.25 s (and the big graph's every 2 s when
    ``with_big``) for ``seconds``; the server's report of the phase."""
    admin.call("DELETE", "/api/debug/turns")
    load0, steps0, t0 = os.getloadavg()[0], steps.value, time.monotonic()
    small, big = [], []
    heavy = threading.Thread(target=probe, args=(port, big_graph(), 2.0, seconds, big))
    if with_big:
        heavy.start()
    probe(port, LECTURE, 0.25, seconds, small)
    if with_big:
        heavy.join()
    rate = (steps.value - steps0) / (time.monotonic() - t0)
    _, turns = admin.call("GET", "/api/debug/turns")
    waits = [m["wait"] for _, m in small]
    queues = [m.get("queue", float("nan")) for _, m in small]  # (an older server: none)
    e2e = [1e3 * dt for dt, _ in small]
    threads = turns["threads"]
    return {"wait p50": statistics.median(waits), "wait p95": pct(waits, 0.95),
            "wait max": max(waits), "queue p50": statistics.median(queues),
            "queue p95": pct(queues, 0.95), "queue max": max(queues),
            "end-to-end p50": statistics.median(e2e), "end-to-end p95": pct(e2e, 0.95),
            "end-to-end max": max(e2e),
            "big walk end-to-end max": max((1e3 * dt for dt, _ in big), default=0.0),
            "longest walk turn": threads["walk"]["longest_turn_ms"],
            "longest training turn": threads["session"]["longest_turn_ms"],
            "longest training hold": threads["session"]["longest_hold_ms"],
            "steps/s": rate, "load start": load0, "load end": os.getloadavg()[0],
            "n": len(small)}


def one_round(source, seconds):
    """(beside training, beside training and big walks): ``measure``'s two phases on a
    server of its own."""
    proc, port = start_server(source)
    ctx = multiprocessing.get_context("spawn")
    ready, stop, steps = ctx.Semaphore(0), ctx.Event(), ctx.Value("q", 0)
    tabs = ctx.Process(target=tabs_process, args=(port, ready, stop, steps), daemon=True)
    try:
        tabs.start()
        for _ in range(TABS):  # every tab has its session and has trained (bounded)
            if not ready.acquire(timeout=300):
                raise SystemExit("the tabs did not start training within 300 s")
        admin = Client(port)
        out = [measure(port, admin, seconds, steps, with_big) for with_big in (False, True)]
        admin.close()
        return out
    finally:
        stop.set()
        tabs.join(60)
        if tabs.is_alive():
            tabs.kill()
        proc.terminate()
        proc.wait(10)


PHASES = ("beside training", "beside training and big walks")
ROWS = ["wait p50", "wait p95", "wait max", "queue p50", "queue p95", "queue max",
        "end-to-end p50", "end-to-end p95",
        "end-to-end max", "big walk end-to-end max", "longest walk turn",
        "longest training turn", "longest training hold", "steps/s", "load start",
        "load end"]


def show(label, rounds):
    print(f"{label}: {len(rounds)} rounds (median, and the range over the rounds)")
    for row in ROWS:
        xs = [r[row] for r in rounds]
        unit = "" if row.startswith(("steps", "load")) else " ms"
        print(f"  {row:26s} {statistics.median(xs):9.1f}{unit}   "
              f"({min(xs):.1f} to {max(xs):.1f})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=20.0,
                    help="how long each round measures (default 20)")
    ap.add_argument("--source", default=str(ROOT), help="the checkout whose server runs")
    ap.add_argument("--baseline", default=None,
                    help="another checkout (it must have --timing), run in interleaved rounds")
    args = ap.parse_args()
    if not 1 <= args.rounds <= 20 or not 2 <= args.seconds <= 120:
        raise SystemExit("--rounds must be in 1..20 and --seconds in 2..120")
    sources = [("this checkout", args.source)]
    if args.baseline:
        sources.insert(0, ("baseline", args.baseline))
    results = {(label, phase): [] for label, _ in sources for phase in PHASES}
    print(f"{os.cpu_count()} cores; {TABS} tabs x {STEPS} steps a request; "
          f"walk every 0.25 s, a {len(big_graph()['expr'])}-character graph every 2 s; "
          f"{args.seconds:g} s a round")
    for k in range(args.rounds):
        for label, source in sources:
            for phase, r in zip(PHASES, one_round(source, args.seconds)):
                results[label, phase].append(r)
                print(f"round {k + 1} {label}, {phase}: wait p50/p95/max "
                      f"{r['wait p50']:.1f} / {r['wait p95']:.1f} / {r['wait max']:.1f} ms "
                      f"(in the queue {r['queue p50']:.1f} / {r['queue p95']:.1f} / "
                      f"{r['queue max']:.1f} ms), "
                      f"end-to-end {r['end-to-end p50']:.1f} / {r['end-to-end p95']:.1f} / "
                      f"{r['end-to-end max']:.1f} ms (n={r['n']}); longest turn: walk "
                      f"{r['longest walk turn']:.0f} ms, training step "
                      f"{r['longest training turn']:.0f} ms; training held up to "
                      f"{r['longest training hold']:.0f} ms; {r['steps/s']:.0f} steps/s; "
                      f"load {r['load start']:.1f} -> {r['load end']:.1f}", flush=True)
    for label, _ in sources:
        for phase in PHASES:
            show(f"{label}, {phase}", results[label, phase])
    if args.baseline:
        for phase in PHASES:
            print(f"this checkout / baseline, {phase} (ratio of the medians)")
            for row in ROWS[:-2]:
                now, then = (statistics.median(r[row] for r in results[label, phase])
                             for label in ("this checkout", "baseline"))
                print(f"  {row:26s} {now / then if then else float('nan'):9.2f}")

if __name__ == "__main__":
    main()

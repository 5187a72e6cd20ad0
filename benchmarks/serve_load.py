"""``micrograd serve`` under load, on loopback: walk latency beside training tabs, eviction
with more tabs than sessions, and the server's memory.

    PYTHONPATH=src python benchmarks/serve_load.py                  # all three, ~1 min
    PYTHONPATH=src python benchmarks/serve_load.py --only latency --seconds 5

Starts one real ``micrograd serve --port 0`` (uvicorn, 127.0.0.1 only) and drives it
with client threads, each on its own kept-alive connection, for a bounded time:

* latency: a walk request (the lecture preset) every 50 ms, alone and then beside 16
  training tabs; each tab steps as fast as answers come. Two kinds of tab: the page's
  (2-9-1 on 200 points, 1 step a request) and a heavy one (the largest network on 2,000
  points, 20 steps a request). Reports the walk's median and p95 latency.
* eviction: 20 and 40 tabs train the way the page does (on a 404 the tab builds a new
  session and starts again from step 0; on a 503 it waits and asks again). Reports how
  many tabs train at the end, how many sessions were lost in flight and rebuilt, and
  the steps done.
* memory: the server's resident memory (VmRSS; VmHWM is the peak) after each phase.

Everything is bounded: --seconds per phase (default 6), at most 40 client threads, one
server, loopback only.
"""

import argparse
import http.client
import json
import os
import re
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PAGE = {"samples": 200, "hidden": [9]}, 1
#: the largest session the caps allow: 2,000 points (1,800 to train on), 1,425 parameters
HEAVY = {"samples": 2000, "train_ratio": 0.9, "hidden": [32, 32, 8], "dataset": "spiral"}, 20


class Client:
    """One kept-alive connection (one browser tab's)."""

    def __init__(self, port):
        self.port = port
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        headers = {"content-type": "application/json"} if data is not None else {}
        for attempt in (0, 1):
            try:
                self.conn.request(method, path, body=data, headers=headers)
                r = self.conn.getresponse()
                return r.status, json.loads(r.read() or b"null")
            except (http.client.HTTPException, ConnectionError):
                self.conn.close()  # closed by the server (idle timeout): reconnect once
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def close(self):
        self.conn.close()


def start_server(root=ROOT):
    env = dict(os.environ, PYTHONPATH=str(Path(root) / "src") + os.pathsep
               + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "micrograd", "serve", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env=env, cwd=root)
    line = proc.stdout.readline()
    m = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
    if not m:
        proc.kill()
        raise SystemExit(f"the server did not start: {line!r}")
    return proc, int(m.group(1))


def memory(pid):
    """(VmRSS, VmHWM) of a process in MB."""
    text = Path(f"/proc/{pid}/status").read_text()
    get = lambda k: int(re.search(rf"{k}:\s+(\d+) kB", text).group(1)) / 1024
    return get("VmRSS"), get("VmHWM")


class Tab(threading.Thread):
    """A playground tab that trains until ``stop`` is set, as the page does."""

    def __init__(self, port, config, steps, stop):
        super().__init__(daemon=True)
        self.client = Client(port)
        self.config, self.steps, self.stop = config, steps, stop
        self.done = 0          # steps trained in all
        self.rebuilt = 0       # sessions lost (404) and built again
        self.refused = 0       # 503s: the server was full
        self.step = 0          # the current session's step count
        self.last_ok = 0.0     # when a step last succeeded
        self.ready = threading.Event()  # set at the first step done

    def run(self):
        sid = None
        while not self.stop.is_set():
            if sid is None:
                status, body = self.client.call("POST", "/api/play", self.config)
                if status == 503:
                    self.refused += 1
                    time.sleep(0.5)
                    continue
                sid, self.step = body["sid"], 0
                continue
            status, body = self.client.call("POST", f"/api/play/{sid}/step",
                                            {"steps": self.steps})
            if status == 404:
                self.rebuilt += 1
                sid = None
                continue
            self.done += self.steps
            self.ready.set()
            self.step = body["step"]
            self.last_ok = time.monotonic()
        if sid is not None:  # the tab closes: the page deletes its session (pagehide)
            self.client.call("DELETE", f"/api/play/{sid}")
        self.client.close()


def walk_latencies(port, seconds):
    c = Client(port)
    out = []
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        t0 = time.perf_counter()
        status, _ = c.call("POST", "/api/walk", {"preset": "lecture"})
        out.append(time.perf_counter() - t0)
        assert status == 200, status
        time.sleep(0.05)
    c.close()
    return out


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def latency(port, seconds):
    rows = []
    alone = walk_latencies(port, seconds / 2)
    rows.append(("walk alone", alone))
    for name, (config, steps) in (("page", PAGE), ("heavy", HEAVY)):
        stop = threading.Event()
        tabs = [Tab(port, config, steps, stop) for _ in range(16)]
        for t in tabs:
            t.start()
        for t in tabs:  # let every tab build its session (bounded)
            t.ready.wait(30)
        lat = walk_latencies(port, seconds)
        stop.set()
        for t in tabs:
            t.join(60)
        rate = sum(t.done for t in tabs) / seconds
        label = f"walk beside 16 {name} tabs ({rate:.0f} steps/s in all)"
        rows.append((label, lat))
    print("walk latency (POST /api/walk, lecture preset)")
    for name, lat in rows:
        print(f"  {name:55s} median {1e3 * statistics.median(lat):7.1f} ms   "
              f"p95 {1e3 * pct(lat, 0.95):7.1f} ms   (n={len(lat)})")


def eviction(port, seconds):
    print("eviction (tabs training as the page does; the server keeps "
          "limits.MAX_SESSIONS sessions)")
    for n in (20, 40):
        stop = threading.Event()
        tabs = [Tab(port, *PAGE, stop) for _ in range(n)]
        for t in tabs:
            t.start()
            time.sleep(0.02)
        time.sleep(seconds)
        now = time.monotonic()
        training = sum(1 for t in tabs if now - t.last_ok < 1.0)
        stop.set()
        for t in tabs:
            t.join(60)
        rebuilt = sum(t.rebuilt for t in tabs)
        kept = sum(1 for t in tabs if t.rebuilt == 0 and t.done)
        print(f"  {n} tabs for {seconds:.0f} s: {training} training at the end, "
              f"{kept} never lost their session, {rebuilt} sessions lost in flight and "
              f"rebuilt, {sum(t.refused for t in tabs)} creations refused (503), "
              f"{sum(t.done for t in tabs)} steps, furthest tab at step "
              f"{max(t.step for t in tabs)}")


def hostile(port, seconds, clients=40):
    """40 clients for ``seconds``: the largest sessions built, trained 20 steps, read in
    full and dropped, over and over; bodies just under the cap; bodies over it."""
    stop = threading.Event()
    counts = {"created": 0, "busy": 0, "capped": 0}
    big = {"preset": "square", "pad": "x" * (60 * 1024)}

    def churn(k):
        c = Client(port)
        while not stop.is_set():
            if k % 4 == 3:  # a body near the cap (refused by the schema), then one over it
                c.call("POST", "/api/walk", big)
                status, _ = c.call("POST", "/api/walk", {"expr": "a = 1",
                                                         "pad": "y" * (80 * 1024)})
                counts["capped"] += status == 413
                continue
            status, body = c.call("POST", "/api/play", HEAVY[0])
            if status == 503:
                counts["busy"] += 1
                time.sleep(0.2)
                continue
            counts["created"] += 1
            sid = body["sid"]
            c.call("POST", f"/api/play/{sid}/step", {"steps": 20})
            c.call("GET", f"/api/play/{sid}")
            c.call("DELETE", f"/api/play/{sid}")
        c.close()

    threads = [threading.Thread(target=churn, args=(k,), daemon=True)
               for k in range(clients)]
    for t in threads:
        t.start()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join(60)
    print(f"hostile: {clients} clients for {seconds:.0f} s: {counts['created']} largest "
          f"sessions built, trained and dropped, {counts['busy']} refused as busy, "
          f"{counts['capped']} bodies over the cap refused")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=6.0, help="length of each phase")
    ap.add_argument("--only", choices=["latency", "eviction", "hostile"], default=None)
    ap.add_argument("--source", default=str(ROOT),
                    help="the checkout whose server to run (to compare before/after)")
    args = ap.parse_args()
    if not 0 < args.seconds <= 60:
        raise SystemExit("--seconds must be in (0, 60]")
    proc, port = start_server(args.source)
    try:
        print(f"server pid {proc.pid} on 127.0.0.1:{port}; memory at start "
              f"{memory(proc.pid)[0]:.0f} MB")
        if args.only in (None, "latency"):
            latency(port, args.seconds)
            print("  memory: {:.0f} MB resident, peak {:.0f} MB".format(*memory(proc.pid)))
        if args.only in (None, "eviction"):
            eviction(port, args.seconds)
            print("  memory: {:.0f} MB resident, peak {:.0f} MB".format(*memory(proc.pid)))
        if args.only in (None, "hostile"):
            hostile(port, args.seconds)
            print("  memory: {:.0f} MB resident, peak {:.0f} MB".format(*memory(proc.pid)))
    finally:
        proc.terminate()
        proc.wait(10)


if __name__ == "__main__":
    main()

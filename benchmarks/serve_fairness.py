"""``micrograd serve`` shared by CPU time, with the walks inside the memory bound: timed
on a real server (loopback), the figures ``tests/test_serve_fairness.py`` checks by
counting instead.

    PYTHONPATH=src python benchmarks/serve_fairness.py [--seconds 15] [--only walks|csv]
    PYTHONPATH=src python benchmarks/serve_fairness.py --source /tmp/before   # another tree

* walks: 100 clients, each a page of its own (its own token), keep a walk of a big graph
  in flight (``a*b`` summed 100 times, mode no_zero_grad: 201 nodes, ~9 MB held
  between its turns), asking again as soon as they are answered; told the server is
  busy (503), they wait the ``Retry-After`` it names, as the page does, or, greedy, ask
  again at once. Beside them a plain walk (the lecture's preset) every 0.5 s. Prints
  the plain walk's answer times, how many big walks were answered and refused, and the
  server's resident memory (its peak: VmHWM) against the documented bound;
* csv: a training tab (the page's set-up: 2-9-1 on 200 points, one step a request, on
  a kept-alive connection with a page's token) alone, then beside 40 clients posting
  CSV files of 2,000 points, each asking again as soon as it is answered: once as 40
  clients without a token (each on its own kept-alive connection), once as one page
  (one token). Prints the tab's steps per second.

``--source DIR`` runs the server of another checkout (``DIR/src`` first on its path: a
git worktree of an older commit, say). The client's wall clock; the load average at the
start and the end (the machine may be shared: compare runs of one sitting).
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
BIG_WALK = {"expr": "a = 2; b = -3; L = " + " + ".join(["a*b"] * 100), "mode": "no_zero_grad"}
TAB = {"samples": 200, "hidden": [9]}


def load():
    try:
        return "%.2f %.2f %.2f" % os.getloadavg()
    except OSError:
        return "unknown"


def start(source):
    env = dict(os.environ, PYTHONPATH=str(Path(source) / "src"))
    where = subprocess.run([sys.executable, "-c", "import micrograd.web.limits as l; "
                            "print(l.__file__, l.MEMORY_BOUND_MB)"], env=env,
                           capture_output=True, text=True, check=True).stdout.split()
    proc = subprocess.Popen([sys.executable, "-m", "micrograd", "serve", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            env=env, cwd=source)
    m = re.search(r"127\.0\.0\.1:(\d+)/", proc.stdout.readline())
    if not m:
        proc.kill()
        raise SystemExit("the server did not start")
    print(f"  server: {where[0]} (memory bound {where[1]} MB)")
    return proc, int(m.group(1)), float(where[1])


def stop(proc):
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    proc.stdout.close()


class Client:
    """One kept-alive connection, with a page's token or none."""

    def __init__(self, port, token=None):
        self.port, self.token = port, token
        self.conn, self.retry_after = None, 0.0

    def call(self, method, path, body=None):
        """(status, the answer's JSON); ``self.retry_after``: the Retry-After it named."""
        headers = {"content-type": "application/json"}
        if self.token:
            headers["x-micrograd-page"] = self.token
        data = None if body is None else json.dumps(body)
        for attempt in (0, 1):
            if self.conn is None:
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=300)
            try:
                self.conn.request(method, path, data, headers)
                r = self.conn.getresponse()
                self.retry_after = float(r.getheader("retry-after") or 0)
                return r.status, json.loads(r.read() or b"null")
            except (http.client.HTTPException, ConnectionError):
                self.conn.close()  # closed by the server (idle): once more on a new one
                self.conn = None
                if attempt:
                    raise
        raise AssertionError("unreachable")

    def close(self):
        if self.conn is not None:
            self.conn.close()


def memory_mb(pid):
    text = Path(f"/proc/{pid}/status").read_text()
    return {k: int(re.search(rf"{k}:\s+(\d+) kB", text).group(1)) / 1024
            for k in ("VmRSS", "VmHWM")}


def show(name, xs):
    if not xs:
        print(f"  {name:44s} none")
        return
    q = statistics.quantiles(xs, n=20, method="inclusive")[18] if len(xs) > 1 else xs[0]
    print(f"  {name:44s} p50 {statistics.median(xs):7.3f} s  p95 {q:7.3f} s  "
          f"max {max(xs):7.3f} s  ({len(xs)})")


def crowd(n, work, stop_event):
    """``n`` client threads running ``work(k)`` until ``stop_event`` (or the server
    stops)."""
    def loop(k):
        while not stop_event.is_set():
            try:
                work(k)
            except (OSError, http.client.HTTPException):
                if not stop_event.is_set():
                    raise
    threads = [threading.Thread(target=loop, args=(k,), daemon=True) for k in range(n)]
    for t in threads:
        t.start()
    return threads


def walks(source, seconds, greedy, clients=100):
    proc, port, bound = start(source)
    done = threading.Event()
    counts, plain = {}, []
    try:
        pages = [Client(port, f"bench-walk-page-{k:04d}") for k in range(clients)]

        def big(k):
            status, _ = pages[k].call("POST", "/api/walk", BIG_WALK)
            counts[status] = counts.get(status, 0) + 1
            if status == 503 and not greedy:
                done.wait(pages[k].retry_after)

        threads = crowd(clients, big, done)
        probe = Client(port, "bench-plain-walk-page")
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            t0 = time.perf_counter()
            status, _ = probe.call("POST", "/api/walk", {"preset": "lecture"})
            if status == 200:
                plain.append(time.perf_counter() - t0)
            time.sleep(max(0.0, 0.5 - (time.perf_counter() - t0)))
        peak = memory_mb(proc.pid)
    finally:
        done.set()
        stop(proc)  # the walks in flight end with it
    for t in threads:
        t.join(60)
    print(f"walks: {clients} pages keep a big walk in flight for {seconds:g} s, "
          f"{'asking again at once' if greedy else 'waiting the Retry-After'} when "
          "refused; a plain walk every 0.5 s")
    show("the plain walk's answer", plain)
    print(f"  big walks answered {counts.get(200, 0)}, refused busy {counts.get(503, 0)}")
    print(f"  server memory: peak {peak['VmHWM']:.0f} MB (bound {bound:.0f} MB), "
          f"now {peak['VmRSS']:.0f} MB")


def tab_steps(port, seconds):
    """Steps per second of one training tab (the page's: one step a request)."""
    tab = Client(port, "bench-training-tab-page")
    status, state = tab.call("POST", "/api/play", TAB)
    if status != 200:
        raise SystemExit(f"the tab's session: {status} {state}")
    sid, steps = state["sid"], 0
    end = time.monotonic() + seconds
    t0 = time.perf_counter()
    while time.monotonic() < end:
        status, _ = tab.call("POST", f"/api/play/{sid}/step", {"steps": 1})
        steps += status == 200
    rate = steps / (time.perf_counter() - t0)
    tab.call("DELETE", f"/api/play/{sid}")
    tab.close()
    return rate


def csv_text(n=2000):
    return "x1,x2,label\n" + "\n".join(f"{k / n - 0.5!r},{0.25 - k / n / 2!r},"
                                       f"{1 if k % 2 else -1}" for k in range(n))


def csv(source, seconds, clients=40):
    proc, port, _ = start(source)
    body = {"text": csv_text()}
    rates = {}
    try:
        rates["alone"] = tab_steps(port, seconds)
        for name, token in (("40 clients, no token", None), ("40 clients, one page", "one")):
            done, read = threading.Event(), []
            posters = [Client(port, token and "bench-csv-page-" + token)
                       for _ in range(clients)]

            def post(k, posters=posters, read=read):
                status, _ = posters[k].call("POST", "/api/play/csv", body)
                read.append(status)

            threads = crowd(clients, post, done)
            time.sleep(1.0)  # the 40 in line
            rates[name] = tab_steps(port, seconds)
            rates[name + ": CSV files read a second"] = len(read) / (seconds + 1.0)
            done.set()
            for t in threads:
                t.join(600)
            for p in posters:
                p.close()
    finally:
        stop(proc)
    print(f"csv: a training tab (2-9-1 on 200 points, one step a request), {seconds:g} s")
    for name, rate in rates.items():
        print(f"  {name:44s} {rate:8.1f}{'' if 'CSV' in name else ' steps/s'}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=15.0)
    ap.add_argument("--only", choices=["walks", "csv"])
    ap.add_argument("--greedy", action="store_true",
                    help="the big walks' clients ask again at once when refused")
    ap.add_argument("--source", default=str(ROOT),
                    help="the checkout whose server runs (default: this one)")
    args = ap.parse_args(argv)
    if not args.seconds > 0:
        ap.error("--seconds must be positive")
    print(f"load average at start: {load()}  (Python {sys.version.split()[0]}, "
          f"{os.cpu_count()} cores)")
    if args.only in (None, "walks"):
        walks(args.source, args.seconds, args.greedy)
    if args.only in (None, "csv"):
        csv(args.source, args.seconds)
    print(f"load average at end: {load()}")


if __name__ == "__main__":
    main()

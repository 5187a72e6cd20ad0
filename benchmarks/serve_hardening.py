"""``micrograd serve``'s fairness and time limits, timed on a real server (loopback): the
figures ``tests/test_web_hardening.py`` checks by counting and ordering instead.

    PYTHONPATH=src python benchmarks/serve_hardening.py [--rounds 3] [--only fair|limits]

* fair: eight tabs keep asking for 20 steps each of the largest network (2,000 spiral
  points, 2-32-32-8-1); once they are in line, a walk (the lecture's preset) and a tab
  asking for one step of a small network arrive, ``--rounds`` times, one pair at a time.
  Prints each one's time from request to answer and its ratio to the median time of a
  tab's request in the same run (the baseline: with one lock the late ones would wait
  as long as a tab; one step a turn in rotation, about 9 steps' time against 180);
* limits: a server with ``--request-timeout`` and ``--keep-alive`` of ``--limit``
  seconds (1.0); for nothing sent, half the headers, half the body, a trickle of a byte
  every 0.2 s and an idle kept-alive connection: the seconds until the server closes,
  and their ratio to the limit (1.0 at best: the limit itself).

The client's wall clock (the server is another process); the load average at the start
and the end (the machine may be shared: the ratios are what to read).
"""

import argparse
import http.client
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAVY = {"samples": 2000, "train_ratio": 0.9, "hidden": [32, 32, 8], "dataset": "spiral"}
SMALL = {"samples": 40, "hidden": [2]}


def load():
    try:
        return "%.2f %.2f %.2f" % os.getloadavg()
    except OSError:
        return "unknown"


def start(*extra):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src") + os.pathsep
               + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "micrograd", "serve", "--port", "0",
                             *extra], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True, env=env, cwd=ROOT)
    m = re.search(r"127\.0\.0\.1:(\d+)/", proc.stdout.readline())
    if not m:
        proc.kill()
        raise SystemExit("the server did not start")
    return proc, int(m.group(1))


def stop(proc):
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    proc.stdout.close()


def post(port, path, body, method="POST"):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    conn.request(method, path, json.dumps(body), {"content-type": "application/json"})
    r = conn.getresponse()
    out = r.status, json.loads(r.read())
    conn.close()
    return out


def timed(port, path, body):
    t0 = time.perf_counter()
    status, _ = post(port, path, body)
    if status != 200:
        raise SystemExit(f"{path}: {status}")
    return time.perf_counter() - t0


def show(name, xs, base=None):
    med = statistics.median(xs)
    line = f"  {name:34s} {med:8.3f} s [{min(xs):.3f}-{max(xs):.3f}]"
    if base:
        line += f"   {med / base:6.3f}x a tab's"
    print(line)


def fair(rounds):
    proc, port = start()
    stop_tabs, tab_times, late = threading.Event(), [], {"walk": [], "one step": []}
    try:
        sids = [post(port, "/api/play", HEAVY)[1]["sid"] for _ in range(8)]
        small = post(port, "/api/play", SMALL)[1]["sid"]

        def tab(sid):
            while not stop_tabs.is_set():
                tab_times.append(timed(port, f"/api/play/{sid}/step", {"steps": 20}))

        tabs = [threading.Thread(target=tab, args=(sid,)) for sid in sids]
        for t in tabs:
            t.start()
        while len(tab_times) < 8:  # every tab answered once: the line is full
            time.sleep(0.1)
        for _ in range(rounds):
            pair = [threading.Thread(target=lambda: late["walk"].append(
                        timed(port, "/api/walk", {"preset": "lecture"}))),
                    threading.Thread(target=lambda: late["one step"].append(
                        timed(port, f"/api/play/{small}/step", {"steps": 1})))]
            for t in pair:
                t.start()
            for t in pair:
                t.join()
        stop_tabs.set()
        for t in tabs:
            t.join()
    finally:
        stop_tabs.set()
        stop(proc)
    base = statistics.median(tab_times)
    print(f"fair: 8 tabs x 20 steps of the largest network; {rounds} late pairs")
    show(f"a tab's request ({len(tab_times)})", tab_times)
    for name, xs in late.items():
        show(name, xs, base)


def closed_after(port, send, trickle=False):
    """Seconds from the first byte sent to the server's closing the connection."""
    with socket.create_connection(("127.0.0.1", port), timeout=60) as s:
        t0 = time.perf_counter()
        s.sendall(send)
        s.settimeout(0.2 if trickle else 60)
        while True:
            try:
                if trickle:
                    s.sendall(b"a")
                if s.recv(4096) == b"":
                    break
            except TimeoutError:
                continue
            except (BrokenPipeError, ConnectionResetError):
                break
        return time.perf_counter() - t0


def limits(rounds, limit):
    proc, port = start("--request-timeout", str(limit), "--keep-alive", str(limit))
    host = f"host: 127.0.0.1:{port}\r\n"
    half = f"GET /api/meta HTTP/1.1\r\n{host}".encode()
    body = (f"POST /api/walk HTTP/1.1\r\n{host}content-type: application/json\r\n"
            "content-length: 40\r\n\r\n{\"preset\"").encode()
    whole = f"GET /api/meta HTTP/1.1\r\n{host}\r\n".encode()
    kinds = {"nothing sent": lambda: closed_after(port, b""),
             "half the headers": lambda: closed_after(port, half),
             "half the body": lambda: closed_after(port, body),
             "a byte every 0.2 s": lambda: closed_after(port, half + b"x-pad: ", True),
             "idle kept-alive (after an answer)": lambda: closed_after(port, whole)}
    got = {k: [] for k in kinds}
    try:
        for _ in range(rounds):
            for name, run in kinds.items():
                got[name].append(run())
    finally:
        stop(proc)
    print(f"limits: --request-timeout {limit:g} --keep-alive {limit:g}; seconds to the "
          "close, and the ratio to the limit")
    for name, xs in got.items():
        show(name, xs)
        print(f"  {'':34s} {statistics.median(xs) / limit:8.3f}x the limit")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--limit", type=float, default=1.0)
    ap.add_argument("--only", choices=["fair", "limits"])
    args = ap.parse_args(argv)
    if args.rounds < 1 or not args.limit > 0:
        ap.error("--rounds must be at least 1 and --limit positive")
    print(f"load average at start: {load()}  (Python {sys.version.split()[0]})")
    if args.only in (None, "fair"):
        fair(args.rounds)
    if args.only in (None, "limits"):
        limits(args.rounds, args.limit)
    print(f"load average at end: {load()}")


if __name__ == "__main__":
    main()

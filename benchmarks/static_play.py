"""The Playground's steps a second: the static site (Python in a worker, the session
trained through its lowered program on the JavaScript executor) beside the served page
(``micrograd serve``: CPython and NumPy), in the same run, in headless Chromium.

    PYTHONPATH=src python benchmarks/static_play.py [--seconds 4] [--rounds 3]

The set-up is the Playground's speed case: 2-8-8-1 on 200 training points, one point
followed, so every step redraws everything (the 40x40 boundary, the 19 neuron
pictures, the curves, the one-point graph and, five times a second, the parameter
table). The page asks for one step at a time and draws each answer while the next step
is computed. Rounds alternate between the two doors (the machine is shared: the median
and the spread of the rounds are printed, with the load average), then once more under
a 4x CPU slowdown of the page (CDP ``Emulation.setCPUThrottlingRate``, a phone's
speed). Where a step's time goes, per step:

The throttling slows the page's main thread (its drawing and its side of the messages);
the worker's Python and executor run at full speed under it in this Chromium.

* static: Python (the worker's time in Python, the executor's taken out), executor (the
  lowered program run in JavaScript), transfer (the round trip minus the worker's time:
  the messages to and from the worker, and the wait while the page is busy drawing the
  step before);
* served: the server (the HTTP round trip: CPython, NumPy and the network, and the same
  wait);
* both: reading (the page's JSON.parse of the answers: the static door's; fetch's
  ``json()`` is not counted), drawing (the page's
  ``accept``: the DOM and SVG written) and page (all the page's main-thread work a step,
  from Chromium's own counters, CDP ``Performance.getMetrics`` TaskDuration: reading,
  drawing, style, layout and paint).

Run it on an idle machine for the figures that count: the page and the worker share
the cores, so on a loaded machine every column grows.

Needs Debian's chromium (/usr/bin/chromium), playwright (the ``test`` extra) and
Pyodide (``npm ci --prefix web-runtime``). A benchmark, never a test: it asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run",
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost"]
SPEED = ("page=play&ds=circle&noise=0&n=250&ratio=0.8&seed=1&hidden=8,8&act=tanh"
         "&loss=mse&opt=sgd&lr=0.1&batch=0&iseed=0&pt=0.3:0.2")
PLAY = ("Object.defineProperty(window, 'Play', "
        "{get: () => document.querySelector('#page-play').playground})")
#: wraps the page's step request and drawing with clocks (instance properties)
CLOCKS = """(() => {
  const P = Play, t = window.__t = {rt: 0, draw: 0, n: 0, d: 0, parse: 0};
  const parse = JSON.parse;
  JSON.parse = (text, reviver) => { const a = performance.now(); const v = parse(text, reviver);
                                    t.parse += performance.now() - a; return v; };
  const ask = P.requestStep.bind(P), accept = P.accept.bind(P);
  P.requestStep = async () => { const a = performance.now(); const s = await ask();
                                t.rt += performance.now() - a; t.n += 1; return s; };
  P.accept = (s) => { const a = performance.now(); accept(s);
                      t.draw += performance.now() - a; t.d += 1; };
})()"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(url, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=1) as r:
                if r.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, OSError):
            time.sleep(0.1)
    raise RuntimeError(f"{url} did not answer")


def start_servers(site):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src") + os.pathsep
               + os.environ.get("PYTHONPATH", ""))
    ps, pw = free_port(), free_port()
    static = subprocess.Popen([sys.executable, "-m", "http.server", str(ps), "--bind",
                               "127.0.0.1", "-d", str(site)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    served = subprocess.Popen([sys.executable, "-m", "micrograd", "serve", "--port",
                               str(pw)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, env=env, cwd=ROOT)
    urls = {"static": f"http://127.0.0.1:{ps}/", "served": f"http://127.0.0.1:{pw}/"}
    wait_for(urls["static"] + "index.html")
    wait_for(urls["served"] + "api/meta")
    return [static, served], urls


def measure(browser, door, url, seconds, throttle=1):
    """One round: the page opened, trained for ``seconds``; returns the figures."""
    page = browser.new_page(viewport={"width": 1280, "height": 1600})
    page.add_init_script(PLAY)
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    cdp = page.context.new_cdp_session(page)
    cdp.send("Performance.enable")
    if throttle != 1:
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": throttle})
    page.goto(f"{url}#{SPEED}")
    page.wait_for_function("window.Play && Play.state && Play.accepted", timeout=120_000)
    page.wait_for_function("Play.pointGraph.graph !== null", timeout=60_000)
    execution = page.evaluate("Play.state.execution")
    page.click("#p-play")
    page.wait_for_function("Play.state.step >= 10", timeout=120_000)
    worker = page.workers[0] if door == "static" and page.workers else None
    read_worker = ("({busy: self.micrograd.busyMs, executor: self.micrograd.port.executorMs})")
    page.evaluate(CLOCKS)
    w0 = worker.evaluate(read_worker) if worker else None
    busy0 = main_thread(cdp)
    t0, s0 = page.evaluate("[performance.now(), Play.state.step]")
    time.sleep(seconds)
    t1, s1, t = page.evaluate("[performance.now(), Play.state.step, window.__t]")
    busy1 = main_thread(cdp)
    w1 = worker.evaluate(read_worker) if worker else None
    page.click("#p-play")
    page.close()
    steps = s1 - s0
    out = {"door": door, "execution": execution, "rate": steps / ((t1 - t0) / 1000),
           "errors": errors}
    n = max(t["n"], 1)
    out["draw"] = t["draw"] / max(t["d"], 1)
    out["parse"] = t["parse"] / n
    out["page"] = (busy1 - busy0) * 1000 / max(steps, 1)
    out["round_trip"] = t["rt"] / n
    if w1 is not None:
        busy = (w1["busy"] - w0["busy"]) / n
        executor = (w1["executor"] - w0["executor"]) / n
        out.update(python=busy - executor, executor=executor, transfer=out["round_trip"] - busy)
    return out


def main_thread(cdp):
    """Seconds the page's main thread has worked so far (Chromium's TaskDuration)."""
    metrics = cdp.send("Performance.getMetrics")["metrics"]
    return next(m["value"] for m in metrics if m["name"] == "TaskDuration")


def summary(rounds, key):
    xs = [r[key] for r in rounds if key in r]
    if not xs:
        return "-"
    return f"{statistics.median(xs):5.1f} ({min(xs):.1f}-{max(xs):.1f})"


def report(title, results):
    print(f"\n{title}")
    cols = [("steps/s", "rate"), ("python ms", "python"), ("executor ms", "executor"),
            ("transfer ms", "transfer"), ("server ms", "server"), ("reading ms", "parse"),
            ("drawing ms", "draw"), ("page ms", "page")]
    print(f"{'':7}" + "".join(f"{name:>19}" for name, _ in cols))
    for door in ("static", "served"):
        rs = [r for r in results if r["door"] == door]
        for r in rs:
            if door == "served":
                r["server"] = r["round_trip"]
        print(f"{door:7}" + "".join(f"{summary(rs, key):>19}" for _, key in cols)
              + f"   engine: {rs[0]['engine']}")
    st = [r["rate"] for r in results if r["door"] == "static"]
    sv = [r["rate"] for r in results if r["door"] == "served"]
    pairs = [a / b for a, b in zip(st, sv)]  # each round's two doors, one after the other
    print(f"static / served: {statistics.median(st) / statistics.median(sv):.2f}x "
          f"(round by round: median {statistics.median(pairs):.2f}x, "
          f"{min(pairs):.2f}-{max(pairs):.2f})")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=4.0, help="seconds of training a round")
    ap.add_argument("--rounds", type=int, default=5, help="rounds per door (interleaved)")
    ap.add_argument("--throttled-rounds", type=int, default=3,
                    help="rounds per door under 4x CPU throttling")
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "site"
        done = subprocess.run([sys.executable, "-m", "micrograd", "site", str(site)],
                              capture_output=True, text=True, cwd=ROOT,
                              env=dict(os.environ, PYTHONPATH=str(ROOT / "src")))
        if done.returncode:
            sys.exit(f"micrograd site failed: {done.stderr}")
        procs, urls = start_servers(site)
        before = os.getloadavg()
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                measure(browser, "static", urls["static"], 1.0)  # warm: the cache
                plain, slow = [], []
                for _ in range(args.rounds):
                    for door in ("static", "served"):
                        plain.append(measure(browser, door, urls[door], args.seconds))
                for _ in range(args.throttled_rounds):
                    for door in ("static", "served"):
                        slow.append(measure(browser, door, urls[door], args.seconds, 4))
                browser.close()
        finally:
            for proc in procs:
                proc.terminate()
                proc.wait(10)
    load = os.getloadavg()
    print("Playground, 2-8-8-1 on 200 points, one full redraw a step; median (min-max) of "
          f"{args.rounds} rounds of {args.seconds:g} s; load average {before[0]:.2f} before, "
          f"{load[0]:.2f} after, on {os.cpu_count()} cores")
    report("unthrottled", plain)
    report("4x CPU throttling (CDP Emulation.setCPUThrottlingRate on the page)", slow)
    errors = [e for r in plain + slow for e in r["errors"]]
    if errors:
        print("page errors:", errors[:3])


if __name__ == "__main__":
    main()

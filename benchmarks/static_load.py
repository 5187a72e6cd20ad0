"""Seconds from opening the static site to the Walk's first graph, on a first visit
(an empty browser profile: every file fetched, the WebAssembly compiled) and on a
second visit (the same profile: the files from the browser's cache), in headless
Chromium, from a loopback static server (``python -m http.server``).

    PYTHONPATH=src python benchmarks/static_load.py [--rounds 3]
    PYTHONPATH=src python benchmarks/static_load.py --site main=OTHER_SITE_DIR

By default two sites are built in the same run and measured in interleaved rounds:
``compiled`` (``micrograd site``: the Python modules shipped as bytecode) and
``sources`` (``micrograd site --no-bytecode``: Pyodide's Python compiles every module it
imports at each start, as before). ``--site NAME=DIR`` adds a site built elsewhere (an
older checkout, say). Printed per site and visit: the median (min-max) of the rounds,
split into the worker's stages as the page hears them (the worker made, Python
loaded, micrograd unpacked, imported: ready), with the load average (the machine is
shared). Each visit is a fresh browser process, so a second visit finds only the
browser's disk cache (and the compiled WebAssembly it keeps), as a learner's would.

Needs Debian's chromium (/usr/bin/chromium), playwright (the ``test`` extra), Pyodide
(``npm ci --prefix web-runtime``) and node (to compile the bytecode). A benchmark,
never a test: it asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from static_play import ARGS, CHROMIUM, ROOT, free_port, wait_for

#: the page's clock at each message of the worker, and at the first graph on screen
SPY = """(() => {
  const t = window.__load = {};
  const W = window.Worker;
  window.Worker = class extends W {
    constructor(...a) {
      super(...a);
      t.worker = performance.now();
      this.addEventListener("message", (e) => {
        const m = e.data || {};
        const key = "progress" in m ? m.progress : "ready" in m ? "ready" : null;
        if (key && !(key in t)) t[key] = performance.now();
      });
    }
  };
  new MutationObserver((_, obs) => {
    if (!document.querySelector("#w-graph g.node")) return;
    t.graph = performance.now();
    obs.disconnect();
  }).observe(document, { childList: true, subtree: true });
})()"""
STAGES = [("worker", "worker made"), ("loading micrograd", "Python loaded"),
          ("importing micrograd", "micrograd unpacked"), ("ready", "imported: ready"),
          ("graph", "first graph")]


def build(out, *flags):
    done = subprocess.run([sys.executable, "-m", "micrograd", "site", str(out), *flags],
                          capture_output=True, text=True, cwd=ROOT,
                          env=dict(os.environ, PYTHONPATH=str(ROOT / "src")))
    if done.returncode:
        sys.exit(f"micrograd site failed: {done.stderr}")
    return done.stdout.splitlines()[0]


def serve(folder):
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind",
                             "127.0.0.1", "-d", str(folder)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/"
    wait_for(url + "index.html")
    return proc, url


def visit(playwright, profile, url):
    """One visit in a fresh browser on ``profile``: the page's clock (s) at each stage."""
    ctx = playwright.chromium.launch_persistent_context(
        str(profile), executable_path=CHROMIUM, args=ARGS,
        viewport={"width": 1280, "height": 800})
    try:
        page = ctx.new_page()
        page.add_init_script(SPY)
        page.goto(url + "#page=walk&preset=lecture")
        page.wait_for_function("window.__load && window.__load.graph", timeout=180_000)
        return {k: v / 1000 for k, v in page.evaluate("window.__load").items()}
    finally:
        ctx.close()


def spread(xs):
    return f"{statistics.median(xs):5.2f} ({min(xs):.2f}-{max(xs):.2f})" if xs else "-"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3, help="rounds (each site, both visits)")
    ap.add_argument("--site", action="append", default=[], metavar="NAME=DIR",
                    help="also measure a site built elsewhere")
    ap.add_argument("--only-given", action="store_true",
                    help="measure the --site sites alone (build none here)")
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        sites, sizes = {}, {}
        if not args.only_given:
            for name, flags in (("compiled", ()), ("sources", ("--no-bytecode",))):
                sites[name] = tmp / name
                sizes[name] = build(sites[name], *flags)
        for given in args.site:
            name, _, folder = given.partition("=")
            sites[name] = Path(folder)
        servers = {name: serve(folder) for name, folder in sites.items()}
        before = os.getloadavg()
        results = {(name, v): [] for name in sites for v in ("first", "second")}
        try:
            with sync_playwright() as p:
                for r in range(args.rounds):
                    for name in sites:
                        profile = tmp / f"profile-{name}-{r}"
                        for v in ("first", "second"):
                            results[name, v].append(visit(p, profile, servers[name][1]))
        finally:
            for proc, _ in servers.values():
                proc.terminate()
                proc.wait(10)
        after = os.getloadavg()
    print(f"The Walk's first graph from a loopback static server, seconds on the page's "
          f"clock: median (min-max) of {args.rounds} rounds; load average "
          f"{before[0]:.2f} before, {after[0]:.2f} after, on {os.cpu_count()} cores")
    for name, line in sizes.items():
        print(f"  {name}: {line.split(': ', 1)[1]}")
    header = "".join(f"{title:>22}" for _, title in STAGES)
    print(f"\n{'site':10} {'visit':7}{header}")
    for (name, v), runs in results.items():
        cells = "".join(f"{spread([run[k] for run in runs if k in run]):>22}"
                        for k, _ in STAGES)
        print(f"{name:10} {v:7}{cells}")


if __name__ == "__main__":
    main()

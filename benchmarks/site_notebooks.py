"""The notebooks in the static site: the site's size without and with them, and the
seconds from opening a notebook through JupyterLite's page to its kernel's first idle,
on a first visit (an empty browser profile: every file fetched, the WebAssembly
compiled) and on a second visit (the same profile: the files from the browser's
cache), in headless Chromium, from a loopback static server (``python -m http.server``)
serving the site under /course/micrograd/.

    PYTHONPATH=src python benchmarks/site_notebooks.py [--rounds 3] [--notebook NAME]

Printed: the two sites' sizes (``micrograd site --no-notebooks`` and ``micrograd
site``) and, per visit, the median (min-max) of the rounds of the page's clock when the
kernel is first idle (Pyodide loaded, the kernel's packages unpacked, IPython started),
with the load average before and after (the machine is shared). Each visit is a fresh
browser process, as a learner's would be.

Needs Debian's chromium (/usr/bin/chromium), playwright (the ``test`` extra), Pyodide
(``npm ci --prefix web-runtime``) and JupyterLite's builder
(web-runtime/site-build-requirements.txt). A benchmark, never a test: it asserts
nothing.
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

SUB = "course/micrograd/"
KERNEL_IDLE = """() => {
  const app = window.jupyterapp; const w = app && app.shell.currentWidget;
  const s = w && w.sessionContext && w.sessionContext.session;
  return !!(s && s.kernel && s.kernel.status === 'idle');
}"""


def build(out, *flags):
    done = subprocess.run([sys.executable, "-m", "micrograd", "site", str(out), *flags],
                          capture_output=True, text=True, cwd=ROOT,
                          env=dict(os.environ, PYTHONPATH=str(ROOT / "src")))
    if done.returncode:
        sys.exit(f"micrograd site failed: {done.stderr}")
    return done.stdout


def size(folder):
    files = [p for p in folder.rglob("*") if p.is_file()]
    return sum(p.stat().st_size for p in files), len(files)


def serve(folder):
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "http.server", str(port), "--bind",
                             "127.0.0.1", "-d", str(folder)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/"
    wait_for(url + SUB + "index.html")
    return proc, url + SUB


def visit(playwright, profile, url, notebook):
    """One visit in a fresh browser on ``profile``: the page's clock (s) at the
    kernel's first idle."""
    ctx = playwright.chromium.launch_persistent_context(
        str(profile), executable_path=CHROMIUM, args=ARGS,
        viewport={"width": 1280, "height": 800})
    try:
        page = ctx.new_page()
        page.goto(f"{url}notebooks/notebooks/index.html?path={notebook}")
        page.wait_for_function(KERNEL_IDLE, timeout=300_000)
        return page.evaluate("performance.now()") / 1000
    finally:
        ctx.close()


def spread(xs):
    return f"{statistics.median(xs):5.2f} ({min(xs):.2f}-{max(xs):.2f})"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3, help="rounds (both visits each)")
    ap.add_argument("--notebook", default="03_backprop_by_hand.ipynb")
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        build(tmp / "without" / SUB, "--no-notebooks")
        build(tmp / "with" / SUB)
        sizes = {name: size(tmp / name / SUB) for name in ("without", "with")}
        proc, url = serve(tmp / "with")
        before = os.getloadavg()
        times = {"first": [], "second": []}
        try:
            with sync_playwright() as p:
                for r in range(args.rounds):
                    profile = tmp / f"profile-{r}"
                    for v in ("first", "second"):
                        times[v].append(visit(p, profile, url, args.notebook))
        finally:
            proc.terminate()
            proc.wait(10)
        after = os.getloadavg()
    for name, (n, count) in sizes.items():
        print(f"site {name} the notebooks: {n / 1e6:.1f} MB in {count} files")
    print(f"{args.notebook}: the kernel's first idle, seconds on the page's clock, median "
          f"(min-max) of {args.rounds} rounds; load average {before[0]:.2f} before, "
          f"{after[0]:.2f} after, on {os.cpu_count()} cores")
    for v, xs in times.items():
        print(f"  {v} visit: {spread(xs)}")


if __name__ == "__main__":
    main()

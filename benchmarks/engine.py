"""Our eager engine against micrograd's real package, on two workloads, each engine in
its own process.

    python benchmarks/engine.py                          # both workloads, 100 steps, 3 rounds
    python benchmarks/engine.py --workload demo          # the demo notebook only
    python benchmarks/engine.py --workload loop --rounds 5
    python benchmarks/engine.py --python python3.10 --python python3.13 --steps 20
    python benchmarks/engine.py --pyodide web-runtime/node_modules/pyodide --workload loop

**The published side is the real package**: ``micrograd`` 0.1.0 from the package index,
pinned by the sha256 of its wheel and installed by this benchmark (pip
``--require-hashes``) into a side virtual environment of its own, one per interpreter,
under ``~/.cache/micrograd-bench/`` (``--cache`` moves it), made on first use (about a
minute: it also installs NumPy, scikit-learn and matplotlib, which the demo notebook
imports) and reused after (``benchmarks/published_package.py``). Ours is this checkout's
``src/``. Both run under that environment's interpreter; since both packages are named
``micrograd``, each engine runs in a process of its own, started with ``-I``, its path
holding only its own package (``benchmarks/engine_worker.py``, which checks the file it
imported).

**Workloads.** ``demo``: micrograd's demo notebook, its cells run as a script in one
namespace as Jupyter runs them (``benchmarks/moons_demo_cells.py``: the notebook's steps
written again in this project's words, nothing copied or fetched; scikit-learn's
``make_moons``, NumPy scalars into ``Value``, ``MLP(2, [16, 16, 1])``, max-margin loss +
1e-4 L2, SGD at ``1.0 - 0.9*k/100``), with a CPU clock around the training cell.
``loop``: a loop written op by op on Values as the lecture's first half writes it (a
neuron as ``act = act + wi * xi``, ``tanh``, no ``nn``, its own squared-error loss and
update; ``benchmarks/lecture_loop.py``), with a CPU clock around the training loop; the
same module runs against each engine (micrograd 0.1.0's ``Value`` is first given the
lecture's ``tanh`` method, which the package lacks).

**Rules.** Default interpreter settings, the cyclic collector on, nothing asked of the
user. Every run of every engine must give the same loss at every step, to 1e-12
relative, or the benchmark fails. A figure is the median over ``--rounds`` rounds, each
round running both engines one after the other, the order alternating (so neither is
always first); the spread printed is the smallest and the largest round. Times are CPU
time of the worker process (on Pyodide node's ``process.cpuUsage()``, WebAssembly's own
clock being the wall clock; the machine may be shared: ratios are what to read), per
step = the timed part over its steps. The collector's share is the CPU time inside
``gc.callbacks``' start/stop pairs over the timed part. The load average (1, 5, 15
minutes) is printed at the start and at the end.

**Other interpreters.** ``--python EXE`` (repeatable) runs everything under each
interpreter given, each with its own side environment. ``--pyodide DIR`` (the folder of
the ``pyodide`` npm package, e.g. after ``npm install pyodide@314.0.7``; by default the
repository's ``web-runtime/node_modules/pyodide`` when it is there) also runs the ``loop``
workload on Pyodide's Python in node (``benchmarks/engine_in_pyodide.mjs``): ours from
``src/``, micrograd 0.1.0 from the side environment's hash-checked copy. The demo
notebook needs scikit-learn and matplotlib, which that package does not ship.

Measured on a shared 2-core machine crowded by other jobs (CPU time, medians of three
rounds; every run, its load and spread are in ``docs/performance.md``, "The eager engine
against micrograd 0.1.0"): on Python 3.11.7 the demo notebook 27.7x, 28.2x and 27.9x
(three runs of ``--workload demo --steps 10``), the op-by-op loop 21.1x, 21.4x and 21.4x
(three runs of ``--workload loop --steps 20``), and on Pyodide's Python 3.14 4.7x, 4.9x
and 4.8x.
"""

import argparse
import os
import statistics
import sys

import engine_runs
import published_package

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
WORKLOADS = {"demo": "demo notebook", "loop": "op-by-op loop"}
DEFAULT_PYODIDE = os.path.join(REPO, "web-runtime", "node_modules", "pyodide")


def load_average():
    try:
        return "%.2f %.2f %.2f" % os.getloadavg()
    except OSError:
        return "unknown"


def summary(name, workload, steps, rounds):
    """One table row's numbers from the rounds of one interpreter and workload."""
    ours = [r["ours"]["seconds"] / steps * 1e3 for r in rounds]
    pub = [r["published"]["seconds"] / steps * 1e3 for r in rounds]
    ratios = [p / o for p, o in zip(pub, ours)]
    share = {e: statistics.median(r[e]["gc_seconds"] / r[e]["seconds"] for r in rounds)
             for e in ("ours", "published")}
    full = {e: statistics.median(r[e]["gc_collections"][2] / steps for r in rounds)
            for e in ("ours", "published")}
    tracked = statistics.median(r["ours"].get("gc_tracked_at_start", 0) for r in rounds)
    return {"python": name, "workload": workload, "steps": steps, "rounds": len(rounds),
            "ours": statistics.median(ours), "ours_range": (min(ours), max(ours)),
            "published": statistics.median(pub), "published_range": (min(pub), max(pub)),
            "ratio": statistics.median(pub) / statistics.median(ours),
            "ratio_range": (min(ratios), max(ratios)),
            "gc_ours": share["ours"], "gc_published": share["published"],
            "full_ours": full["ours"], "full_published": full["published"],
            "tracked": tracked}


def _ms(x):
    return f"{x:,.1f}" if x < 100 else f"{x:,.0f}"


def print_table(rows):
    head = ("Python", "workload", "steps", "rounds", "ours ms/step", "[min-max]",
            "published ms/step", "[min-max]", "ratio", "[min-max]", "GC share ours",
            "GC share published", "full GCs/step ours", "published", "tracked at start")
    lines = [head]
    for r in rows:
        lines.append((r["python"], WORKLOADS[r["workload"]], str(r["steps"]),
                      str(r["rounds"]), _ms(r["ours"]),
                      "[%s-%s]" % tuple(map(_ms, r["ours_range"])), _ms(r["published"]),
                      "[%s-%s]" % tuple(map(_ms, r["published_range"])),
                      f"{r['ratio']:.1f}x", "[%.1f-%.1f]" % r["ratio_range"],
                      f"{r['gc_ours']:.0%}", f"{r['gc_published']:.0%}",
                      f"{r['full_ours']:.2f}", f"{r['full_published']:.2f}",
                      f"{r['tracked']:,.0f}"))
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    for n, line in enumerate(lines):
        cells = [c.ljust(w) if i < 2 else c.rjust(w)
                 for i, (c, w) in enumerate(zip(line, widths))]
        print("  " + "  ".join(cells).rstrip())
        if n == 0:
            print("  " + "  ".join("-" * w for w in widths))


def run_interpreter(label, workers, workloads, steps, rounds, say):
    """All rounds of every workload under one interpreter: its table rows."""
    rows = []
    for workload in workloads:
        results = []
        for k in range(rounds):
            order = ("ours", "published") if k % 2 == 0 else ("published", "ours")
            got = {e: workers(e, workload) for e in order}
            results.append(got)
            worst = engine_runs.check_losses(results, label, workload)
            say(f"  {label} {WORKLOADS[workload]}, round {k + 1}/{rounds}: ours "
                f"{got['ours']['seconds'] / steps * 1e3:,.1f} ms/step, published "
                f"{got['published']['seconds'] / steps * 1e3:,.1f} ms/step; losses "
                f"equal (largest relative difference so far {worst:.1e})")
        rows.append(summary(label, workload, steps, results))
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workload", choices=("both", *WORKLOADS), default="both")
    ap.add_argument("--steps", type=int, default=100,
                    help="training steps per engine and run (default 100: the demo "
                         "notebook's). The published engine's steps grow slower as its "
                         "garbage piles up, so fewer steps understate the ratio")
    ap.add_argument("--rounds", type=int, default=3,
                    help="rounds per workload, each running both engines (default 3)")
    ap.add_argument("--python", action="append", metavar="EXE",
                    help="interpreter to run under (repeatable; default: this one)")
    ap.add_argument("--cache", metavar="DIR", default=published_package.default_cache(),
                    help="where the side environments live (default %(default)s)")
    ap.add_argument("--pyodide", metavar="DIR",
                    help="the pyodide npm package's folder: also run the op-by-op loop on "
                         "Pyodide's Python in node (default: web-runtime/node_modules/"
                         "pyodide when it exists)")
    ap.add_argument("--no-pyodide", action="store_true", help="do not run on Pyodide")
    args = ap.parse_args(argv)
    if args.steps < 1 or args.rounds < 1:
        ap.error("--steps and --rounds must be at least 1")
    pyodide = None if args.no_pyodide else (
        args.pyodide or (DEFAULT_PYODIDE if os.path.isdir(DEFAULT_PYODIDE) else None))
    if pyodide and not os.path.exists(os.path.join(pyodide, "pyodide.mjs")):
        ap.error(f"--pyodide {pyodide}: no pyodide.mjs there (npm install pyodide@314.0.7)")
    workloads = list(WORKLOADS) if args.workload == "both" else [args.workload]

    def say(text):
        print(text, flush=True)

    say(f"ours: micrograd from {os.path.join(REPO, 'src')}; published: micrograd 0.1.0 "
        f"from the package index, wheel sha256 {published_package.MICROGRAD_WHEEL_SHA256}")
    say(f"load average at start: {load_average()} ({os.cpu_count()} CPUs)")
    rows = []
    venvs = [published_package.side_venv(p, args.cache, say)
             for p in (args.python or [sys.executable])]
    for venv in venvs:
        say(f"python {venv['python']}: side environment {venv['path']} (numpy "
            f"{venv['numpy']}, scikit-learn {venv['scikit-learn']}, matplotlib "
            f"{venv['matplotlib']})")
        workers = engine_runs.cpython_workers(venv, args.steps)
        rows += run_interpreter(venv["python"], workers, workloads, args.steps,
                                args.rounds, say)
    if pyodide and "loop" in workloads:
        label, workers = engine_runs.pyodide_workers(pyodide, venvs[0], args.steps)
        say(f"{label}: {os.path.abspath(pyodide)} in node {engine_runs.node_version()}")
        rows += run_interpreter(label, workers, ["loop"], args.steps, args.rounds, say)
    say(f"load average at end: {load_average()}")
    say("CPU ms per step, median of the rounds [smallest-largest round]; ratio = "
        "published / ours; losses equal to 1e-12 at every step in every run; GC share: "
        "the collector's CPU time over the timed part's; full GCs: collections of the "
        "oldest generation (each walks every tracked object) per step; tracked: objects "
        "the collector tracks as ours' timed part starts")
    print_table(rows)


if __name__ == "__main__":
    main()

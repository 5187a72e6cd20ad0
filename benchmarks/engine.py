"""Our eager engine against micrograd's real package, on two workloads, each engine in
its own process.

    python benchmarks/engine.py                          # both workloads, 100 steps, 3 rounds
    python benchmarks/engine.py --workload demo          # the demo notebook only
    python benchmarks/engine.py --workload loop --rounds 5
    python benchmarks/engine.py --python python3.10 --python python3.13 --steps 20
    python benchmarks/engine.py --pyodide web-runtime/node_modules/pyodide --workload loop
    python benchmarks/engine.py --baseline 8e8b095 --rounds 10 --steps 20   # before/after

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

**Before and after** (``--baseline REV``): the other side is this project's own
``src/`` at git revision ``REV`` instead, exported with ``git archive`` into
``<cache>/baseline-src/<full commit sha>/`` once and reused after
(``benchmarks/engine_baseline.py``), run by the same workers under the same side
environments, the worker checking that it imported that export's
``micrograd/engine.py``. The header and the table name it ``baseline`` and the commit's
short sha, the ratio is baseline / ours (above 1: ours is faster), and a last line says
whether ours is slower on any workload by more than 5% (medians). A revision whose
``MLP`` defaulted to the lecture's tanh network builds the notebook's network with its
own flags (``nonlin=True, bias_init="zero"``; the losses check holds both to the same
network). Pyodide is not run unless ``--pyodide DIR`` is given.

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

import engine_baseline
import engine_runs
import published_package

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
WORKLOADS = {"demo": "demo notebook", "loop": "op-by-op loop"}
DEFAULT_PYODIDE = os.path.join(REPO, "web-runtime", "node_modules", "pyodide")
PUBLISHED = ("published", "published")  # the other engine: its results' key, its label
SLOWER_LIMIT = 0.05  # a before-and-after fails its bar when ours is slower by more


def load_average():
    try:
        return "%.2f %.2f %.2f" % os.getloadavg()
    except OSError:
        return "unknown"


def summary(name, workload, steps, rounds, other="published"):
    """One table row's numbers from the rounds of one interpreter and workload: ours
    against ``other`` (``published`` or ``baseline``)."""
    ours = [r["ours"]["seconds"] / steps * 1e3 for r in rounds]
    them = [r[other]["seconds"] / steps * 1e3 for r in rounds]
    ratios = [t / o for t, o in zip(them, ours)]
    share = {e: statistics.median(r[e]["gc_seconds"] / r[e]["seconds"] for r in rounds)
             for e in ("ours", other)}
    full = {e: statistics.median(r[e]["gc_collections"][2] / steps for r in rounds)
            for e in ("ours", other)}
    tracked = statistics.median(r["ours"].get("gc_tracked_at_start", 0) for r in rounds)
    return {"python": name, "workload": workload, "steps": steps, "rounds": len(rounds),
            "ours": statistics.median(ours), "ours_range": (min(ours), max(ours)),
            "other": statistics.median(them), "other_range": (min(them), max(them)),
            "ratio": statistics.median(them) / statistics.median(ours),
            "ratio_range": (min(ratios), max(ratios)),
            "gc_ours": share["ours"], "gc_other": share[other],
            "full_ours": full["ours"], "full_other": full[other],
            "tracked": tracked}


def _ms(x):
    return f"{x:,.1f}" if x < 100 else f"{x:,.0f}"


def _ratio(x, digits):
    return f"{x:.{digits}f}"


def print_table(rows, other_label="published"):
    """The rows as a table; a ratio with one decimal against the published engine, three
    against a baseline (a before-and-after reads a few percent)."""
    digits = 1 if other_label == "published" else 3
    head = ("Python", "workload", "steps", "rounds", "ours ms/step", "[min-max]",
            f"{other_label} ms/step", "[min-max]", "ratio", "[min-max]", "GC share ours",
            f"GC share {other_label}", "full GCs/step ours", other_label,
            "tracked at start")
    lines = [head]
    for r in rows:
        lines.append((r["python"], WORKLOADS[r["workload"]], str(r["steps"]),
                      str(r["rounds"]), _ms(r["ours"]),
                      "[%s-%s]" % tuple(map(_ms, r["ours_range"])), _ms(r["other"]),
                      "[%s-%s]" % tuple(map(_ms, r["other_range"])),
                      _ratio(r["ratio"], digits) + "x",
                      "[%s-%s]" % tuple(_ratio(x, digits) for x in r["ratio_range"]),
                      f"{r['gc_ours']:.0%}", f"{r['gc_other']:.0%}",
                      f"{r['full_ours']:.2f}", f"{r['full_other']:.2f}",
                      f"{r['tracked']:,.0f}"))
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    for n, line in enumerate(lines):
        cells = [c.ljust(w) if i < 2 else c.rjust(w)
                 for i, (c, w) in enumerate(zip(line, widths))]
        print("  " + "  ".join(cells).rstrip())
        if n == 0:
            print("  " + "  ".join("-" * w for w in widths))


def slower_than_baseline(rows, other_label, limit=SLOWER_LIMIT):
    """The verdict line of a before-and-after run: every workload whose median step is
    slower with ours than with the baseline by more than ``limit`` (0.05: 5%), or none."""
    slower = [f"{r['python']} {WORKLOADS[r['workload']]} ({1 / r['ratio'] - 1:+.1%})"
              for r in rows if 1 / r["ratio"] > 1 + limit]
    if not slower:
        return (f"no workload slower with ours than with {other_label} by more than "
                f"{limit:.0%} (medians)")
    return (f"SLOWER with ours than with {other_label} by more than {limit:.0%} "
            f"(medians): {', '.join(slower)}")


def run_interpreter(label, workers, workloads, steps, rounds, say, side=PUBLISHED):
    """All rounds of every workload under one interpreter: its table rows. ``side`` is
    the other engine, ``(key, label)``."""
    other, other_label = side
    rows = []
    for workload in workloads:
        results = []
        for k in range(rounds):
            order = ("ours", other) if k % 2 == 0 else (other, "ours")
            got = {e: workers(e, workload) for e in order}
            results.append(got)
            worst = engine_runs.check_losses(results, label, workload)
            if k == 0 and got[other].get("note"):
                say(f"  {other_label} {WORKLOADS[workload]}: {got[other]['note']}")
            say(f"  {label} {WORKLOADS[workload]}, round {k + 1}/{rounds}: ours "
                f"{got['ours']['seconds'] / steps * 1e3:,.1f} ms/step, {other_label} "
                f"{got[other]['seconds'] / steps * 1e3:,.1f} ms/step; losses "
                f"equal (largest relative difference so far {worst:.1e})")
        rows.append(summary(label, workload, steps, results, other))
    return rows


def parse_args(argv):
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
                    help="where the side environments (and --baseline's exports) live "
                         "(default %(default)s)")
    ap.add_argument("--baseline", metavar="REV",
                    help="measure against this repository's own src/ at git revision REV "
                         "(exported once per commit under --cache) instead of micrograd "
                         "0.1.0: before and after a change; the ratio is then baseline / "
                         "ours. Pyodide runs it too when asked for with --pyodide")
    ap.add_argument("--pyodide", metavar="DIR",
                    help="the pyodide npm package's folder: also run the op-by-op loop on "
                         "Pyodide's Python in node (default: web-runtime/node_modules/"
                         "pyodide when it exists, but not with --baseline)")
    ap.add_argument("--no-pyodide", action="store_true", help="do not run on Pyodide")
    args = ap.parse_args(argv)
    if args.steps < 1 or args.rounds < 1:
        ap.error("--steps and --rounds must be at least 1")
    default = DEFAULT_PYODIDE if os.path.isdir(DEFAULT_PYODIDE) and not args.baseline else None
    args.pyodide = None if args.no_pyodide else (args.pyodide or default)
    if args.pyodide and not os.path.exists(os.path.join(args.pyodide, "pyodide.mjs")):
        ap.error(f"--pyodide {args.pyodide}: no pyodide.mjs there "
                 "(npm install pyodide@314.0.7)")
    return args


def main(argv=None):
    args = parse_args(argv)
    workloads = list(WORKLOADS) if args.workload == "both" else [args.workload]

    def say(text):
        print(text, flush=True)

    side, baseline_src = PUBLISHED, None
    if args.baseline:
        baseline = engine_baseline.export(args.baseline, args.cache, say)
        side, baseline_src = ("baseline", baseline["label"]), baseline["src"]
        say(f"ours: micrograd from {os.path.join(REPO, 'src')}; {baseline['label']}: "
            f"micrograd from src/ at {baseline['sha']} ({args.baseline}), exported to "
            f"{baseline['src']}")
    else:
        say(f"ours: micrograd from {os.path.join(REPO, 'src')}; published: micrograd "
            f"0.1.0 from the package index, wheel sha256 "
            f"{published_package.MICROGRAD_WHEEL_SHA256}")
    say(f"load average at start: {load_average()} ({os.cpu_count()} CPUs)")
    rows = []
    venvs = [published_package.side_venv(p, args.cache, say)
             for p in (args.python or [sys.executable])]
    for venv in venvs:
        say(f"python {venv['python']}: side environment {venv['path']} (numpy "
            f"{venv['numpy']}, scikit-learn {venv['scikit-learn']}, matplotlib "
            f"{venv['matplotlib']})")
        workers = engine_runs.cpython_workers(venv, args.steps, baseline_src)
        rows += run_interpreter(venv["python"], workers, workloads, args.steps,
                                args.rounds, say, side)
    if args.pyodide and "loop" in workloads:
        label, workers = engine_runs.pyodide_workers(args.pyodide, venvs[0], args.steps,
                                                     baseline_src)
        say(f"{label}: {os.path.abspath(args.pyodide)} in node {engine_runs.node_version()}")
        rows += run_interpreter(label, workers, ["loop"], args.steps, args.rounds, say,
                                side)
    say(f"load average at end: {load_average()}")
    say(f"CPU ms per step, median of the rounds [smallest-largest round]; ratio = "
        f"{side[1]} / ours; losses equal to 1e-12 at every step in every run; GC share: "
        "the collector's CPU time over the timed part's; full GCs: collections of the "
        "oldest generation (each walks every tracked object) per step; tracked: objects "
        "the collector tracks as ours' timed part starts")
    print_table(rows, side[1])
    if args.baseline:
        say(slower_than_baseline(rows, side[1]))


if __name__ == "__main__":
    main()

"""microgpt's GPT training step on Pyodide's Python in node: micrograd.gpt against
microgpt's own Value, both in the same Pyodide.

    python benchmarks/gpt_pyodide.py                  # 2 warm-up + 20 timed steps each
    python benchmarks/gpt_pyodide.py --steps 50 --length 0   # all the packaged names
    python benchmarks/gpt_pyodide.py --controls      # + the collector paused/on the other way
    python benchmarks/gpt_pyodide.py --steps 2 --check       # the losses only, no timing

The Pyodide side of benchmarks/gpt.py (issue 32): node (headless) loads the pinned Pyodide
of ``web-runtime/node_modules/pyodide`` (``npm ci --prefix web-runtime``; its version is
checked against ``web-runtime/package.json``, nothing is fetched), copies this checkout's
``src/micrograd`` into its file system, as tests/run_in_pyodide.mjs does, with this file
and benchmarks/microgpt_reference.py beside it (``benchmarks/gpt_in_pyodide.mjs``), and
runs :func:`in_pyodide` there. It trains, on the packaged names of ``--length`` letters
(the same graph's size at every step; 0: all the names, in training order) shuffled by
the seed:

* ``microgpt``: microgpt's own lean ``Value`` and loop (benchmarks/microgpt_reference.py),
  the reference, as it runs (the cyclic collector on);
* ``micrograd.gpt``: the package's ``micrograd.gpt.train.Run`` on the eager engine, what
  ``micrograd gpt`` runs (``linear`` by ``engine.affine``, the collector paused over a
  step);
* with ``--controls``, also ``microgpt, gc paused`` (the reference with the cyclic
  collector paused over each step) and ``micrograd.gpt, gc on`` (``Run.pause_gc`` off):
  how much of each side's time is the collector's on Pyodide's Python 3.14.

All are built once (untimed) and stepped in turn, step by step, the order rotating
(with the two, microgpt first at even steps, micrograd.gpt first at odd ones): a step of
each on the same name, so a burst of load on the shared machine falls on all alike.
``--warmup`` steps are run first untimed (WebAssembly's code is tiered up as it runs),
then ``--steps`` timed ones. Every loss of every path, warm-up included, must equal
microgpt's to 1e-9 relative or the script fails.

Printed: ms a step of each path (the sum over the timed steps over their number), in CPU
time of the node process (``process.cpuUsage()``: WebAssembly's own clock is the wall
clock, which counts other jobs' turns) and in wall time; microgpt's time over each
path's (above 1: faster than microgpt), with the median, smallest and largest of the
per-step ratios; ``uptime`` at the start and the end. ``--check`` runs the steps and
checks the losses only (no timing printed).
"""

import argparse
import gc
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
RUNTIME = os.path.join(REPO, "web-runtime")
PYODIDE = os.path.join(RUNTIME, "node_modules", "pyodide")
RUNNER = os.path.join(HERE, "gpt_in_pyodide.mjs")
SEED = 42
RTOL = 1e-9
REFERENCE = "microgpt"


# --- in Pyodide -------------------------------------------------------------------------

def node_cpu_clock():
    """CPU seconds of the node process (``process.cpuUsage()``); ``time.process_time``
    outside node (there, on WebAssembly, it is the wall clock)."""
    try:
        from js import process

        process.cpuUsage()
    except (ImportError, AttributeError):
        return time.process_time

    def cpu():
        used = process.cpuUsage()
        return (used.user + used.system) / 1e6
    return cpu


def names_of(length):
    from micrograd.gpt.data import read_names

    names = read_names()
    return names if length == 0 else [n for n in names if len(n) == length]


def gc_paused(step):
    """``step`` run with Python's cyclic collector paused (and set on again after)."""
    def paused_step():
        gc.disable()
        try:
            return step()
        finally:
            gc.enable()
    return paused_step


def steppers(docs, controls=False):
    """path -> its ``step`` (one name, one Adam step; returns the loss), built now."""
    from microgpt_reference import MicroValue, Trainer

    from micrograd.gpt.train import Run

    made = {"microgpt": Trainer(MicroValue, docs, SEED).step,
            "micrograd.gpt": Run.start(docs, seed=SEED).step}
    if controls:
        made["microgpt, gc paused"] = gc_paused(Trainer(MicroValue, docs, SEED).step)
        gc_on = Run.start(docs, seed=SEED)
        gc_on.pause_gc = False
        made["micrograd.gpt, gc on"] = gc_on.step
    return made


def in_pyodide(spec_json, pyodide_version="?"):
    """The measurement (run inside Pyodide): prints one line ``RESULT {json}``."""
    spec = json.loads(spec_json)
    docs = names_of(spec["length"])
    step = steppers(docs, spec["controls"])
    paths = list(step)
    cpu = node_cpu_clock()
    losses = {p: [] for p in paths}
    cpu_ms = {p: [] for p in paths}
    wall_ms = {p: [] for p in paths}
    for i in range(spec["warmup"] + spec["steps"]):
        k = i % len(paths)
        for p in paths[k:] + paths[:k]:
            c, w = cpu(), time.perf_counter()
            losses[p].append(step[p]())
            w, c = time.perf_counter() - w, cpu() - c
            if i >= spec["warmup"]:
                cpu_ms[p].append(c * 1e3)
                wall_ms[p].append(w * 1e3)
    print("RESULT " + json.dumps({
        "python": sys.version.split()[0], "platform": sys.platform,
        "pyodide": pyodide_version, "names": len(docs), "losses": losses,
        "cpu_ms": cpu_ms, "wall_ms": wall_ms}), flush=True)


# --- in CPython: start node, read and print ---------------------------------------------

def uptime():
    import subprocess

    try:
        return subprocess.run(["uptime"], capture_output=True, text=True,
                              timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "load average: %.2f, %.2f, %.2f" % os.getloadavg()


def pinned_pyodide():
    """The folder of the pinned Pyodide; SystemExit saying how to install it if absent
    or of another version than web-runtime/package.json pins."""
    with open(os.path.join(RUNTIME, "package.json"), encoding="utf-8") as f:
        pinned = json.load(f)["dependencies"]["pyodide"]
    try:
        with open(os.path.join(PYODIDE, "package.json"), encoding="utf-8") as f:
            there = json.load(f)["version"]
    except OSError:
        there = None
    if there != pinned or not os.path.exists(os.path.join(PYODIDE, "pyodide.mjs")):
        raise SystemExit(f"{PYODIDE}: Pyodide {pinned} is needed (found: {there}); "
                         "install it with: npm ci --prefix web-runtime")
    return PYODIDE


def run_node(spec):
    """Run :func:`in_pyodide` with ``spec`` in node; its other lines are passed through.
    The parsed RESULT."""
    import shutil
    import subprocess

    node = shutil.which("node")
    if node is None:
        raise SystemExit("node is needed (Node.js 20; bash scripts/test.sh installs it)")
    proc = subprocess.Popen([node, RUNNER, pinned_pyodide(), json.dumps(spec)],
                            stdout=subprocess.PIPE, text=True, cwd=REPO)
    result = None
    for line in proc.stdout:
        if line.startswith("RESULT "):
            result = json.loads(line[len("RESULT "):])
        else:
            print(line, end="", flush=True)
    if proc.wait() != 0 or result is None:
        raise SystemExit(f"node {os.path.relpath(RUNNER, REPO)} failed "
                         f"(exit status {proc.returncode})")
    return result


def mismatch(losses):
    """None when every path's losses equal microgpt's to ``RTOL`` relative, else what
    differs first."""
    want = losses[REFERENCE]
    for p, got in losses.items():
        if len(got) != len(want):
            return f"{p} ran {len(got)} steps, microgpt {len(want)}"
        for i, (a, b) in enumerate(zip(got, want)):
            if not abs(a - b) <= RTOL * abs(b):
                return f"{p}'s loss at step {i + 1} is {a!r}, microgpt's {b!r}"
    return None


def report(result, args):
    """The timing table and the ratios, from ``in_pyodide``'s RESULT."""
    cpu, wall = result["cpu_ms"], result["wall_ms"]
    ref = cpu[REFERENCE]
    print(f"  {'':22} {'CPU ms a step':>13} {'wall ms':>8} {'vs microgpt':>11}"
          "   each step: CPU ms; vs microgpt, median [range]")
    for p in cpu:
        per_step = [a / b for a, b in zip(ref, cpu[p])]
        print(f"  {p:22} {sum(cpu[p]) / args.steps:13.1f} {sum(wall[p]) / args.steps:8.1f}"
              f" {sum(ref) / sum(cpu[p]):10.2f}x   {min(cpu[p]):.1f}-{max(cpu[p]):.1f} ms,"
              f" {statistics.median(per_step):.2f}x [{min(per_step):.2f}-{max(per_step):.2f}]")
    ours = "micrograd.gpt"
    print(f"  micrograd.gpt vs microgpt: {sum(ref) / sum(cpu[ours]):.2f}x (CPU), "
          f"{sum(wall[REFERENCE]) / sum(wall[ours]):.2f}x (wall); above 1: micrograd.gpt "
          "is faster")


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--steps", type=int, default=20, help="timed steps of each (20)")
    ap.add_argument("--warmup", type=int, default=2,
                    help="untimed steps of each first (2; 0 with --check)")
    ap.add_argument("--length", type=int, default=6,
                    help="letters of each name (6, as benchmarks/gpt.py; 0: all names)")
    ap.add_argument("--controls", action="store_true",
                    help="also microgpt with the collector paused and micrograd.gpt "
                         "with it on")
    ap.add_argument("--check", action="store_true",
                    help="run the steps and check the losses only, no timing")
    args = ap.parse_args(argv)
    if args.steps < 1 or args.warmup < 0 or args.length < 0:
        ap.error("--steps must be at least 1, --warmup and --length at least 0")
    if args.check:
        args.warmup = 0
    if args.length and not names_of(args.length):
        ap.error(f"no packaged name has {args.length} letters")
    return args


def main(argv=None):
    sys.path.insert(0, os.path.join(REPO, "src"))
    args = parse_args(sys.argv[1:] if argv is None else argv)
    print(f"uptime at start: {uptime()}", flush=True)
    result = run_node({"steps": args.steps, "warmup": args.warmup, "length": args.length,
                         "controls": args.controls})
    which = f"of {args.length} letters" if args.length else "(all, in training order)"
    print(f"Pyodide {result['pyodide']} (Python {result['python']}, {result['platform']}) "
          f"in node; {result['names']} packaged names {which}, seed {SEED}")
    bad = mismatch(result["losses"])
    if bad:
        raise SystemExit(f"MISMATCH: {bad}")
    first = result["losses"][REFERENCE]
    print(f"losses: every path's equal microgpt's to {RTOL:g} relative at all "
          f"{len(first)} steps ({first[0]:.4f} ... {first[-1]:.4f})")
    if not args.check:
        print(f"{args.warmup} warm-up steps, then {args.steps} timed, the paths stepped "
              "in turn (the order rotating); sums over the timed steps")
        report(result, args)
    print(f"uptime at end: {uptime()}", flush=True)


if __name__ == "__main__":
    main()

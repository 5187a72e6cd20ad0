"""microgpt's training step on micrograd's eager engine against microgpt's own Value.

    python benchmarks/gpt.py [--length 6] [--steps 5] [--rounds 7]
    python benchmarks/gpt.py --python python3.10 --python python3.13   # other CPythons
    python benchmarks/gpt.py --memory 200          # peak RSS over 200 steps, both ways
    python benchmarks/gpt.py --profile 20          # cProfile of micrograd.gpt's steps

Issue 32: how fast one training step of microgpt's GPT (Karpathy, 2026: 16 dimensions,
4 heads, 1 layer; one name a step, Adam) runs on each path, for names of one length
(``--length`` letters: ``length + 1`` positions, the same graph's size at every step),
from the packaged census names of that length, shuffled by the seed:

* ``microgpt``: microgpt's own lean ``Value`` and loop (benchmarks/microgpt_reference.py),
  the reference, as it runs (the cyclic collector on);
* ``micrograd.gpt``: the package's model (``micrograd.gpt.train.Run``) on
  ``micrograd.engine.Value``: what ``micrograd gpt`` runs (``linear``'s sums built by
  ``engine.affine``, folded; the cyclic collector paused over the step);
* ``micrograd.gpt, gc on``: the same with ``Run.pause_gc`` off;
* ``micrograd.gpt, sum() linear``: the collector on and ``linear`` written as microgpt
  writes it, ``sum()`` over the products (the operators' nodes, none folded): what
  ``micrograd gpt`` ran before;
* ``microgpt + our Value``: microgpt's loop with its ``Value`` replaced by
  ``micrograd.engine.Value`` (one import changed);
* ``microgpt, gc paused``: the reference with Python's cyclic garbage collector paused
  over the steps (``gc.disable()``): a step's graph is tens of thousands of new objects,
  which set off the collector's scans of every live one, though neither engine's graph
  holds a cycle;
* ``micrograd.gpt, traced``: ``micrograd gpt --runner traced``: the model recorded once
  as a program of ``block_size`` positions (``micrograd.gpt.traced.TracedRun``), each
  name run through it with NumPy, forward and backward, and the traced Adam; whatever
  the name's length, the program runs every position. Only where NumPy imports; the
  recording (seconds, once a run) is made with the path, untimed, and printed apart.

First the losses of the first ``--steps`` steps are checked equal to the reference's
(1e-9 relative). Then each round builds each path afresh (untimed) and times
``--steps`` steps of it (CPU time), the paths in a rotating order; the medians over the
rounds are printed as ms a step and steps a second, with [smallest-largest], and each
path's speed as a ratio to the reference (above 1: faster). The load average is printed
at the start and the end (the machine may be shared: the ratios are what to read).

``--python EXE`` (repeatable) runs all that under each interpreter given, one after the
other (the package is read from ``src/``; standard library only). ``--memory N`` trains
``micrograd.gpt`` N steps on the packaged names in a fresh process each way (as before
this change: ``sum()`` linear, the collector on; ``engine.affine`` with the collector on;
as now, the collector paused over each step) and prints the peak resident set size
(``ru_maxrss``) before the first step and after the last, the resident size every N/4
steps and the collections the collector made.
``--profile N`` runs N steps of ``micrograd.gpt`` (names of ``--length`` letters) under
cProfile and prints the top lines by own time.
"""

import argparse
import gc
import os
import platform
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "src"))
sys.path.insert(0, HERE)

from microgpt_reference import MicroValue, Trainer  # noqa: E402

from micrograd.engine import Value  # noqa: E402
from micrograd.gpt import model as gpt_model  # noqa: E402
from micrograd.gpt.data import read_names  # noqa: E402
from micrograd.gpt.train import Run  # noqa: E402

SEED = 42


def load():
    try:
        return "%.2f %.2f %.2f" % os.getloadavg()
    except OSError:
        return "unknown"


def paused(build):
    """``build`` whose steps run with the cyclic collector paused."""
    def make():
        step = build()

        def paused_step():
            gc.disable()
            try:
                return step()
            finally:
                gc.enable()
        return paused_step
    return make


def sum_linear(x, w):
    """microgpt's ``linear``: ``sum()`` over the products, the operators' nodes."""
    return [sum(wi * xi for wi, xi in zip(wo, x)) for wo in w]


def with_sum_linear(build):
    """``build`` whose steps run with ``micrograd.gpt.model.linear`` as microgpt writes
    it (what the package ran before ``engine.affine``)."""
    def make():
        step = build()

        def sum_step():
            saved, gpt_model.linear = gpt_model.linear, sum_linear
            try:
                return step()
            finally:
                gpt_model.linear = saved
        return sum_step
    return make


def run_of(docs, pause_gc=True):
    run = Run.start(docs, seed=SEED, steps=1000)
    run.pause_gc = pause_gc
    return run


def has_numpy():
    try:
        import numpy  # noqa: F401
    except ImportError:
        return False
    return True


#: the seconds each recording of the traced path took
RECORDING = []


def traced_run(docs):
    from micrograd.gpt.traced import TracedRun
    t = time.perf_counter()
    traced = TracedRun(run_of(docs))
    RECORDING.append(time.perf_counter() - t)
    return traced.step


def paths(docs):
    """name -> a function that builds the path afresh and returns its ``step``."""
    microgpt = lambda: Trainer(MicroValue, docs, SEED).step  # noqa: E731
    gc_on = lambda: run_of(docs, pause_gc=False).step  # noqa: E731
    traced = {"micrograd.gpt, traced": lambda: traced_run(docs)} if has_numpy() else {}
    return {
        "microgpt": microgpt,
        "micrograd.gpt": lambda: run_of(docs).step,
        "micrograd.gpt, gc on": gc_on,
        "micrograd.gpt, sum() linear": with_sum_linear(gc_on),
        "microgpt + our Value": lambda: Trainer(Value, docs, SEED).step,
        "microgpt, gc paused": paused(microgpt),
    } | traced


def check_losses(made, steps):
    want = None
    for name, build in made.items():
        step = build()
        got = [step() for _ in range(steps)]
        if want is None:
            want = got
            continue
        bad = [i for i, (a, b) in enumerate(zip(got, want)) if abs(a - b) > 1e-9 * abs(b)]
        if bad:
            raise SystemExit(f"MISMATCH: {name}'s loss at step {bad[0] + 1} is "
                             f"{got[bad[0]]!r}, microgpt's {want[bad[0]]!r}")
    return want


def timing(args, docs):
    made = paths(docs)
    losses = check_losses(made, args.steps)
    print(f"{len(docs)} names of {args.length} letters ({args.length + 1} positions a "
          f"step); the first {args.steps} losses equal microgpt's to 1e-9 "
          f"({losses[0]:.4f} ... {losses[-1]:.4f})")
    print(f"Python {platform.python_version()} ({platform.python_implementation()}), "
          f"{os.cpu_count()} CPUs; load average at start: {load()}", flush=True)
    names = list(made)
    ms = {name: [] for name in names}
    for r in range(args.rounds):
        for k in range(len(names)):
            name = names[(r + k) % len(names)]
            step = made[name]()
            t = time.process_time()
            for _ in range(args.steps):
                step()
            ms[name].append((time.process_time() - t) * 1e3 / args.steps)
    print(f"load average at end: {load()}")
    ref = statistics.median(ms["microgpt"])
    for name in names:
        med = statistics.median(ms[name])
        print(f"  {name:28} {med:8.1f} ms a step [{min(ms[name]):.1f}-{max(ms[name]):.1f}]"
              f"  {1e3 / med:6.1f} steps/s  {ref / med:5.2f}x microgpt")
    print(f"  ({args.rounds} rounds of {args.steps} steps, CPU time, medians)", flush=True)
    if RECORDING:
        print(f"  the traced path's recording (once a run, untimed above): median "
              f"{statistics.median(RECORDING):.2f} s [{min(RECORDING):.2f}-"
              f"{max(RECORDING):.2f}] wall time", flush=True)
    else:
        print("  (no NumPy in this Python: no traced path)", flush=True)


def rss_mb():
    """The resident set size now (Linux: /proc/self/statm), in MB; None elsewhere."""
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return None


def peak_mb():
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KB


#: --memory's runs: name -> (linear as microgpt writes it, the collector paused)
MEMORY_RUNS = {"sum() linear, gc on (before)": (True, False),
               "gc on": (False, False), "micrograd.gpt (now)": (False, True)}


def memory_child(steps, which):
    """In a fresh process: ``steps`` steps of micrograd.gpt on the packaged names."""
    use_sum, pause = MEMORY_RUNS[which]
    run = Run.start(seed=SEED, steps=steps)
    run.pause_gc = pause
    if use_sum:
        gpt_model.linear = sum_linear
    line = f"  {which:30} peak {peak_mb():5.1f} MB before; RSS"
    for i in range(steps):
        run.step()
        if (i + 1) % max(steps // 4, 1) == 0:
            line += f" {rss_mb():.1f}"
    print(f"{line} MB; peak after {steps} steps {peak_mb():5.1f} MB "
          f"(collections: {sum(g['collections'] for g in gc.get_stats())})", flush=True)


def memory(steps):
    print(f"Python {platform.python_version()}: {steps} steps of micrograd.gpt on the "
          f"packaged names, a fresh process each; load average {load()}", flush=True)
    for which in MEMORY_RUNS:
        subprocess.run([sys.executable, os.path.abspath(__file__), "--memory-child",
                        str(steps), which], check=True)


def profile(args, docs):
    import cProfile
    import pstats
    run = run_of(docs)
    step = run.step
    step()  # warm
    prof = cProfile.Profile()
    prof.enable()
    for _ in range(args.profile):
        step()
    prof.disable()
    print(f"Python {platform.python_version()}: cProfile of {args.profile} steps of "
          f"micrograd.gpt, names of {args.length} letters; load average {load()}")
    pstats.Stats(prof).sort_stats("tottime").print_stats(12)


def other_pythons(argv, exes):
    """This script, without ``--python``, under each interpreter in turn."""
    rest, skip = [], False
    for a in argv:
        if skip:
            skip = False
        elif a == "--python":
            skip = True
        elif not a.startswith("--python="):
            rest.append(a)
    for exe in exes:
        print(f"=== {exe}", flush=True)
        subprocess.run([exe, os.path.abspath(__file__)] + rest, check=True)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--length", type=int, default=6, help="letters of each name")
    ap.add_argument("--steps", type=int, default=5, help="steps timed per round")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--python", action="append", metavar="EXE",
                    help="run under this interpreter (repeatable)")
    ap.add_argument("--memory", type=int, metavar="N",
                    help="peak RSS over N steps, the collector paused and not")
    ap.add_argument("--memory-child", nargs=2, help=argparse.SUPPRESS)
    ap.add_argument("--profile", type=int, metavar="N", help="cProfile N steps")
    args = ap.parse_args(argv)
    if args.rounds < 1 or args.steps < 1:
        ap.error("--rounds and --steps must be at least 1")
    if args.python:
        return other_pythons(argv, args.python)
    if args.memory_child:
        return memory_child(int(args.memory_child[0]), args.memory_child[1])
    if args.memory:
        return memory(args.memory)
    docs = [n for n in read_names() if len(n) == args.length]
    if not docs:
        ap.error(f"no packaged name has {args.length} letters")
    if args.profile:
        return profile(args, docs)
    timing(args, docs)


if __name__ == "__main__":
    main()

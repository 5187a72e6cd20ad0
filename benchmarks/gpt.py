"""microgpt's training step on micrograd's eager engine against microgpt's own Value.

    python benchmarks/gpt.py [--length 6] [--steps 5] [--rounds 7]

The spike of issue 32: how fast one training step of microgpt's GPT (Karpathy, 2026:
16 dimensions, 4 heads, 1 layer; one name a step, Adam) runs on each path, for names
of one length (``--length`` letters: ``length + 1`` positions, the same graph's size at
every step), from the packaged census names of that length, shuffled by the seed:

* ``microgpt``: microgpt's own lean ``Value`` and loop (benchmarks/microgpt_reference.py),
  the reference;
* ``micrograd.gpt``: the package's model (``micrograd.gpt.train.Run``) on
  ``micrograd.engine.Value``: what ``micrograd gpt`` runs;
* ``microgpt + our Value``: microgpt's loop with its ``Value`` replaced by
  ``micrograd.engine.Value`` (one import changed);
* ``..., collector paused``: microgpt and micrograd.gpt again with Python's cyclic
  garbage collector paused over the steps (``gc.disable()``, as ``micrograd.train.fit``
  does): a step's graph is tens of thousands of new objects, which set off the
  collector's scans of every live one, though neither engine's graph holds a cycle.

First the losses of the first ``--steps`` steps are checked equal to the reference's
(1e-9 relative). Then each round builds each path afresh (untimed) and times
``--steps`` steps of it (CPU time), the paths in a rotating order; the medians over the
rounds are printed as ms a step and steps a second, with [smallest-largest], and each
path's speed as a ratio to the reference (above 1: faster). The load average is printed
at the start and the end (the machine may be shared: the ratios are what to read).
"""

import argparse
import gc
import os
import platform
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "src"))
sys.path.insert(0, HERE)

from microgpt_reference import MicroValue, Trainer  # noqa: E402

from micrograd.engine import Value  # noqa: E402
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


def paths(docs):
    """name -> a function that builds the path afresh and returns its ``step``."""
    microgpt = lambda: Trainer(MicroValue, docs, SEED).step  # noqa: E731
    ours = lambda: Run.start(docs, seed=SEED, steps=1000).step  # noqa: E731
    return {
        "microgpt": microgpt,
        "micrograd.gpt": ours,
        "microgpt + our Value": lambda: Trainer(Value, docs, SEED).step,
        "microgpt, gc paused": paused(microgpt),
        "micrograd.gpt, gc paused": paused(ours),
    }


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


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--length", type=int, default=6, help="letters of each name")
    ap.add_argument("--steps", type=int, default=5, help="steps timed per round")
    ap.add_argument("--rounds", type=int, default=7)
    args = ap.parse_args(argv)
    if args.rounds < 1 or args.steps < 1:
        ap.error("--rounds and --steps must be at least 1")
    docs = [n for n in read_names() if len(n) == args.length]
    if not docs:
        ap.error(f"no packaged name has {args.length} letters")
    made = paths(docs)
    losses = check_losses(made, args.steps)
    print(f"{len(docs)} names of {args.length} letters ({args.length + 1} positions a "
          f"step); the first {args.steps} losses equal microgpt's to 1e-9 "
          f"({losses[0]:.4f} ... {losses[-1]:.4f})")
    print(f"Python {platform.python_version()} ({platform.python_implementation()}), "
          f"{os.cpu_count()} CPUs; load average at start: {load()}")
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
        print(f"  {name:25} {med:8.1f} ms a step [{min(ms[name]):.1f}-{max(ms[name]):.1f}]"
              f"  {1e3 / med:6.1f} steps/s  {ref / med:5.2f}x microgpt")
    print(f"  ({args.rounds} rounds of {args.steps} steps, CPU time, medians)")


if __name__ == "__main__":
    main()

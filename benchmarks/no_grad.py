"""An MLP's forward pass under ``no_grad()`` against the same pass building its graph,
in one process, interleaved: the ratio says what evaluating without a graph saves.

    python benchmarks/no_grad.py [--rounds 9] [--points 400]

MLP(2, [16, 16, 1]) (micrograd's demo network) over random points in [-1, 1]^2, CPU
time, the median of the rounds and [smallest-largest]; the numbers of both passes are
checked equal bit for bit first. The load average is printed at the start and the end
(the machine may be shared: the ratio is what to read).
"""

import argparse
import os
import random
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

from micrograd.grad_mode import no_grad  # noqa: E402
from micrograd.nn import MLP  # noqa: E402


def load():
    try:
        return "%.2f %.2f %.2f" % os.getloadavg()
    except OSError:
        return "unknown"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--points", type=int, default=400)
    args = ap.parse_args(argv)
    if args.rounds < 1 or args.points < 1:
        ap.error("--rounds and --points must be at least 1")
    rng = random.Random(0)
    model = MLP(2, [16, 16, 1], seed=0)
    rows = [[rng.uniform(-1, 1), rng.uniform(-1, 1)] for _ in range(args.points)]

    def graph():
        return [model(x).data for x in rows]

    def plain():
        with no_grad():
            return [model(x).data for x in rows]

    if [v.hex() for v in graph()] != [v.hex() for v in plain()]:
        raise SystemExit("MISMATCH: no_grad's numbers differ from the graph's")
    print(f"load average at start: {load()} ({os.cpu_count()} CPUs)")
    times = {"graph": [], "no_grad": []}
    for k in range(args.rounds):
        for name in (("graph", "no_grad") if k % 2 == 0 else ("no_grad", "graph")):
            t = time.process_time()
            (graph if name == "graph" else plain)()
            times[name].append((time.process_time() - t) * 1e3)
    print(f"load average at end: {load()}")
    for name, ms in times.items():
        print(f"  {name:8} {statistics.median(ms):8.1f} ms  [{min(ms):.1f}-{max(ms):.1f}]")
    ratios = [g / p for g, p in zip(times["graph"], times["no_grad"])]
    ratio = statistics.median(times["graph"]) / statistics.median(times["no_grad"])
    print(f"  graph / no_grad: {ratio:.2f}x "
          f"[{min(ratios):.2f}-{max(ratios):.2f}] ({args.points} points, {args.rounds} rounds)")


if __name__ == "__main__":
    main()

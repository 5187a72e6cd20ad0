"""The op-by-op loop with no mode block open anywhere against the same loop while another
thread holds a ``no_grad()`` block open: what the ops' first look (``grad_mode.OPEN``,
empty, no call) saves over asking their own context each time.

    python benchmarks/open_block.py [--rounds 9] [--steps 5]

The lecture's loop (``benchmarks/lecture_loop.py``: 3 inputs, two hidden layers of 16, 40
examples), one process, the two cases interleaved round by round, CPU time of this
thread's steps. The other thread only waits inside its block; its block changes nothing
this thread builds (the losses of both cases are checked equal). Prints the median
ms a step of each, [smallest-largest], and the ratio; the load average at the start and
the end (the machine may be shared: the ratio is what to read).
"""

import argparse
import os
import statistics
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "src"))
sys.path.insert(0, HERE)

import lecture_loop  # noqa: E402
from micrograd.grad_mode import OPEN, no_grad  # noqa: E402


def load():
    try:
        return "%.2f %.2f %.2f" % os.getloadavg()
    except OSError:
        return "unknown"


def timed_steps(steps):
    """``steps`` steps of the loop on a fresh network: (CPU ms a step, the losses)."""
    xs, ys = lecture_loop.make_data()
    network = lecture_loop.make_network()
    t0 = time.thread_time()
    losses = lecture_loop.train(network, xs, ys, steps)
    return (time.thread_time() - t0) / steps * 1e3, losses


def with_a_block_elsewhere(steps):
    """``timed_steps`` while another thread sits inside ``with no_grad():``."""
    inside, leave = threading.Event(), threading.Event()

    def hold():
        with no_grad():
            inside.set()
            leave.wait()

    t = threading.Thread(target=hold)
    t.start()
    try:
        if not inside.wait(10) or not OPEN:
            raise SystemExit("the other thread's block did not open")
        return timed_steps(steps)
    finally:
        leave.set()
        t.join()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--steps", type=int, default=5)
    args = ap.parse_args(argv)
    if args.rounds < 1 or args.steps < 1:
        ap.error("--rounds and --steps must be at least 1")
    print(f"load average at start: {load()}")
    if OPEN:
        raise SystemExit("a mode block is already open in this process")
    timed_steps(1)  # warm up both paths once
    with_a_block_elsewhere(1)
    none, other = [], []
    for r in range(args.rounds):
        cases = [(none, timed_steps), (other, with_a_block_elsewhere)]
        for times, run in (cases if r % 2 == 0 else cases[::-1]):
            ms, losses = run(args.steps)
            times.append((ms, losses))
    if len({tuple(losses) for _, losses in none + other}) != 1:
        raise SystemExit("the losses differ between the cases")
    a = [ms for ms, _ in none]
    b = [ms for ms, _ in other]
    print(f"no block open anywhere:          {statistics.median(a):6.2f} ms a step "
          f"[{min(a):.2f}-{max(a):.2f}]")
    print(f"a block open in another thread:  {statistics.median(b):6.2f} ms a step "
          f"[{min(b):.2f}-{max(b):.2f}]")
    print(f"ratio (block elsewhere / none):  {statistics.median(b) / statistics.median(a):.3f}x"
          f"  ({args.rounds} rounds of {args.steps} steps, {sys.version.split()[0]})")
    print(f"load average at end: {load()}")


if __name__ == "__main__":
    main()

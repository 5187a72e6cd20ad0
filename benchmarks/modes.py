"""Forward mode against reverse mode: where each one wins.

    PYTHONPATH=src python benchmarks/modes.py            # default sizes
    PYTHONPATH=src python benchmarks/modes.py --n 400 --repeat 5

Two shapes of function, each timed with both modes in the same run (the machine is
shared and noisy, so only the ratios mean something):

* wide out: ONE input, MANY outputs. x goes through a shared trunk of ``depth`` tanh
  layers, then ``n`` heads ``sin(c_k * h + e_k)``. Forward mode (``jacfwd``) needs one
  tangent sweep; reverse mode (``jacrev``) one backward sweep per output, each through
  the trunk again.
* wide in: MANY inputs, ONE output. ``n`` inputs are mixed into one number
  ``sum_k tanh(c_k * x_k)``, which goes through the same trunk. Reverse mode needs one
  sweep; forward mode one sweep per input.

Both timings include tracing ``f`` once into a graph (the same cost in both modes).
Each is the best of ``--repeat`` runs. The two Jacobians are checked equal first.
"""

import argparse
import math
import random
import time

from micrograd.autodiff import jacfwd, jacrev


def make(n, depth, seed=0):
    rng = random.Random(seed)
    w = [rng.uniform(0.5, 1.5) for _ in range(depth)]
    b = [rng.uniform(-0.5, 0.5) for _ in range(depth)]
    c = [rng.uniform(-2, 2) for _ in range(n)]
    e = [rng.uniform(-1, 1) for _ in range(n)]

    def trunk(h):
        for wi, bi in zip(w, b):
            h = (h * wi + bi).tanh()
        return h

    def wide_out(x):  # R -> R^n
        h = trunk(x)
        return [(h * ck + ek).sin() for ck, ek in zip(c, e)]

    def wide_in(*xs):  # R^n -> R
        s = sum(((x * ck).tanh() for x, ck in zip(xs, c)), 0.0)
        return trunk(s)

    return wide_out, wide_in


def best(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def check(a, b):
    def flat(J):
        return [v for row in J for v in (row if isinstance(row, tuple) else (row,))]

    fa, fb = flat(a), flat(b)
    if len(fa) != len(fb) or any(not math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-12)
                                 for x, y in zip(fa, fb)):
        raise SystemExit("forward and reverse Jacobians differ")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--n", type=int, default=200, help="outputs (wide out) / inputs (wide in)")
    p.add_argument("--depth", type=int, default=50, help="tanh layers in the shared trunk")
    p.add_argument("--repeat", type=int, default=3, help="timings per measurement (best)")
    args = p.parse_args(argv)
    wide_out, wide_in = make(args.n, args.depth)
    xs = [0.01 * (k % 7 - 3) for k in range(args.n)]

    check(jacfwd(wide_out)(0.3), jacrev(wide_out)(0.3))
    check([jacfwd(wide_in)(*xs)], [jacrev(wide_in)(*xs)])

    print(f"n={args.n} depth={args.depth} repeat={args.repeat} (best of; seconds)")
    print(f"{'shape':<34}{'forward':>10}{'reverse':>10}{'rev/fwd':>10}")
    rows = [
        (f"wide out: 1 input, {args.n} outputs", lambda: jacfwd(wide_out)(0.3),
         lambda: jacrev(wide_out)(0.3)),
        (f"wide in: {args.n} inputs, 1 output", lambda: jacfwd(wide_in)(*xs),
         lambda: jacrev(wide_in)(*xs)),
    ]
    for name, fwd, rev in rows:
        tf, tr = best(fwd, args.repeat), best(rev, args.repeat)
        winner = "forward" if tf < tr else "reverse"
        print(f"{name:<34}{tf:>10.4f}{tr:>10.4f}{tr / tf:>10.3g}   {winner} wins "
              f"x{max(tf, tr) / min(tf, tr):.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The lowered program on the page's JavaScript executor (node), beside NumPy and eager Python.

    PYTHONPATH=src python benchmarks/lowered_executor.py      # ~1 minute
    PYTHONPATH=src python benchmarks/lowered_executor.py --rounds 3 --optimizer adam

The Playground's workload: MLP(2, [8, 8, 1]) with tanh, 200 points of the circle data
set, the mean squared error plus 1e-4 * sum p^2, one optimizer step per batch of all
200 points (SGD by default). Three ways train the same model from the same weights:

* JS: the loss and its optimizer lowered (``micrograd.trace.lower``) and run by
  ``web/static/lowered/executor.js`` in node (one long-lived node process);
* NumPy: the traced loss with ``TracedSGD``/``TracedAdam`` (``micrograd.trace``);
* eager: the engine itself, one Value graph per step, ``micrograd.optim`` (CPython).

Each is timed as steps per second of wall time, a step alone and a step followed by the
forward pass over a 50 x 50 boundary grid (2,500 points: what the page draws per step).
Rounds are interleaved (JS, NumPy, eager, JS, ...) so that all see the same
machine load; the median of the rounds is printed with its spread (min-max), and the
ratios. The JavaScript executor's losses are checked against NumPy's (1e-9 relative) before timing.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # one BLAS thread: steady timings on a shared machine

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from micrograd.engine import Value, no_grad
from micrograd.nn import MLP
from micrograd.optim import SGD, Adam
from micrograd.trace import (AdamUpdate, SGDUpdate, TracedAdam, TracedSGD, lower, trace,
                             trace_loss)

EXECUTOR = (Path(__file__).resolve().parent.parent / "src" / "micrograd" / "web" / "static" /
            "lowered" / "executor.js")
POINTS, GRID, L2, SEED = 200, 50, 1e-4, 0

# a long-lived node process: "load" a program and data, then time "round"s of steps
NODE_DRIVER = r"""
import { load } from %s;
import * as readline from "node:readline";
let r, X, G;
const rl = readline.createInterface({ input: process.stdin });
for await (const line of rl) {
  const c = JSON.parse(line);
  if (c.cmd === "load") {
    r = load(c.wire); X = Float64Array.from(c.X); G = Float64Array.from(c.grid);
    console.log(JSON.stringify({ ok: true }));
  } else if (c.cmd === "losses") {
    const out = [];
    for (let k = 0; k < c.steps; k++) out.push(r.step("loss", X));
    console.log(JSON.stringify(out));
  } else {
    const t0 = performance.now();
    for (let k = 0; k < c.steps; k++) {
      r.step("loss", X);
      if (c.grid) r.evaluate("probe", G);
    }
    console.log(JSON.stringify({ seconds: (performance.now() - t0) / 1000 }));
  }
}
"""


def circle(n=POINTS, seed=SEED):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1.5, 1.5, size=(n, 2))
    return X, np.where((X ** 2).sum(axis=1) < 1.0, 1.0, -1.0)


def grid_points(n=GRID):
    g = np.linspace(-1.5, 1.5, n)
    return np.array([[a, b] for b in g for a in g])


def make(optimizer, lr):
    """A fresh model, its traced loss and probe, and the update (all from one seed)."""
    model = MLP(2, [8, 8, 1], activation="tanh", output_activation="linear", seed=SEED)
    params = model.parameters()
    X, _ = circle()
    loss = trace_loss(lambda x, y: (model(x) - y) ** 2, X, X[:, 0], params=params,
                      regularizer=lambda: L2 * sum(p * p for p in params), cache=False)
    probe = trace(model, X, params=params, cache=False)
    update = SGDUpdate(lr=lr) if optimizer == "sgd" else AdamUpdate(lr=lr)
    return model, loss, probe, update


class NodeExecutor:
    """The JavaScript executor in one node process."""

    def __init__(self, wire, XY, grid):
        node = shutil.which("node")
        if node is None:
            sys.exit("node is needed: the executor is JavaScript")
        code = NODE_DRIVER % json.dumps(EXECUTOR.as_uri())
        self.proc = subprocess.Popen([node, "--input-type=module", "-e", code],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.ask({"cmd": "load", "wire": wire, "X": XY.ravel().tolist(),
                  "grid": grid.ravel().tolist()})

    def ask(self, msg):
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()
        return json.loads(self.proc.stdout.readline())

    def round(self, steps, with_grid):
        return self.ask({"cmd": "round", "steps": steps, "grid": with_grid})["seconds"]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def numpy_round(opt, probe, X, Y, grid, steps, with_grid):
    t0 = time.perf_counter()
    for _ in range(steps):
        opt.step(X, Y)
        if with_grid:
            probe(grid)
    return time.perf_counter() - t0


def eager_round(model, opt, X, Y, grid, steps, with_grid):
    params = model.parameters()
    t0 = time.perf_counter()
    for _ in range(steps):
        outs = [model([Value(float(a)), Value(float(b))]) for a, b in X]
        terms = [(o - float(y)) ** 2 for o, y in zip(outs, Y)]
        loss = sum(terms[1:], terms[0]) * (1.0 / len(X)) + L2 * sum(p * p for p in params)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if with_grid:
            with no_grad():
                [model([Value(float(a)), Value(float(b))]).data for a, b in grid]
    return time.perf_counter() - t0


def spread(times, steps):
    """(median, min, max) steps per second over the rounds."""
    rates = sorted(steps / t for t in times)
    return statistics.median(rates), rates[0], rates[-1]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5, help="interleaved rounds per way")
    ap.add_argument("--steps", type=int, default=40, help="steps per round (JS, NumPy)")
    ap.add_argument("--eager-steps", type=int, default=3, help="steps per round (eager)")
    ap.add_argument("--optimizer", choices=("sgd", "adam"), default="sgd")
    ap.add_argument("--lr", type=float, default=0.05)
    args = ap.parse_args(argv)
    X, Y = circle()
    XY, grid = np.column_stack([X, Y]), grid_points()

    # the same model three times, from the same weights
    _, loss, probe, update = make(args.optimizer, args.lr)
    lowered = lower({"loss": loss, "probe": probe}, optimizer=update)
    js = NodeExecutor(lowered.wire, XY, grid)
    check = js.ask({"cmd": "losses", "steps": 5})
    _, np_loss, np_probe, _ = make(args.optimizer, args.lr)
    traced = TracedSGD if args.optimizer == "sgd" else TracedAdam
    np_opt = traced(np_loss, lr=args.lr)
    want = [np_opt.step(X, Y) for _ in range(5)]
    np.testing.assert_allclose(check, want, rtol=1e-9)
    agreement = max(abs(a - b) / abs(b) for a, b in zip(check, want))
    eager_model, *_ = make(args.optimizer, args.lr)
    eager_opt = (SGD if args.optimizer == "sgd" else Adam)(eager_model.parameters(),
                                                           lr=args.lr)
    eager_round(eager_model, eager_opt, X, Y, grid, 1, True)  # warm-up
    js.round(args.steps, True)
    numpy_round(np_opt, np_probe, X, Y, grid, args.steps, True)

    times = {(e, g): [] for e in ("js", "numpy", "eager") for g in (False, True)}
    for _ in range(args.rounds):
        for with_grid in (False, True):
            times["js", with_grid].append(js.round(args.steps, with_grid))
            times["numpy", with_grid].append(numpy_round(np_opt, np_probe, X, Y, grid,
                                                         args.steps, with_grid))
            times["eager", with_grid].append(eager_round(eager_model, eager_opt, X, Y, grid,
                                                         args.eager_steps, with_grid))
    js.close()
    np_opt.close()

    fn = lowered.wire["functions"]["loss"]
    print(f"2-8-8-1 tanh MLP, {POINTS} points, {args.optimizer}, mean squared error + "
          f"{L2:g} L2; lowered: {len(fn['forward'])} forward, {len(fn['backward'])} "
          f"backward, {len(fn['update'])} update instructions")
    print(f"agreement: the JavaScript executor's first 5 losses against NumPy's, largest relative "
          f"difference {agreement:.2e} (held to 1e-9; tests/test_trace_lowering.py holds "
          f"each op to the fuzz's rounding bound)")
    print(f"steps per second (wall time; median of {args.rounds} interleaved rounds, "
          f"min-max)")
    rate = {}
    for with_grid in (False, True):
        label = "step + 50x50 grid" if with_grid else "step"
        for way, name in (("js", "JS executor (node)"), ("numpy", "NumPy backend"),
                          ("eager", "eager engine")):
            steps = args.eager_steps if way == "eager" else args.steps
            med, lo, hi = spread(times[way, with_grid], steps)
            rate[way, with_grid] = med
            print(f"  {label:<18} {name:<18} {med:>9.1f}   ({lo:.1f}-{hi:.1f})")
        js, np_, eager = (rate[e, with_grid] for e in ("js", "numpy", "eager"))
        print(f"  {'':<18} JS / NumPy = {js / np_:.2f}, JS / eager = "
              f"{js / eager:.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

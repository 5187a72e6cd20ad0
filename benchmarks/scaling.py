"""How the cost of a training step grows: batch size x network size, eager vs traced vs torch.

    PYTHONPATH=src python benchmarks/scaling.py                 # table + docs/scaling.png
    PYTHONPATH=src python benchmarks/scaling.py --quick         # fewer cells, ~20 s

One step = forward over the batch, loss = mean over samples of sum_k (out_k - t_k)^2,
backward, SGD on every parameter (a Python loop over the Values for micrograd; torch.optim
for PyTorch), float64, relu hidden layers, linear output. Times are per step, measured
in this run on the same random data.

The eager engine costs the same per sample at every batch size (one graph per sample),
so at large batches it is timed on a subsample of ``--eager-cap`` samples... no more than
about 0.3 s of work per cell, and the time is scaled to the full batch; such cells are
marked with ``*``. Default run: under ~2 minutes on a 2-core machine.
"""

from __future__ import annotations

import os

# One BLAS thread, as torch.set_num_threads(1) in torch_reference: the fair comparison,
# and steady timings on a shared machine (a multi-threaded BLAS that waits for busy cores
# can be 10-100x slower on small matrices). Set before NumPy is imported.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import sys
import time

import numpy as np

from micrograd.engine import Value
from micrograd.nn import MLP
from micrograd.trace import trace_loss

NETS = [[2, 4, 1], [2, 16, 16, 1], [16, 64, 64, 4], [64, 128, 128, 10]]
BATCHES = [1, 10, 100, 1000, 10000]
BUDGET = 0.25        # seconds of timing per cell and engine (at least one step)
DOCS = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "docs")


def make(sizes, seed=0):
    return MLP(sizes[0], sizes[1:], activation="relu", output_activation="linear", seed=seed)


def sample_loss(model):
    def fn(x, t):
        out = model(x)
        out = out if isinstance(out, list) else [out]
        return sum(((o - ti) ** 2 for o, ti in zip(out, t)), Value(0.0))
    return fn


def timed(fn, budget=BUDGET):
    """Seconds per call: repeat until ``budget`` seconds are spent (at least twice)."""
    fn()
    n, t0 = 0, time.perf_counter()
    while True:
        fn()
        n += 1
        el = time.perf_counter() - t0
        if el >= budget or n >= 200:
            return el / n


def traced_step_time(sizes, X, T, loss):
    model, lf = loss

    def step():
        model.zero_grad()
        lf.backward(X, T)
        for p in model.parameters():
            p.data -= 1e-3 * p.grad
    return timed(step)


def eager_step_time(sizes, model, X, T, cap):
    """Seconds per step of the eager engine; subsampled to ``cap`` samples if B > cap."""
    B = len(X)
    m = min(B, cap)
    params = model.parameters()
    fn = sample_loss(model)

    def per_samples():
        total = None
        for i in range(m):
            L = fn([Value(float(v)) for v in X[i]], [float(v) for v in T[i]])
            total = L if total is None else total + L
        total = total * (1.0 / B)
        model.zero_grad()
        total.backward()

    def sgd():
        for p in params:
            p.data -= 1e-3 * p.grad
    t = timed(per_samples, budget=BUDGET) * (B / m) + timed(sgd, budget=0.02)
    return t, m < B


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="three batch sizes, three nets")
    ap.add_argument("--eager-cap", type=int, default=20,
                    help="largest number of samples the eager engine is timed on")
    ap.add_argument("--no-plot", action="store_true")
    args = ap.parse_args(argv)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from torch_reference import mlp_step_time

    nets = NETS[:3] if args.quick else NETS
    batches = [1, 100, 10000] if args.quick else BATCHES
    rng = np.random.default_rng(0)
    rows = []
    t_start = time.perf_counter()
    for sizes in nets:
        model = make(sizes)
        Xall = rng.normal(size=(max(batches), sizes[0]))
        Tall = rng.normal(size=(max(batches), sizes[-1]))
        t0 = time.perf_counter()
        lf = trace_loss(sample_loss(model), Xall[:2], Tall[:2], cache=False)
        t_trace = time.perf_counter() - t0
        # a large net costs the eager engine seconds per sample: fewer samples there
        cap = max(1, args.eager_cap // (1 + sum(a * b for a, b in zip(sizes, sizes[1:]))
                                        // 2000))
        for B in batches:
            X, T = Xall[:B], Tall[:B]
            t_tr = traced_step_time(sizes, X, T, (model, lf))
            steps = max(2, min(200, int(BUDGET / max(t_tr, 1e-5))))
            t_to = mlp_step_time(sizes, B, steps)
            t_ea, sub = eager_step_time(sizes, model, X, T, cap)
            rows.append(("-".join(map(str, sizes)), B, t_ea, sub, t_tr, t_to, t_trace,
                         lf.per_sample.n_traced))
            r = rows[-1]
            print(f"{r[0]:>14} B={B:<6} eager {t_ea * 1e3:10.2f} ms{'*' if sub else ' '} "
                  f"traced {t_tr * 1e3:8.3f} ms  torch {t_to * 1e3:8.3f} ms  "
                  f"traced/torch {t_tr / t_to:5.2f}  eager/traced {t_ea / t_tr:8.0f}x",
                  flush=True)
    print(f"\n(total {time.perf_counter() - t_start:.0f} s; * = eager timed on a subsample "
          f"and scaled to the batch)\n")
    print("| network | batch | traced nodes / sample | eager ms | traced ms | PyTorch ms | "
          "traced / PyTorch | eager / traced |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, B, t_ea, sub, t_tr, t_to, _, nodes in rows:
        print(f"| {name} | {B:,} | {nodes:,} | {t_ea * 1e3:,.2f}{'*' if sub else ''} | "
              f"{t_tr * 1e3:.3f} | {t_to * 1e3:.3f} | {t_tr / t_to:.2f} | "
              f"{t_ea / t_tr:,.0f}x |")
    if not args.no_plot:
        path = plot(rows, nets, batches)
        print(f"\nplot written to {os.path.normpath(path)}")
    return 0


def plot(rows, nets, batches):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, len(nets), figsize=(4 * len(nets), 3.6), sharey=True)
    axes = np.atleast_1d(axes)
    for ax, sizes in zip(axes, nets):
        name = "-".join(map(str, sizes))
        sel = [r for r in rows if r[0] == name]
        B = [r[1] for r in sel]
        ax.loglog(B, [r[2] * 1e3 for r in sel], "o-", label="eager engine", color="#c44")
        ax.loglog(B, [r[4] * 1e3 for r in sel], "s-", label="traced (NumPy)", color="#26a")
        ax.loglog(B, [r[5] * 1e3 for r in sel], "^--", label="PyTorch eager", color="#888")
        ax.set_title(f"MLP {name}")
        ax.set_xlabel("batch size")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("ms per training step")
    axes[0].legend(fontsize=8)
    fig.suptitle("Time per step: forward + MSE + backward + SGD, float64, one CPU core")
    fig.tight_layout()
    path = os.path.join(DOCS, "scaling.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


if __name__ == "__main__":
    raise SystemExit(main())

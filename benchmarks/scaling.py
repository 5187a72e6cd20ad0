"""How the cost of a training step grows: batch size x network size, eager vs traced vs torch
vs a hand-written NumPy step (the floor of any batched NumPy engine).

    PYTHONPATH=src python benchmarks/scaling.py                 # table + docs/scaling.png
    PYTHONPATH=src python benchmarks/scaling.py --quick         # fewer cells, ~20 s

One step = forward over the batch, loss = mean over samples of sum_k (out_k - t_k)^2,
backward, SGD on every parameter (for the traced path two ways: a Python loop over the
Values after ``loss.backward``, and ``TracedSGD`` on the traced parameter array;
torch.optim for PyTorch; arrays for NumPy), float64, relu hidden layers, linear output.
Times are per step, measured in this run on the same random data, in CPU time of the
process (the machine is shared).

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
from typing import NamedTuple

import numpy as np

from micrograd.engine import Value
from micrograd.nn import MLP
from micrograd.trace import TracedSGD, trace_loss

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
    """CPU seconds per call (the machine is shared: wall time would count other jobs'
    turns): repeat until ``budget`` seconds are spent, at least twice."""
    fn()
    n, t0 = 0, time.process_time()
    while True:
        fn()
        n += 1
        el = time.process_time() - t0
        if el >= budget or n >= 200:
            return el / n


def traced_step_time(sizes, X, T, loss):
    """Seconds per step: ``loss.backward`` then SGD over the Values in Python."""
    model, lf = loss

    def step():
        model.zero_grad()
        lf.backward(X, T)
        for p in model.parameters():
            p.data -= 1e-3 * p.grad
    return timed(step)


def traced_sgd_step_time(X, T, lf):
    """Seconds per step with TracedSGD (closed afterwards: the Values are plain again)."""
    with TracedSGD(lf, lr=1e-3) as opt:
        return timed(lambda: opt.step(X, T))


def numpy_step_time(model, X, T):
    """Seconds per step of the same model written by hand in NumPy: forward as matrix
    products, the backward pass written out, SGD on the arrays."""
    Ws = [np.array([[w.data for w in n.w] for n in layer.neurons]) for layer in model.layers]
    bs = [np.array([n.b.data for n in layer.neurons]) for layer in model.layers]
    B = len(X)

    def step():
        hs = [X]
        for i, (W, b) in enumerate(zip(Ws, bs)):  # relu hidden, linear out
            z = hs[-1] @ W.T + b
            hs.append(np.maximum(z, 0.0) if i < len(Ws) - 1 else z)
        g = 2.0 * (hs[-1] - T) / B  # d loss / d out
        for i in range(len(Ws) - 1, -1, -1):
            gW, gb = g.T @ hs[i], g.sum(axis=0)
            if i:
                g = (g @ Ws[i]) * (hs[i] > 0.0)
            Ws[i] -= 1e-3 * gW
            bs[i] -= 1e-3 * gb
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


class Row(NamedTuple):
    """One cell of the table: seconds per step of each engine."""

    net: str
    B: int
    nodes: int          # traced nodes per sample
    eager: float
    sub: bool           # eager timed on a subsample and scaled
    traced_values: float  # traced + SGD over the Values
    traced: float       # traced + TracedSGD
    torch: float
    numpy: float


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
        print(f"{'-'.join(map(str, sizes)):>14} traced once in {t_trace:.2f} s: "
              f"{lf.per_sample.summary()}", flush=True)
        # a large net costs the eager engine seconds per sample: fewer samples there
        cap = max(1, args.eager_cap // (1 + sum(a * b for a, b in zip(sizes, sizes[1:]))
                                        // 2000))
        for B in batches:
            X, T = Xall[:B], Tall[:B]
            t_tv = traced_step_time(sizes, X, T, (model, lf))
            t_tr = traced_sgd_step_time(X, T, lf)
            steps = max(2, min(200, int(BUDGET / max(t_tr, 1e-5))))
            t_to = mlp_step_time(sizes, B, steps)
            t_np = numpy_step_time(model, X, T)
            t_ea, sub = eager_step_time(sizes, model, X, T, cap)
            rows.append(Row("-".join(map(str, sizes)), B, lf.per_sample.n_traced, t_ea, sub,
                            t_tv, t_tr, t_to, t_np))
            r = rows[-1]
            print(f"{r.net:>14} B={B:<6} eager {t_ea * 1e3:10.2f} ms{'*' if sub else ' '} "
                  f"traced {t_tv * 1e3:8.3f} / {t_tr * 1e3:8.3f} ms  torch "
                  f"{t_to * 1e3:8.3f} ms  numpy {t_np * 1e3:8.3f} ms  traced/torch "
                  f"{t_tr / t_to:5.2f}  traced/numpy {t_tr / t_np:5.2f}", flush=True)
    print(f"\n(total {time.perf_counter() - t_start:.0f} s; * = eager timed on a subsample "
          f"and scaled to the batch)\n")
    print("| network | batch | traced nodes / sample | eager ms | traced + SGD over Values "
          "ms | traced + TracedSGD ms | PyTorch ms | NumPy ms | traced / PyTorch | "
          "traced / NumPy | eager / traced |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r.net} | {r.B:,} | {r.nodes:,} | {r.eager * 1e3:,.2f}"
              f"{'*' if r.sub else ''} | {r.traced_values * 1e3:.3f} | "
              f"{r.traced * 1e3:.3f} | {r.torch * 1e3:.3f} | {r.numpy * 1e3:.3f} | "
              f"{r.traced / r.torch:.2f} | {r.traced / r.numpy:.2f} | "
              f"{r.eager / r.traced:,.0f}x |")
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
        sel = [r for r in rows if r.net == name]
        B = [r.B for r in sel]
        ax.loglog(B, [r.eager * 1e3 for r in sel], "o-", label="eager engine", color="#c44")
        ax.loglog(B, [r.traced * 1e3 for r in sel], "s-", label="traced + TracedSGD",
                  color="#26a")
        ax.loglog(B, [r.traced_values * 1e3 for r in sel], "s:",
                  label="traced + SGD over Values", color="#6ad")
        ax.loglog(B, [r.torch * 1e3 for r in sel], "^--", label="PyTorch eager", color="#888")
        ax.loglog(B, [r.numpy * 1e3 for r in sel], "v-.", label="NumPy by hand",
                  color="#2a6")
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

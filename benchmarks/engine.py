"""The eager engine against micrograd's published engine, on micrograd's own demo loop.

    python benchmarks/engine.py                      # the whole demo: 100 steps, ~4 minutes
    python benchmarks/engine.py --steps 20           # a quick look, ~1 minute
    python benchmarks/engine.py --python /tmp/venv310/bin/python --python /tmp/venv313/bin/python
    python benchmarks/engine.py --scaling --plot docs/images/eager_scaling.png   # ~5 minutes

The workload is micrograd's demo notebook as a user writes it: MLP(2, [16, 16, 1]) (relu
hidden layers, linear output, persistent parameters), a forward pass over 100 two-moons
points with each input built as ``Value(x)``, the max-margin loss
``(1 + -yi*scorei).relu()`` averaged plus ``1e-4 * sum(p*p)``, the accuracy, then
``zero_grad()``, ``backward()`` and SGD with the learning rate ``1.0 - 0.9*k/100``.
Nothing is asked of the user: default interpreter settings, the cyclic garbage collector
on, no flag.

Each engine runs in its own subprocess, so that each pays for its own garbage and never
for the other's: ours (``micrograd.engine``, ``micrograd.nn``) and micrograd's published
engine and nn written again in ``benchmarks/published_micrograd.py`` (closures capturing
``out``, ``_prev`` as a set, recursive topological sort, grads starting at 0). Both
start from the same weights and must give the same loss at every step to 1e-12
relative, or the run fails. Times are CPU time of the worker process per step (the
machine is shared; ratios are what to read), the mean over every step after the first
(a warm-up); ours is run before and after the published engine and counted as the mean
of the two runs. The collector's share comes from ``gc.callbacks``. Memory is what
tracemalloc sees allocated while one demo graph is alive, per node of that graph.

``--scaling`` times the same step for 1 to 1,000 points instead (650 to 650,000 nodes;
~5 minutes) and ``--plot`` draws it (matplotlib). ``--python`` runs the workers under
other interpreters (repeatable): only the standard library is needed there, the sources
come from this checkout.
"""

import argparse
import gc
import json
import math
import os
import random
import subprocess
import sys
import threading
import time
import tracemalloc

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, os.pardir, "src")
ENGINES = ("published", "ours")
SIZES = [16, 16, 1]     # MLP(2, [16, 16, 1]), as micrograd's demo
SEED = 1337             # the demo's random.seed(1337): both engines draw the same weights
POINTS = 100            # the demo's make_moons(n_samples=100, noise=0.1)
TOLERANCE = 1e-12       # relative difference allowed between the two engines' losses
SCALING_POINTS = (1, 10, 100, 1000)


def make_moons(n=POINTS, noise=0.1, seed=1):
    """Two interleaving half circles (as sklearn's make_moons), labels -1 / +1."""
    rng = random.Random(seed)
    n_out = n // 2
    n_in = n - n_out
    X, y = [], []
    for i in range(n_out):
        t = math.pi * i / max(n_out - 1, 1)
        X.append([math.cos(t), math.sin(t)])
        y.append(-1.0)
    for i in range(n_in):
        t = math.pi * i / max(n_in - 1, 1)
        X.append([1.0 - math.cos(t), 1.0 - math.sin(t) - 0.5])
        y.append(1.0)
    X = [[a + rng.gauss(0.0, noise), b + rng.gauss(0.0, noise)] for a, b in X]
    return X, y


# ---- the worker: one engine, one process ------------------------------------------------


def load(engine):
    """``(Value, model)`` of one engine, the model drawn from the demo's seed."""
    if engine == "ours":
        sys.path.insert(0, SRC)
        from micrograd.engine import Value
        from micrograd.nn import MLP

        return Value, MLP(2, SIZES, activation="relu", output_activation="linear",
                          bias_init="zero", seed=SEED)
    sys.path.insert(0, HERE)
    import published_micrograd

    random.seed(SEED)
    return published_micrograd.Value, published_micrograd.MLP(2, SIZES)


def demo_loss(model, X, y, Value):
    """The notebook's ``loss()``: max-margin loss plus L2, and the accuracy."""
    inputs = [list(map(Value, xrow)) for xrow in X]
    scores = list(map(model, inputs))
    losses = [(1 + -yi * scorei).relu() for yi, scorei in zip(y, scores)]
    data_loss = sum(losses) * (1.0 / len(losses))
    alpha = 1e-4
    reg_loss = alpha * sum((p * p for p in model.parameters()))
    total_loss = data_loss + reg_loss
    accuracy = [(yi > 0) == (scorei.data > 0) for yi, scorei in zip(y, scores)]
    return total_loss, sum(accuracy) / len(accuracy)


def count_nodes(root):
    """Nodes of a graph, whatever the engine (each engine's ``_prev`` gives the inputs)."""
    seen = {id(root)}
    stack = [root]
    while stack:
        for p in stack.pop()._prev:
            if id(p) not in seen:
                seen.add(id(p))
                stack.append(p)
    return len(seen)


class GCClock:
    """CPU time spent in the cyclic collector, per generation (from ``gc.callbacks``)."""

    def __init__(self):
        self.seconds = [0.0, 0.0, 0.0]
        self.count = [0, 0, 0]
        self._start = None

    def __call__(self, phase, info):
        if phase == "start":
            self._start = time.process_time()
        elif self._start is not None:
            g = info["generation"]
            self.seconds[g] += time.process_time() - self._start
            self.count[g] += 1
            self._start = None


def train(model, Value, X, y, steps, clock):
    """The demo's loop, timed per step and per phase; returns the per-step records."""
    params = model.parameters
    records = []
    for k in range(steps):
        gc_before = sum(clock.seconds)
        t0 = time.process_time()
        total_loss, acc = demo_loss(model, X, y, Value)
        t1 = time.process_time()
        model.zero_grad()
        total_loss.backward()
        t2 = time.process_time()
        learning_rate = 1.0 - 0.9 * k / 100
        for p in params():
            p.data -= learning_rate * p.grad
        t3 = time.process_time()
        records.append({"loss": total_loss.data, "acc": acc, "step": t3 - t0,
                        "forward": t1 - t0, "backward": t2 - t1, "update": t3 - t2,
                        "gc": sum(clock.seconds) - gc_before})
    return records


def memory_per_node(model, Value, X, y):
    """Bytes tracemalloc sees allocated per node while one demo graph is alive, after
    the forward pass and after backward (every interior grad is then a float of its
    own)."""
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    total_loss, _ = demo_loss(model, X, y, Value)
    built = tracemalloc.get_traced_memory()[0]
    model.zero_grad()
    total_loss.backward()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    nodes = count_nodes(total_loss)
    return nodes, (built - before) / nodes, (after - before) / nodes


def worker(engine, steps, points, gc_off_steps):
    Value, model = load(engine)
    X, y = make_moons(points)
    clock = GCClock()
    gc.collect()
    gc.callbacks.append(clock)
    try:
        records = train(model, Value, X, y, steps, clock)
    finally:
        gc.callbacks.remove(clock)
    out = {"engine": engine, "python": sys.version.split()[0], "records": records,
           "gc_threshold": gc.get_threshold(), "gc_per_gen": clock.seconds,
           "gc_collections": clock.count}
    if gc_off_steps:  # what the same steps cost with the collector off (diagnostic)
        gc.disable()
        try:
            off = train(model, Value, X, y, gc_off_steps, GCClock())
        finally:
            gc.enable()
        out["gc_off_step"] = sum(r["step"] for r in off[1:]) / max(len(off) - 1, 1)
    out["nodes"], out["bytes_built"], out["bytes_after_backward"] = memory_per_node(
        model, Value, X, y)
    return out


def run_worker(python, engine, steps, points=POINTS, gc_off_steps=0):
    """One engine in a fresh process of interpreter ``python``."""
    cmd = [python, os.path.abspath(__file__), "--worker", engine, "--steps", str(steps),
           "--points", str(points), "--gc-off-steps", str(gc_off_steps)]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # this checkout only
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{engine} worker under {python} failed:\n{done.stderr}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# ---- the parent: compare, print ---------------------------------------------------------


def mean_step(result, key="step"):
    rs = result["records"][1:] or result["records"]  # the first step is a warm-up
    return sum(r[key] for r in rs) / len(rs)


def check_same_losses(a, b):
    worst = 0.0
    for k, (ra, rb) in enumerate(zip(a["records"], b["records"], strict=True)):
        la, lb = ra["loss"], rb["loss"]
        rel = abs(la - lb) / max(abs(la), abs(lb)) if la != lb else 0.0
        if not rel <= TOLERANCE:
            raise SystemExit(f"MISMATCH at step {k}: loss {la!r} ({a['engine']}) vs "
                             f"{lb!r} ({b['engine']}), relative {rel:.1e}")
        worst = max(worst, rel)
    return worst


def compare(python, steps):
    # ours runs before and after the published engine and counts as the mean of both
    # runs: the published run takes minutes, the machine's load changes meanwhile
    before = run_worker(python, "ours", steps)
    pub = run_worker(python, "published", steps)
    ours = run_worker(python, "ours", steps, gc_off_steps=min(steps, 6))
    worst = max(check_same_losses(pub, ours), check_same_losses(pub, before))
    t_pub, t_ours = mean_step(pub), (mean_step(before) + mean_step(ours)) / 2
    n = len(ours["records"])
    print(f"python {ours['python']} (gc thresholds {tuple(ours['gc_threshold'])}): "
          f"{steps} demo steps per engine, {ours['nodes']:,} nodes a step")
    print(f"  losses agree at every step: max relative difference {worst:.1e} "
          f"(final loss {ours['records'][-1]['loss']:.6f}, accuracy "
          f"{ours['records'][-1]['acc']:.0%})")
    print(f"  ours, run before and after: {mean_step(before) * 1e3:.1f} and "
          f"{mean_step(ours) * 1e3:.1f} ms/step; the second run in detail:")
    for r in (pub, ours):
        t = mean_step(r)
        print(f"  {r['engine']:>9}: {t * 1e3:8.1f} ms/step = forward "
              f"{mean_step(r, 'forward') * 1e3:.1f} + backward "
              f"{mean_step(r, 'backward') * 1e3:.1f} + update "
              f"{mean_step(r, 'update') * 1e3:.1f}; of it cyclic GC "
              f"{mean_step(r, 'gc') * 1e3:.1f} ms; {r['bytes_built']:.0f} bytes/node "
              f"({r['bytes_after_backward']:.0f} after backward)")
    gc_ms = [s / n * 1e3 for s in ours["gc_per_gen"]]
    print(f"  ours: GC by generation {gc_ms[0]:.1f} / {gc_ms[1]:.1f} / {gc_ms[2]:.1f} "
          f"ms/step ({ours['gc_collections'][2] / n:.2f} full collections a step); "
          f"{ours['gc_off_step'] * 1e3:.1f} ms/step with the collector off")
    print(f"  ours is {t_pub / t_ours:.1f}x faster per step (target 25x)")
    return {"python": ours["python"], "published_ms": t_pub * 1e3, "ours_ms": t_ours * 1e3,
            "ratio": t_pub / t_ours, "bytes": ours["bytes_built"]}


def scaling(python, steps, plot=None):
    rows = []
    print(f"scaling (python {python}): ms per demo step and bytes per node, by points")
    print(f"  {'points':>6} {'nodes':>9} {'published ms':>13} {'ours ms':>9} {'ratio':>6} "
          f"{'ns/node ours':>12} {'bytes/node':>10}")
    for points in SCALING_POINTS:
        k = max(2, min(steps, 2 + 2000 // (points * 10)))  # more steps for small graphs
        pub = run_worker(python, "published", k, points)
        ours = run_worker(python, "ours", k, points)
        check_same_losses(pub, ours)
        row = {"points": points, "nodes": ours["nodes"], "published": mean_step(pub),
               "ours": mean_step(ours), "bytes_ours": ours["bytes_built"],
               "bytes_published": pub["bytes_built"]}
        rows.append(row)
        print(f"  {points:>6} {row['nodes']:>9,} {row['published'] * 1e3:>13.1f} "
              f"{row['ours'] * 1e3:>9.2f} {row['published'] / row['ours']:>6.1f} "
              f"{row['ours'] / row['nodes'] * 1e9:>12.0f} {row['bytes_ours']:>10.0f}")
    if plot:
        draw(rows, plot)
        print(f"  wrote {plot}")
    return rows


def draw(rows, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    nodes = [r["nodes"] for r in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    left.loglog(nodes, [r["published"] * 1e3 for r in rows], "o-",
                label="micrograd's published engine")
    left.loglog(nodes, [r["ours"] * 1e3 for r in rows], "o-", label="micrograd.engine")
    left.set_xlabel("nodes in the graph (1 to 1,000 demo points)")
    left.set_ylabel("ms per training step (CPU)")
    left.legend()
    left.grid(True, which="both", alpha=0.3)
    right.semilogx(nodes, [r["bytes_published"] for r in rows], "o-",
                   label="micrograd's published engine")
    right.semilogx(nodes, [r["bytes_ours"] for r in rows], "o-", label="micrograd.engine")
    right.axhline(100, color="gray", linestyle=":", label="100 bytes")
    right.set_xlabel("nodes in the graph")
    right.set_ylabel("bytes per node while the graph is alive")
    right.set_ylim(bottom=0)
    right.legend()
    right.grid(True, which="both", alpha=0.3)
    fig.suptitle("micrograd's demo step, each engine in its own process, cyclic GC on")
    fig.tight_layout()
    tmp = path + ".tmp.png"
    fig.savefig(tmp, dpi=100)
    plt.close(fig)
    os.replace(tmp, path)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=100,
                    help="demo steps per engine (default 100, the whole demo; the "
                         "published engine's steps slow down as its garbage piles up, "
                         "so fewer steps understate the ratio)")
    ap.add_argument("--python", action="append", metavar="EXE",
                    help="interpreter to run the workers with (repeatable; default: this one)")
    ap.add_argument("--scaling", action="store_true",
                    help="instead: time 1 to 1,000 points (650 to 650,000 nodes)")
    ap.add_argument("--plot", metavar="PNG", help="with --scaling: draw it to this file")
    ap.add_argument("--worker", choices=ENGINES, help=argparse.SUPPRESS)
    ap.add_argument("--points", type=int, default=POINTS, help=argparse.SUPPRESS)
    ap.add_argument("--gc-off-steps", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.steps < 2:
        ap.error("--steps must be at least 2 (the first step is a warm-up)")
    if args.worker:
        run = lambda: print(json.dumps(  # noqa: E731
            worker(args.worker, args.steps, args.points, args.gc_off_steps)))
        if args.points <= POINTS:
            return run()
        # bigger graphs: the published engine's recursive topological sort needs a deep
        # stack, as a user of it would have to give it
        sys.setrecursionlimit(max(sys.getrecursionlimit(), 100_000))
        threading.stack_size(512 * 1024 * 1024)
        t = threading.Thread(target=run)
        t.start()
        t.join()
        return
    pythons = args.python or [sys.executable]
    if args.scaling:
        scaling(pythons[0], args.steps, args.plot)
        return
    summary = [compare(py, args.steps) for py in pythons]
    if len(summary) > 1:
        print("\npython   published ms   ours ms   ratio   bytes/node")
        for s in summary:
            print(f"{s['python']:<8} {s['published_ms']:>12.1f} {s['ours_ms']:>9.1f} "
                  f"{s['ratio']:>6.1f}x {s['bytes']:>11.0f}")


if __name__ == "__main__":
    main()

"""Speed of the eager engine against the naive engine of the seeds, measured in one run.

    python benchmarks/engine.py              # all measurements, about a minute
    python benchmarks/engine.py --quick      # fewer repeats, about 20 s

(a) micrograd's demo loss graph: MLP(2, [16, 16, 1]) (relu hidden, linear last) over 100
    two-moons points (noise 0.1), max-margin loss ``(1 + -y*score).relu()`` averaged, plus
    ``1e-4 * sum(p*p)``: build + backward, in nodes per second;
(b) a chain of 100,000 ops (alternating ``* 0.9999`` and ``+ 0.001``): build + backward;
(c) one full demo training step: zero_grad, forward, backward, SGD update of every param.

For each it prints ours, the naive engine (``benchmarks/naive_engine.py``: a closure per
node, ``_prev = set(...)``, recursive topological sort) and the ratio. Each engine is
timed in its own block of back-to-back calls, so that it pays for its own garbage
collection and never for the other's, in CPU time of this process (the machine is
shared; ratios are what to read). It also prints how many GC collections run inside our
backward and the GC share of our step, bytes per node (tracemalloc, the graph of (a)
while alive), and checks that both engines give the same loss and the same gradients to
1e-12 relative.
"""

import argparse
import gc
import math
import os
import random
import sys
import threading
import time
import tracemalloc

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "src"))
sys.path.insert(0, HERE)

import naive_engine as naive  # noqa: E402

from micrograd import engine as ours  # noqa: E402
from micrograd.nn import MLP  # noqa: E402

CHAIN = 100_000


def make_moons(n=100, noise=0.1, seed=1):
    """Two interleaving half circles (as sklearn's make_moons), labels -1 / +1."""
    rng = random.Random(seed)
    n_out = n // 2
    n_in = n - n_out
    X, y = [], []
    for i in range(n_out):
        t = math.pi * i / (n_out - 1)
        X.append([math.cos(t), math.sin(t)])
        y.append(-1.0)
    for i in range(n_in):
        t = math.pi * i / (n_in - 1)
        X.append([1.0 - math.cos(t), 1.0 - math.sin(t) - 0.5])
        y.append(1.0)
    X = [[a + rng.gauss(0.0, noise), b + rng.gauss(0.0, noise)] for a, b in X]
    return X, y


def naive_copy(model):
    """A naive-engine MLP carrying the same weights as our ``model``."""
    twin = naive.MLP(2, [16, 16, 1])
    for p, q in zip(twin.parameters(), model.parameters(), strict=True):
        p.data = q.data
    return twin


def demo_loss(model, X, y, V):
    """micrograd's demo loss: mean max-margin loss plus 1e-4 L2, built with Value class V."""
    inputs = [[V(a), V(b)] for a, b in X]
    scores = [model(x) for x in inputs]
    losses = [(1 + -yi * si).relu() for yi, si in zip(y, scores)]
    data_loss = sum(losses) * (1.0 / len(losses))
    reg_loss = 1e-4 * sum(p * p for p in model.parameters())
    return data_loss + reg_loss


def chain(V, n=CHAIN):
    x0 = V(0.5)
    x = x0
    for _ in range(n // 2):
        x = x * 0.9999
        x = x + 0.001
    return x0, x


def steady_time(fn, repeats):
    """Mean seconds per call in a steady state: after a full collection and one warm-up
    call (untimed), ``repeats`` calls back to back. Each engine so pays for the garbage
    it makes itself (the naive engine's cycles are freed by the cyclic GC during its
    next calls), and never for the other engine's."""
    gc.collect()
    fn()
    t = time.process_time()  # CPU time of this process: other helpers' load stays out
    for _ in range(repeats):
        fn()
    return (time.process_time() - t) / repeats


def in_big_stack(fn):
    """Run fn in a thread with a large stack: the naive recursive topo sort needs it."""
    result = []
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, 10 * CHAIN))
    threading.stack_size(512 * 1024 * 1024)
    try:
        t = threading.Thread(target=lambda: result.append(fn()))
        t.start()
        t.join()
    finally:
        threading.stack_size(0)
        sys.setrecursionlimit(old)
    return result[0]


def close(a, b, rel=1e-12):
    return a == b or abs(a - b) <= rel * max(abs(a), abs(b))


def check_same(model, twin, X, y):
    for m in (model, twin):
        m.zero_grad()
    L1 = demo_loss(model, X, y, ours.Value)
    L1.backward()
    L2 = demo_loss(twin, X, y, naive.Value)
    L2.backward()
    bad = [(p.grad, q.grad) for p, q in zip(model.parameters(), twin.parameters())
           if not close(p.grad, q.grad)]
    if not close(L1.data, L2.data) or bad:
        raise SystemExit(f"MISMATCH: loss {L1.data!r} vs {L2.data!r}; grads {bad[:3]}")
    x0, c1 = chain(ours.Value)
    c1.backward()
    n0, c2 = in_big_stack(lambda: _naive_chain_backward())
    if not (close(c1.data, c2.data) and close(x0.grad, n0.grad)):
        raise SystemExit(f"MISMATCH on the chain: {c1.data!r} {x0.grad!r} vs "
                         f"{c2.data!r} {n0.grad!r}")
    return L1.data, len(ours._topo_order(L1))


def _naive_chain_backward():
    x0, x = chain(naive.Value)
    x.backward()
    return x0, x


def bytes_per_node(build, nodes):
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    graph = build()
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del graph
    gc.collect()
    return (after - before) / nodes


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer repeats")
    args = ap.parse_args(argv)
    reps, rounds = (3, 1) if args.quick else (5, 3)

    X, y = make_moons()
    model = MLP(2, [16, 16, 1], activation="relu", output_activation="linear",
                bias_init="zero", seed=1337)
    twin = naive_copy(model)
    loss, nodes = check_same(model, twin, X, y)
    print(f"numbers agree to 1e-12 relative (demo loss {loss:.12f}, chain)")
    chain_nodes = len(ours._topo_order(chain(ours.Value)[1]))
    print(f"python {sys.version.split()[0]}; demo graph {nodes} nodes; chain {CHAIN} ops "
          f"({chain_nodes} nodes with its constants); mean of {reps} calls in a steady "
          f"state, best of {rounds} alternating blocks per engine")

    def graph_ours():
        model.zero_grad()
        demo_loss(model, X, y, ours.Value).backward()

    def graph_naive():
        twin.zero_grad()
        demo_loss(twin, X, y, naive.Value).backward()

    def chain_ours():
        chain(ours.Value)[1].backward()

    def chain_naive():
        in_big_stack(lambda: chain(naive.Value)[1].backward())

    def step(m, V):
        def run():
            m.zero_grad()
            demo_loss(m, X, y, V).backward()
            for p in m.parameters():
                p.data -= 0.01 * p.grad
        return run

    rows = [("(a) demo loss graph, build+backward", graph_ours, graph_naive, nodes),
            ("(b) 100,000-op chain, build+backward", chain_ours, chain_naive, chain_nodes),
            ("(c) demo training step", step(model, ours.Value), step(twin, naive.Value),
             None)]
    for name, f_ours, f_naive, n in rows:
        t_ours = t_naive = math.inf
        for _ in range(rounds):  # alternate blocks, keep each engine's best block
            t_ours = min(t_ours, steady_time(f_ours, reps))
            t_naive = min(t_naive, steady_time(f_naive, reps))
        extra = (f"  ours {n / t_ours:,.0f} nodes/s, naive {n / t_naive:,.0f} nodes/s"
                 if n else f"  ours {t_ours * 1e3:.1f} ms, naive {t_naive * 1e3:.1f} ms")
        print(f"{name}: {t_naive / t_ours:.2f}x faster{extra}")

    # The cyclic GC: how many collections run inside our backward (it allocates no
    # tracked object per node, so none should), and the share of a step it costs.
    collections = []

    def count(phase, info):
        if phase == "start":
            collections.append(info["generation"])

    L = demo_loss(model, X, y, ours.Value)
    gc.callbacks.append(count)
    try:
        L.backward()
    finally:
        gc.callbacks.remove(count)
    del L
    t_on = min(steady_time(rows[2][1], reps) for _ in range(rounds))
    gc.disable()
    try:
        t_off = min(steady_time(rows[2][1], reps) for _ in range(rounds))
    finally:
        gc.enable()
    print(f"cyclic GC: {len(collections)} collections during our backward; our step "
          f"{t_on * 1e3:.1f} ms, {t_off * 1e3:.1f} ms with gc.disable() "
          f"({1 - t_off / t_on:.0%} of a step is GC scanning the live graph)")

    b_ours = bytes_per_node(lambda: demo_loss(model, X, y, ours.Value), nodes)
    b_naive = bytes_per_node(lambda: demo_loss(twin, X, y, naive.Value), nodes)
    print(f"bytes per node (graph (a) alive): ours {b_ours:.0f}, naive {b_naive:.0f}")


if __name__ == "__main__":
    main()

"""Big inputs, timed against a baseline of the same run: a million-op chain's backward
against a chain ten times shorter, a megabyte expression's refusal against reading the
longest text the cap lets through, and the layout of a 300-node graph against building
that graph. The tests count these (each node once, the cap before the first character,
a fixed number of layout passes); the times are here.

    python benchmarks/big_inputs.py [--rounds 3] [--only chain|expr|layout]

CPU time of this process (``time.process_time``), the median of ``--rounds`` rounds and
[smallest-largest]; the load average at the start and the end (the machine may be
shared: the ratios are what to read).

* chain: ``backward()`` of ``x = x + c`` repeated 1e5 and 1e6 times; the ratio is 10
  for a linear backward, 100 for a quadratic one;
* expr: ``parse`` refusing ``"a" * 2**20`` against ``tokenize`` of a 100,000-character
  expression (``MAX_LENGTH``: what the cap still reads) and ``parse`` of it (the
  node cap lifted: 20,000-odd nodes);
* layout: ``viz.layout`` of a 2-9-1 MLP's squared loss over 4 points (300-odd nodes)
  against building that loss and its ``backward()``.
"""

import argparse
import functools
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "src"))

from micrograd import viz  # noqa: E402
from micrograd.engine import Value  # noqa: E402
from micrograd.expr import MAX_LENGTH, ExprError, parse, tokenize  # noqa: E402
from micrograd.nn import MLP  # noqa: E402


def load():
    try:
        return "%.2f %.2f %.2f" % os.getloadavg()
    except OSError:
        return "unknown"


def cpu(fn):
    """(CPU seconds of ``fn()``, its result)."""
    t0 = time.process_time()
    out = fn()
    return time.process_time() - t0, out


def chain_backward(n):
    x0, c = Value(0.0), Value(1e-6)
    x = x0
    for _ in range(n):
        x = x + c
    dt, _ = cpu(x.backward)
    if (x0.grad, c.grad) != (1.0, float(n)):
        raise SystemExit(f"wrong grads on a chain of {n}")
    return dt


def refuse(text):
    try:
        parse(text)
    except ExprError:
        return
    raise SystemExit("a megabyte was not refused")


def longest_accepted():
    """An expression of exactly MAX_LENGTH characters: a sum of terms over one leaf."""
    head, term = "a = 0.5; b = a", " + a*1.25"
    text = head + term * ((MAX_LENGTH - len(head)) // len(term))
    return text + " " * (MAX_LENGTH - len(text))


def mlp_loss():
    m = MLP(2, [9, 1], seed=0)
    xs = [[2.0, 3.0], [3.0, -1.0], [0.5, 1.0], [1.0, 1.0]]
    ys = [1.0, -1.0, -1.0, 1.0]
    loss = sum(((m([Value(a), Value(b)]) - y) ** 2 for (a, b), y in zip(xs, ys)), Value(0.0))
    loss.backward()
    return loss


def row(name, xs, unit="ms", scale=1e3):
    xs = [x * scale for x in xs]
    print(f"  {name:44s} {statistics.median(xs):9.3f} {unit} "
          f"[{min(xs):.3f}-{max(xs):.3f}]")
    return statistics.median(xs)


def ratio(name, a, b):
    print(f"  {name:44s} {a / b:9.3f}x")


def chain(rounds):
    small, big = [], []
    for _ in range(rounds):
        small.append(chain_backward(100_000))
        big.append(chain_backward(1_000_000))
    print("chain: x = x + c, backward()")
    a = row("1e5 ops", small)
    b = row("1e6 ops", big)
    ratio("ratio (1e6 / 1e5; linear: 10)", b, a)


def expr(rounds):
    text, megabyte = longest_accepted(), "a" * (1 << 20)
    refused, tok, full = [], [], []
    for _ in range(rounds):
        refused.append(cpu(lambda: refuse(megabyte))[0])
        tok.append(cpu(lambda: tokenize(text))[0])
        full.append(cpu(lambda: parse(text, max_nodes=10**6))[0])
    print(f"expr: a megabyte refused, against {MAX_LENGTH:,} characters read")
    a = row("refuse 1,048,576 characters", refused, "us", 1e6) / 1e3
    b = row(f"tokenize {MAX_LENGTH:,} characters", tok)
    c = row(f"parse {MAX_LENGTH:,} characters (no node cap)", full)
    ratio("ratio (refusal / tokenize)", a, b)
    ratio("ratio (refusal / parse)", a, c)


def layout(rounds):
    build, lay, nodes = [], [], 0
    for _ in range(rounds):
        dt, loss = cpu(mlp_loss)
        build.append(dt)
        dt, drawn = cpu(functools.partial(viz.layout, loss))
        lay.append(dt)
        nodes = len(drawn.nodes)
    print(f"layout: the MLP loss, {nodes} nodes")
    a = row("build the loss and backward()", build)
    b = row("viz.layout", lay)
    ratio("ratio (layout / build)", b, a)


PARTS = {"chain": chain, "expr": expr, "layout": layout}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", choices=sorted(PARTS))
    args = ap.parse_args(argv)
    if args.rounds < 1:
        ap.error("--rounds must be at least 1")
    print(f"load average at start: {load()}  (Python {sys.version.split()[0]})")
    for name, part in PARTS.items():
        if args.only in (None, name):
            part(args.rounds)
    print(f"load average at end: {load()}")


if __name__ == "__main__":
    main()

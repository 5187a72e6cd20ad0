"""``micrograd demo``: the worked example of the lecture (placeholder until training lands)."""

from __future__ import annotations


def add_parser(subparsers):
    p = subparsers.add_parser("demo", help="run the worked example and print its numbers",
                              description=__doc__)
    p.set_defaults(func=run)
    return p


def run(args):
    from ..engine import Value

    a, b, c, f = Value(2.0, label="a"), Value(-3.0, label="b"), Value(10.0, label="c"), \
        Value(-2.0, label="f")
    e = a * b
    d = e + c
    L = d * f
    L.backward()
    print(f"L = (a*b + c)*f = {L.data}")
    print("grads:", a.grad, b.grad, c.grad, f.grad)
    return 0

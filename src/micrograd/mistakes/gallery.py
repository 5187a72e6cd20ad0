"""The entries of the gallery: each runs the learner's code, the engine, and a check.

A trial (``run_<key>``, an entry's ``trial``) builds its example graph (``learner.py``'s
builders, written once for any Value class) on the learner's engine and on
``micrograd.engine``, runs the mistake, and returns a ``Result``. PyTorch takes part
where its behaviour is the point (a second ``backward()``, a negative base), when it is
installed; it is imported only then.
"""

from __future__ import annotations

import sys

from ..engine import Value
from . import learner as L
from .record import (
    Outcome,
    Raised,
    Result,
    central_differences,
    describe,
    number,
    point_of,
    right,
    run_graph,
)

#: the engines an outcome can run on (``Outcome.runs_on``)
LEARNER = "the learner's engine"
PUBLISHED = "micrograd's published engine"  # the lecture's, = LectureValue
#: the mistake's code run on this package's engine (``micrograd.engine``): not to be read
#: as that engine done right (``record.RIGHT``)
OURS = "the mistake's code on this package's engine"
TORCH = "PyTorch (float64)"
FIXED = "the learner's code, fixed"

#: what the facts say where PyTorch is missing (a browser's Python has none to install)
TORCH_MISSING = ("not in a browser's Python: `micrograd serve` or notebook 09 shows it, "
                 "with PyTorch installed" if sys.platform == "emscripten" else
                 "not installed: pip install 'torch==2.13.0' to see it")


def _on(cls, build):
    """``build`` on the Value class ``cls``."""
    return lambda **point: build(cls, **point)


def _torch():
    try:
        import torch
    except ImportError:
        return None
    return torch


def _on_torch(torch, build):
    def leaf(x):
        return torch.tensor(float(x), dtype=torch.float64, requires_grad=True)
    return lambda **point: build(leaf, **point)


def _result(build, learner, fixed=None, facts=None, **point):
    """The usual result: the learner's outcomes, ``micrograd.engine``'s one backward()
    and central differences at the same point."""
    return Result(describe(build, **point), learner, right(build, **point),
                  central_differences(build, **point), fixed, facts or {})


# ---------------------------------------------------------------------------------------
# The mistakes in the engine
# ---------------------------------------------------------------------------------------


def run_assign():
    build = L.square
    return _result(build, [run_graph(LEARNER, _on(L.AssignValue, build))],
                   fixed=run_graph(FIXED, _on(L.LectureValue, build)))


def run_recursive_backward():
    build = L.twice_reused
    return _result(build, [run_graph(LEARNER, _on(L.RecursiveValue, build))],
                   fixed=run_graph(FIXED, _on(L.LectureValue, build)))


def run_radd_recursion():
    build = L.one_plus_square
    return _result(build, [run_graph(LEARNER, _on(L.BadRaddValue, build))],
                   fixed=run_graph(FIXED, _on(L.LectureValue, build)),
                   facts={"recursion limit": sys.getrecursionlimit()})


def run_pow_exponent():
    build = L.power
    learner = [run_graph("the lecture's engine", _on(L.LectureValue, build)),
               run_graph(LEARNER, _on(L.ValuePowValue, build))]
    return _result(build, learner, fixed=run_graph(FIXED, _on(L.LogPowValue, build)))


def run_pow_negative_base():
    build, point = L.power, {"a": -2.0, "b": 3.0}
    learner = [run_graph(LEARNER, _on(L.LogPowValue, build), **point),
               run_graph(OURS, _on(Value, build), **point)]
    torch = _torch()
    if torch is not None:
        learner.append(run_graph(TORCH, _on_torch(torch, build), **point))
    facts = {"Python's (-8.0) ** (1/3)": number((-8.0) ** (1 / 3)),
             "micrograd.engine's Value(-8.0) ** Value(1/3)": (Value(-8.0) ** Value(1 / 3)).data}
    if torch is not None:
        t = torch.tensor(-8.0, dtype=torch.float64) ** torch.tensor(1 / 3, dtype=torch.float64)
        facts["PyTorch's tensor(-8.0) ** tensor(1/3)"] = number(t)
    else:
        facts["PyTorch"] = TORCH_MISSING
    return _result(build, learner, fixed=run_graph(FIXED, _on(L.LectureValue, L.cube)),
                   facts=facts, **point)


def run_deep_recursive_topo():
    limit = sys.getrecursionlimit()
    build, depth = L.chain, 2 * limit
    learner = [run_graph(PUBLISHED, _on(L.LectureValue, build), depth=depth)]
    facts = {"recursion limit": limit,
             "shallowest depth that fails": _first_failing_depth(2 * limit)}
    return _result(build, learner, facts=facts, depth=depth,
                   fixed=run_graph(FIXED, _on(L.IterativeValue, build), depth=depth))


def _first_failing_depth(hi):
    """The smallest depth of ``chain`` whose lecture backward() raises RecursionError
    (bisection: a chain that fails, every deeper one fails too)."""
    def fails(depth):
        return run_graph("", _on(L.LectureValue, L.chain), depth=depth).raised
    lo = 1
    if not fails(hi):
        return f"none up to {hi}"
    while lo < hi:
        mid = (lo + hi) // 2
        if fails(mid):
            hi = mid
        else:
            lo = mid + 1
    return lo


# ---------------------------------------------------------------------------------------
# The mistakes made with a working engine
# ---------------------------------------------------------------------------------------


def run_no_zero_grad():
    build = L.lecture_L
    learner = [run_graph(PUBLISHED, _on(L.LectureValue, build), L.backward_twice),
               run_graph(OURS, _on(Value, build), L.backward_twice)]
    facts = {}
    torch = _torch()
    if torch is not None:
        learner.append(run_graph(f"{TORCH}, retain_graph=True",
                                 _on_torch(torch, build), L.backward_retained_twice))
    else:
        facts["PyTorch"] = TORCH_MISSING
    return _result(build, learner, facts=facts,
                   fixed=run_graph(FIXED, _on(Value, build), L.zero_grad_between))


def run_backward_twice():
    build = L.neuron
    learner = [run_graph(PUBLISHED, _on(L.LectureValue, build), L.backward_twice),
               run_graph(OURS, _on(Value, build), L.backward_twice)]
    facts = {}
    torch = _torch()
    if torch is not None:
        learner.append(run_graph(TORCH, _on_torch(torch, build), L.backward_twice))
        learner.append(run_graph(f"{TORCH}, retain_graph=True",
                                 _on_torch(torch, build), L.backward_retained_twice))
    else:
        facts["PyTorch"] = TORCH_MISSING
    return _result(build, learner, facts=facts)


def run_draw_before_backward():
    from ..viz.digraph import draw_dot

    build = L.lecture_L
    before = _drawn(build, L.draw_then_backward, draw_dot, "the drawing made first")
    after = _drawn(build, L.backward_then_draw, draw_dot, FIXED)
    return _result(build, [before[0]], fixed=after[0], facts={"the drawing's note": before[1]})


def _drawn(build, act, draw_dot, runs_on):
    """The grads the picture shows (not the Values' grads), and its note."""
    root, leaves = build(Value)
    for name, v in leaves.items():
        v.label = name
    picture = act(root, draw_dot)
    nodes = picture.to_dict()["nodes"]
    shown = {n["label"]: n["grad"] for n in nodes if n["label"] in leaves}
    return Outcome(runs_on, number(root.data), shown), picture.note or ""


def run_sum_from_zero():
    build = L.three_terms
    learner = [run_graph("the engine without __radd__", _on(L.NoRaddValue, build)),
               run_graph(OURS, _on(Value, build))]
    root = build(Value)[0]
    facts = {"nodes of sum(terms)": _count(root),
             "nodes of sum(terms[1:], terms[0])": _count(_sum_from_first(build))}
    return _result(build, learner, fixed=run_graph(FIXED, _on(L.LectureValue, build)),
                   facts=facts)


def _sum_from_first(build):
    a, b, c = (Value(x) for x in point_of(build).values())
    terms = [a * a, b * c, c]
    return sum(terms[1:], terms[0])


def _count(root):
    seen, stack = set(), [root]
    while stack:
        v = stack.pop()
        if v not in seen:
            seen.add(v)
            stack.extend(v._prev)
    return len(seen)


__all__ = ["LEARNER", "PUBLISHED", "OURS", "TORCH", "FIXED", "Raised"]

"""The walk as the page sees it: one JSON document per graph, built on micrograd's own
graph modules, so every number and position comes from the engine:

* ``micrograd.expr`` parses the text (a safe language, never ``eval``) into Values;
* ``micrograd.viz.to_dict`` lays the graph out (records, op nodes, edge polylines);
* ``micrograd.walk`` produces the forward and backward step events, the teaching modes,
  the visit-order experiment with its lost contributions, and the nudge check.

This module only reshapes them for the page (one list of steps; each backward step with
its ``grad[p] += upstream * local`` updates) and applies leaf edits: the leaf's ``data``
is set and every node is recomputed (``micrograd.expr.evaluate(..., override=True)``).

    >>> from micrograd.web.walkview import build, PRESETS
    >>> view = build(PRESETS["lecture"].source)
    >>> {n["name"]: n["grad"] for n in view["nodes"] if n["leaf"]}
    {'a': 6.0, 'b': -4.0, 'c': -2.0, 'f': 4.0}
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .. import expr as _expr
from .. import viz as _viz
from .. import walk as _walk
from ..expr import FUNCTIONS
from ..walk import WalkError
from . import limits
from .numbers import num

__all__ = ["build", "visit_order", "nudge", "PRESETS", "FUNCTIONS", "WalkViewError"]


class WalkViewError(ValueError):
    """A request the walk refuses (bad expression, unknown leaf, over a cap)."""


@dataclass(frozen=True)
class Preset:
    key: str
    title: str
    source: str


PRESETS = {p.key: p for p in [
    Preset("sum_times", "(a + b) * c", "a = 2; b = -3; c = 10; e = a + b; f = e * c"),
    Preset("lecture", "L = (a*b + c) * f",
           "a = 2; b = -3; c = 10; f = -2; e = a * b; d = e + c; L = d * f"),
    Preset("neuron", "tanh neuron",
           "x1 = 2; x2 = 0; w1 = -3; w2 = 1; b = 6.8813735870195432; "
           "x1w1 = x1 * w1; x2w2 = x2 * w2; x1w1x2w2 = x1w1 + x2w2; n = x1w1x2w2 + b; "
           "o = tanh(n)"),
    Preset("square", "a * a", "a = 3; f = a * a"),
    Preset("diamond", "diamond: b = a + 1, c = a * 3, d = b * c",
           "a = 2; b = a + 1; c = a * 3; d = b * c"),
]}


def _num(x):
    """A number for JSON; viz/walk numbers already are (non-finite ones as strings)."""
    return x if isinstance(x, str) else num(x)


class _Graph:
    """The parsed graph, its layout (viz), and its editable leaves."""

    def __init__(self, source, values=None):
        if not isinstance(source, str):
            raise WalkViewError("the expression must be text")
        if len(source) > limits.MAX_EXPR_CHARS:
            raise WalkViewError(f"the expression is {len(source)} characters long; the cap "
                                f"is {limits.MAX_EXPR_CHARS}")
        try:
            # values edit the labelled leaves (unknown names refused), as `micrograd graph
            # --values` does: one mechanism, in micrograd.expr
            prog = _expr.evaluate(source, values or None, override=True,
                                  max_length=limits.MAX_EXPR_CHARS,
                                  max_depth=limits.MAX_EXPR_DEPTH,
                                  max_nodes=limits.MAX_GRAPH_NODES)
        except ValueError as err:  # an ExprError, or a value for a name that is no leaf
            raise WalkViewError(str(err)) from None
        self.root = prog.root
        nodes, _ = _viz.trace(self.root)
        if len(nodes) > limits.MAX_GRAPH_NODES:
            raise WalkViewError(f"the graph has {len(nodes)} nodes; the cap is "
                                f"{limits.MAX_GRAPH_NODES}")
        # editable leaves: the labelled leaves a value can edit (micrograd.expr.leaves)
        # (in the graph's node order, as the page lists them)
        editable = {id(v) for v in _expr.leaves(self.root).values()}
        self.leaves = {n.value.label: n for n in nodes if id(n.value) in editable}
        self.layout = _viz.to_dict(self.root)


def _updates(step, assign):
    """A walk step's contributions as the page's updates."""
    if step["kind"] == "seed":
        return [{"node": step["node"], "from": None, "edge": None, "seed": True,
                 "upstream": None, "local": None, "contribution": _num(1.0),
                 "before": None, "after": _num(step["upstream"]), "op": "="}]
    return [{"node": c["parent"], "from": step["node"], "edge": c["edge"], "seed": False,
             "upstream": _num(c["upstream"]), "local": _num(c["local"]),
             "contribution": _num(c["contribution"]), "before": _num(c["grad_before"]),
             "after": _num(c["grad_after"]), "op": "=" if assign else "+=",
             "lost": bool(c["lost"])} for c in step["contributions"]]


def _backward(w, assign=False):
    out = []
    for s in w["backward"]:
        label = f" [pass {s['pass']}]" if w["passes"] > 1 else ""
        out.append({"phase": "backward", "node": s["node"], "text": s["text"] + label,
                    "updates": _updates(s, assign)})
    if len(out) > limits.MAX_STEPS:
        raise WalkViewError(f"this walk has {len(out)} steps; the cap is {limits.MAX_STEPS}")
    return out


def _walk_dict(root, **kwargs):
    try:
        return _walk.walk(root, **kwargs).to_dict()
    except WalkError as err:
        raise WalkViewError(str(err)) from None


def build(source, values=None, *, assign=False, recursive=False, no_zero_grad=False,
          title=""):
    """The page's document for one graph: layout, leaves, steps, final and true grads."""
    modes = [m for m, on in (("assign", assign), ("recursive", recursive),
                             ("no_zero_grad", no_zero_grad)) if on]
    if len(modes) > 1:
        raise WalkViewError("choose one teaching mode at a time (got "
                            f"{' and '.join(modes)})")
    mode = modes[0] if modes else "correct"
    g = _Graph(source, values)
    w = _walk_dict(g.root, mode=mode)
    lay = g.layout
    nodes = []
    for n in lay["nodes"]:
        nodes.append({"id": n["id"], "name": n["name"], "label": n["label"],
                      "op": n["op"] or "", "leaf": n["leaf"],
                      "const": n["leaf"] and not n["label"], "box": n["box"],
                      "op_box": n["op_box"], "op_edge": n["op_edge"],
                      "cells": n["cells"],
                      "data": _num(n["data"]), "grad": _num(w["grads"][n["id"]]),
                      "true_grad": _num(w["expected"][n["id"]])})
    edges = [{"id": e["id"], "src": e["src"], "dst": e["dst"], "index": e["index"],
              "local": _num(e["local"]), "points": e["points"],
              "rule": _rule(lay, e)} for e in lay["edges"]]
    forward = [{"phase": "forward", "node": s["node"], "data": _num(s["value"]),
                "text": s["text"], "updates": []} for s in w["forward"]]
    notes = [] if w["ok"] else list(w["summary"])
    return {"title": title, "source": source.strip(), "mode": mode, "root": lay["root"],
            "width": lay["width"], "height": lay["height"], "nodes": nodes, "edges": edges,
            "leaves": [{"id": n.id, "name": name, "value": _num(n.value.data)}
                       for name, n in g.leaves.items()],
            "reverse_topo": [n["id"] for n in reversed(lay["nodes"])
                             if not (n["leaf"] and not n["label"])],
            "steps": forward + _backward(w, assign=(mode == "assign")), "notes": notes}


_RULES = {
    "add": "addition copies the upstream grad: d(x + y)/dx = d(x + y)/dy = 1",
    "mul": "multiplication swaps: d(x*y)/dx = y, d(x*y)/dy = x",
    "pow": "d(x**y)/dx = y*x**(y-1), d(x**y)/dy = x**y * log(x)",
    "powc": "d(x**n)/dx = n * x**(n-1)",
    "exp": "d exp(x)/dx = exp(x) = out", "log": "d log(x)/dx = 1/x",
    "tanh": "d tanh(x)/dx = 1 - tanh(x)**2 = 1 - out**2",
    "sigmoid": "d sigmoid(x)/dx = out * (1 - out)",
    "relu": "d relu(x)/dx = 1 if x > 0 else 0", "abs": "d |x|/dx = sign(x), 0 at 0",
    "sqrt": "d sqrt(x)/dx = 1 / (2 sqrt(x))", "softplus": "d softplus(x)/dx = sigmoid(x)",
    "sin": "d sin(x)/dx = cos(x)", "cos": "d cos(x)/dx = -sin(x)",
}


def _rule(lay, e):
    dst = next(n for n in lay["nodes"] if n["id"] == e["dst"])
    return _RULES.get(dst["op_key"] or "", "")


def visit_order(source, order, values=None):
    """The visit-order experiment: walk backward in the user's order (node ids)."""
    if len(order) > limits.MAX_ORDER_LEN:
        raise WalkViewError(f"the order has {len(order)} entries; the cap is "
                            f"{limits.MAX_ORDER_LEN}")
    g = _Graph(source, values)
    ids = {n["id"] for n in g.layout["nodes"]}
    for nid in order:
        if nid not in ids:
            raise WalkViewError(f"unknown node {nid!r} in the order (nodes: "
                                f"{', '.join(sorted(ids, key=lambda s: int(s[1:])))})")
    if len(set(order)) != len(order):
        raise WalkViewError("a node appears twice in the order")
    w = _walk_dict(g.root, order=list(order))
    lost = [{"node": x["node"], "via": x["source"], "edge": x["edge"],
             "missing": _num(x["amount"]), "reason": x["text"]} for x in w["lost"]]
    if w["ok"]:
        message = ("every node was visited after all of its users: the grads are right ("
                   + ", ".join(f"grad[{n}] = {_short(w['grads'][g.leaves[n].id])}"
                               for n in g.leaves) + ")")
    else:
        message = "\n".join(w["summary"] + [
            "the fix: visit every node after all the nodes that use it (reverse "
            "topological order)"])
    return {"ok": w["ok"], "message": message, "steps": _backward(w), "lost": lost,
            "never_visited": [w["names"][i] for i in w["unvisited"]],
            "grads": {k: _num(v) for k, v in w["grads"].items()},
            "true_grads": {k: _num(v) for k, v in w["expected"].items()}}


def _short(x):
    return f"{x:.6g}" if isinstance(x, float) and math.isfinite(x) else str(x)


def nudge(source, leaf, h=1e-4, values=None):
    """The central finite-difference slope at a leaf, beside the leaf's grad."""
    g = _Graph(source, values)
    if leaf not in g.leaves:
        raise WalkViewError(f"no leaf named {leaf!r} (leaves: {', '.join(g.leaves)})")
    try:
        r = _walk.nudge(g.root, g.leaves[leaf].id, h=h, central=True).to_dict()
    except (WalkError, ValueError) as err:
        raise WalkViewError(str(err)) from None
    slope, grad = r["slope"], r["grad"]
    diff = slope - grad if isinstance(slope, float) and isinstance(grad, float) else math.nan
    return {"leaf": leaf, "h": r["h"], "f_minus": _num(r["f0"]), "f_plus": _num(r["f1"]),
            "slope": _num(slope), "grad": _num(grad), "difference": _num(diff),
            "ok": bool(r["ok"]), "text": r["text"]}

"""The forward and backward pass as steps, for teaching (the lecture's walk-it-backward widget).

    >>> from micrograd.engine import Value
    >>> from micrograd.walk import walk
    >>> a, b, c = Value(2.0, label="a"), Value(-3.0, label="b"), Value(10.0, label="c")
    >>> e = a + b; e.label = "e"; f = e * c; f.label = "f"
    >>> w = walk(f)
    >>> print(w.backward[1].text)
    visit f = e*c: grad[e] += 1 * 10 = 10; grad[c] += 1 * (-1) = -1
    >>> w.grads["n0"]          # grad[a]
    10.0

Every step is a dataclass; ``micrograd.wire.encode`` (also ``to_dict()``) makes it
JSON-ready, and the web API sends exactly that (the shapes are in docs/graphs.md). Each
number that a graph record shows also comes as the record's text (``cell``:
``'grad 6.0000'``), so a page draws the walk without formatting numbers itself. Node and
edge ids are the JSON layout's, so a page can light up the drawing step by step. The walk
never touches the Values' ``grad``: it sweeps on its own table, in every mode.

Modes (``walk(root, mode=...)``): ``'correct'``, the engine's reverse sweep
(``chain_rule.sweep_steps``) in reverse topological order, and the classic mistakes
``'assign'`` (``=`` instead of ``+=``), ``'recursive'`` (no topological sort) and
``'no_zero_grad'`` (``passes`` passes, default 2, without zeroing), each run by
``micrograd.walk_modes`` with the numbers the mistake gives in real life.

``walk(root, order=[...])`` walks in a visit order given by the user and reports the
contributions that were lost: visiting a node means its gradient is final (an interior
node pushes it to its inputs; for a leaf it is the number handed over, as an optimizer
stepping inside the backward pass would read it), so a deposit into a node that has
already been visited is lost, and so is the gradient of a node that is never visited.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field

from . import ops, walk_modes
from .chain_rule import contributions_at, sweep, sweep_steps
from .graph import describe_op, fmt, fmt4, nodes_and_edges
from .wire import encode

MODES = tuple(walk_modes.BY_MODE)  # "correct", "assign", "recursive", "no_zero_grad"
MAX_VISITS = 10000  # the recursive mode can visit a node once per path: exponential


class WalkError(ValueError):
    """A visit order or a mode that cannot be walked (unknown name, duplicate, ...)."""


def _cell(kind, x):
    """A record's cell as the drawing shows it: ``'data 2.0000'``, ``'grad 6.0000'``."""
    return f"{kind} {fmt4(x)}"


class _Wire:
    def to_dict(self):
        """JSON-ready (``micrograd.wire.encode``): what the web API sends."""
        return encode(self)


def _par(x):
    s = fmt(x)
    return f"({s})" if s.startswith("-") else s


# ---------------------------------------------------------------------------------------
# Step events
# ---------------------------------------------------------------------------------------


@dataclass
class ForwardStep(_Wire):
    """One op of the forward pass: ``node`` = op(``inputs``) = ``value``."""

    step: int
    node: str
    name: str
    op: str
    inputs: list[str]
    input_names: list[str]
    input_values: list[float]
    value: float
    text: str
    cell: str  # the node's data as its record shows it
    kind: str = "forward"


@dataclass
class Contribution(_Wire):
    """What one input edge receives at a visit: ``grad[parent] += upstream * local``."""

    edge: str
    parent: str
    parent_name: str
    index: int
    local: float
    upstream: float
    contribution: float
    grad_before: float
    grad_after: float
    lost: bool = False  # the parent had already been visited: this deposit is lost
    text: str = ""
    cell: str = ""  # grad_after as the parent's record shows it


@dataclass
class BackwardStep(_Wire):
    """``kind='seed'`` sets the root's grad; ``kind='visit'`` pushes a node's grad.

    ``head`` names the visit (``'visit d = e + c'``), ``text`` is the whole sentence with
    every contribution, ``cell`` the node's grad as its record shows it."""

    kind: str
    step: int
    node: str
    name: str
    op: str | None
    upstream: float
    contributions: list[Contribution] = field(default_factory=list)
    text: str = ""
    pass_: int = 1
    head: str = ""
    cell: str = ""


@dataclass
class Lost(_Wire):
    """A contribution that never arrived where it should have.

    ``reason='late'``: ``source`` deposited ``amount`` into ``node`` after ``node`` had
    been visited (at step ``visited_at``; the deposit came at step ``arrived_at``).
    ``reason='unvisited'``: ``source`` was never visited, so ``amount`` never reached its
    input ``node``. ``path`` is the ids from the root down to ``node`` along which the
    lost gradient flows.
    """

    reason: str
    node: str
    name: str
    source: str
    source_name: str
    edge: str
    amount: float
    visited_at: int | None
    arrived_at: int | None
    path: list[str]
    text: str


@dataclass
class WalkResult(_Wire):
    """What ``walk()`` returns: forward and backward steps, resulting and expected grads.

    ``ok`` (every grad equals the correct one), ``notes`` (what went wrong, or 'every
    grad is correct') and ``grad_cells`` (each final grad as its record shows it) are
    computed from the others when the walk is made."""

    mode: str
    root: str
    order: list[str]  # ids in visit order (a node can repeat in the recursive mode)
    forward: list[ForwardStep]
    backward: list[BackwardStep]
    grads: dict[str, float]  # id -> the grad this walk ends with (module docstring)
    expected: dict[str, float]  # id -> the correct grad (reverse topological order, +=)
    names: dict[str, str]  # id -> display name
    lost: list[Lost] = field(default_factory=list)
    unvisited: list[str] = field(default_factory=list)
    passes: int = 1
    custom_order: bool = False  # the visit order was given by the user
    said: dict[str, str] = field(default_factory=dict)  # id -> its name in sentences
    ok: bool = field(init=False)
    notes: list[str] = field(init=False)
    grad_cells: dict[str, str] = field(init=False)

    def __post_init__(self):
        self.ok = all(_same(self.grads[k], self.expected[k]) for k in self.expected)
        self.notes = self.summary()
        self.grad_cells = {k: _cell("grad", v) for k, v in self.grads.items()}

    def wrong(self):
        """``[(id, got, expected)]`` for every node whose grad is not the correct one."""
        return [(k, self.grads[k], self.expected[k]) for k in self.expected
                if not _same(self.grads[k], self.expected[k])]

    def grad(self, name):
        """The grad of the node with this label (or id)."""
        return self.grads[_resolve(name, self.names)]

    def summary(self):
        lines = []
        for lost in self.lost:
            lines.append("LOST: " + lost.text)
        for k, got, exp in self.wrong():
            name = self.said.get(k, self.names[k])
            lines.append(f"wrong: grad[{name}] = {fmt(got)}, correct {fmt(exp)}")
        if not lines:
            lines.append("every grad is correct")
        return lines


def _same(a, b):
    return a == b or (a != a and b != b) or (math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-300))


# ---------------------------------------------------------------------------------------
# The graph, in the walk's terms
# ---------------------------------------------------------------------------------------


class _Graph:
    def __init__(self, root):
        self.nodes, self.edges = nodes_and_edges(root)
        self.by_id = {n.id: n for n in self.nodes}
        self.in_edges = {n.id: [] for n in self.nodes}
        self.out_edges = {n.id: [] for n in self.nodes}
        for e in self.edges:
            self.in_edges[e.dst].append(e)
            self.out_edges[e.src].append(e)
        self.root = self.nodes[-1].id
        self.names = _display_names(self.nodes)
        # in sentences a constant is named by its value as such: grad[constant 3], not grad[3]
        self.said = {n.id: f"constant {n.name}" if n.leaf and not n.label else self.names[n.id]
                     for n in self.nodes}
        self.values = [n.value for n in self.nodes]  # every node after its inputs
        self.id_of = {n.value: n.id for n in self.nodes}

    def describe(self, nid):
        nd = self.by_id[nid]
        name = self.said[nid]
        if nd.leaf:
            return f"{name} (leaf)"
        return f"{name} = {describe_op(nd, self.names)}"

    def path_to_root(self, nid, via=None):
        """Ids from the root down to ``nid`` (through ``via`` if given)."""
        path = [nid]
        cur = via if via is not None else nid
        if via is not None:
            path.append(via)
        while cur != self.root and self.out_edges[cur]:
            cur = self.out_edges[cur][0].dst
            path.append(cur)
        return path[::-1]


def _display_names(nodes):
    """Labels where they exist, constants as numbers, the rest by id; labels used by
    more than one node get the id appended (``a#n4``)."""
    count = {}
    for n in nodes:
        if n.label:
            count[n.label] = count.get(n.label, 0) + 1
    names = {}
    for n in nodes:
        if n.label and count[n.label] > 1:
            names[n.id] = f"{n.label}#{n.id}"
        else:
            names[n.id] = n.name
    return names


def _node_id(g, token):
    """A node id of graph ``g`` from a Value of it, a label, a display name or an id."""
    if hasattr(token, "_prev"):  # a Value
        hits = [n.id for n in g.nodes if n.value is token]
        if not hits:
            raise WalkError("that Value is not part of this graph")
        return hits[0]
    return _resolve(token, g.names)


def _resolve(token, names):
    """A node id from a label, a display name or an id."""
    token = str(token).strip()
    hits = [k for k, v in names.items() if v == token]
    if len(hits) == 1:
        return hits[0]
    if token in names:
        return token
    raise WalkError(f"no node named {token!r} (names: {', '.join(sorted(set(names.values())))})")


def correct_grads(g):
    """The right answer: the engine's reverse sweep over the graph (no Value touched)."""
    grads = sweep(reversed(g.values), {g.values[-1]: 1.0})
    return {n.id: grads.get(n.value, 0.0) for n in g.nodes}


# ---------------------------------------------------------------------------------------
# Forward
# ---------------------------------------------------------------------------------------


def forward_steps(root, _g=None):
    """The forward pass as steps, one per op node, inputs before users."""
    g = _g or _Graph(root)
    steps = []
    for n in g.nodes:
        if n.leaf:
            continue
        ins = [g.by_id[i] for i in n.inputs]
        in_names = [g.names[i] for i in n.inputs]
        nums = {i: _par(g.by_id[i].data) for i in n.inputs}
        text = f"{g.names[n.id]} = {describe_op(n, g.names)}"
        with_values = describe_op(n, nums)
        if with_values != describe_op(n, g.names):
            text += f" = {with_values}"
        text += f" = {fmt(n.data)}"
        steps.append(ForwardStep(len(steps), n.id, g.names[n.id], n.op, list(n.inputs),
                                 in_names, [x.data for x in ins], n.data, text,
                                 _cell("data", n.data)))
    return steps


# ---------------------------------------------------------------------------------------
# Backward
# ---------------------------------------------------------------------------------------


def _visit(g, v, step, up, pushes, visited_at=None, lost=None, assign=False, pass_=1):
    """One visit of the sweep: node ``v`` pushed ``up`` to its input edges (``pushes``, as
    ``chain_rule.sweep_steps`` yields them). Returns the BackwardStep. A deposit into an
    input visited already (``visited_at``) is reported in ``lost``."""
    nid = g.id_of[v]
    nd = g.by_id[nid]
    up = 0.0 if up is None else up
    contribs = []
    texts = []
    for i, c, before, after in pushes:
        e = g.in_edges[nid][i]
        before = 0.0 if before is None else before
        pname = g.said[e.src]
        late = lost is not None and e.src in visited_at
        if assign:
            t = f"grad[{pname}] = {fmt(up)} * {_par(e.local)} = {fmt(c)}"
            if before != 0.0:
                t += f" (overwrote {fmt(before)})"
        else:
            t = f"grad[{pname}] += {fmt(up)} * {_par(e.local)} = {fmt(c)}"
            if before != 0.0 and not late:
                t += f" (grad[{pname}] now {fmt(after)})"
        if late:  # the running total is moot: the visit read it
            t += f" LOST: {pname} was already visited at step {visited_at[e.src]}"
            lost.append(Lost(
                "late", e.src, pname, nid, g.names[nid], e.id, c, visited_at[e.src], step,
                g.path_to_root(e.src, nid),
                f"{g.names[nid]} deposited {fmt(c)} into {pname} at step {step}, but "
                f"{pname} had been visited at step {visited_at[e.src]}: the path "
                f"{' -> '.join(g.names[p] for p in g.path_to_root(e.src, nid))} is lost"))
        contribs.append(Contribution(e.id, e.src, g.names[e.src], e.index, e.local, up, c, before,
                                     after, late, t, _cell("grad", after)))
        texts.append(t)
    head = f"visit {g.describe(nid)}"
    if nd.leaf:
        text = f"{head}: grad[{g.said[nid]}] = {fmt(up)}"
    else:
        text = f"{head}: " + "; ".join(texts)
    return BackwardStep("visit", step, nid, g.names[nid], nd.op, up, contribs, text, pass_,
                        head, _cell("grad", up))


def _seed(g, step, pass_=1):
    text = f"seed: grad[{g.said[g.root]}] = 1"
    return BackwardStep("seed", step, g.root, g.names[g.root], g.by_id[g.root].op, 1.0, [],
                        text, pass_, text, _cell("grad", 1.0))


def _resolve_order(g, order):
    if isinstance(order, str):
        order = [t for t in order.replace(";", ",").split(",") if t.strip()]
    ids = [_node_id(g, tok) for tok in order]
    if len(set(ids)) < len(ids):
        twice = next(nid for i, nid in enumerate(ids) if nid in ids[:i])
        raise WalkError(f"{g.names[twice]!r} appears twice in the visit order")
    return ids


def walk(root, order=None, mode="correct", passes=None):
    """Walk the graph of ``root``: forward steps, then backward steps in ``mode``.

    ``order``: a visit order (ids, labels or Values; or a string ``'d,b,c,a'``) for the
    backward pass; leaves left out are read at the end, interior nodes left out are never
    visited (and what they hold is reported lost). Only with ``mode='correct'``.
    ``passes``: number of backward passes for ``mode='no_zero_grad'`` (default 2).
    """
    if mode not in MODES:
        raise WalkError(f"unknown mode {mode!r}; choose one of {', '.join(MODES)}")
    if order is not None and mode != "correct":
        raise WalkError("a custom visit order can only be walked in mode 'correct'")
    if passes is not None and mode != "no_zero_grad":
        raise WalkError("passes is only for mode 'no_zero_grad'")
    g = _Graph(root)
    fwd = forward_steps(root, g)
    expected = correct_grads(g)
    if order is not None:
        return _walk_in_order(g, fwd, expected, _resolve_order(g, order))
    npasses = 1
    if mode == "no_zero_grad":
        npasses = 2 if passes is None else int(passes)
        if npasses < 1:
            raise WalkError("passes must be at least 1")
    grads, steps, visited = {}, [], []
    for p in range(1, npasses + 1):
        steps.append(_seed(g, len(steps), p))
        for v, up, pushes in walk_modes.BY_MODE[mode](g.values, grads):
            if len(visited) >= MAX_VISITS:
                raise WalkError(f"the {mode} walk visits more than {MAX_VISITS} nodes "
                                "(recursive: once per path, exponential in the depth)")
            visited.append(g.id_of[v])
            steps.append(_visit(g, v, len(steps), up, pushes, assign=mode == "assign",
                                pass_=p))
    final = {n.id: grads.get(n.value, 0.0) for n in g.nodes}
    return WalkResult(mode, g.root, visited, fwd, steps, final, expected, g.names, [], [],
                      npasses, said=g.said)


def _walk_in_order(g, fwd, expected, ids):
    """The correct sweep in a visit order given by the user: leaves left out are read at
    the end, interior nodes left out are never visited; what is lost is reported."""
    listed = set(ids)
    ids += [n.id for n in reversed(g.nodes) if n.leaf and n.id not in listed]
    unvisited = [n.id for n in g.nodes if not n.leaf and n.id not in listed]
    grads = dict.fromkeys(g.values, 0.0)  # a node visited before any deposit passes 0
    grads[g.values[-1]] = 1.0
    steps, visited_at, frozen, lost = [_seed(g, 0)], {}, {}, []
    for v, up, pushes in sweep_steps([g.by_id[i].value for i in ids], grads):
        nid, step = g.id_of[v], len(steps)
        frozen[nid] = up  # visiting a node means its gradient is final
        steps.append(_visit(g, v, step, up, pushes, visited_at, lost))
        visited_at[nid] = step
    for nid in unvisited:
        v = g.by_id[nid].value
        frozen[nid] = grads[v]
        for e, c in zip(g.in_edges[nid], contributions_at(v, grads[v])):
            if c == 0.0:
                continue
            path = g.path_to_root(e.src, nid)
            lost.append(Lost(
                "unvisited", e.src, g.names[e.src], nid, g.names[nid], e.id, c, None,
                None, path,
                f"{g.names[nid]} was never visited, so its {fmt(c)} never reached "
                f"{g.said[e.src]}: the path {' -> '.join(g.names[p] for p in path)} "
                "is lost"))
    return WalkResult("correct", g.root, list(visited_at), fwd, steps, frozen, expected,
                      g.names, lost, unvisited, 1, custom_order=True, said=g.said)


def format_walk(w, forward=True):
    """The walk as terminal bullets, the lecture's way of writing it (one line a step)."""
    lines = []
    if forward:
        lines.append("forward:")
        lines += [f"  - {s.text}" for s in w.forward]
    if w.custom_order:
        lines.append("backward in the given visit order ("
                     + ", ".join(w.names[i] for i in w.order) + "):")
    else:
        lines.append(f"backward ({w.mode}" + (f", {w.passes} passes" if w.passes > 1 else "")
                     + "):")
    for s in w.backward:
        prefix = f"  - [pass {s.pass_}] " if w.passes > 1 else "  - "
        lines.append(prefix + s.text)
    lines.append("grads: " + ", ".join(f"{w.names[k]}={fmt(v)}" for k, v in w.grads.items()))
    lines += w.summary()
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------
# Nudge check (the lecture's: move a leaf by h, watch the output)
# ---------------------------------------------------------------------------------------


@dataclass
class Nudge(_Wire):
    """Nudge ``leaf`` by ``h``: the measured slope of the root against its grad."""

    leaf: str
    name: str
    h: float
    central: bool
    f0: float
    f1: float
    slope: float
    grad: float
    abs_err: float
    ok: bool
    text: str


def replay(root, changes=None, _g=None):
    """Recompute every node's data with some leaves changed (``{id: data}``), through the
    op table; returns ``{id: data}``. The Values themselves are not touched."""
    g = _g or _Graph(root)
    changes = changes or {}
    vals = {}
    for n in g.nodes:
        if n.leaf:
            vals[n.id] = float(changes.get(n.id, n.data))
        else:
            vals[n.id] = ops.forward(n.value._fn, [vals[i] for i in n.inputs], n.arg)
    return vals


#: the default tolerance of the nudge check, per unit of h (one-sided) or h^2 (central).
#: A one-sided difference is off by about (h/2) f2 (f2: the second derivative at x), a
#: central one by (h^2/6) f3 (the third); the factor 2 lets a correct grad agree while
#: |f2| <= 4 (1 + |grad|) one-sided, |f3| <= 12 (1 + |grad|) central, and says
#: "disagree" for a slope of 17.18 against a grad of 10 at h = 0.1 (exp(10 x) at 0). A
#: function that curves faster than that (exp(10 x) at any h) needs a larger ``tol``.
NUDGE_TOL = 2.0
#: rounding: each of f(x+h) and f(x) may be off by a few ulps per op of the graph, and
#: an ulp of y is at most eps * max(|y|, the smallest normal float)
_ROUNDING = 64 * 2.0 ** -52
#: the smallest normal float, the least h: a smaller step keeps fewer digits than a float
_NORMAL = sys.float_info.min


def nudge(root, leaf, h=1e-4, central=False, tol=None):
    """Nudge one leaf by ``h`` and compare the slope of the root with the leaf's grad.

    ``slope = (f(x+h) - f(x)) / h`` (the lecture's one-sided difference) or, with
    ``central=True``, ``(f(x+h) - f(x-h)) / 2h``. The slope of a correct grad is off by
    the difference's truncation error, O(h) one-sided and O(h^2) central, plus the
    rounding of f, O(eps |f| / h). So the check is ``ok`` (the text says "agree") when

        |slope - grad| <= tol * (1 + |grad|) + 64 eps (|f(x+h)|' + |f(x)|') / h

    (``2h`` and ``f(x-h)`` central; ``|y|'``: ``max(|y|, 2.2e-308)``, the smallest normal
    float) with ``tol`` defaulting to ``NUDGE_TOL * h`` one-sided and ``NUDGE_TOL * h**2``
    central; a slope that is not a finite number never agrees, nor one where ``x + h ==
    x``. When they disagree and the curvature measured with the same h accounts for the
    difference, the text says so. The grad is the correct reverse-mode one (no Value's
    ``grad`` is used or changed). ``leaf``: a Value, a label or an id. Refused (a
    ValueError): an h under 2.2e-308, or past the largest float in x + h, x - h or 2h; a
    ``tol`` below 0 or not finite."""
    h = float(h)
    if not (h >= _NORMAL and math.isfinite(h)):
        raise ValueError(f"h must be a positive finite number, at least {_NORMAL!r} (the "
                         f"smallest normal float: a smaller step keeps too few digits), "
                         f"got {h!r}")
    g = _Graph(root)
    lid = _node_id(g, leaf)
    nd, name = g.by_id[lid], g.names[lid]
    if not nd.leaf:
        raise WalkError(f"{name!r} is not a leaf; nudge an input of the graph")
    x, width = nd.data, 2 * h if central else h
    for what, y in ((f"{name} + h", x + h), (f"{name} - h", x - h if central else x),
                    ("2h", width)):
        if math.isfinite(x) and not math.isfinite(y):
            raise ValueError(f"h = {h!r} is too large: {what} is past the largest float")

    def f(dx):
        return replay(root, {lid: x + dx} if dx else None, g)[g.root]

    f_plus, f0 = f(h), f(-h) if central else f(0.0)
    slope = (f_plus - f0) / width
    grad = correct_grads(g)[lid]
    if tol is not None and not (float(tol) >= 0 and math.isfinite(tol)):  # nan, inf: never
        raise ValueError(f"tol must be a finite number >= 0, got {tol!r}")  # or always agree
    tol = float(NUDGE_TOL * (h * h if central else h) if tol is None else tol)
    err = abs(slope - grad)
    allowed = tol * (1 + abs(grad)) + _ROUNDING * (max(abs(f_plus), _NORMAL)
                                                   + max(abs(f0), _NORMAL)) / width
    lost = x + h == x or (central and x - h == x)  # h below the precision of x
    ok = math.isfinite(slope) and not lost and err <= allowed
    if ok:
        verdict = "agree"
    elif not math.isfinite(slope):
        verdict = "disagree: the difference is not a finite number"
    elif lost:
        verdict = f"disagree: h is below the precision of {name} = {fmt(x)}"
    else:
        verdict = f"disagree: more than the {fmt(allowed, 3)} allowed at this h"
        curve = _truncation(f, h, central)
        # smooth: the estimate shrinks with h as the truncation error does (it does not
        # at a kink, where the "curvature" is a jump in slope)
        shrink = _truncation(f, h / 2, central) * (4 if central else 2) / curve if curve else 0
        if math.isfinite(curve) and err <= 2 * curve and 0.6 < shrink < 1.6:
            verdict += (f"; the curvature alone accounts for about {fmt(curve, 3)}: "
                        f"try a smaller h, or a larger tolerance")
    how = f"(f({name}+h) - f({name}-h)) / 2h" if central else f"(f({name}+h) - f({name})) / h"
    text = (f"nudge {name} by h={fmt(h)}: slope {how} = {fmt(slope)}, grad[{name}] = "
            f"{fmt(grad)}, difference {fmt(err, 3)} ({verdict})")
    return Nudge(lid, name, h, central, f0, f_plus, slope, grad, err, ok, text)


def _truncation(f, h, central):
    """The difference's leading truncation error at step ``h``: (h/2)|f2| one-sided,
    (h^2/6)|f3| central (powers of h cancelled: they underflow to 0 before h does)."""
    if central:
        return abs(f(2 * h) - 2 * f(h) + 2 * f(-h) - f(-2 * h)) / (12 * h)
    return abs(f(h) - 2 * f(0.0) + f(-h)) / (2 * h)


Walk = WalkResult  # its old name, still importable: the same class
__all__ = ["walk", "WalkResult", "Walk", "forward_steps", "ForwardStep", "BackwardStep",
           "Contribution", "Lost", "WalkError", "MODES", "format_walk", "nudge", "Nudge",
           "NUDGE_TOL", "replay", "correct_grads"]

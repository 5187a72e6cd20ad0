"""micrograd.walk: step events, custom visit orders, teaching modes, nudge check.

The teaching modes are checked against ``Mini``, an independent micrograd-style engine
written here with ``_backward`` closures (as in seed 002), so each mode's wrong numbers
are the ones the real mistake gives.
"""

import ast
import difflib
import inspect
import itertools
import json
import math
import sys
import textwrap

import pytest

from micrograd import chain_rule, engine, walk_modes
from micrograd.engine import Value
from micrograd.expr import parse
from micrograd.viz import trace
from micrograd.walk import (MODES, NUDGE_TOL, WalkError, format_walk, forward_steps, nudge,
                            replay, walk)

SEED002 = "a = 2; b = -3; c = 10; f = -2; e = a*b; d = e + c; L = d*f"
DIAMOND = "a = 2; b = a + 1; c = a*3; d = b*c"
PR64 = "a = 1; b = a + a; c = b + b"
SQUARE = "a = 3; f = a*a"
SEED003 = "a = 2; b = -3; c = 10; e = a + b; f = e*c"
NEURON = "o = tanh(x1*w1 + x2*w2 + b)"
NEURON_VALUES = {"x1": 2.0, "x2": 0.0, "w1": -3.0, "w2": 1.0, "b": 6.8813735870195432}


# ---- an independent reference: micrograd as in seed 002 --------------------------------


class Mini:
    ASSIGN = False  # the '=' instead of '+=' mistake

    def __init__(self, data, children=(), label=""):
        self.data, self.grad, self.label = float(data), 0.0, label
        self._prev = tuple(children)  # in order, like our engine: a+a has (a, a)
        self._backward = lambda: None

    def _push(self, node, amount):
        node.grad = amount if Mini.ASSIGN else node.grad + amount

    def __add__(self, o):
        o = o if isinstance(o, Mini) else Mini(o)
        out = Mini(self.data + o.data, (self, o))

        def _backward():
            self._push(self, out.grad)
            self._push(o, out.grad)
        out._backward = _backward
        return out

    def __mul__(self, o):
        o = o if isinstance(o, Mini) else Mini(o)
        out = Mini(self.data * o.data, (self, o))

        def _backward():
            self._push(self, o.data * out.grad)
            self._push(o, self.data * out.grad)
        out._backward = _backward
        return out

    def tanh(self):
        t = math.tanh(self.data)
        out = Mini(t, (self,))

        def _backward():
            self._push(self, (1 - t * t) * out.grad)
        out._backward = _backward
        return out

    def backward(self):  # micrograd's: topological sort, root grad set to 1, no zeroing
        topo, seen = [], set()

        def build(v):
            if v not in seen:
                seen.add(v)
                for ch in v._prev:
                    build(ch)
                topo.append(v)
        build(self)
        self.grad = 1.0
        for v in reversed(topo):
            v._backward()

    def backward_bad(self, root=True):  # micrograd PR 64, verbatim in spirit
        if root:
            self.grad = 1.0
        self._backward()
        for child in self._prev:
            child.backward_bad(False)


def build(V, which):
    """The same graphs with any Value-like class V (labels on the named nodes)."""
    def lab(v, name):
        v.label = name
        return v
    if which == "seed002":
        a, b, c, f = (lab(V(x), n) for x, n in [(2, "a"), (-3, "b"), (10, "c"), (-2, "f")])
        e = lab(a * b, "e")
        d = lab(e + c, "d")
        return lab(d * f, "L")
    if which == "diamond":
        a = lab(V(2.0), "a")
        b = lab(a + V(1.0), "b")
        c = lab(a * V(3.0), "c")
        return lab(b * c, "d")
    if which == "pr64":
        a = lab(V(1.0), "a")
        b = lab(a + a, "b")
        return lab(b + b, "c")
    if which == "square":
        a = lab(V(3.0), "a")
        return lab(a * a, "f")
    if which == "neuron":
        x1, x2, w1, w2, b = (lab(V(NEURON_VALUES[k]), k) for k in ["x1", "x2", "w1", "w2", "b"])
        n = lab(x1 * w1 + x2 * w2 + b, "n")
        return lab(n.tanh(), "o")
    raise KeyError(which)


def labelled_grads(root):
    out, stack, seen = {}, [root], set()
    while stack:
        v = stack.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        if v.label:
            out[v.label] = v.grad
        stack.extend(v._prev)
    return out


def walk_grads(w):
    return {w.names[k]: g for k, g in w.grads.items() if w.names[k] != k}


GRAPHS = ["seed002", "diamond", "pr64", "square", "neuron"]


@pytest.mark.parametrize("which", GRAPHS)
def test_correct_mode_matches_engine_reference_and_torch(which):
    root = build(Value, which)
    w = walk(root)
    assert w.ok and not w.lost
    ref = build(Mini, which)
    ref.backward()
    got = walk_grads(w)
    for k, g in labelled_grads(ref).items():
        assert got[k] == pytest.approx(g, rel=1e-12, abs=1e-15), k
    root.backward()
    for k, g in labelled_grads(root).items():
        assert got[k] == pytest.approx(g, rel=1e-12, abs=1e-15), k
    assert root.grad == 1.0  # the engine's own pass did run


def test_walk_does_not_touch_value_grads():
    L = parse(SEED002)
    for mode in MODES:
        walk(L, mode=mode)
    walk(L, order="a,L")
    nudge(L, "a")
    stack = [L]
    while stack:
        v = stack.pop()
        assert v.grad == 0.0
        stack.extend(v._prev)


@pytest.mark.parametrize("which", GRAPHS)
def test_assign_mode_gives_what_equals_gives(which):
    w = walk(build(Value, which), mode="assign")
    ref = build(Mini, which)
    Mini.ASSIGN = True
    try:
        ref.backward()
    finally:
        Mini.ASSIGN = False
    got = walk_grads(w)
    for k, g in labelled_grads(ref).items():
        assert got[k] == g, k


def test_assign_mode_square_gives_3_not_6():
    w = walk(parse(SQUARE), mode="assign")
    assert w.grad("a") == 3.0 and w.expected[w.root] == 1.0
    assert [(k, g, e) for k, g, e in w.wrong()] == [("n0", 3.0, 6.0)]
    step = w.backward[1]
    assert [c.text for c in step.contributions] == ["grad[a] = 1 * 3 = 3",
                                                    "grad[a] = 1 * 3 = 3 (overwrote 3)"]


@pytest.mark.parametrize("which", GRAPHS)
def test_recursive_mode_gives_what_pr64_gives(which):
    w = walk(build(Value, which), mode="recursive")
    ref = build(Mini, which)
    ref.backward_bad()
    got = walk_grads(w)
    for k, g in labelled_grads(ref).items():
        assert got[k] == g, k


def test_recursive_mode_pr64_numbers_and_visit_order():
    w = walk(parse(PR64), mode="recursive")
    assert [w.names[i] for i in w.order] == ["c", "b", "a", "a", "b", "a", "a"]  # PR 64
    assert w.grad("a") == 8.0 and w.grad("b") == 2.0
    assert w.expected["n0"] == 4.0  # c = 4a
    assert not w.ok
    # on a tree there is only one path to each node: the recursion is right
    assert walk(parse(SEED002), mode="recursive").ok


def test_recursive_mode_refuses_exponential_walks():
    text = "a = 1; " + "; ".join(["a = a + a"] * 20)
    with pytest.raises(WalkError, match="more than"):
        walk(parse(text), mode="recursive")


@pytest.mark.parametrize("which", GRAPHS)
@pytest.mark.parametrize("passes", [2, 3])
def test_no_zero_grad_mode_gives_what_repeated_backward_gives(which, passes):
    w = walk(build(Value, which), mode="no_zero_grad", passes=passes)
    ref = build(Mini, which)
    for _ in range(passes):
        ref.backward()
    got = walk_grads(w)
    for k, g in labelled_grads(ref).items():
        assert got[k] == pytest.approx(g, rel=1e-12), k
    assert sum(1 for s in w.backward if s.kind == "seed") == passes


def test_no_zero_grad_seed002_numbers():
    import torch  # here, not at the top: the rest of the file runs on Pyodide too
    w = walk(parse(SEED002), mode="no_zero_grad")
    # pass 2: d += -2 -> -4; e += -4 -> -6; a += -6 * b = 18 -> 24 (not 6, nor PyTorch's 12)
    assert (w.grad("a"), w.grad("b"), w.grad("c"), w.grad("f")) == (24.0, -16.0, -6.0, 8.0)
    assert (w.grad("d"), w.grad("e"), w.grad("L")) == (-4.0, -6.0, 1.0)
    # PyTorch accumulates only the leaves: twice the single-pass grads
    t = {k: torch.tensor(v, dtype=torch.float64, requires_grad=True)
         for k, v in dict(a=2.0, b=-3.0, c=10.0, f=-2.0).items()}
    for _ in range(2):
        ((t["a"] * t["b"] + t["c"]) * t["f"]).backward()
    assert t["a"].grad.item() == 12.0 != w.grad("a")


# ---- the mistakes are the correct pass with one line changed ---------------------------


def statements(fn):
    """A function's code as lines, without its name, docstring and comments."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn))).body[0]
    body = tree.body
    if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    return "\n".join(ast.unparse(st) for st in body).splitlines()


def changed(fn, other):
    return [d for d in difflib.ndiff(statements(fn), statements(other)) if d[0] in "+-"]


def test_each_mistake_is_the_correct_pass_with_one_line_changed():
    assert changed(walk_modes.backward, walk_modes.assign) == [
        "- yield from sweep_steps(order, grads)", "+ yield from sweep_steps_assign(order, grads)"]
    assert changed(walk_modes.backward, walk_modes.recursive) == [
        "- order = reversed(nodes)", "+ order = every_path(nodes[-1])"]
    assert changed(walk_modes.backward, walk_modes.no_zero_grad) == ["- grads.clear()"]
    # and assign's sweep is the engine's one sweep with = for +=
    assert changed(chain_rule.sweep_steps, walk_modes.sweep_steps_assign) == [
        "-                     after = c if before is None else before + c",
        "+                     after = c"]


def test_the_correct_mode_steps_through_the_engines_sweep():
    # every op, reused nodes: the walk's grads are the sweep's, to the last bit
    root = parse("x = 0.7; y = -1.3; a = x*y; b = sigmoid(a) / (y*y + 1); "
                 "c = (b + x)**2 * relu(a + 2) - sqrt(abs(b)) + exp(-x) * log(x + 3); "
                 "d = c * b + tanh(c) * sin(a) + cos(y)")
    w = walk(root)
    grads = chain_rule.sweep(reversed(engine.topological_order(
        root, inputs_of=lambda v: v._prev)), {root: 1.0})
    ids = {n.value: n.id for n in trace(root)[0]}
    assert w.grads == {ids[v]: g for v, g in grads.items()} == w.expected
    for s in w.backward:
        for c in s.contributions:
            assert c.grad_after == c.grad_before + c.contribution


# ---- step events ----------------------------------------------------------------------


def test_seed003_bullets():
    w = walk(parse(SEED003))
    texts = [s.text for s in w.backward]
    assert texts[0] == "seed: grad[f] = 1"
    assert texts[1] == "visit f = e*c: grad[e] += 1 * 10 = 10; grad[c] += 1 * (-1) = -1"
    assert "visit e = a + b: grad[a] += 10 * 1 = 10; grad[b] += 10 * 1 = 10" in texts
    assert (w.grad("a"), w.grad("b"), w.grad("c"), w.grad("e")) == (10.0, 10.0, -1.0, 10.0)
    assert [s.text for s in w.forward] == ["e = a + b = 2 + (-3) = -1", "f = e*c = (-1)*10 = -10"]


def test_seed002_forward_and_backward_numbers():
    w = walk(parse(SEED002))
    assert [(s.name, s.value) for s in w.forward] == [("e", -6.0), ("d", 4.0), ("L", -8.0)]
    assert w.forward[0].text == "e = a*b = 2*(-3) = -6"
    assert (w.grad("a"), w.grad("b"), w.grad("c"), w.grad("f")) == (6.0, -4.0, -2.0, 4.0)
    assert (w.grad("e"), w.grad("d")) == (-2.0, -2.0)


def test_neuron_w1_grad_is_one():
    w = walk(parse(NEURON, NEURON_VALUES))
    assert w.grad("w1") == pytest.approx(1.0, rel=1e-6)  # 0.5 * x1 (seed 003)
    assert w.grad("w2") == 0.0  # x2 = 0
    tanh_step = w.backward[1]
    assert tanh_step.op == "tanh"
    assert tanh_step.contributions[0].local == pytest.approx(0.5, rel=1e-6)


@pytest.mark.parametrize("which", GRAPHS)
@pytest.mark.parametrize("mode", MODES)
def test_step_invariants_and_json(which, mode):
    w = walk(build(Value, which), mode=mode)
    for s in w.backward:
        for c in s.contributions:
            assert c.contribution == c.upstream * c.local
            expect = c.contribution if mode == "assign" else c.grad_before + c.contribution
            assert c.grad_after == expect
            assert c.upstream == s.upstream
    text = json.dumps(w.to_dict(), allow_nan=False)
    back = json.loads(text)
    assert back["mode"] == mode and len(back["backward"]) == len(w.backward)
    assert back["ok"] == w.ok


def test_events_use_the_trace_ids_and_edges():
    from micrograd import viz

    L = parse(SEED002)
    data = viz.to_dict(L)
    edges = {e["id"]: e for e in data["edges"]}
    w = walk(L).to_dict()
    for s in w["backward"]:
        for c in s["contributions"]:
            e = edges[c["edge"]]
            assert (e["src"], e["dst"], e["index"], e["local"]) == (
                c["parent"], s["node"], c["index"], c["local"])
    assert {s["node"] for s in w["forward"]} == {n["id"] for n in data["nodes"] if not n["leaf"]}


def test_json_with_nonfinite_numbers():
    w = walk(parse("x = 0; y = log(x) * x"))
    text = json.dumps(w.to_dict(), allow_nan=False)
    assert '"-Infinity"' in text and '"NaN"' in text


def test_deep_graph_walks_without_recursion():
    text = "x = 0.5; " + "; ".join(["x = x * 1.0001 + 0.001"] * 1200)
    w = walk(parse(text))
    assert w.ok and len(w.backward) > 3000


# ---- custom order and the lost-path report ---------------------------------------------


def test_diamond_right_orders_give_15():
    for order in ["d,b,c,a", "d,c,b,a", ["d", "c", "b", "a"]]:
        w = walk(parse(DIAMOND), order=order)
        assert w.grad("a") == 15.0 and not w.lost and w.ok


@pytest.mark.parametrize("order, grad_a, lost_paths", [
    ("d,a,b,c", 0.0, [["d", "b", "a"], ["d", "c", "a"]]),
    ("d,b,a,c", 6.0, [["d", "c", "a"]]),
    ("d,c,a,b", 9.0, [["d", "b", "a"]]),
    ("a,d,b,c", 0.0, [["d", "b", "a"], ["d", "c", "a"]]),
    ("b,d,c,a", 9.0, [["d", "b"]]),
])
def test_diamond_wrong_orders_report_lost_paths(order, grad_a, lost_paths):
    w = walk(parse(DIAMOND), order=order)
    assert w.grad("a") == grad_a
    assert [[w.names[p] for p in x.path] for x in w.lost] == lost_paths
    assert not w.ok
    for x in w.lost:
        assert x.reason == "late" and x.arrived_at > x.visited_at
        assert "is lost" in x.text and x.name in x.text
    # what was lost into a, plus what a had when visited, is the right answer
    lost_into_a = sum(x.amount for x in w.lost if w.names[x.node] == "a")
    if not any(w.names[x.node] == "b" for x in w.lost):
        assert grad_a + lost_into_a == 15.0


def test_diamond_every_permutation():
    for perm in itertools.permutations("dbca"):
        w = walk(parse(DIAMOND), order=list(perm))
        p = {n: i for i, n in enumerate(perm)}
        topo = p["d"] < p["b"] < p["a"] and p["d"] < p["c"] < p["a"]
        assert w.ok == topo == (not w.lost), perm
        assert (w.grad("a") == 15.0) == topo, perm


def test_left_out_interior_node_is_reported_unvisited():
    w = walk(parse(DIAMOND), order="d,c,a")
    assert w.unvisited == ["n2"] and w.names["n2"] == "b"
    lost = [x for x in w.lost if x.reason == "unvisited"]
    assert [(w.names[x.source], w.names[x.node], x.amount) for x in lost] == [
        ("b", "a", 6.0), ("b", "1", 6.0)]
    assert w.grad("a") == 9.0


def test_bad_orders():
    d = parse(DIAMOND)
    with pytest.raises(WalkError, match="no node named 'zz'"):
        walk(d, order="d,zz")
    with pytest.raises(WalkError, match="twice"):
        walk(d, order="d,b,b")
    with pytest.raises(WalkError, match="only be walked in mode 'correct'"):
        walk(d, order="d,b,c,a", mode="assign")
    with pytest.raises(WalkError, match="unknown mode"):
        walk(d, mode="fast")
    with pytest.raises(WalkError, match="not part of this graph"):
        walk(d, order=[Value(1.0)])
    assert walk(d, order=["n5", "n2", "n4", "n0"]).ok  # ids work too


def test_format_walk_bullets():
    out = format_walk(walk(parse(DIAMOND), order="d,a,b,c"), forward=False)
    assert "LOST: b deposited 6 into a at step 3" in out
    assert "the path d -> b -> a is lost" in out
    assert "wrong: grad[a] = 0, correct 15" in out
    assert "forward:" in format_walk(walk(parse(DIAMOND)))


# ---- nudge -----------------------------------------------------------------------------


def test_nudge_matches_grad_seed002():
    L = parse(SEED002)
    for name, g in [("a", 6.0), ("b", -4.0), ("c", -2.0), ("f", 4.0)]:
        r = nudge(L, name)
        assert r.ok and r.grad == g
        assert r.slope == pytest.approx(g, abs=1e-6)
        r2 = nudge(L, name, central=True)
        assert r2.slope == pytest.approx(g, abs=1e-8)


def test_nudge_parabola_seed002_section02():
    x = parse("x = 3.0; y = 3*x**2 - 4*x + 5")
    r = nudge(x, "x", h=1e-4)
    assert r.slope == pytest.approx(14.0, abs=1e-3) and r.grad == 14.0 and r.ok
    assert json.loads(json.dumps(r.to_dict(), allow_nan=False))["name"] == "x"


def test_nudge_reports_a_kink_mismatch_and_refuses_interior_nodes():
    r = nudge(parse("x = 0; y = relu(x)"), "x")
    assert r.grad == 0.0 and r.slope == pytest.approx(1.0) and not r.ok
    assert "(disagree: more than the 0.0002 allowed at this h)" in r.text
    with pytest.raises(WalkError, match="not a leaf"):
        nudge(parse(SEED002), "e")
    with pytest.raises(ValueError, match="positive"):
        nudge(parse(SEED002), "a", h=0)


def seed002_exp(x, h):
    """The one-sided slope of exp(10 x), written out by hand."""
    return (math.exp(10 * (x + h)) - math.exp(10 * x)) / h


def test_nudge_tolerance_shrinks_with_h_one_sided_and_central():
    f = parse("x = 0; y = exp(10*x)")
    r = nudge(f, "x", h=0.1)  # the case: slope 17.18 against a grad of 10
    assert r.slope == pytest.approx(seed002_exp(0.0, 0.1), rel=1e-12)
    assert round(r.slope, 2) == 17.18 and r.grad == 10.0 and not r.ok
    assert "disagree" in r.text and "curvature alone accounts for about 5.43" in r.text
    # the allowance is NUDGE_TOL * h * (1 + |grad|) (+ rounding): it shrinks with h
    assert "more than the 2.2 allowed" in r.text
    assert "more than the 0.0022 allowed" in nudge(f, "x", h=1e-4).text
    # a parabola's one-sided error is exactly 3h (f'' = 6): agrees at every small h;
    # central: exact up to rounding
    p = parse("x = 3.0; y = 3*x**2 - 4*x + 5")
    for h in (1e-2, 1e-4, 1e-6):
        r = nudge(p, "x", h=h)
        assert r.ok and r.abs_err == pytest.approx(3 * h, rel=1e-3)
        assert nudge(p, "x", h=h, central=True).ok
    # with tol=0 only rounding is allowed: the parabola's 3h is then too much
    assert not nudge(p, "x", h=1e-4, tol=0.0).ok
    assert NUDGE_TOL == 2.0


def test_nudge_never_agrees_with_an_infinite_or_lost_difference():
    r = nudge(parse("x = 709; y = exp(x)"), "x", h=1.0)  # exp(710) = inf
    assert r.slope == math.inf and math.isfinite(r.grad) and not r.ok
    assert "not a finite number" in r.text
    r = nudge(parse("x = 1e20; y = 2*x"), "x")  # 1e20 + 1e-4 == 1e20
    assert r.slope == 0.0 and not r.ok and "below the precision of x" in r.text


def test_nudge_with_a_tiny_h_answers_down_to_the_smallest_normal_float():
    # relu's kink at 0: the one-sided slope is 1, the central one 0.5, at every h (the
    # curvature hint divides by h alone: h^2 and h^3 underflow to 0 there)
    f = parse("x = 0; y = relu(x)")
    for h in (1e-110, 1e-170, 1e-300, sys.float_info.min):
        one, both = nudge(f, "x", h=h), nudge(f, "x", h=h, central=True)
        assert (one.slope, one.grad, one.ok, both.slope, both.ok) == (1.0, 0.0, False, 0.5,
                                                                      False), h
        assert "(disagree: more than the" in one.text and "disagree" in both.text
    # a correct grad agrees though f(x+h) lands among the subnormal floats
    assert nudge(parse("x = 0; y = x*1e-10"), "x", h=1e-300).ok
    assert nudge(parse("x = 0; y = x*1e-10"), "x", h=1e-300, central=True).ok


@pytest.mark.parametrize("h", [5e-324, 1e-310, sys.float_info.min / 2])
def test_nudge_refuses_an_h_below_the_smallest_normal_float(h):
    # there (f(x+h) - f(x)) / h keeps too few digits to check anything
    at_least = r"^h must be a positive finite number, at least 2\.2250738585072014e-308 "
    with pytest.raises(ValueError, match=at_least):
        nudge(parse("x = 0; y = relu(x)"), "x", h=h)


def test_nudge_refuses_a_step_past_the_largest_float():
    with pytest.raises(ValueError, match=r"^h = 1e\+308 is too large: x \+ h"):
        nudge(parse("x = 1e308; y = relu(x)"), "x", h=1e308)
    with pytest.raises(ValueError, match=r"^h = 1e\+308 is too large: 2h"):
        nudge(parse("x = 0; y = relu(x)"), "x", h=1e308, central=True)
    with pytest.raises(ValueError, match=r"^h = 1e\+308 is too large: x - h"):
        nudge(parse("x = -1e308; y = relu(x)"), "x", h=1e308, central=True)
    # a large h that stays finite is still answered
    assert nudge(parse("x = 0; y = relu(x)"), "x", h=1e300, central=True).slope == 0.5


@pytest.mark.parametrize("source", [
    "x = 0; y = relu(x)", "x = 0; y = sqrt(x)", "x = 0; y = log(x)", "x = 0; y = exp(10*x)",
    "x = 1; y = x*x*x - 1/x", "x = -2; y = abs(x)*1e300", "x = 1e-300; y = tanh(x/1e-300)"])
def test_nudge_answers_or_refuses_in_words_at_every_h(source):
    # from the smallest normal float to far past the page's cap of 1: an answer, or a
    # ValueError that names h (the step past the largest float); nothing else
    f = parse(source)
    hs = [sys.float_info.min, 1e308, *(10.0 ** e for e in range(-307, 308, 11))]
    for h, central in itertools.product(hs, (False, True)):
        try:
            r = nudge(f, "x", h=h, central=central)
        except ValueError as err:
            assert str(err).startswith(f"h = {h!r} is too large: "), (h, central, err)
            continue
        assert r.text.startswith("nudge x by h=") and isinstance(r.ok, bool), (h, central)


def test_replay_recomputes_through_the_op_table():
    L = parse(NEURON, NEURON_VALUES)
    vals = replay(L)
    assert vals["n" + str(len(vals) - 1)] == L.data
    assert len(forward_steps(L)) == len(vals) - 5  # every node but the five leaves


def test_a_given_order_is_named_in_the_printout():
    from micrograd.expr import parse

    w = walk(parse("a = 2; b = a + 1; c = a*3; d = b*c"), order="d,a,b,c")
    text = format_walk(w, forward=False)
    assert text.splitlines()[0] == "backward in the given visit order (d, a, b, c, 3, 1):"
    assert "backward (correct):" in format_walk(walk(parse("a = 3; b = a*a")))

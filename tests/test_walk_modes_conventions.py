"""Two backward passes without zero_grad, in the two conventions the no-zero_grad mode
shows side by side, and the Walk's sentences and lessons:

* PyTorch's and ours (``walk_modes.no_zero_grad_leaves``, the correct pass with one line
  changed) against real ``Value.backward()`` run twice, every node, and PyTorch float64
  at the leaves;
* micrograd's published engine (``walk_modes.no_zero_grad``) against its rule written
  again here, independently: closures that add ``out.grad * local`` into each input, a
  ``backward()`` that sets the root's grad to 1 and never zeroes anything;
* the page's document and both of its doors carry those numbers (Python's, never text);
* a constant is named by its value as such in the steps' sentences (``grad[constant 3]``,
  never ``grad[3]``, which reads as an index);
* each mode's lesson is one sentence, and the conventions' texts match the passes.
"""

import ast
import difflib
import inspect
import json
import math
import random
import re
import textwrap
import warnings

import pytest

from micrograd import walk_modes
from micrograd.engine import Value
from micrograd.expr import parse
from micrograd.graph import trace
from micrograd.walk import walk
from micrograd.walk_setup import CONVENTIONS, MODES, PRESETS, WalkSetup, compare_conventions
from micrograd.web.walkview import build
from test_pyodide_calls import through_the_worker

with warnings.catch_warnings():  # starlette warns about httpx vs httpx2 at import time
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient
    from micrograd.web import create_app


# ---- micrograd's published rule, written again (the lecture's engine) -------------------


class Published:
    """micrograd's published Value for +, * and tanh: each op's closure adds
    ``local * out.grad`` into its inputs' grads; ``backward()`` sorts the graph, sets
    the root's grad to 1 and calls every closure, root first. Nothing is ever zeroed."""

    def __init__(self, data, children=()):
        self.data, self.grad, self._prev = data, 0.0, children
        self._backward = lambda: None

    def __add__(self, other):
        out = Published(self.data + other.data, (self, other))

        def _backward():
            self.grad += out.grad
            other.grad += out.grad
        out._backward = _backward
        return out

    def __mul__(self, other):
        out = Published(self.data * other.data, (self, other))

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        return out

    def tanh(self):
        t = math.tanh(self.data)
        out = Published(t, (self,))

        def _backward():
            self.grad += (1 - t ** 2) * out.grad
        out._backward = _backward
        return out

    def backward(self):
        topo, seen = [], set()

        def build_topo(v):
            if v not in seen:
                seen.add(v)
                for child in v._prev:
                    build_topo(child)
                topo.append(v)
        build_topo(self)
        self.grad = 1.0
        for v in reversed(topo):
            v._backward()


def mirror(root):
    """The graph of ``root`` (our Values) built again from ``Published`` values: our
    Value -> its twin."""
    twin = {}
    for n in trace(root)[0]:  # every node after its inputs
        xs = [twin[p] for p in n.value._prev]
        if n.leaf:
            twin[n.value] = Published(n.data)
        elif n.op_key == "add":
            twin[n.value] = xs[0] + xs[1]
        elif n.op_key == "mul":
            twin[n.value] = xs[0] * xs[1]
        elif n.op_key == "tanh":
            twin[n.value] = xs[0].tanh()
        else:  # pragma: no cover - the graphs below use these three ops
            raise AssertionError(n.op_key)
    return twin


def random_graph(rng, size):
    """Leaves and ``size`` ops (+, *, tanh) on earlier nodes, many of them reused; the
    last one is the root."""
    nodes = [Value(rng.uniform(-1.5, 1.5), label=f"x{i}") for i in range(rng.randint(1, 4))]
    for i in range(size):
        kind = rng.choice(["add", "mul", "mul", "tanh"])
        a, b = rng.choice(nodes[-4:]), rng.choice(nodes)
        v = a + b if kind == "add" else a * b if kind == "mul" else a.tanh()
        v.label = f"v{i}"
        nodes.append(v)
    return nodes[-1]


def graphs():
    for key in PRESETS:
        yield key, parse(PRESETS[key].expr)
    rng = random.Random(20)
    for i in range(40):
        yield f"random {i}", random_graph(rng, rng.randint(1, 12))


GRAPHS = list(graphs())


def rows_by_value(root):
    table = compare_conventions(root)
    ids = {n.id: n.value for n in trace(root)[0]}
    return {ids[r["id"]]: r for r in table["rows"]}


# ---- the second convention is the correct pass with one line changed -------------------


def statements(fn):
    """A function's code as lines, without its name, docstring and comments."""
    body = ast.parse(textwrap.dedent(inspect.getsource(fn))).body[0].body
    if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return "\n".join(ast.unparse(st) for st in body).splitlines()


def test_pytorchs_and_ours_is_the_correct_pass_with_one_line_changed():
    diff = [d for d in difflib.ndiff(statements(walk_modes.backward),
                                     statements(walk_modes.no_zero_grad_leaves))
            if d[0] in "+-"]
    assert diff == ["- grads.clear()", "+ start_interior_from_zero(nodes, grads)"]
    assert walk_modes.CONVENTIONS == {"micrograd": walk_modes.no_zero_grad,
                                      "pytorch": walk_modes.no_zero_grad_leaves}
    assert list(CONVENTIONS) == list(walk_modes.CONVENTIONS)


# ---- the numbers against the engines ---------------------------------------------------


@pytest.mark.parametrize("name, root", GRAPHS, ids=[g[0] for g in GRAPHS])
def test_pytorchs_and_ours_is_our_backward_run_twice(name, root):
    rows = rows_by_value(root)
    root.backward()
    once = {v: v.grad for v in rows}
    root.backward()  # no zero_grad between the two
    for v, row in rows.items():
        assert row["pytorch"] == pytest.approx(v.grad, rel=1e-12, abs=1e-12), (name, row)
        assert row["one_pass"] == pytest.approx(once[v], rel=1e-12, abs=1e-12), (name, row)
    # the leaves doubled; the interior holds this pass's gradient only
    for v, row in rows.items():
        want = 2 * once[v] if v._prev == () else once[v]
        assert row["pytorch"] == pytest.approx(want, rel=1e-12, abs=1e-12), (name, row)


@pytest.mark.parametrize("name, root", GRAPHS, ids=[g[0] for g in GRAPHS])
def test_micrograds_is_its_published_rule_run_twice(name, root):
    rows = rows_by_value(root)
    twin = mirror(root)
    twin[root].backward()
    twin[root].backward()
    for v, row in rows.items():
        assert row["micrograd"] == pytest.approx(twin[v].grad, rel=1e-12, abs=1e-12), \
            (name, row)


def test_the_lecture_graph_24_against_12_and_pytorch_float64(torch):
    rows = {r["name"]: r for r in compare_conventions(parse(PRESETS["lecture"].expr))["rows"]}
    assert (rows["a"]["one_pass"], rows["a"]["micrograd"], rows["a"]["pytorch"]) == (6, 24, 12)
    assert rows["a"]["texts"] == {"one_pass": "6", "micrograd": "24", "pytorch": "12"}
    t = {k: torch.tensor(x, dtype=torch.float64, requires_grad=True)
         for k, x in dict(a=2.0, b=-3.0, c=10.0, f=-2.0).items()}
    L = (t["a"] * t["b"] + t["c"]) * t["f"]
    L.backward()
    with pytest.raises(RuntimeError, match="second time"):  # PyTorch's classic error
        L.backward()
    for k in t:
        t[k].grad = None
    L = (t["a"] * t["b"] + t["c"]) * t["f"]
    L.backward(retain_graph=True)
    L.backward()
    assert {k: rows[k]["pytorch"] for k in t} == {k: x.grad.item() for k, x in t.items()}


def test_the_neuron_at_the_leaves_against_pytorch_float64(torch):
    root = parse(PRESETS["neuron"].expr)
    rows = {r["name"]: r for r in compare_conventions(root)["rows"]}
    leaves = dict(x1=2.0, x2=0.0, w1=-3.0, w2=1.0, b=6.8813735870195432)
    t = {k: torch.tensor(x, dtype=torch.float64, requires_grad=True) for k, x in leaves.items()}
    o = torch.tanh(t["x1"] * t["w1"] + t["x2"] * t["w2"] + t["b"])
    o.backward(retain_graph=True)
    o.backward()
    for k in leaves:
        assert rows[k]["pytorch"] == pytest.approx(t[k].grad.item(), rel=1e-12, abs=1e-15)
    # micrograd's differs only where an interior grad doubled before it was pushed on
    assert rows["w1"]["micrograd"] != rows["w1"]["pytorch"]


def test_a_graph_of_one_leaf_has_no_passes_to_compare():
    assert compare_conventions(Value(2.0, label="a")) is None
    assert build("a = 2", mode="no_zero_grad")["conventions"] is None


# ---- the page gets Python's numbers, through both doors --------------------------------


@pytest.mark.parametrize("preset", ["lecture", "diamond", "reused"])
def test_the_pages_document_carries_the_conventions(preset):
    source = PRESETS[preset].expr
    doc = build(source, mode="no_zero_grad")
    table = doc["conventions"]
    assert table == compare_conventions(parse(source))
    # the steps the page shows end where micrograd's convention says
    assert {r["id"]: r["micrograd"] for r in table["rows"]} == doc["walk"]["grads"]
    assert table["columns"] == {"one_pass": "after pass 1 (correct)",
                                "micrograd": "after pass 2", "pytorch": "after pass 2"}
    assert [c["title"] for c in table["conventions"]] == [c.title for c in CONVENTIONS.values()]
    for mode in ("assign", "recursive"):
        assert build(source, mode=mode)["conventions"] is None
    assert build(source)["conventions"] is None


def test_both_doors_send_the_same_conventions():
    request = {"preset": "lecture", "no_zero_grad": True}
    http = TestClient(create_app()).post("/api/walk", json=request)
    assert http.status_code == 200, http.text
    worker = through_the_worker("walk", request)
    assert worker["ok"] is True
    assert http.json()["conventions"] == worker["data"]["conventions"] \
        == compare_conventions(parse(PRESETS["lecture"].expr))
    assert TestClient(create_app()).post("/api/walk", json={"preset": "lecture"}).json()[
        "conventions"] is None


#: grads of inf, -inf and nan at the leaves a, b and c
UNBOUNDED = "a = 0; b = 0; c = -1; y = sqrt(a) - sqrt(b) + sqrt(c)"
COLUMNS = ("one_pass", "micrograd", "pytorch")


def unbounded_rows(table):
    """The rows of a, b, c and y: the numbers in the three columns, and the texts."""
    rows = {r["name"]: r for r in table["rows"]}
    return {name: ([rows[name][k] for k in COLUMNS], rows[name]["texts"])
            for name in "abcy"}


#: inf, -inf and nan as the wire sends them (micrograd.wire.encode), the texts as fmt
#: writes them; a finite grad stays a number
UNBOUNDED_ROWS = {name: ([sent] * 3, dict.fromkeys(COLUMNS, text)) for name, sent, text in
                  [("a", "Infinity", "inf"), ("b", "-Infinity", "-inf"), ("c", "NaN", "nan"),
                   ("y", 1.0, "1")]}


def test_an_infinite_or_nan_grad_in_the_table_is_json_as_the_wire_says():
    table = compare_conventions(parse(UNBOUNDED))
    json.dumps(table, allow_nan=False)  # JSON as it is: no bare inf or nan
    assert unbounded_rows(table) == UNBOUNDED_ROWS


def test_an_infinite_or_nan_grad_is_never_null_in_the_served_json():
    http = TestClient(create_app()).post("/api/walk", json={"expr": UNBOUNDED,
                                                            "mode": "no_zero_grad"})
    assert http.status_code == 200, http.text
    assert unbounded_rows(http.json()["conventions"]) == UNBOUNDED_ROWS


def test_an_infinite_or_nan_grad_goes_through_the_static_sites_door():
    worker = through_the_worker("walk", {"expr": UNBOUNDED, "mode": "no_zero_grad"})
    assert worker["ok"] is True, worker
    assert unbounded_rows(worker["data"]["conventions"]) == UNBOUNDED_ROWS


# ---- constants named by their value in the steps' sentences ----------------------------


def sentences(w):
    out = [s.text for s in w.backward] + [s.head for s in w.backward]
    out += [c.text for s in w.backward for c in s.contributions] + w.notes
    return out


def test_the_diamonds_constants_are_named_as_constants():
    w = walk(parse(PRESETS["diamond"].expr))
    texts = [s.text for s in w.backward]
    assert "visit c = a*3: grad[a] += 3 * 3 = 9; grad[constant 3] += 3 * 2 = 6" in texts
    assert "visit constant 3 (leaf): grad[constant 3] = 6" in texts
    assert ("visit b = a + 1: grad[a] += 6 * 1 = 6 (grad[a] now 15); "
            "grad[constant 1] += 6 * 1 = 6") in texts
    assert "visit constant 1 (leaf): grad[constant 1] = 6" in texts
    # the formulas keep the numbers as numbers
    assert [s.text for s in w.forward][:2] == ["b = a + 1 = 2 + 1 = 3", "c = a*3 = 2*3 = 6"]


@pytest.mark.parametrize("mode", list(MODES))
@pytest.mark.parametrize("preset", list(PRESETS))
def test_no_sentence_names_a_grad_by_a_bare_number(preset, mode):
    w = walk(parse(PRESETS[preset].expr), mode=mode)
    for text in sentences(w):
        assert not re.search(r"grad\[-?[0-9.]", text), text
        assert not re.search(r"visit -?[0-9.]", text), text


def test_a_wrong_constant_grad_is_named_in_the_notes():
    a, k = Value(2.0, label="a"), Value(3.0)  # k: a constant used twice
    f = a * k + k * k
    f.label = "f"
    k.grad = a.grad = 0.0
    f.backward()
    w = walk(f, mode="assign")
    assert any(re.fullmatch(rf"wrong: grad\[constant 3\] = \S+, correct {k.grad:g}", n)
               for n in w.notes), w.notes
    assert k.grad == 8.0  # a + 2k
    assert "visit constant 3 (leaf): grad[constant 3] = " in "\n".join(s.text for s in w.backward)
    assert "3" in w.names.values()  # names for lookups stay short: "3"


# ---- the lessons ------------------------------------------------------------------------


def test_each_lesson_is_one_sentence_and_the_conventions_are_told():
    for m in MODES.values():
        assert m.lesson.startswith("Notice") and m.lesson.endswith(".")
        assert not re.search(r"[.!?]\s+[A-Z]", m.lesson), m.lesson  # one sentence
    lesson = MODES["no_zero_grad"].lesson
    assert "PyTorch and this package" in lesson and "micrograd 0.1.0" in lesson
    for c in CONVENTIONS.values():
        assert c.rule.endswith(".") and not re.search(r"[.!?]\s+[A-Z]", c.rule)
    spec = WalkSetup.spec()
    assert [c["key"] for c in spec["conventions"]] == list(CONVENTIONS)
    assert {m["key"]: m["lesson"] for m in spec["modes"]} == {
        k: m.lesson for k, m in MODES.items()}


def test_more_passes_keep_adding_in_both_conventions():
    root = parse(PRESETS["lecture"].expr)
    three = compare_conventions(root, passes=3)
    rows = {r["name"]: r for r in three["rows"]}
    assert rows["a"]["pytorch"] == 18.0  # 3 x 6: the leaves add up once a pass
    assert three["columns"]["micrograd"] == "after pass 3"
    twin = mirror(root)
    for _ in range(3):
        twin[root].backward()
    assert [r["micrograd"] for r in three["rows"]] == [
        twin[v].grad for v in (n.value for n in reversed(trace(root)[0]))]

"""micrograd.viz: trace, layout, and the SVG / PNG / DOT / JSON renderers."""

import json
import math
import random
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given
from hypothesis import strategies as st

from micrograd import ops, viz
from micrograd.engine import Value, apply_op
from micrograd.expr import parse
from micrograd.nn import MLP
from micrograd.viz.layout import _count_inversions, _isotonic_place

SVG = "{http://www.w3.org/2000/svg}"
SEED002 = "a = 2; b = -3; c = 10; f = -2; e = a*b; d = e + c; L = d*f"
DIAMOND = "a = 2; b = a + 1; c = a*3; d = b*c"


def seed002():
    L = parse(SEED002)
    L.backward()
    return L


def mlp_loss():
    m = MLP(2, [9, 1], seed=0)
    xs = [[2.0, 3.0], [3.0, -1.0], [0.5, 1.0], [1.0, 1.0]]
    ys = [1.0, -1.0, -1.0, 1.0]
    loss = sum(((m([Value(a), Value(b)]) - y) ** 2 for (a, b), y in zip(xs, ys)), Value(0.0))
    loss.backward()
    return loss


def neuron_trace():
    m = MLP(2, [9, 1], seed=1)
    out = m([Value(1.0, label="x1"), Value(-2.0, label="x2")])
    out.backward()
    return out


GRAPHS = {
    "seed002": seed002,
    "square": lambda: parse("a = 3; f = a*a"),
    "diamond": lambda: parse(DIAMOND),
    "leaf": lambda: Value(1.5, label="x"),
    "neuron": lambda: parse("o = tanh(x1*w1 + x2*w2 + b)",
                            {"x1": 2, "x2": 0, "w1": -3, "w2": 1, "b": 6.8813735870195432}),
    "mlp_neuron": neuron_trace,
    "deep": lambda: parse("x = 0.5; " + "; ".join(["x = tanh(x) * 1.1 + 0.1"] * 60)),
    "wide": lambda: parse(" + ".join(f"w{i}*x{i}" for i in range(80)),
                          {**{f"w{i}": i / 10 for i in range(80)},
                           **{f"x{i}": 1 - i / 50 for i in range(80)}}),
    "long_edges": lambda: parse("a = 1.5; " + "; ".join(["b = sin(b)"] * 0)
                                + "b = a; " + "; ".join(["b = cos(b) + a"] * 25)),
}


# ---- trace ---------------------------------------------------------------------------


def test_trace_reused_input_is_two_edges():
    f = parse("a = 3; f = a*a")
    nodes, edges = viz.trace(f)
    assert [n.id for n in nodes] == ["n0", "n1"]
    assert [(e.src, e.dst, e.index, e.local) for e in edges] == [
        ("n0", "n1", 0, 3.0), ("n0", "n1", 1, 3.0)]
    assert nodes[1].inputs == ("n0", "n0") and nodes[1].op == "*" and nodes[1].op_key == "mul"


def test_trace_forward_order_and_ids():
    nodes, edges = viz.trace(seed002())
    assert [n.name for n in nodes] == ["a", "b", "e", "c", "d", "f", "L"]
    pos = {n.id: i for i, n in enumerate(nodes)}
    for e in edges:
        assert pos[e.src] < pos[e.dst]
    assert nodes[-1].label == "L"
    # every input edge of every node, in input order
    for n in nodes:
        ins = [e for e in edges if e.dst == n.id]
        assert [e.index for e in ins] == list(range(len(n.inputs)))
        assert [e.src for e in ins] == list(n.inputs)


def test_trace_refuses_non_values():
    with pytest.raises(TypeError, match="float"):
        viz.trace(1.5)


@pytest.mark.parametrize("key", sorted(ops.BUILTIN))
def test_edge_local_derivative_matches_finite_differences(key):
    op = ops.BUILTIN[key]
    rng = random.Random(key)
    x = [rng.uniform(0.3, 1.7) for _ in range(op.arity)]
    vs = [Value(v) for v in x]
    out = apply_op(op, *vs, arg=2.5 if op.has_arg else None)
    nodes, edges = viz.trace(out)
    assert nodes[-1].op_key == key
    h = 1e-6
    for e in edges:
        i = e.index
        xp, xm = list(x), list(x)
        xp[i] += h
        xm[i] -= h
        args = (2.5,) if op.has_arg else ()
        fd = (op.forward(*xp, *args) - op.forward(*xm, *args)) / (2 * h)
        assert e.local == pytest.approx(fd, rel=1e-6, abs=1e-8)


# ---- layout ----------------------------------------------------------------------------


def _assert_no_overlap(lay):
    boxes = lay.boxes()
    # sweep by x to keep it quick on big graphs
    boxes.sort(key=lambda b: b.x)
    for i, a in enumerate(boxes):
        for b in boxes[i + 1:]:
            if b.x >= a.x + a.w:
                break
            assert not a.overlaps(b), (a, b)
        assert a.x >= 0 and a.y >= 0
        assert a.x + a.w <= lay.width + 1e-6 and a.y + a.h <= lay.height + 1e-6


@pytest.mark.parametrize("name", sorted(GRAPHS))
@pytest.mark.parametrize("rankdir", ["LR", "TB"])
def test_layout_no_overlaps_and_edges_point_forward(name, rankdir):
    root = GRAPHS[name]()
    for show_grad in (True, False):
        lay = viz.layout(root, rankdir=rankdir, show_grad=show_grad)
        _assert_no_overlap(lay)
        boxes = {nl.node.id: nl for nl in lay.nodes}
        for el in lay.edges:
            src, dst = boxes[el.edge.src].box, boxes[el.edge.dst].op_box
            (x0, y0), (x1, y1) = el.points[0], el.points[-1]
            if rankdir == "LR":
                assert x0 == pytest.approx(src.x + src.w, abs=0.01)
                assert x1 == pytest.approx(dst.x, abs=0.01)
                assert all(p[0] < q[0] for p, q in zip(el.points, el.points[1:]))
                assert dst.y <= y1 <= dst.y + dst.h
            else:
                assert y0 == pytest.approx(src.y + src.h, abs=0.01)
                assert y1 == pytest.approx(dst.y, abs=0.01)
                assert all(p[1] < q[1] for p, q in zip(el.points, el.points[1:]))
                assert dst.x <= x1 <= dst.x + dst.w


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_layout_is_deterministic(name):
    a = viz.to_dict(GRAPHS[name]())
    b = viz.to_dict(GRAPHS[name]())  # the graph built again from scratch
    assert a == b
    assert viz.to_svg(GRAPHS[name]()) == viz.to_svg(GRAPHS[name]())


def test_tree_has_no_crossings_and_reused_input_has_two_ports():
    assert viz.layout(seed002()).crossings == 0
    lay = viz.layout(parse("a = 3; f = a*a"))
    (e0, e1) = lay.edges
    assert e0.points[0] == e1.points[0] and e0.points[-1] != e1.points[-1]


def test_layout_records_show_lecture_cells():
    lay = viz.layout(seed002())
    cells = {nl.node.name: nl.cells for nl in lay.nodes}
    assert cells["a"] == ["a", "data 2.0000", "grad 6.0000"]
    assert cells["L"] == ["L", "data -8.0000", "grad 1.0000"]
    assert viz.layout(seed002(), show_grad=False).nodes[0].cells == ["a", "data 2.0000"]


def test_mlp_loss_is_readable_in_a_fixed_number_of_passes():
    from micrograd.viz import layout_in_turns
    from micrograd.viz.layout import PLACE_PASSES, SWEEPS

    loss = mlp_loss()
    lay = viz.layout(loss)
    assert len(lay.nodes) > 300
    _assert_no_overlap(lay)
    # the ordering sweeps keep the crossings below those of the first ordering
    assert lay.crossings < len(lay.edges) * 10
    # the work is counted, not timed (benchmarks/big_inputs.py times it): one turn for
    # the ranks and chains, one a sweep, one a placing pass, one for the rest, whatever
    # the graph's size; and the same layout as in one call
    jobs, turns = layout_in_turns(loss), 0
    while True:
        turns += 1
        try:
            next(jobs)
        except StopIteration as done:
            assert viz.layout_to_dict(done.value) == viz.layout_to_dict(lay)
            break
    assert turns <= 1 + SWEEPS + PLACE_PASSES + 1, turns


def test_layout_rejects_bad_rankdir():
    with pytest.raises(ValueError, match="rankdir"):
        viz.layout(seed002(), rankdir="RL")
    with pytest.raises(ValueError, match="rankdir"):
        viz.to_dot(seed002(), rankdir="XX")


@given(st.lists(st.integers(-5, 5), max_size=40))
def test_inversion_count_matches_brute_force(seq):
    brute = sum(1 for i in range(len(seq)) for j in range(i + 1, len(seq)) if seq[i] > seq[j])
    assert _count_inversions(seq) == brute


@given(st.lists(st.floats(-100, 100), min_size=1, max_size=12),
       st.lists(st.floats(0, 20), min_size=11, max_size=11))
def test_isotonic_place_keeps_gaps_and_is_optimal_on_feasible_input(desired, seps):
    seps = seps[:len(desired) - 1]
    y = _isotonic_place(desired, seps)
    for i, s in enumerate(seps):
        assert y[i + 1] - y[i] >= s - 1e-9
    if all(desired[i + 1] - desired[i] >= s for i, s in enumerate(seps)):
        assert y == pytest.approx(desired)


# ---- SVG -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_svg_parses_and_has_every_node_and_edge(name):
    root = GRAPHS[name]()
    nodes, edges = viz.trace(root)
    svg = viz.to_svg(root)
    tree = ET.fromstring(svg)
    groups = {g.get("data-id"): g for g in tree.iter(SVG + "g") if g.get("class") == "node"}
    ops_ = {g.get("data-id") for g in tree.iter(SVG + "g") if g.get("class") == "op"}
    paths = [p for p in tree.iter(SVG + "path") if p.get("class") == "edge"]
    assert set(groups) == {n.id for n in nodes}
    assert ops_ == {n.id for n in nodes if not n.leaf}
    assert sorted((p.get("data-src"), p.get("data-dst"), int(p.get("data-index")))
                  for p in paths) == sorted((e.src, e.dst, e.index) for e in edges)
    for n in nodes:
        texts = [t.text for t in groups[n.id].iter(SVG + "text")]
        assert texts[-2:] == [f"data {viz.layout.__globals__['fmt4'](n.data)}",
                              f"grad {viz.layout.__globals__['fmt4'](n.grad)}"]


def test_svg_is_self_contained():
    svg = viz.to_svg(mlp_loss())
    for bad in ("<script", "@import", "http://www.w3.org/1999/xlink", "href=\"http",
                "<style", "url(http", "font-face"):
        assert bad not in svg
    assert svg.startswith("<svg xmlns=\"http://www.w3.org/2000/svg\"")


def test_svg_escapes_labels():
    a = Value(1.0, label='<b>"x"</b> & |{}')
    b = Value(2.0, label="tab\tnul\x00bell\x07")
    c = a * b
    c.label = "]]><!--"
    svg = viz.to_svg(c)
    tree = ET.fromstring(svg)  # would fail on an unescaped < or a NUL
    texts = [t.text for t in tree.iter(SVG + "text")]
    assert '<b>"x"</b> & |{}' in texts
    assert "]]><!--" in texts
    assert "<b>" not in svg
    long = Value(1.0, label="<" * 100)
    svg = viz.to_svg(long)
    texts = [t.text for t in ET.fromstring(svg).iter(SVG + "text")]
    assert texts[0] == "<" * 31 + "\u2026"  # long labels are cut in the box...
    assert "<" * 100 in "".join(ET.fromstring(svg).itertext())  # ...but whole in the title


def test_svg_no_grad_and_repr_svg():
    L = seed002()
    tree = ET.fromstring(viz.to_svg(L, show_grad=False))
    texts = [t.text for t in tree.iter(SVG + "text")] + [t.text for t in tree.iter(SVG + "title")]
    assert not any("\ngrad" in t or t.startswith("grad ") for t in texts)
    assert any(t.startswith("data ") for t in texts)
    assert L._repr_svg_() == viz.to_svg(L)


def test_svg_with_nonfinite_and_huge_numbers():
    x = parse("x = 0; y = log(x) + exp(1000) * 1e300")
    svg = viz.to_svg(x)
    ET.fromstring(svg)
    assert "-inf" in svg and "inf" in svg
    big = parse("b = 12345678901")
    assert "1.2346e+10" in viz.to_svg(big)


# ---- JSON ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_json_has_every_node_edge_and_position(name):
    root = GRAPHS[name]()
    nodes, edges = viz.trace(root)
    data = json.loads(viz.to_json(root))
    assert data["format"] == "micrograd.graph" and data["version"] == 1
    assert [n["id"] for n in data["nodes"]] == [n.id for n in nodes]
    assert [(e["id"], e["src"], e["dst"], e["index"]) for e in data["edges"]] == [
        (e.id, e.src, e.dst, e.index) for e in edges]
    assert data["root"] == nodes[-1].id
    for n, nd in zip(data["nodes"], nodes):
        assert set(n["box"]) == {"x", "y", "w", "h"}
        assert (n["op_box"] is None) == nd.leaf
        assert n["data"] == nd.data and n["grad"] == nd.grad
    for e in data["edges"]:
        assert len(e["points"]) >= 2


def test_json_is_strict_with_inf_and_nan():
    r = parse("x = 0; y = log(x); z = y * 0")
    text = viz.to_json(r)
    data = json.loads(text)  # strict: no bare NaN / Infinity tokens
    assert "NaN" not in text.replace('"NaN"', "")
    vals = {n["name"]: n["data"] for n in data["nodes"]}
    assert vals["y"] == "-Infinity" and vals["z"] == "NaN"
    assert math.isnan(float("nan"))


# ---- DOT and PNG -----------------------------------------------------------------------


def test_dot_has_records_ops_and_both_edges_of_a_square():
    dot = viz.to_dot(parse("a = 3; f = a*a"))
    assert dot.startswith("digraph micrograd {")
    assert dot.count("n0 -> n1_op") == 2
    assert 'n1_op [shape=ellipse, label="*"]' in dot
    assert '"{ a | data 3.0000 | grad 0.0000 }"' in dot
    tb = viz.to_dot(parse("a = 3; f = a*a"), rankdir="TB")
    assert "rankdir=TB" in tb and '"a | data 3.0000 | grad 0.0000"' in tb


def test_dot_escapes_record_characters():
    a = Value(1.0, label='x|{y}<z>"q\\')
    dot = viz.to_dot(a)
    assert r'label="{ x\|\{y\}\<z\>\"q\\ | data 1.0000 | grad 0.0000 }"' in dot


def test_png_is_written(tmp_path):
    from PIL import Image

    path = tmp_path / "g.png"
    assert viz.to_png(seed002(), str(path)) == str(path)
    with Image.open(path) as im:
        assert im.format == "PNG"
        lay = viz.layout(seed002())
        assert abs(im.size[0] - lay.width * 1.5) <= 2 and abs(im.size[1] - lay.height * 1.5) <= 2
        colors = im.convert("RGB").getcolors(maxcolors=100000)
        assert len(colors) > 10  # something was drawn, not a blank canvas


def test_ordering_sweeps_reduce_crossings(monkeypatch):
    import sys

    mod = sys.modules["micrograd.viz.layout"]  # (viz.layout is the function)

    def random_dag(seed):
        rng = random.Random(seed)
        pool = [Value(rng.random(), label=f"x{i}") for i in range(6)]
        for _ in range(40):
            a, b = rng.choice(pool), rng.choice(pool[-10:])
            pool.append(a * b if rng.random() < 0.5 else a + b)
        return sum(pool[-8:], Value(0.0))

    swept = [viz.layout(random_dag(s)).crossings for s in range(12)]
    monkeypatch.setattr(mod, "SWEEPS", 0)
    first = [viz.layout(random_dag(s)).crossings for s in range(12)]
    assert all(a <= b for a, b in zip(swept, first))
    assert sum(swept) < 0.7 * sum(first)

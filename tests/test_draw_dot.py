"""draw_dot and the lecture's trace: the Digraph a notebook shows, renders and prints."""

import json
import os
import struct
import xml.etree.ElementTree as ET

import pytest

import micrograd
from micrograd.engine import Value
from micrograd.viz import Digraph, draw_dot, to_dot, to_svg
from micrograd.viz.digraph import NOTE, grads_never_computed, trace


def lecture_graph():
    """The lecture's L = (a*b + c) * f."""
    a = Value(2.0, label="a"); b = Value(-3.0, label="b")
    c = Value(10.0, label="c"); f = Value(-2.0, label="f")
    e = a * b; e.label = "e"
    d = e + c; d.label = "d"
    L = d * f; L.label = "L"
    return L, (a, b, c, d, e, f)


def lecture_trace(root):
    """The lecture's recursive trace, written as in the video: the reference."""
    nodes, edges = set(), set()

    def build(v):
        if v not in nodes:
            nodes.add(v)
            for child in v._prev:
                edges.add((child, v))
                build(child)
    build(root)
    return nodes, edges


def png_size(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_short_alias_is_the_same_function():
    assert micrograd.draw_dot is draw_dot
    from micrograd.viz.digraph import draw_dot as d2
    assert d2 is draw_dot
    with pytest.raises(AttributeError, match="no attribute 'nonsense'"):
        micrograd.nonsense  # noqa: B018


def test_trace_matches_the_lectures_recursive_trace():
    L, _ = lecture_graph()
    x = Value(0.5, label="x")
    n = (x * x + x).tanh() * L + x.exp()  # a reused node and two roots' worth of paths
    assert trace(n) == lecture_trace(n)
    nodes, edges = trace(L)
    assert len(nodes) == 7 and len(edges) == 6
    assert all(isinstance(p, tuple) and p[1]._prev and p[0] in p[1]._prev for p in edges)


def test_trace_is_iterative():
    x = Value(1.0)
    for _ in range(5000):
        x = x + 1.0
    nodes, edges = trace(x)
    assert len(nodes) == 10001 and len(edges) == 10000


def test_trace_and_draw_dot_refuse_non_values():
    with pytest.raises(TypeError, match="got float"):
        trace(1.0)
    with pytest.raises(TypeError, match="got list"):
        draw_dot([Value(1.0)])


def test_note_before_backward_and_gone_after():
    L, _ = lecture_graph()
    before = draw_dot(L)
    assert grads_never_computed(L)
    assert before.note == NOTE
    assert "backward() has not run" in before.svg()
    assert "backward() has not run" in before.source
    assert before.to_dict()["note"] == NOTE
    assert "grads not computed yet" in repr(before)
    L.backward()
    after = draw_dot(L)
    assert not grads_never_computed(L)
    assert after.note is None
    assert "backward()" not in after.svg() and "backward()" not in after.source
    assert after.to_dict()["note"] is None
    # after backward() a zero grad here and there is no reason for the note
    x, z = Value(2.0, label="x"), Value(0.0, label="z")
    y = x * z
    y.backward()
    assert x.grad == 0.0 and draw_dot(y).note is None
    # without grads on the drawing there is nothing to warn about
    L.zero_grad()
    assert draw_dot(L, show_grad=False).note is None


def test_png_note_adds_a_band():
    L, _ = lecture_graph()
    _, h0 = png_size(draw_dot(L).pipe("png"))
    L.backward()
    _, h1 = png_size(draw_dot(L).pipe("png"))
    assert h0 > h1  # the note's band


def test_drawing_and_source_are_the_packages_renderers():
    L, _ = lecture_graph()
    L.backward()
    g = draw_dot(L)
    assert g.source == to_dot(L)
    assert g.svg() == to_svg(L)
    assert draw_dot(L, rankdir="TB").source == to_dot(L, rankdir="TB")
    ET.fromstring(g.svg())
    L.zero_grad()
    ET.fromstring(draw_dot(L).svg())  # the noted form is well-formed XML too


def test_grads_on_the_drawing_are_the_engines():
    L, (a, b, c, d, e, f) = lecture_graph()
    L.backward()
    data = draw_dot(L).to_dict()
    by_label = {n["label"]: n for n in data["nodes"]}
    for v in (a, b, c, d, e, f, L):
        assert by_label[v.label]["grad"] == v.grad
        assert by_label[v.label]["data"] == v.data
    assert [by_label[k]["grad"] for k in "abcf"] == [6.0, -4.0, -2.0, 4.0]


def test_jupyter_display():
    L, _ = lecture_graph()
    g = draw_dot(L)
    bundle = g._repr_mimebundle_()
    assert bundle["image/svg+xml"] == g._repr_svg_() == g.svg()
    assert "image/png" not in bundle
    assert g._repr_mimebundle_(include={"text/plain"}) == {"text/plain": repr(g)}
    assert "image/svg+xml" not in g._repr_mimebundle_(exclude={"image/svg+xml"})
    png = draw_dot(L, format="png")._repr_mimebundle_()["image/png"]
    import base64
    png_size(base64.b64decode(png))


@pytest.mark.parametrize("name, fmt, written", [
    ("graph", None, "graph.svg"),          # the graph's own format
    ("graph.png", None, "graph.png"),      # the extension
    ("graph.dot", None, "graph.dot"),
    ("graph.json", None, "graph.json"),
    ("graph", "png", "graph.png"),         # format= wins
    ("graph.svg", "svg", "graph.svg"),
    ("graph.txt", "dot", "graph.txt.dot"),
])
def test_render_format_by_argument_or_extension(tmp_path, name, fmt, written):
    L, _ = lecture_graph()
    L.backward()
    g = draw_dot(L)
    out = g.render(str(tmp_path / name), format=fmt)
    assert out == str(tmp_path / written)
    data = (tmp_path / written).read_bytes()
    kind = written.rsplit(".", 1)[1]
    if kind == "png":
        png_size(data)
    elif kind == "svg":
        assert data.decode() == g.svg()
    elif kind == "dot":
        assert data.decode() == g.source
    else:
        assert json.loads(data)["nodes"][-1]["label"] == "L"
    assert sorted(os.listdir(tmp_path)) == [written]  # no temporary file left behind


def test_render_default_format_png(tmp_path):
    L, _ = lecture_graph()
    out = draw_dot(L, format="png").render(str(tmp_path / "g"))
    assert out.endswith("g.png")
    with open(out, "rb") as fh:
        png_size(fh.read())


def test_save_writes_the_source(tmp_path):
    L, _ = lecture_graph()
    g = draw_dot(L)
    p = g.save(tmp_path / "x.dot")
    with open(p) as fh:
        assert fh.read() == g.source


def test_bad_arguments_are_named():
    L, _ = lecture_graph()
    with pytest.raises(ValueError, match="unknown format 'pdf'"):
        draw_dot(L, format="pdf")
    with pytest.raises(TypeError, match="format must be a str, got int"):
        draw_dot(L, format=3)
    with pytest.raises(ValueError, match="rankdir must be"):
        draw_dot(L, rankdir="RL")
    g = draw_dot(L)
    with pytest.raises(TypeError, match="filename must be a str or path, got int"):
        g.render(5)
    with pytest.raises(ValueError, match="unknown format 'gif'"):
        g.render("x", format="gif")
    with pytest.raises(FileNotFoundError, match="no such folder"):
        g.render("/nonexistent-folder-xyz/graph.svg")


def test_digraph_is_drawn_when_created():
    L, _ = lecture_graph()
    g = Digraph(L)
    L.backward()
    assert g.note == NOTE  # the old drawing still shows the zeros it was drawn with
    assert draw_dot(L).note is None


def test_readme_draw_dot_example_runs(tmp_path, monkeypatch):
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    code = next(b for b in re.findall(r"```py\n(.*?)```", readme, flags=re.DOTALL)
                if "draw_dot" in b)
    L, _ = lecture_graph()
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "README.md", "exec"), {"L": L})  # noqa: S102 - our own README
    png_size((tmp_path / "graph.png").read_bytes())

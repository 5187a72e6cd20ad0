"""micrograd.walk_setup: the one table of presets and modes (each lesson's numbers checked
against the walk), the set-up's links (the page's old mode keys included), its checks and
spec, and the Jupyter widget reading the same tables."""

import json
from urllib.parse import parse_qsl

import pytest

from micrograd import walk
from micrograd.expr import leaves, parse
from micrograd.walk_setup import (CONTROLS, MAX_EXPR_CHARS, MODES, PRESETS, WalkSetup,
                                  WalkSetupError)
from micrograd.widget import WalkModel


def query(text):
    return dict(parse_qsl(text, keep_blank_values=True))


def grad_of(source, leaf, mode):
    root = parse(source)
    w = walk.walk(root, mode=mode)
    node = next(i for i, name in w.names.items() if name == leaf)
    return w.grads[node]


def test_one_table_of_presets_every_graph_parses_and_asks_about_a_leaf():
    # the lecture's graphs (the first is the default); a preset added is welcome
    assert next(iter(PRESETS)) == "sum_times"
    assert {"sum_times", "lecture", "neuron", "square", "diamond", "reused"} <= set(PRESETS)
    for p in PRESETS.values():
        assert p.key and p.title
        assert p.ask in leaves(parse(p.expr))
    # the neuron is the lecture's, with the x1w1 + x2w2 node named
    assert "x1w1x2w2 = x1w1 + x2w2" in PRESETS["neuron"].expr


def test_one_mode_text_per_walk_mode_and_each_lesson_is_true():
    assert tuple(MODES) == walk.MODES
    for m in MODES.values():
        assert m.title and m.lesson.endswith(".") and m.lesson.count(". ") == 0
    # the numbers each lesson names are the walk's
    assert grad_of("a = 3; f = a * a", "a", "assign") == 3.0
    assert grad_of("a = 3; f = a * a", "a", "correct") == 6.0
    assert grad_of("a = 1; b = a + a; c = b + b", "a", "recursive") == 8.0
    assert grad_of("a = 1; b = a + a; c = b + b", "a", "correct") == 4.0
    lecture = PRESETS["lecture"].expr
    assert grad_of(lecture, "a", "no_zero_grad") == 24.0
    assert grad_of(lecture, "a", "correct") == 6.0


@pytest.mark.parametrize("link, want", [
    ("page=walk", WalkSetup()),
    ("page=walk&preset=lecture&v=a%3A2%2Cb%3A-3%2Cc%3A10%2Cf%3A-2",
     WalkSetup(preset="lecture", values={"a": 2.0, "b": -3.0, "c": 10.0, "f": -2.0})),
    ("page=walk&preset=square&v=a%3A3&assign=1", WalkSetup(preset="square",
                                                          values={"a": 3.0}, mode="assign")),
    ("preset=reused&recursive=1", WalkSetup(preset="reused", mode="recursive")),
    ("preset=lecture&nozero=1", WalkSetup(preset="lecture", mode="no_zero_grad")),
    ("expr=a+%3D+2%3B+b+%3D+a*a&ask=a&of=b",
     WalkSetup(preset=None, expr="a = 2; b = a*a", ask="a", of="b")),
    ("expr=tanh(x1*w1)&v=x1%3A2%2Cw1%3A-3", WalkSetup(preset=None, expr="tanh(x1*w1)",
                                                     values={"x1": 2.0, "w1": -3.0})),
])
def test_old_walk_links_open_the_same_setup(link, want):
    s = WalkSetup.from_url(query(link))
    assert s == want
    assert WalkSetup.from_url(s.to_url()) == s
    assert WalkSetup.from_dict(s.to_dict()) == s
    assert json.loads(json.dumps(s.to_dict())) == s.to_dict()


def test_canonical_links():
    s = WalkSetup(preset="diamond", values={"a": 0.1, "b:1": 1e-7}, mode="recursive",
                  step=4, ask="a", hide=["order", "nudge"])
    url = s.to_url()
    assert url == {"preset": "diamond", "v": "a:0.1,b%3A1:1e-7", "mode": "recursive",
                   "step": "4", "ask": "a", "hide": "order,nudge"}
    assert WalkSetup.from_url(url) == s
    assert WalkSetup().to_url() == {"preset": "sum_times"}
    # a lesson's questions: some, in the lecture's order as given, or none at all
    few = WalkSetup(preset="diamond", questions=["grad", "path"])
    assert few.to_url() == {"preset": "diamond", "questions": "grad,path"}
    assert WalkSetup.from_url(few.to_url()) == few
    none = WalkSetup(preset="diamond", questions=[])
    assert none.to_url() == {"preset": "diamond", "questions": ""}
    assert WalkSetup.from_url(none.to_url()) == none
    assert WalkSetup(preset=None, expr="a = 1").source == "a = 1"
    assert WalkSetup(preset="square").source == PRESETS["square"].expr


@pytest.mark.parametrize("fields, message", [
    ({"preset": "nope"}, "unknown preset 'nope'; choose one of sum_times, lecture"),
    ({"preset": None}, "give exactly one of preset and expr"),
    ({"preset": "square", "expr": "a = 1"}, "give exactly one of preset and expr"),
    ({"expr": "a = 1; " * 200}, f"expr is 1400 characters long; the cap is {MAX_EXPR_CHARS}"),
    ({"expr": 12}, "expr must be text, got int"),
    ({"mode": "fast"}, "unknown teaching mode 'fast'; choose one of correct, assign"),
    ({"step": -1}, "step must be a whole number 0 to 2000, got -1"),
    ({"step": True}, "step must be a whole number"),
    ({"values": {"a": float("nan")}}, "the value of a must be a finite number"),
    ({"values": {"a": "2"}}, "the value of a must be a finite number"),
    ({"values": {"": 1.0}}, "a leaf's name is text of 1 to 100 characters"),
    ({"values": {f"x{i}": 1.0 for i in range(101)}}, "at most 100 leaf values, got 101"),
    ({"hide": ["everything"]}, "hide lists each at most once, among graph, values"),
    ({"hide": ["graph", "graph"]}, "hide lists each at most once"),
    ({"questions": ["why"]}, "questions lists each at most once, among value, local"),
    ({"ask": "a" * 61}, "ask is 61 characters long; the cap is 60"),
    ({"colour": "red"}, "unknown field 'colour'"),
])
def test_a_bad_walk_setup_names_its_field(fields, message):
    with pytest.raises(WalkSetupError) as err:
        WalkSetup.from_dict(fields)
    assert message in str(err.value)


@pytest.mark.parametrize("q, message", [
    ({"assign": "1", "nozero": "1"}, "choose one teaching mode at a time (got assign and "
                                     "no_zero_grad)"),
    ({"v": "a:two"}, "v: the value of a must be a number, got 'two'"),
    ({"v": "a:nan"}, "the value of a must be a number"),
    ({"step": "3.5"}, "step must be a whole number, got '3.5'"),
])
def test_a_bad_walk_link_is_refused(q, message):
    with pytest.raises(WalkSetupError) as err:
        WalkSetup.from_url(q)
    assert message in str(err.value)


def test_spec_lists_presets_modes_and_fields():
    spec = WalkSetup.spec()
    assert json.loads(json.dumps(spec)) == spec
    assert [p["key"] for p in spec["presets"]] == list(PRESETS)
    assert spec["presets"][1] == {"key": "lecture", "title": PRESETS["lecture"].title,
                                  "expr": PRESETS["lecture"].expr, "ask": "a"}
    assert [m["key"] for m in spec["modes"]] == list(walk.MODES)
    assert all(m["title"] and m["lesson"] for m in spec["modes"])
    assert spec["controls"] == CONTROLS
    names = [f["name"] for f in spec["fields"]]
    assert names == list(WalkSetup().to_dict())
    by = {f["name"]: f for f in spec["fields"]}
    assert by["values"]["url"] == "v" and by["mode"]["choices"] == list(walk.MODES)
    assert by["expr"]["max_len"] == spec["limits"]["max_expr_chars"] == MAX_EXPR_CHARS


def test_the_widget_reads_the_same_tables():
    m = WalkModel("reused")  # the preset the widget lacked before
    m.run_backward()
    s = m.state()
    assert s["grads"]["a"] == 4.0
    assert s["presets"] == {k: p.title for k, p in PRESETS.items()}
    assert s["mode_text"] == MODES["correct"].title
    assert s["mode_lesson"] == MODES["correct"].lesson
    assert "x1w1x2w2" in WalkModel("neuron").state()["svg"]


def test_the_widget_opens_a_walk_link():
    setup = WalkSetup.from_url(query("preset=square&v=a%3A5&assign=1&step=3"))
    m = WalkModel(setup)
    s = m.state()
    assert s["mode"] == "assign" and s["mode_text"] == MODES["assign"].title
    assert s["forward_done"] == 1 and s["backward_done"] == 2  # 3 steps: 1 forward, 2 back
    m.run_backward()
    assert m.state()["grads"]["a"] == 5.0  # assign: a*a at 5 keeps one share, not 10
    with pytest.raises(WalkSetupError):
        WalkModel(WalkSetup(preset="nope"))


# ---------------------------------------------------------------------------------------
# a link read as the page reads it; the graph's text with its values in
# ---------------------------------------------------------------------------------------


def test_a_link_read_leniently_leaves_out_what_it_cannot_use_and_says_it():
    notes = []
    s = WalkSetup.from_url(query("preset=lectur&v=z:3,a:x,b&mode=up&step=abc"
                                 "&hide=order,grpah,order&questions=grad,why"), notes)
    assert s == WalkSetup(values={"z": 3.0}, hide=["order"], questions=["grad"])
    said = "\n".join(notes)
    for word in ("'lectur'", "the value of a must be a number", "'b' is not name:value",
                 "'up'", "'abc'", "'grpah'", "'why'"):
        assert word in said, word
    assert all(n.startswith("left out of the link: ") for n in notes) and len(notes) == 7
    # what the strict reader refuses, the lenient one says; a good link says nothing
    with pytest.raises(WalkSetupError):
        WalkSetup.from_url(query("preset=lectur"))
    notes = []
    assert WalkSetup.from_url(query("preset=square&v=a:5&assign=1"), notes).mode == "assign"
    assert notes == []
    both = []
    assert WalkSetup.from_url({"preset": "square", "expr": "a = 1"}, both).expr == "a = 1"
    assert "both an expression and the preset square" in both[0]


@pytest.mark.parametrize("source, values, text, rest", [
    (PRESETS["lecture"].expr, {"a": 3.0}, PRESETS["lecture"].expr.replace("a = 2", "a = 3"),
     {"a": 3.0}),
    ("a = 2; b = a*a", {"a": 2.0}, "a = 2; b = a*a", {}),  # said already
    ("a = -(2.50); b = a*a", {"a": -2.5}, "a = -(2.50); b = a*a", {}),
    ("a = 2\nb = a*a  # a square", {"a": 1e-7}, "a = 1e-7\nb = a*a  # a square",
     {"a": 1e-7}),
    ("y = tanh(x*w)", {"x": 2.0, "w": 0.5}, "y = tanh(x*w)", {"x": 2.0, "w": 0.5}),
    ("a = 2*3; b = a + 1", {"a": 1.0}, "a = 2*3; b = a + 1", {"a": 1.0}),  # a node
    ("a = 1; a = 2; b = a", {"a": 5.0}, "a = 5; a = 5; b = a", {"a": 5.0}),
    ("a = 2; b = a +", {"a": 5.0}, "a = 5; b = a +", {"a": 5.0}),  # the parse says why
    ("a = 2; b = a $", {"a": 5.0}, "a = 2; b = a $", {"a": 5.0}),  # no tokens: as is
])
def test_written_puts_the_values_in_the_text(source, values, text, rest):
    s = WalkSetup(preset=None, expr=source, values=values)
    assert s.written() == (text, rest)
    try:  # the text with the values beside it is the graph the set-up makes
        want = parse(source, values, override=True).data
    except ValueError:  # no graph (a parse error), or a value for no leaf
        return
    assert parse(text, rest, override=True).data == want

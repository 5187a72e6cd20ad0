"""What each teaching mode does to THIS graph (``micrograd.walk_explain``): every mode on
every preset says it in the graph's own names and numbers; where nothing goes wrong (no
node used twice), it says so and offers the reused-node preset; a repeat visit of the
recursive mode is labelled; the no-zero_grad table marks the wrong cells (against the
one-pass gradient), with its legend; one name per convention."""

import re

import pytest

from micrograd.expr import parse
from micrograd.graph import fmt
from micrograd.walk import walk
from micrograd.walk_explain import OFFER_PRESET, explain, label_repeats
from micrograd.walk_setup import CONVENTIONS, MODES, PRESETS, compare_conventions
from micrograd.web.walkview import build

CASES = [(p, m) for p in PRESETS for m in MODES]


def said(preset, mode, values=None):
    return build(PRESETS[preset].expr, values, mode=mode,
                 preset=PRESETS[preset])["explain"]


@pytest.mark.parametrize(("preset", "mode"), CASES)
def test_each_mode_on_each_preset_names_this_graphs_values(preset, mode):
    root = parse(PRESETS[preset].expr)
    w = walk(root, mode=mode)
    ask = PRESETS[preset].ask
    ask_id = next(k for k, name in w.names.items() if name == ask)
    text = said(preset, mode)["text"]
    leaf = next(v for v in _values(root) if v.label == ask)
    assert f"{ask} = {fmt(leaf.data)}" in text, text  # the asked leaf's own value
    assert ("grad[" in text and fmt(w.grads[ask_id]) in text) or any(
        f"instead of {fmt(exp)}" in text for _, _, exp in w.wrong()), text
    # the sentence changes with the graph's values: another value is said
    again = said(preset, mode, {ask: 5.0})["text"]
    assert f"{ask} = 5" in again and f"{ask} = {fmt(leaf.data)}" not in again


def _values(root):
    from micrograd.graph import nodes_and_edges
    return [n.value for n in nodes_and_edges(root)[0]]


@pytest.mark.parametrize("preset", ["sum_times", "lecture", "neuron"])
@pytest.mark.parametrize("mode", ["assign", "recursive"])
def test_where_nothing_goes_wrong_it_says_why_and_offers_the_reused_preset(preset, mode):
    out = said(preset, mode)
    assert out["text"].startswith("Nothing goes wrong here because no node is used twice")
    assert out["offer"]["preset"] == OFFER_PRESET and "reused-node preset" in \
        out["offer"]["label"]
    # where it does go wrong, no offer, and the wrong numbers are said
    wrong = said(OFFER_PRESET, mode)
    assert wrong["offer"] is None and "grad[a] = " in wrong["text"]
    assert "instead of 4" in wrong["text"]  # grad[a] = 4 is right on b = a + a; c = b + b


def test_the_recursive_mode_on_a_reused_leaf_says_a_leaf_passes_nothing_on():
    out = said("diamond", "recursive")
    assert "no inner node is used twice" in out["text"] and "leaf a" in out["text"]
    assert out["offer"]["preset"] == OFFER_PRESET


def test_repeat_visits_are_labelled():
    w = label_repeats(walk(parse(PRESETS["reused"].expr), mode="recursive"))
    heads = [s.head for s in w.backward if s.name == "b"]
    assert heads == ["visit b = a + a (path 1 of 2)", "visit b = a + a (again: path 2 of 2)"]
    assert all(s.text.startswith(s.head + ":") for s in w.backward if s.kind == "visit")
    # the page's steps carry the labels
    steps = build(PRESETS["reused"].expr, mode="recursive")["walk"]["backward"]
    assert [s["head"] for s in steps if s["name"] == "b"] == heads
    # the correct pass visits each node once: no label
    w = label_repeats(walk(parse(PRESETS["reused"].expr)))
    assert not any("path" in s.text for s in w.backward)


def test_the_no_zero_grad_sentence_names_both_conventions_and_their_numbers():
    text = said("lecture", "no_zero_grad")["text"]
    assert "grad[a] = 6 (right)" in text and "micrograd 0.1.0 ends with 24" in text
    assert "PyTorch and this package with 12" in text


def test_the_table_marks_the_wrong_cells_against_the_one_pass_column():
    table = compare_conventions(parse(PRESETS["lecture"].expr))
    wrong = {r["name"]: r["wrong"] for r in table["rows"]}
    # f: 4 -> 8 under both: wrong in both (the conventions agree there)
    assert wrong["f"] == ["micrograd", "pytorch"]
    assert wrong["L"] == []  # the root is set to 1 each pass: right
    assert wrong["d"] == ["micrograd"]  # PyTorch's interior grad is this pass's: right
    for r in table["rows"]:
        assert r["wrong"] == [k for k in CONVENTIONS if r[k] != r["one_pass"]]
    assert "wrong" in table["legend"] and "first column" in table["legend"]


def test_one_name_per_convention():
    names = [c.title for c in CONVENTIONS.values()]
    assert names == ["micrograd 0.1.0", "PyTorch and this package"]
    texts = [m.lesson for m in MODES.values()] + [c.rule for c in CONVENTIONS.values()]
    texts.append(compare_conventions(parse(PRESETS["lecture"].expr))["note"])
    texts += [said(p, "no_zero_grad")["text"] for p in PRESETS]
    for t in texts:
        assert not re.search(r"published engine|this engine|PyTorch's and ours", t), t


def test_no_mode_lesson_cites_a_value_no_preset_has():
    # the recursive lesson once said "a = 1" beside a preset where a = 3
    assert not re.search(r"\b[a-z]\w* = -?\d", MODES["recursive"].lesson)


def test_a_graph_that_is_one_leaf():
    root = parse("a = 2")
    out = explain(root, walk(root))
    assert "a = 2" in out["text"] and out["offer"] is None


def test_the_widget_says_what_the_mode_does_to_its_graph():
    from micrograd.widget import WalkModel
    m = WalkModel("lecture")
    m.set_mode("assign")
    assert m.state()["mode_explain"] == said("lecture", "assign")["text"]
    m = WalkModel("reused")
    m.set_mode("recursive")
    m.go_to(m.steps_total())
    assert any("(again: path 2 of 2)" in line for line in m.state()["log"])
    assert m.state()["conventions"] is None
    m.set_mode("no_zero_grad")
    rows = {r["name"]: r for r in m.state()["conventions"]["rows"]}
    assert rows["a"]["wrong"] == ["micrograd", "pytorch"] and rows["c"]["wrong"] == []

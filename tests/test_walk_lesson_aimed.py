"""A lesson a teacher aims (issue 31): with ``ask`` the questions open at the asked
node's own; the link's new fields (``answers``, ``hide=tabs``) are WalkSetup's
declarations; a learner's record re-checked against the engine catches a wrong copy."""

import copy

import pytest

from micrograd.walk_setup import ANSWERS, CONTROLS, WalkSetup, WalkSetupError
from micrograd.web.handlers import run_to_end
from micrograd.web.handlers.walk import RECORD, recheck, walk

EXPR = "x = 0.5; y = x*x; z = exp(y)*x"


def kinds(request):
    return [q["kind"] for q in run_to_end(walk(request))["questions"]]


def test_with_ask_the_sequence_opens_at_the_asked_nodes_questions():
    # the sample lesson's first walk: ask="a" opened with "what is e = a*b?"
    doc = run_to_end(walk({"link": {"preset": "lecture", "ask": "a"}}))
    assert doc["questions"][0]["kind"] == "grad"
    assert doc["questions"][0]["text"].endswith("what is dL/da?")
    assert kinds({"link": {"expr": EXPR, "ask": "x", "of": "z"}}) == \
        ["grad", "path", "value", "local"]
    assert kinds({"expr": EXPR, "ask": "x"}) == ["grad", "path", "value", "local"]
    # an interior node asked about: its own questions first as well
    assert kinds({"preset": "lecture", "ask": "d"})[0] == "grad"
    # the kinds a teacher chose, still in the order the aim puts them
    assert kinds({"link": {"expr": EXPR, "ask": "x", "questions": "value,grad"}}) == \
        ["grad", "value"]


def test_without_ask_the_lectures_order_stays():
    assert kinds({"preset": "lecture"}) == ["value", "local", "grad"]
    assert kinds({"link": {"expr": EXPR}}) == ["value", "local", "grad", "path"]


def test_the_new_link_fields_are_declared_once_and_read_as_a_link():
    spec = {f["name"]: f for f in WalkSetup.spec()["fields"]}
    assert spec["answers"]["choices"] == list(ANSWERS) and spec["answers"]["url"] == "answers"
    assert spec["answers"]["default"] == "shown"
    assert "tabs" in CONTROLS and "tabs" in spec["hide"]["choices"]
    s = WalkSetup.from_url({"preset": "lecture", "ask": "a", "answers": "hidden",
                            "hide": "tabs"})
    assert (s.answers, s.hide) == ("hidden", ["tabs"])
    assert s.to_url() == {"preset": "lecture", "ask": "a", "hide": "tabs",
                          "answers": "hidden"}
    assert "answers" not in WalkSetup.from_url({"preset": "lecture"}).to_url()
    notes = []
    assert WalkSetup.from_url({"preset": "lecture", "answers": "secret"}, notes).answers \
        == "shown"
    assert "answers" in notes[0]
    with pytest.raises(WalkSetupError):
        WalkSetup.from_url({"preset": "lecture", "answers": "secret"})
    # the walk's answer says it, for the page to apply
    doc = run_to_end(walk({"link": {"preset": "lecture", "answers": "hidden"}}))
    assert doc["setup"]["fields"]["answers"] == "hidden"


def record():
    """A learner's record as the page writes it: one grad tried twice, one path share
    given up, one value right at once."""
    doc = run_to_end(walk({"link": {"expr": EXPR, "ask": "x", "of": "z"}}))
    texts = {q["kind"]: q["text"] for q in doc["questions"]}
    return {"record": RECORD, "version": 1,
            "link": {"expr": EXPR, "ask": "x", "of": "z", "answers": "hidden"},
            "questions": [
                {"kind": "grad", "text": texts["grad"], "tried": [1.5, 1.926],
                 "hints": 1, "right": True, "gave_up": False},
                {"kind": "path", "text": texts["path"], "tried": [0.5], "hints": 0,
                 "right": False, "gave_up": True},
                {"kind": "value", "text": texts["value"], "tried": [0.25], "hints": 0,
                 "right": True, "gave_up": False},
                {"kind": "local", "text": texts["local"], "tried": [], "hints": 0,
                 "right": False, "gave_up": False}]}


def test_a_true_record_is_confirmed_by_the_engine():
    r = recheck(record())
    assert r["ok"], r
    assert [q["engine"] for q in r["questions"]] == [True, False, True, False]
    assert r["questions"][0]["tried"] == [{"answer": 1.5, "correct": False},
                                          {"answer": 1.926, "correct": True}]


@pytest.mark.parametrize("change", [
    lambda r: r["questions"][1].update(right=True),     # a wrong answer marked right
    lambda r: r["questions"][0]["tried"].pop(),          # the right answer taken out
    lambda r: r["questions"][2].update(right=False),     # a right one marked wrong
    lambda r: r["questions"][0].update(text="With x = 2, what is dz/dx?"),
    lambda r: r["link"].update(expr="x = 0.5; y = x*x; z = exp(y)*x*x"),
])
def test_a_wrong_copy_is_caught(change):
    r = record()
    change(r)
    checked = recheck(r)
    assert not checked["ok"]
    assert not all(q["agrees"] for q in checked["questions"])


def test_what_is_no_record_is_refused():
    for bad in (None, [], {"record": "other"}, {**record(), "questions": "all right"}):
        with pytest.raises(WalkSetupError):
            recheck(copy.deepcopy(bad))


def test_the_page_writes_the_record_the_recheck_reads():
    from pathlib import Path
    js = Path(__file__).resolve().parents[1] / "src/micrograd/web/static/walk_questions.js"
    assert f'const RECORD = "{RECORD}";' in js.read_text()

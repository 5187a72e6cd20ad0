"""The Walk's questions in sequence and the teacher's lesson builder, in a real headless
Chromium against a real ``micrograd serve`` (the fixtures of test_web_walk_browser)."""

import html
from urllib.parse import parse_qs, quote, urlparse

import pytest

from micrograd.expr import evaluate
from micrograd.walk_setup import PRESETS, WalkSetup
from test_web_walk_browser import browser, open_walk, page, server  # noqa: F401 (fixtures)

pytestmark = pytest.mark.browser


def answer(page, text):  # noqa: F811 (the fixture's name, a plain argument here)
    page.fill("#w-q-answer", text)
    page.press("#w-q-answer", "Enter")
    page.wait_for_selector("#w-q-out.good, #w-q-out.bad")
    return page.get_attribute("#w-q-out", "class").split()[-1], page.inner_text("#w-q-out")


def test_the_diamonds_four_questions_in_sequence(page, server):  # noqa: F811
    open_walk(page, server, "preset=diamond")
    names = evaluate(PRESETS["diamond"].expr).names
    names["d"].backward()
    # the engine's numbers, each question's: b's value, d's local derivative in b (c's
    # value), dd/da, and the share through c (grad[c] * 3)
    truths = [names["b"].data, names["c"].data, names["a"].grad, names["c"].grad * 3.0]
    seen = []
    for i, truth in enumerate(truths):
        assert page.inner_text("#w-q-count") == f"question {i + 1} of 4:"
        seen.append(page.inner_text("#w-q-title"))
        assert answer(page, repr(truth + 1.0))[0] == "bad"
        assert answer(page, repr(truth))[0] == "good"
        # the dot of an answered question is marked, for the learner and a screen reader
        dot = page.locator("#w-q-dots button").nth(i)
        assert dot.inner_text() == "✓" and "answered" in dot.get_attribute("aria-label")
        if i < 3:
            page.click("#w-q-next")
    assert seen == ["a forward value", "a local derivative", "a gradient", "one path's share"]
    assert page.is_disabled("#w-q-next")
    # back to the first: still marked right, the answer field empty for another try
    page.click("#w-q-dots button >> nth=0")
    assert page.inner_text("#w-q-count") == "question 1 of 4:"
    assert page.input_value("#w-q-answer") == "" and page.is_disabled("#w-q-prev")


def test_a_hint_on_request_and_not_twice(page, server):  # noqa: F811
    open_walk(page, server, "preset=lecture&questions=local")
    assert page.is_hidden("#w-q-hinttext") and page.is_hidden("#w-q-next")
    page.click("#w-q-hint")
    hint = page.inner_text("#w-q-hinttext")
    assert hint.startswith("hint: multiplication swaps")
    kind, text = answer(page, "5")
    assert kind == "bad" and text == "not quite"  # the hint is already on screen
    assert answer(page, "-2")[0] == "good"  # dL/dd = f = -2


def test_new_leaf_values_keep_the_learners_place(page, server):  # noqa: F811
    open_walk(page, server, "preset=lecture")
    page.click("#w-q-next")
    page.fill("#w-leaf-f", "-3")
    page.press("#w-leaf-f", "Tab")
    page.wait_for_function("/f(:|%3A)-3/.test(location.hash)")  # the new graph is drawn
    assert page.inner_text("#w-q-count") == "question 2 of 3:"
    assert answer(page, "-3")[0] == "good"


def test_the_lesson_builder_makes_a_link_that_opens_the_same_lesson(page, browser, server):  # noqa: F811,E501
    open_walk(page, server, "preset=neuron&mode=assign")
    for _ in range(3):
        page.click("#w-fwd")
    page.click("#w-teach summary")
    page.uncheck("#w-teach-q input[value='value']")
    page.uncheck("#w-teach-q input[value='local']")
    page.check("#w-teach-hide input[value='order']")
    page.check("#w-teach-hide input[value='graph']")
    link = page.input_value("#w-teach-url")
    q = {k: v[0] for k, v in parse_qs(urlparse(link).fragment, keep_blank_values=True).items()}
    # the path question stays ticked: it does not apply to the neuron (a is used once),
    # so the lesson asks one question
    assert q["questions"] == "grad,path" and q["hide"] == "graph,order" and q["step"] == "3"
    # the link is a WalkSetup link: Python reads it as the page does
    setup = WalkSetup.from_url(q)
    assert (setup.preset, setup.mode, setup.step, setup.questions, setup.hide) == (
        "neuron", "assign", 3, ["grad", "path"], ["graph", "order"])
    # unticking "open at the current step" drops it
    page.uncheck("#w-teach-step")
    assert "step=" not in page.input_value("#w-teach-url")
    page.check("#w-teach-step")
    other = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        other.goto(link)
        other.wait_for_selector("#w-graph g.node")
        other.wait_for_function("document.querySelector('#w-k').textContent === '3'")
        assert other.inner_text("#w-q-count") == "question 1 of 1:"
        assert other.inner_text("#w-q-title") == "a gradient"
        assert other.is_hidden("#w-preset") and other.is_hidden("#w-order-run")
        assert other.input_value("#w-mode") == "assign"
        assert other.is_hidden("#w-teach")  # a learner's lesson has no teacher's panel
    finally:
        other.close()


def test_the_lesson_element_escapes_what_it_quotes(page, server):  # noqa: F811
    source = "a = 2; b = a*a; c = b + a"
    open_walk(page, server, "expr=" + quote(source, safe=""))
    page.click("#w-teach summary")
    tag = page.input_value("#w-teach-embed")
    assert tag.startswith("<micrograd-walk expr=") and tag.endswith("></micrograd-walk>")
    # the attribute's text is the expression, as HTML reads it back
    value = tag.split('expr="', 1)[1].split('"', 1)[0]
    assert html.unescape(value) == source
    escaped = page.evaluate("import('/static/walk_lesson.js').then(m => "
                            "m.attr('say \"hi\" <b>&</b>'))")
    assert escaped == "say &quot;hi&quot; &lt;b&gt;&amp;&lt;/b&gt;"

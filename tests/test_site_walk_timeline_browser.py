"""The Walk's timeline in the static site (``micrograd site``, served by ``python -m
http.server``, every number computed by Python in the page's worker) and in a lesson's
``<micrograd-walk step=...>``: a link or an attribute with a step opens there, the
timeline moves back as well as forward, and the no-zero_grad mode's two conventions
come with Python's numbers."""

import re

import pytest

from micrograd.expr import parse
from micrograd.walk_setup import MODES, PRESETS, compare_conventions
from browser_kit import StaticServer, build_site, chromium, guard

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out, _ = build_site(tmp_path_factory.mktemp("site"))
    (out / "steps-lesson.html").write_text(LESSON)
    server = StaticServer(out, tmp_path_factory.mktemp("logs") / "site.log")
    yield server.url
    server.stop()


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


@pytest.fixture
def context(browser):
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    seen = guard(ctx)
    errors = []
    ctx.on("page", lambda page: page.on("pageerror", lambda e: errors.append(str(e))))
    yield ctx
    ctx.close()
    assert seen["foreign"] == [], seen["foreign"]
    assert errors == [], errors


LESSON = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>steps</title><script src="embed.js"></script></head><body>
<micrograd-walk id="five" preset="lecture" step="5"></micrograd-walk>
<micrograd-walk id="late" preset="diamond" mode="no_zero_grad" step="500"></micrograd-walk>
</body></html>
"""


def counter(scope):
    return scope.locator("[data-role=k]").inner_text(), scope.locator("[data-role=n]").inner_text()


def cell(scope, name, what):
    text = scope.locator(f"g.node[data-name='{name}'] text.{what}").first.text_content()
    m = re.fullmatch(rf"{what} (\S+)", text.strip())
    assert m, text
    return float(m.group(1))


def test_a_link_with_a_step_opens_there_in_the_site(context, site):
    page = context.new_page()
    page.goto(site + "#page=walk&preset=lecture&mode=no_zero_grad&step=13")
    page.wait_for_selector("#w-graph g.node", timeout=90_000)
    page.wait_for_function("document.getElementById('w-k').textContent === '13'")
    assert page.input_value("#w-slider") == "13" and counter(page) == ("13", "19")
    # step 13 is pass 2's visit of L: d and f hold both passes' shares
    assert (cell(page, "d", "grad"), cell(page, "f", "grad")) == (-4.0, 8.0)
    page.click("#w-prev")  # pass 2's seed: d and f as pass 1 left them
    page.wait_for_function("location.hash.includes('step=12')")
    assert (cell(page, "d", "grad"), cell(page, "f", "grad")) == (-2.0, 4.0)
    page.click("#w-next")
    page.wait_for_function("location.hash.includes('step=13')")
    assert (cell(page, "d", "grad"), cell(page, "f", "grad")) == (-4.0, 8.0)
    # the conventions, from the worker's Python
    assert page.get_attribute("#w-mode", "title") == MODES["no_zero_grad"].lesson
    assert "micrograd 0.1.0 ends with 24" in page.inner_text("#w-mode-text")  # this graph's
    table = compare_conventions(parse(PRESETS["lecture"].expr))
    for key in ("micrograd", "pytorch"):
        got = page.locator(f"#w-conventions [data-convention={key}] tr[data-node=n0] td")
        assert got.all_inner_texts() == [table["rows"][-1]["texts"]["one_pass"],
                                         table["rows"][-1]["texts"][key]]
    assert table["rows"][-1]["texts"]["micrograd"] == "24"


def test_a_micrograd_walk_element_opens_at_its_step(context, site):
    page = context.new_page()
    page.goto(site + "steps-lesson.html")
    page.wait_for_function("document.querySelectorAll('micrograd-walk[data-ready]').length"
                           " === 2", timeout=90_000)
    five, late = page.locator("#five"), page.locator("#late")
    five.locator("g.node[data-name='L']").wait_for(timeout=90_000)
    five.locator("[data-role=k]", has_text=re.compile("^5$")).wait_for()
    assert counter(five) == ("5", "11")
    assert five.locator("input[type=range]").input_value() == "5"
    # step 5: the seed and L's visit are done, d's is next
    assert (cell(five, "L", "grad"), cell(five, "d", "grad")) == (1.0, -2.0)
    five.locator(".timeline button", has_text="previous step").click()
    five.locator("[data-role=k]", has_text=re.compile("^4$")).wait_for()
    assert five.locator("g.node[data-name='d'] text.grad").first.text_content() == "grad ·"
    # a step past the end: the end of the walk
    late.locator("[data-role=k]", has_text=re.compile("^17$")).wait_for(timeout=90_000)
    assert counter(late) == ("17", "17") and cell(late, "a", "grad") == 45.0
    assert late.locator("[data-convention=pytorch] tr[data-node=n0] td").all_inner_texts() \
        == ["15", "30"]
    assert page.evaluate("location.hash") == ""  # a walk in a lesson keeps to itself

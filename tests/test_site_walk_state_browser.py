"""A lesson's ``<micrograd-walk>`` keeps one state, in a real Chromium on the static site
(Python in the page's worker): the leaf values its attributes give (``values=`` or a
link's ``v=``) are in the graph, the leaf fields and the expression box; a leaf edited
in the graph is in the box, in what **draw** draws and in the element's attributes; what
an attribute asks for and the walk cannot show is said in the element, as text. In the
lesson's own page and in the frame a lesson on another origin gets."""

import re
from urllib.parse import urlparse

import pytest

import test_site_walk_browser as walk_tests
from browser_kit import StaticServer
from micrograd.walk_setup import PRESETS

# the Walk's site tests' fixtures: the site built once, its servers, the browser
served, servers = walk_tests.served, walk_tests.servers
playwright, browser, context = walk_tests.playwright, walk_tests.browser, walk_tests.context

pytestmark = pytest.mark.browser

LECTURE = PRESETS["lecture"].expr
HOSTILE = "<b id=owned>x</b>"
LESSON = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>leaf values</title><script src="SRC"></script></head><body>
<micrograd-walk id="given" preset="lecture" values="a:3" hide="order"></micrograd-walk>
<micrograd-walk id="link-key" preset="square" v="a:5"></micrograd-walk>
<micrograd-walk id="unknown" preset="PRESET" mode="sideways"></micrograd-walk>
</body></html>
""".replace("PRESET", HOSTILE.replace("<", "&lt;").replace(">", "&gt;"))


def data(scope, name):
    text = scope.locator(f"g.node[data-name='{name}'] text.data").first.text_content()
    return float(re.fullmatch(r"data (\S+)", text.strip()).group(1))


def wait_value(scope, selector, text, page):
    for _ in range(600):
        if scope.locator(selector).input_value() == text:
            return
        page.wait_for_timeout(50)
    assert scope.locator(selector).input_value() == text


def edit_leaf_and_draw(scope, page, element):
    """Edit a in the graph, then draw: the box, the graph and the element say a = 5."""
    leaf = scope.locator("input[data-leaf=a]")
    leaf.fill("5")
    leaf.press("Enter")
    wait_value(scope, "[data-role=expr]", LECTURE.replace("a = 2", "a = 5"), page)
    page.wait_for_function("(e) => e.getAttribute('values') === 'a:5'",
                           arg=element.element_handle())
    scope.locator("[data-role=go]").click()
    page.wait_for_timeout(500)
    wait_value(scope, "[data-role=expr]", LECTURE.replace("a = 2", "a = 5"), page)
    assert scope.locator("input[data-leaf=a]").input_value() == "5"
    assert data(scope, "a") == 5.0
    assert element.get_attribute("values") == "a:5"


def test_an_elements_values_are_in_the_box_and_an_edit_in_its_attributes(context, served,
                                                                         servers):
    (served.parent / "values-lesson.html").write_text(LESSON.replace("SRC", "micrograd/embed.js"))
    page = context.new_page()
    page.goto(servers["sub"] + "../values-lesson.html")
    walk_tests.walks_ready(page, 3)
    given, link_key, unknown = (page.locator(f"#{i}") for i in ("given", "link-key", "unknown"))
    given.locator("g.node[data-name='L']").wait_for(timeout=90_000)
    wait_value(given, "[data-role=expr]", LECTURE.replace("a = 2", "a = 3"), page)
    assert given.locator("input[data-leaf=a]").input_value() == "3" and data(given, "a") == 3.0
    # a link's key as the attribute: the element says it by the field's name thereafter
    link_key.locator("g.node[data-name='f']").wait_for(timeout=90_000)
    wait_value(link_key, "[data-role=expr]", "a = 5; f = a * a", page)
    assert link_key.get_attribute("values") == "a:5" and link_key.get_attribute("v") is None
    # what the walk cannot show: said in the element, as text
    said = unknown.locator("[data-role=said]")
    said.wait_for(state="visible", timeout=90_000)
    assert HOSTILE in said.inner_text() and "sideways" in said.inner_text()
    assert page.locator("#owned").count() == 0
    edit_leaf_and_draw(given, page, given)
    assert given.get_attribute("hide") == "order" and given.get_attribute("preset") == "lecture"


def test_a_framed_elements_values_and_edits_agree_too(context, served, servers, tmp_path):
    site = servers["sub"]
    (tmp_path / "lesson.html").write_text(LESSON.replace("SRC", site + "embed.js"))
    other = StaticServer(tmp_path, tmp_path / "other.log")
    try:
        assert urlparse(other.url).port != urlparse(site).port
        page = context.new_page()
        page.goto(other.url.replace("127.0.0.1", "localhost") + "lesson.html")
        walk_tests.walks_ready(page, 3)
        frame = page.frame_locator("#given iframe")
        frame.locator("g.node[data-name='L']").wait_for(timeout=90_000)
        wait_value(frame, "[data-role=expr]", LECTURE.replace("a = 2", "a = 3"), page)
        assert frame.locator("input[data-leaf=a]").input_value() == "3"
        edit_leaf_and_draw(frame, page, page.locator("#given"))
    finally:
        other.stop()

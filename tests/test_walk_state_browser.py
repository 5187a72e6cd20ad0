# ruff: noqa: F811  (the fixtures browser and server, imported, are the tests' arguments)
"""The Walk's state is one, in a real Chromium against ``micrograd serve``: after a link
with leaf values, after a leaf edited in the graph, after **draw**, the graph, the leaf
fields, the expression box and the link say the same numbers; what a link asks for that
the page cannot show (an unknown preset, mode, leaf, control) is said on the page, as
text, never dropped without a word. The element of a lesson (``<micrograd-walk
values=...>``) is tested in tests/test_site_walk_state_browser.py."""

import re
from urllib.parse import parse_qsl, quote

import pytest

from micrograd.walk_setup import PRESETS, WalkSetup
from test_web_walk_browser import browser, cell, engine, open_walk, server  # noqa: F401

pytestmark = pytest.mark.browser

LECTURE = PRESETS["lecture"].expr
DIAMOND = PRESETS["diamond"].expr


@pytest.fixture
def page(browser, server):
    pg = browser.new_page(viewport={"width": 1280, "height": 800})
    errors = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    pg.close()
    assert errors == [], errors


def link_setup(page):
    """The set-up the page's link says, read by Python."""
    query = dict(parse_qsl(page.evaluate("location.hash").lstrip("#"), keep_blank_values=True))
    return WalkSetup.from_url(query)


def data(page, name):
    return cell(page, name, "data")


def redrawn(page, action):
    """Do ``action``, then wait until the Walk has drawn the answer of a new request."""
    page.evaluate("document.querySelector('#page-walk').walk.doc.old = true")
    action()
    page.wait_for_function("!document.querySelector('#page-walk').walk.doc.old")


def wait_box(page, text):
    page.wait_for_function("(t) => document.querySelector('#w-expr').value === t", arg=text)


def test_a_link_with_values_shows_them_in_the_box_and_draw_keeps_them(page, server):
    open_walk(page, server, "preset=lecture&v=a:3")
    want = LECTURE.replace("a = 2", "a = 3")
    assert data(page, "a") == 3.0 and page.input_value("#w-leaf-a") == "3"
    wait_box(page, want)
    s = link_setup(page)
    assert (s.preset, s.values) == ("lecture", {"a": 3.0})
    redrawn(page, lambda: page.click("#w-go"))  # draw: what the box says, a = 3
    wait_box(page, want)
    page.click("#w-all")
    assert data(page, "a") == 3.0 and data(page, "L") == engine(LECTURE, {"a": 3.0})["L"].data
    assert link_setup(page).values.get("a", 3.0) == 3.0
    assert page.locator("#w-error").is_hidden()


def test_a_leaf_edit_is_in_the_box_the_link_and_what_draw_draws(page, server):
    open_walk(page, server, "preset=diamond")
    page.fill("#w-leaf-a", "3")
    page.press("#w-leaf-a", "Enter")
    want = DIAMOND.replace("a = 2", "a = 3")
    wait_box(page, want)
    page.click("#w-all")
    assert data(page, "c") == 9.0
    assert link_setup(page).values == {"a": 3.0}
    redrawn(page, lambda: page.click("#w-go"))
    wait_box(page, want)
    page.click("#w-all")
    assert data(page, "a") == 3.0 and data(page, "d") == 36.0
    # the box edited and drawn: the box wins, and the link says it
    page.fill("#w-expr", DIAMOND.replace("a = 2", "a = 4"))
    page.press("#w-expr", "Enter")
    page.wait_for_function("document.querySelector('#w-graph g.node[data-name=\"a\"] "
                           "text.data').textContent === 'data 4.0000'")
    page.click("#w-all")
    assert page.input_value("#w-leaf-a") == "4" and data(page, "d") == 5.0 * 12.0
    s = link_setup(page)
    assert s.source == DIAMOND.replace("a = 2", "a = 4") and s.values.get("a", 4.0) == 4.0


def test_a_leaf_of_an_expression_edited_then_drawn(page, server):
    # an expression's free names keep their values beside the text, which stays as typed
    open_walk(page, server, "expr=" + quote("y = tanh(x*w)") + "&v=x:2,w:0.5")
    page.fill("#w-leaf-w", "-1")
    page.press("#w-leaf-w", "Enter")
    page.wait_for_function("location.hash.includes('w%3A-1')")
    assert page.input_value("#w-expr") == "y = tanh(x*w)"
    redrawn(page, lambda: page.click("#w-go"))
    assert page.input_value("#w-leaf-w") == "-1" and page.input_value("#w-leaf-x") == "2"
    assert link_setup(page).values == {"x": 2.0, "w": -1.0}


HOSTILE = "<b id=owned>x</b>"


@pytest.mark.parametrize("link, said", [
    ("preset=lectur", ["lectur", "sum_times"]),
    ("preset=" + quote(HOSTILE), [HOSTILE]),
    ("preset=lecture&mode=sideways", ["sideways"]),
    ("preset=lecture&v=z:3,a:3", ["z"]),
    ("preset=lecture&hide=order,grpah", ["grpah"]),
    ("preset=lecture&step=999", ["999"]),
])
def test_what_a_link_asks_for_and_the_page_cannot_show_is_said(page, server, link, said):
    open_walk(page, server, link)
    box = page.locator("#w-said")
    box.wait_for(state="visible")
    text = box.inner_text()
    assert all(word in text for word in said), text
    assert page.locator("#owned").count() == 0  # shown as text, never as HTML
    s = link_setup(page)  # the link now says what the page shows
    if "v=" in link:  # the rest of the link is kept
        assert s.values == {"a": 3.0} and data(page, "a") == 3.0
    if "hide" in link:
        assert s.hide == ["order"]
    # a new graph is a new set-up: the note goes
    redrawn(page, lambda: page.select_option("#w-preset", "square"))
    assert box.is_hidden()
    assert re.search(r"preset=square", page.evaluate("location.hash"))


SETUPS = [WalkSetup(), WalkSetup(preset="diamond", values={"a": 0.1, "b:1": 1e-7},
                                 mode="recursive", step=4, ask="a", hide=["order", "nudge"]),
          WalkSetup(preset=None, expr="y = tanh(x*w)", values={"x": -2.0, "w": 1e21},
                    questions=[]),
          WalkSetup(preset="square", questions=["grad", "path"], of="f")]

CODEC = """async (setups) => {
  const codec = await import(new URL("static/setup_codec.js", location.href));
  const fields = document.querySelector("#page-walk").walk.described.fields;
  return setups.map((s) => {
    const link = Object.fromEntries(Object.entries(codec.byKey(fields, codec.encode(fields, s)))
      .filter(([, t]) => t !== null));
    return { link, back: codec.decode(fields, link) };
  });
}"""


def test_the_pages_codec_writes_a_link_as_python_does(page, server):
    """setup_codec.js, from WalkSetup.spec()'s fields alone, writes each set-up's link
    as WalkSetup.to_url does, and reads it back."""
    open_walk(page, server, "preset=square")
    got = page.evaluate(CODEC, [s.to_dict() for s in SETUPS])
    for s, g in zip(SETUPS, got):
        assert g["link"] == s.to_url()
        assert WalkSetup.from_url(g["link"]) == s
        back = {k: v for k, v in s.to_dict().items() if k in g["back"]}
        assert g["back"] == back and set(s.to_url()) <= {
            f["url"] for f in WalkSetup.spec()["fields"] if f["name"] in g["back"]}


def test_by_keyboard_alone_a_leaf_is_edited_and_drawn(page, server):
    open_walk(page, server, "preset=diamond")
    for _ in range(80):  # Tab to the leaf's field
        if page.evaluate("document.activeElement.id") == "w-leaf-a":
            break
        page.keyboard.press("Tab")
    page.keyboard.press("Control+A")
    page.keyboard.type("4")
    page.keyboard.press("Enter")
    wait_box(page, DIAMOND.replace("a = 2", "a = 4"))
    # the field edited keeps the focus, though the leaves are written again
    assert page.evaluate("document.activeElement.id") == "w-leaf-a"
    for _ in range(80):  # back to draw
        if page.evaluate("document.activeElement.id") == "w-go":
            break
        page.keyboard.press("Shift+Tab")
    redrawn(page, lambda: page.keyboard.press("Enter"))
    page.click("#w-all")
    assert data(page, "d") == 5.0 * 12.0 and link_setup(page).values == {"a": 4.0}

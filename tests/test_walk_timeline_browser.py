"""The Walk's timeline and its self-explaining modes on the served page, in a real
headless Chromium (Debian's, through playwright) against a real ``micrograd serve``, at
1280x800 and at 390x844:

* previous and next for every step, forward and backward alike: going to the end and
  back to 0 shows, at every step, exactly what going forward showed (every cell of every
  record, the step's sentence, the counter, the highlighted nodes and edges);
* the slider scrubs the whole walk, from the keyboard too (Tab to it; arrows, Home, End);
* the URL keeps the step: every move writes it, and a link with a step opens there;
* each teaching mode says what it does to the graph shown, on the page; "no zero_grad"
  shows micrograd 0.1.0 beside PyTorch and this package, with Python's numbers (24 against 12 for
  the lecture's a).
"""

import re

import pytest

from micrograd.expr import evaluate, parse
from micrograd.walk_setup import CONVENTIONS, MODES, PRESETS, compare_conventions
from micrograd.web.walkview import build
from browser_kit import chromium
from test_web_walk_browser import server  # noqa: F401  (the fixture)

pytestmark = pytest.mark.browser

VIEWPORTS = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


@pytest.fixture(params=list(VIEWPORTS))
def page(request, browser, server):  # noqa: F811
    pg = browser.new_page(viewport=VIEWPORTS[request.param])
    pg.viewport_name = request.param
    errors = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    yield pg
    pg.close()
    assert errors == [], errors


def open_walk(page, server, hash_):  # noqa: F811
    page.goto(f"{server}#page=walk&{hash_}")
    page.wait_for_selector("body[data-ready='1']")
    page.wait_for_selector("#w-graph g.node")


SNAPSHOT = """() => {
  const texts = (sel) => [...document.querySelectorAll(sel)].map((e) => e.textContent);
  const classes = (sel, key) => Object.fromEntries([...document.querySelectorAll(sel)]
      .map((e) => [e.dataset[key], e.getAttribute('class')]));
  return {
    records: Object.fromEntries([...document.querySelectorAll('#w-graph g.node')]
      .map((g) => [g.dataset.node, [...g.querySelectorAll('text')].map((t) => t.textContent)])),
    labels: Object.fromEntries([...document.querySelectorAll('#w-graph g.node')]
      .map((g) => [g.dataset.node, g.getAttribute('aria-label')])),
    nodes: classes('#w-graph g.node', 'node'), edges: classes('#w-graph g.edge', 'edge'),
    step: document.getElementById('w-step').textContent,
    k: document.getElementById('w-k').textContent,
    phase: document.getElementById('w-phase').textContent,
    slider: document.getElementById('w-slider').value,
    notes: document.getElementById('w-notes').textContent,
  };
}"""


def snapshot(page):
    snap = page.evaluate(SNAPSHOT)
    n = page.locator("#w-graph g.node").count()
    assert n > 1 and len(snap["records"]) == len(snap["nodes"]) == n  # every node, by id
    assert len(snap["edges"]) == page.locator("#w-graph g.edge").count() > 0
    return snap


def at(page, k):
    """Wait until the Walk shows step k (counter, slider and URL agree)."""
    page.wait_for_function(
        "([k]) => document.getElementById('w-k').textContent === String(k) && "
        "document.getElementById('w-slider').value === String(k) && "
        "(k === 0 ? !/[#&]step=/.test(location.hash) : location.hash.includes('step=' + k))",
        arg=[k])


def total(page):
    return int(page.inner_text("#w-n"))


def cell(page, name, what):
    text = page.locator(f"#w-graph g.node[data-name='{name}'] text.{what}").first.text_content()
    m = re.fullmatch(rf"{what} (\S+)", text.strip())
    assert m, text
    return float(m.group(1))


@pytest.mark.parametrize("hash_", ["preset=lecture", "preset=lecture&mode=no_zero_grad",
                                   "preset=diamond&mode=assign"])
def test_back_and_forth_shows_every_number_again(page, server, hash_):  # noqa: F811
    open_walk(page, server, hash_)
    n = total(page)
    assert page.is_disabled("#w-prev") and page.is_enabled("#w-next")
    seen = [snapshot(page)]
    for k in range(1, n + 1):
        page.click("#w-next")
        at(page, k)
        seen.append(snapshot(page))
    assert page.is_disabled("#w-next")
    assert seen[n]["phase"] == "done"
    assert len({s["step"] for s in seen}) == n + 1  # every step says something new
    if hash_ == "preset=lecture":  # the last step's numbers are the engine's
        prog = evaluate(PRESETS["lecture"].expr)
        prog.root.backward()
        for leaf in "abcf":
            assert cell(page, leaf, "grad") == prog.names[leaf].grad
    for k in range(n - 1, -1, -1):
        page.click("#w-prev")
        at(page, k)
        assert snapshot(page) == seen[k], f"step {k} differs on the way back"
    assert page.is_disabled("#w-prev")
    # step forward / step backward / reset / run all are moves of the same timeline
    page.click("#w-fwd")
    at(page, 1)
    assert snapshot(page) == seen[1]
    page.click("#w-bwd")  # backward needs the whole forward pass: to its end
    nfwd = sum(s["step"].startswith("forward: ") for s in seen)
    at(page, nfwd)
    assert snapshot(page) == seen[nfwd]
    page.click("#w-all")
    at(page, n)
    assert snapshot(page) == seen[n]
    page.click("#w-reset")
    at(page, 0)
    assert snapshot(page) == seen[0]


def test_the_slider_scrubs_the_whole_walk_from_the_keyboard(page, server):  # noqa: F811
    open_walk(page, server, "preset=lecture&mode=no_zero_grad")
    n = total(page)
    seen = {}
    for k in range(n + 1):  # the buttons' pictures, to compare the slider's with
        if k:
            page.click("#w-next")
        at(page, k)
        seen[k] = snapshot(page)
    page.click("#w-reset")
    at(page, 0)
    # keyboard only: Tab from the page's start until the slider has the focus
    page.evaluate("document.activeElement && document.activeElement.blur()")
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "w-slider":
            break
    assert page.evaluate("document.activeElement.id") == "w-slider"
    page.keyboard.press("End")
    at(page, n)
    assert snapshot(page) == seen[n]
    page.keyboard.press("ArrowLeft")
    at(page, n - 1)
    assert snapshot(page) == seen[n - 1]
    page.keyboard.press("Home")
    at(page, 0)
    assert snapshot(page) == seen[0]
    for k in (1, 2, 3):
        page.keyboard.press("ArrowRight")
        at(page, k)
        assert snapshot(page) == seen[k]
    assert page.get_attribute("#w-slider", "aria-valuetext") == f"step 3 of {n}, " \
        + seen[3]["step"]  # the third forward step's sentence
    # the scale names the stretches of the walk
    assert page.locator("#w-timeline .tl-part").all_inner_texts() == [
        "forward", "backward, pass 1", "backward, pass 2"]


def test_a_link_with_a_step_opens_there_and_every_move_writes_it(page, browser,
                                                                 server):  # noqa: F811
    open_walk(page, server, "preset=lecture&mode=no_zero_grad")
    for k in range(1, 13):
        page.click("#w-next")
        at(page, k)
    want = snapshot(page)
    link = page.url
    assert "step=12" in link
    other = browser.new_page(viewport=page.viewport_size)  # a fresh page: the link alone
    try:
        other.goto(link)
        other.wait_for_selector("#w-graph g.node")
        at(other, 12)
        assert snapshot(other) == want
        other.reload()
        other.wait_for_selector("#w-graph g.node")
        at(other, 12)
        assert snapshot(other) == want
    finally:
        other.close()
    page.click("#w-prev")
    at(page, 11)
    page.fill("#w-slider", "5")  # a drag of the slider: its "input" event
    at(page, 5)
    page.click("#w-reset")
    at(page, 0)
    page.click("#w-all")
    at(page, total(page))
    # a leaf edit and a mode switch keep the step where it is (clamped to the new walk)
    page.click("#w-prev")
    at(page, 18)
    page.select_option("#w-mode", "correct")
    at(page, 11)  # the correct walk has 11 steps: 18 is clamped to its end
    assert total(page) == 11


def test_each_mode_says_what_to_notice_and_no_zero_grad_shows_both(page, server):  # noqa: F811
    open_walk(page, server, "preset=lecture")
    for key, mode in MODES.items():
        page.select_option("#w-mode", key)
        page.wait_for_function("([key]) => location.hash.includes('mode=' + key) || "
                               "(key === 'correct' && !location.hash.includes('mode='))",
                               arg=[key])
        lesson = page.locator("#w-mode-text")
        lesson.wait_for()
        # what the mode does to this graph (walk_explain's sentence), its general lesson
        # as the menu's tooltip
        want = build(PRESETS["lecture"].expr, mode=key, preset=PRESETS["lecture"])
        page.wait_for_function("([t]) => document.querySelector('#w-mode-text')"
                               ".textContent === t", arg=[want["explain"]["text"]])
        assert lesson.is_visible() and "a = 2" in lesson.inner_text()
        assert page.get_attribute("#w-mode", "title") == mode.lesson
        box = page.locator("#w-conventions")
        if key == "no_zero_grad":
            box.wait_for()
        else:
            assert box.is_hidden()
    table = compare_conventions(parse(PRESETS["lecture"].expr))
    box = page.locator("#w-conventions")
    for c in CONVENTIONS.values():
        side = box.locator(f"[data-convention={c.key}]")
        assert side.locator("h3").inner_text() == c.title
        assert side.locator(".conv-rule").inner_text() == c.rule
        lines = side.locator("tbody tr").all_inner_texts()
        assert [ln.split("\t") for ln in lines] == [
            [r["name"] + (" (leaf)" if r["leaf"] else ""), r["texts"]["one_pass"],
             r["texts"][c.key]] for r in table["rows"]]
    a = {c: box.locator(f"[data-convention={c}] tr[data-node=n0] td").all_inner_texts()
         for c in CONVENTIONS}
    assert a == {"micrograd": ["6", "24"], "pytorch": ["6", "12"]}
    # both sides side by side on a desktop, one above the other on a phone
    boxes = [box.locator(f"[data-convention={c}]").bounding_box() for c in CONVENTIONS]
    if page.viewport_name == "desktop":
        assert boxes[0]["y"] == boxes[1]["y"] and boxes[0]["x"] < boxes[1]["x"]
    else:
        assert boxes[0]["y"] + boxes[0]["height"] <= boxes[1]["y"]
    assert page.evaluate("document.scrollingElement.scrollWidth") <= \
        page.viewport_size["width"]


def test_the_timeline_fits_and_is_hidden_with_the_steps(page, server):  # noqa: F811
    open_walk(page, server, "preset=neuron&step=4")
    at(page, 4)
    width = page.viewport_size["width"]
    for sel in ("#w-prev", "#w-next", "#w-slider"):
        b = page.locator(sel).bounding_box()
        assert b["x"] >= 0 and b["x"] + b["width"] <= width, sel
    assert page.locator("#w-slider").bounding_box()["width"] >= 0.6 * width - 40
    assert page.evaluate("document.scrollingElement.scrollWidth") <= width
    open_walk(page, server, "preset=neuron&hide=steps&step=2")
    at(page, 2)
    assert page.locator("#w-timeline").is_hidden() and page.locator("#w-fwd").is_hidden()


def test_a_button_pressed_to_its_end_hands_the_focus_on(page, server):  # noqa: F811
    """Keyboard only: Enter on "step forward" to the end of the forward pass leaves the
    focus on "step backward", and on to "reset" at the end; the timeline's "next step"
    at the last step hands it to the slider (a disabled button shows no focus ring)."""
    open_walk(page, server, "preset=sum_times")
    page.focus("#w-fwd")
    while not page.is_disabled("#w-fwd"):
        page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "w-bwd"
    while not page.is_disabled("#w-bwd"):
        page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "w-reset"
    page.click("#w-reset")
    page.focus("#w-next")
    while not page.is_disabled("#w-next"):
        page.keyboard.press("Enter")
    assert page.evaluate("document.activeElement.id") == "w-slider"

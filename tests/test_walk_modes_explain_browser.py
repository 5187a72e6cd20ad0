"""Issue 31's phone, modes and legend, in Chromium on the served page and the static
site (Python in the browser): one browser for the module.

* at 390x844 the step's sentence is inside the viewport after each of the first 10 steps
  of the neuron preset, and says that step (Python's sentence);
* each mode says what it does to this graph (walk_explain's sentence); where nothing goes
  wrong, a button switches to the reused-node preset;
* the no-zero_grad table marks the wrong cells (f: 4 -> 8 in both conventions), with a
  legend;
* a legend under the drawing names each colour, each swatch styled as the graph's own
  nodes, readable at 390 wide.
"""

import pytest
from browser_kit import StaticServer, build_site, chromium, serve
from test_web_walk_browser import open_walk

from micrograd.walk_setup import PRESETS
from micrograd.web.walkview import build

pytestmark = pytest.mark.browser

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


@pytest.fixture(scope="module")
def server():
    with serve() as url:
        yield url


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out, _ = build_site(tmp_path_factory.mktemp("site"))
    s = StaticServer(out, tmp_path_factory.mktemp("logs") / "site.log")
    yield s.url
    s.stop()


def new_page(browser, viewport):
    page = browser.new_page(viewport=viewport)
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    return page


def the_step_line_stays_in_view(page):
    """Ten steps by the timeline's next: the line above the graph says each step, inside
    the window."""
    doc = build(PRESETS["neuron"].expr, preset=PRESETS["neuron"], rankdir="TB", stack=True)
    steps = doc["walk"]["forward"] + doc["walk"]["backward"]
    for k in range(1, 11):
        page.click("#w-next")
        page.wait_for_function("([k]) => document.querySelector('#w-k').textContent"
                               " === String(k)", arg=[k])
        line = page.locator("#w-now")
        box = line.bounding_box()
        assert box and box["y"] >= 0 and box["y"] + box["height"] <= PHONE["height"], (k, box)
        s = steps[k - 1]
        said = line.inner_text()
        assert (s.get("head") or s["text"]) in said, (k, said)
        assert said == page.locator("#w-step").inner_text()  # the side panel's


def test_a_phone_keeps_the_step_sentence_in_view(browser, server):
    page = new_page(browser, PHONE)
    open_walk(page, server, "preset=neuron")
    assert page.locator("#w-now").is_hidden()  # no step yet: no line
    the_step_line_stays_in_view(page)
    page.screenshot(path="/tmp/h31b/test-phone-step10.png")
    assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]
    page.close()
    assert page.errors == []
    # on a desktop the side panel is beside the graph: no line
    page = new_page(browser, DESKTOP)
    open_walk(page, server, "preset=neuron&step=3")
    assert page.locator("#w-now").is_hidden() and page.locator("#w-step").is_visible()
    page.close()


def test_modes_explain_this_graph_and_offer_the_reused_preset(browser, server):
    page = new_page(browser, DESKTOP)
    open_walk(page, server, "preset=lecture&mode=assign")
    want = build(PRESETS["lecture"].expr, mode="assign", preset=PRESETS["lecture"])["explain"]
    page.wait_for_function("([t]) => document.querySelector('#w-mode-text').textContent === t",
                           arg=[want["text"]])
    offer = page.locator("#w-mode-offer")
    assert offer.is_visible() and offer.inner_text() == want["offer"]["label"]
    offer.click()
    page.wait_for_function("location.hash.includes('preset=reused')")
    assert page.input_value("#w-mode") == "assign"  # the mode stays
    page.wait_for_function("document.querySelector('#w-mode-text').textContent"
                           ".includes('instead of 4')")
    assert offer.is_hidden()
    # the recursive mode: its repeat visit says so, and its sentence is said once
    page.select_option("#w-mode", "recursive")
    page.wait_for_function("location.hash.includes('mode=recursive')")
    page.wait_for_function("document.querySelector('#w-mode-text').textContent"
                           ".includes('reached by 2 paths')")
    assert page.inner_text("body").count("reached by 2 paths") == 1
    page.fill("#w-slider", "8")  # forward b, c; seed, c, b, a, a; then b again
    page.wait_for_function("document.querySelector('#w-step').textContent"
                           ".includes('again: path 2 of 2')")
    page.close()
    assert page.errors == []


def test_the_no_zero_grad_table_marks_wrong_cells_and_says_so(browser, server):
    page = new_page(browser, PHONE)
    open_walk(page, server, "preset=lecture&mode=no_zero_grad")
    box = page.locator("#w-conventions")
    box.wait_for()
    marked = {c: box.locator(f"[data-convention={c}] td.wrong").count()
              for c in ("micrograd", "pytorch")}
    # lecture: micrograd 0.1.0 is wrong at f, d, c, e, b, a; PyTorch and this package
    # at the leaves f, c, b, a (f: 4 -> 8 in both)
    assert marked == {"micrograd": 6, "pytorch": 4}
    for c in ("micrograd", "pytorch"):
        f = box.locator(f"[data-convention={c}] tr:has(th:text-is('f (leaf)')) td.wrong")
        assert f.inner_text() == "8"
    legend = box.locator(".conv-legend")
    assert legend.is_visible() and "wrong" in legend.inner_text()
    swatch = legend.locator(".conv-swatch")
    cell = box.locator("td.wrong").first
    assert swatch.evaluate("e => getComputedStyle(e).backgroundColor") == \
        cell.evaluate("e => getComputedStyle(e).backgroundColor")
    assert "micrograd 0.1.0" in box.inner_text() and "PyTorch and this package" in \
        box.inner_text()
    page.screenshot(path="/tmp/h31b/test-phone-nozero.png", full_page=True)
    page.close()
    assert page.errors == []


LEGEND_CLASSES = {"node done-fwd": "stroke", "node done-bwd": "fill", "node current": "stroke",
                  "node contrib": "stroke-dasharray", "edge active": "stroke",
                  "node const": "stroke-dasharray"}


@pytest.mark.parametrize("viewport", [PHONE, DESKTOP], ids=["phone", "desktop"])
def test_a_legend_names_the_colours_of_the_graph(browser, server, viewport):
    page = new_page(browser, viewport)
    open_walk(page, server, "preset=lecture&step=9")
    legend = page.locator("#w-graph .gv-legend")
    assert legend.is_visible()
    keys = legend.locator(".gv-key")
    assert keys.count() == len(LEGEND_CLASSES)
    width = viewport["width"]
    for i in range(keys.count()):
        b = keys.nth(i).bounding_box()
        assert b["x"] >= 0 and b["x"] + b["width"] <= width  # readable: nothing cut
        size = keys.nth(i).evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
        assert size >= 12
    # each swatch looks as the graph's own node (or edge) of that class does
    compared = []
    for cls, prop in LEGEND_CLASSES.items():
        shape = "path.vis" if cls.startswith("edge") else "rect"
        sel = "." + ".".join(cls.split()) + "".join(
            f":not(.{o})" for o in ("current", "contrib", "const") if o not in cls)
        real = page.locator(f"#w-graph .gv-svg g{sel} {shape}").first
        if real.count() == 0:
            continue  # no node of that kind at this step
        key = legend.locator(f".gv-key[data-key='{cls}'] {shape}")
        style = f"e => getComputedStyle(e).getPropertyValue('{prop}')"
        assert key.evaluate(style) == real.evaluate(style), cls
        compared.append(cls)
    assert len(compared) >= 5, compared  # at step 9 all but the constant are on show
    assert page.evaluate("document.scrollingElement.scrollWidth") <= width
    page.close()
    assert page.errors == []


def test_the_static_site_says_the_step_and_the_modes(browser, site):
    page = new_page(browser, PHONE)
    page.goto(site + "#page=walk&preset=neuron")
    page.wait_for_selector("#w-graph g.node", timeout=120_000)
    the_step_line_stays_in_view(page)
    page.select_option("#w-mode", "recursive")
    page.wait_for_function("document.querySelector('#w-mode-text').textContent"
                           ".startsWith('Nothing goes wrong here because no node is used twice')",
                           timeout=60_000)
    assert page.locator("#w-mode-offer").is_visible()
    page.close()
    assert page.errors == []

"""The Walk's graphs fit, in a real headless Chromium against a real ``micrograd serve``
(the fixtures of tests/test_web_walk_browser.py), and in the static site's sample lesson
(``micrograd site`` served by ``python -m http.server``):

* at 1280x800 every preset opens fitted whole: every node's box inside the graph's
  visible area, the root inside the window too, every text of the drawing at 11 px or
  more on screen (its font size times the drawing's scale), no overview map;
* at 390x844 (a phone) the root and the current step's node stay inside the graph's
  visible area and the window at every step of the forward and backward pass, their
  text at 11 px or more;
* the overview map appears only when part of the graph is off screen, and never over a
  node;
* the lesson's walks (the same Walk inside a teacher's page) open fitted the same way.

Everything is read off the page (bounding boxes and computed styles), nothing timed.
"""

import pytest
from browser_kit import StaticServer, build_site, chromium
from test_web_walk_browser import big_hash, open_walk, server  # noqa: F401

from micrograd.walk_setup import PRESETS

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
MIN_TEXT = 11.0

#: where the graph's nodes, its port and the window are, in screen pixels; the smallest
#: text of each node as drawn (font size times the scale of the SVG's transform)
MEASURE = """(host) => {
  host = typeof host === 'string' ? document.querySelector(host) : host;
  const rect = (e) => { const r = e.getBoundingClientRect();
                        return {x0: r.left, y0: r.top, x1: r.right, y1: r.bottom}; };
  const view = host.classList.contains('gv') ? host : host.querySelector('.gv');
  const nodes = {};
  for (const g of view.querySelectorAll('g.node')) {
    if (g.style.display === 'none') continue;
    const texts = [...g.querySelectorAll('text')].map(
      (t) => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a);
    nodes[g.dataset.node] = {name: g.dataset.name, box: rect(g), text: Math.min(...texts),
                             current: g.classList.contains('current')};
  }
  const mini = view.querySelector('.gv-mini');
  return {port: rect(view.querySelector('.gv-port')), nodes,
          window: {x0: 0, y0: 0, x1: innerWidth, y1: innerHeight},
          mini: getComputedStyle(mini).display === 'none' ? null : rect(mini)};
}"""


def inside(box, area, slack=0.5):
    return (box["x0"] >= area["x0"] - slack and box["y0"] >= area["y0"] - slack
            and box["x1"] <= area["x1"] + slack and box["y1"] <= area["y1"] + slack)


def overlap(a, b):
    return a["x0"] < b["x1"] and b["x0"] < a["x1"] and a["y0"] < b["y1"] and b["y0"] < a["y1"]


def clip(box, area):
    """The part of a box inside an area (None: nothing)."""
    out = {"x0": max(box["x0"], area["x0"]), "y0": max(box["y0"], area["y0"]),
           "x1": min(box["x1"], area["x1"]), "y1": min(box["y1"], area["y1"])}
    return out if out["x0"] < out["x1"] and out["y0"] < out["y1"] else None


def root_id(page, scope="#w-graph"):
    """The graph's root: the node no edge leaves."""
    return page.evaluate("""(sel) => {
      const host = document.querySelector(sel);
      const srcs = new Set([...host.querySelectorAll('g.edge')].map((e) => e.dataset.src));
      const ids = [...host.querySelectorAll('g.node')].map((n) => n.dataset.node);
      const roots = ids.filter((id) => !srcs.has(id));
      return roots.length === 1 ? roots[0] : null; }""", scope)


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def new_page(browser, viewport):
    pg = browser.new_page(viewport=viewport)
    pg.errors = []
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    return pg


@pytest.fixture
def desktop(browser):
    pg = new_page(browser, DESKTOP)
    yield pg
    pg.close()
    assert pg.errors == [], pg.errors


@pytest.fixture
def phone(browser):
    pg = new_page(browser, PHONE)
    yield pg
    pg.close()
    assert pg.errors == [], pg.errors


def open_preset(page, server, key):  # noqa: F811
    open_walk(page, server, f"preset={key}")
    page.wait_for_function("document.querySelector('#w-graph').dataset.zoom")


def assert_fitted(m, root, where):
    port = m["port"]
    outside = [n["name"] for n in m["nodes"].values() if not inside(n["box"], port)]
    assert outside == [], f"{where}: nodes outside the graph's area: {outside}"
    assert root in m["nodes"], where
    assert inside(m["nodes"][root]["box"], m["window"]), f"{where}: the root off the window"
    small = {n["name"]: round(n["text"], 2) for n in m["nodes"].values()
             if n["text"] < MIN_TEXT - 1e-6}
    assert small == {}, f"{where}: text under {MIN_TEXT} px: {small}"
    assert m["mini"] is None, f"{where}: the overview map shown on a fitted graph"


# ---------------------------------------------------------------------------------------
# 1280x800: every preset fitted whole, text at 11 px or more, no map
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("key", list(PRESETS))
def test_every_preset_opens_fitted_whole_with_readable_text(desktop, server, key):  # noqa: F811
    open_preset(desktop, server, key)
    assert_fitted(desktop.evaluate(MEASURE, "#w-graph"), root_id(desktop), key)


# ---------------------------------------------------------------------------------------
# 390x844: the root and the current step on screen at every step
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("key", list(PRESETS))
def test_a_phone_keeps_the_root_and_the_current_step_in_view(phone, server, key):  # noqa: F811
    open_preset(phone, server, key)
    root = root_id(phone)
    total = int(phone.inner_text("#w-n"))
    seen = 0
    for button in ("#w-fwd", "#w-bwd"):
        while phone.is_enabled(button):
            phone.click(button)
            seen += 1
            phone.wait_for_function(f"document.querySelector('#w-k').textContent === '{seen}'")
            m = phone.evaluate(MEASURE, "#w-graph")
            current = [i for i, n in m["nodes"].items() if n["current"]]
            assert len(current) == 1, (key, seen)
            for nid in (root, current[0]):
                n = m["nodes"][nid]
                where = f"{key}, step {seen}: {n['name']}"
                assert inside(n["box"], m["port"]), f"{where} outside the graph's area"
                assert inside(n["box"], m["window"]), f"{where} outside the window"
                assert n["text"] >= MIN_TEXT - 1e-6, f"{where}: text {n['text']:.2f} px"
    assert seen == total


# ---------------------------------------------------------------------------------------
# the overview map: only while zoomed in, never over a node
# ---------------------------------------------------------------------------------------

def assert_map_clear(m, where):
    assert m["mini"] is not None, f"{where}: no overview map while zoomed in"
    for n in m["nodes"].values():
        shown = clip(n["box"], m["port"])  # the part of the node on screen
        assert shown is None or not overlap(shown, m["mini"]), \
            f"{where}: the map covers node {n['name']}"


def test_the_map_shows_only_when_zoomed_in_and_never_over_a_node(desktop, server):  # noqa: F811
    open_preset(desktop, server, "neuron")
    assert desktop.evaluate(MEASURE, "#w-graph")["mini"] is None  # fitted: no map
    for _ in range(3):
        desktop.click("#w-graph button[aria-label='zoom in']")
    assert_map_clear(desktop.evaluate(MEASURE, "#w-graph"), "neuron zoomed in")
    desktop.click("#w-graph button[aria-label='fit the whole graph']")
    assert desktop.evaluate(MEASURE, "#w-graph")["mini"] is None
    # a graph far larger than the window opens at 11 px on its root, with the map
    open_walk(desktop, server, big_hash())
    desktop.wait_for_selector("#w-graph g.node[data-name='w49']")
    m = desktop.evaluate(MEASURE, "#w-graph")
    assert_map_clear(m, "a 200-node graph")
    root = root_id(desktop)
    assert inside(m["nodes"][root]["box"], m["port"])
    assert m["nodes"][root]["text"] >= MIN_TEXT - 1e-6


# ---------------------------------------------------------------------------------------
# the static site's sample lesson: each <micrograd-walk> fitted the same way
# ---------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def lesson_url(tmp_path_factory):
    out, _ = build_site(tmp_path_factory.mktemp("site"))
    static = StaticServer(out, tmp_path_factory.mktemp("logs") / "site.log")
    yield static.url + "lesson.html"
    static.stop()


def test_the_lessons_walks_open_fitted(desktop, lesson_url):
    desktop.goto(lesson_url)
    desktop.wait_for_function(
        "[...document.querySelectorAll('micrograd-walk')].length > 0 && "
        "[...document.querySelectorAll('micrograd-walk')].every((e) => e.dataset.ready && "
        "e.querySelector('.gv[data-zoom]'))", timeout=120_000)
    walks = desktop.locator("micrograd-walk")
    assert walks.count() == 4
    for i in range(walks.count()):
        walk = walks.nth(i)
        walk.scroll_into_view_if_needed()
        handle = walk.element_handle()
        m = desktop.evaluate(MEASURE, handle)
        root = desktop.evaluate("""(host) => {
          const srcs = new Set([...host.querySelectorAll('g.edge')].map((e) => e.dataset.src));
          return [...host.querySelectorAll('g.node')].map((n) => n.dataset.node)
            .filter((id) => !srcs.has(id))[0]; }""", handle)
        where = f"the lesson's walk {walk.get_attribute('preset')}"
        port = m["port"]
        m["window"] = {"x0": port["x0"], "y0": port["y0"], "x1": port["x1"], "y1": port["y1"]}
        assert_fitted(m, root, where)
        assert port["y1"] - port["y0"] <= DESKTOP["height"], where

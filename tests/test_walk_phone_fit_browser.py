"""Every preset fits a phone whole, in a real headless Chromium at 390x844: through the
served door (a real ``micrograd serve``, the fixtures of tests/test_web_walk_browser.py)
and through the static site's (``micrograd site`` served by ``python -m http.server``,
Python in the page's worker).

* every node's box inside the graph's area, no text under 11 px (the view's floor, the
  same as a desktop's), no overview map, no sideways scroll of the page;
* the graph's area no taller than the window: the whole graph can be on one screen;
* the tanh neuron, whose four leaves side by side are wider than a phone at 11 px, is
  drawn with its leaves staggered over two rows.

Everything is read off the page (bounding boxes and computed styles), nothing timed.
"""

import pytest
from test_walk_fit_browser import (  # noqa: F401
    MEASURE,
    MIN_TEXT,
    PHONE,
    browser,
    inside,
    open_preset,
    phone,
)
from test_web_walk_browser import server  # noqa: F401

from micrograd.walk_setup import PRESETS

pytestmark = pytest.mark.browser


def assert_whole(page, where):
    """Every node inside the graph's area, text >= 11 px, no map, no sideways scroll."""
    m = page.evaluate(MEASURE, "#w-graph")
    port = m["port"]
    assert m["nodes"], where
    outside = {n["name"]: {k: round(v) for k, v in n["box"].items()}
               for n in m["nodes"].values() if not inside(n["box"], port)}
    assert outside == {}, f"{where}: nodes outside the graph's area {port}: {outside}"
    small = {n["name"]: round(n["text"], 2) for n in m["nodes"].values()
             if n["text"] < MIN_TEXT - 1e-6}
    assert small == {}, f"{where}: text under {MIN_TEXT} px: {small}"
    assert m["mini"] is None, f"{where}: the overview map shown on a graph fitted whole"
    assert port["y1"] - port["y0"] <= PHONE["height"], f"{where}: taller than the window"
    assert page.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"], \
        f"{where}: the page scrolls sideways"
    return m


@pytest.mark.parametrize("key", list(PRESETS))
def test_every_preset_fits_a_phone_whole_with_readable_text(phone, server, key):  # noqa: F811
    open_preset(phone, server, key)
    assert_whole(phone, key)


def leaf_rows(page):
    """The tops of the neuron's leaves on screen, rounded: which row each is in."""
    return page.evaluate("""() => Object.fromEntries(['x1', 'x2', 'w1', 'w2'].map((n) => [n,
      Math.round(document.querySelector(`#w-graph g.node[data-name='${n}']`)
        .getBoundingClientRect().top)]))""")


def test_the_neuron_staggers_its_leaves_on_a_phone_only(phone, server):  # noqa: F811
    open_preset(phone, server, "neuron")
    tops = leaf_rows(phone)
    # x1 above w1, x2 above w2: two rows of two instead of one of four
    assert tops["x1"] == tops["x2"] < tops["w1"] == tops["w2"], tops
    # a step keeps it whole (the view does not shrink back or pan it off)
    phone.click("#w-fwd")
    phone.wait_for_function("document.querySelector('#w-k').textContent === '1'")
    assert_whole(phone, "the neuron after a step")


# ---------------------------------------------------------------------------------------
# the static site's door: the same page, Python in the browser
# ---------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def site_url(tmp_path_factory):
    from test_site_browser import StaticServer, build_site
    out, _ = build_site(tmp_path_factory.mktemp("site"))
    static = StaticServer(out, tmp_path_factory.mktemp("logs") / "site.log")
    yield static.url
    static.stop()


def test_the_static_sites_neuron_fits_a_phone_whole(phone, site_url):  # noqa: F811
    phone.goto(site_url + "#page=walk&preset=neuron")
    phone.wait_for_selector("#w-graph g.node[data-name='x1']", timeout=120_000)
    phone.wait_for_function("document.querySelector('#w-graph').dataset.zoom")
    assert_whole(phone, "the static site's neuron")
    tops = leaf_rows(phone)
    assert tops["x1"] == tops["x2"] < tops["w1"] == tops["w2"], tops

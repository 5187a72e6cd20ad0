"""The Walk on a phone and at a step link, in a real headless Chromium against a real
``micrograd serve`` (the fixtures of tests/test_web_walk_browser.py and
tests/test_walk_fit_browser.py):

* on a phone (390x844) the graph comes right under the step controls and the timeline,
  on the first screen; the question, the mode's lesson and the preset's lesson below it;
* a link that opens at step N shows that step's node in the graph's area, with the root
  where both fit (desktop and phone);
* at a backward step, the nodes receiving the gradient are on screen with the current
  node and the root whenever all of them fit in the graph's area together.

Everything is read off the page (bounding boxes), nothing timed.
"""

import pytest
from test_walk_fit_browser import (  # noqa: F401
    DESKTOP,
    MEASURE,
    PHONE,
    browser,
    desktop,
    inside,
    open_preset,
    phone,
    root_id,
)
from test_web_walk_browser import open_walk, server  # noqa: F401

from micrograd.walk_setup import PRESETS

pytestmark = pytest.mark.browser


def top(page, sel):
    return page.locator(sel).bounding_box()["y"]


def test_a_phone_shows_the_graph_under_the_steps_and_the_lessons_below(phone, server):  # noqa: F811
    # the reused preset has a preset lesson and questions: all of them go below the graph
    open_preset(phone, server, "reused")
    phone.wait_for_selector("#w-mode-text:not(:empty)")
    phone.wait_for_selector("#w-q:not([hidden])")
    port = phone.locator("#w-graph .gv-port").bounding_box()
    assert top(phone, "#w-fwd") < top(phone, "#w-timeline") < port["y"]
    assert port["y"] < PHONE["height"] / 2, "the graph does not start on the first screen"
    for below in ("#w-q", "#w-mode-lesson"):
        assert top(phone, below) >= port["y"] + port["height"], below
    assert top(phone, "#w-q") < top(phone, "#w-mode-lesson")
    # the timeline's buttons beside its slider: one row
    slider = phone.locator("#w-slider").bounding_box()
    for sel in ("#w-prev", "#w-next"):
        b = phone.locator(sel).bounding_box()
        assert b["y"] < slider["y"] + slider["height"] and slider["y"] < b["y"] + b["height"], sel
    assert phone.evaluate("document.scrollingElement.scrollWidth") <= PHONE["width"]


def test_a_desktop_keeps_the_lessons_above_the_graph_beside_the_side_panel(desktop, server):  # noqa: F811,E501
    open_preset(desktop, server, "reused")
    desktop.wait_for_selector("#w-mode-text:not(:empty)")
    port = desktop.locator("#w-graph .gv-port").bounding_box()
    assert top(desktop, "#w-mode-lesson") < port["y"]
    side = desktop.locator("#w-step").bounding_box()
    assert side["x"] >= port["x"] + port["width"], "the side panel is not beside the graph"
    assert port["y"] + port["height"] <= DESKTOP["height"]


def steps_of(page):
    return int(page.inner_text("#w-n"))


@pytest.mark.parametrize("key", list(PRESETS))
@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_step_link_opens_with_that_steps_node_in_view(request, server, key, size):  # noqa: F811
    page = request.getfixturevalue(size)
    open_preset(page, server, key)
    total = steps_of(page)
    for k in sorted({1, total // 2, total - 1}):
        open_walk(page, server, f"preset={key}&step={k}")
        page.wait_for_function(f"document.querySelector('#w-k').textContent === '{k}'")
        page.wait_for_selector("#w-graph g.node.current")
        m = page.evaluate(MEASURE, "#w-graph")
        current = [i for i, n in m["nodes"].items() if n["current"]]
        assert len(current) == 1, (key, k)
        where = f"{size}, {key} opened at step {k}"
        assert inside(m["nodes"][current[0]]["box"], m["port"]), f"{where}: its node off"
        root = m["nodes"][root_id(page)]["box"]
        assert inside(root, m["port"]), f"{where}: the root off"


def union(boxes):
    return {"x0": min(b["x0"] for b in boxes), "y0": min(b["y0"] for b in boxes),
            "x1": max(b["x1"] for b in boxes), "y1": max(b["y1"] for b in boxes)}


@pytest.mark.parametrize("key", list(PRESETS))
def test_a_backward_steps_receivers_stay_in_view_where_they_fit(phone, server, key):  # noqa: F811
    open_preset(phone, server, key)
    root = root_id(phone)
    phone.click("#w-bwd")  # the forward pass first
    phone.wait_for_function("document.querySelector('#w-phase').textContent !== 'idle'")
    checked = 0
    while phone.is_enabled("#w-bwd"):
        k = int(phone.inner_text("#w-k"))
        phone.click("#w-bwd")
        phone.wait_for_function(f"document.querySelector('#w-k').textContent === '{k + 1}'")
        m = phone.evaluate(MEASURE, "#w-graph")
        receivers = phone.evaluate(
            "[...document.querySelectorAll('#w-graph g.node.contrib')].map((g) => g.dataset.node)")
        current = [i for i, n in m["nodes"].items() if n["current"]]
        boxes = [m["nodes"][i]["box"] for i in [root, *current, *receivers]]
        u, port = union(boxes), m["port"]
        if u["x1"] - u["x0"] <= port["x1"] - port["x0"] - 16 and \
                u["y1"] - u["y0"] <= port["y1"] - port["y0"] - 16:
            checked += 1
            for i in receivers:
                assert inside(m["nodes"][i]["box"], port), \
                    f"{key}, step {k + 1}: receiver {m['nodes'][i]['name']} off the graph's area"
    assert checked > 0, key

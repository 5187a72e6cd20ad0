"""The Playground as a person reads it (issue 31), in a real headless Chromium against a
real ``micrograd serve``: two clicks that add points land where they were aimed (the
notice the first one brings moves nothing above the plot), an accuracy reads "97.1%" with
its count beside ("100 of 103"), the first layer's zero lines are labelled apart and
explained, and the loss chart says "hover" to a mouse and "tap" to a touch screen (a tap
writes a step's numbers).

One browser and one server for the module; three page loads.
"""

import json
import re

import pytest

from browser_kit import ARTIFACTS, Server, chromium

pytestmark = pytest.mark.browser

PLAY = ("Object.defineProperty(window, 'Play', "
        "{get: () => document.querySelector('#page-play')?.playground})")
#: 206 points, half for training: 103 train points, so an accuracy is not a round percent
ODD = ("page=play&ds=circle&noise=0&n=206&ratio=0.5&seed=1&hidden=8&act=tanh"
       "&loss=mse&opt=sgd&lr=0.1&batch=0&iseed=0")


@pytest.fixture(scope="module")
def srv():
    s = Server()
    s.start()
    yield s
    s.stop()


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def open_play(ctx, srv, hash_):
    page = ctx.new_page()
    page.add_init_script(PLAY)
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.goto(f"{srv.url}#{hash_}")
    page.wait_for_selector("body[data-ready='1']")
    page.wait_for_function("Play && Play.state && Play.accepted")
    return page


def canvas_point(page, box, x, y):
    """the page coordinates of the plane's (x, y) on the plot as it was at `box`"""
    px, py = page.evaluate(f"[Play.plot.map.px({x}), Play.plot.map.py({y})]")
    return box["x"] + px * box["width"] / 400, box["y"] + py * box["height"] / 400


def test_clicks_accuracy_and_zero_lines_at_1280(browser, srv):
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    page = open_play(ctx, srv, ODD)
    # --- the accuracy: a percent to one decimal, its count beside and in the title
    n = len(page.evaluate("Play.points.train"))
    assert n == 103
    share = page.evaluate("Play.state.metrics.train_acc")
    right = round(share * n)
    text = page.inner_text("#p-tracc")
    assert re.fullmatch(r"\d{1,3}(\.\d)?%", text), text
    assert abs(float(text[:-1]) - 100 * share) <= 0.05 + 1e-9, (text, share)
    assert page.inner_text("#p-tracc-n") == f"({right} of 103)"
    title = f"{right} of 103 train points classified right"
    assert page.get_attribute("#p-tracc", "title") == title
    assert float(page.get_attribute("#p-tracc", "data-value")) == share
    # the rounding's edges: never 100% unless all, never 0% unless none
    fmt = page.evaluate("""async () => {
      const { fmtShare } = await import('./static/format.js');
      return [fmtShare(0.9996, 2500), fmtShare(1, 40), fmtShare(0.0002, 5000),
              fmtShare(0.5, 2), fmtShare(100 / 103, 103), fmtShare(null, 3)];
    }""")
    assert [f["text"] for f in fmt] == ["99.9%", "100%", "0.1%", "50%", "97.1%", "·"]
    assert [f["count"] for f in fmt] == ["2499 of 2500", "40 of 40", "1 of 5000", "1 of 2",
                                         "100 of 103", ""]
    # --- the zero lines: each labelled with its neuron's name, no two labels overlapping,
    # and what they are said under the plot
    labels = json.loads(page.get_attribute("#p-boundary", "data-zero-labels"))
    assert [lab[0] for lab in labels] == [f"h1.{j}" for j in range(1, 9)]
    for i, a in enumerate(labels):
        assert 0 <= a[1] and a[1] + a[3] <= 400 and 0 <= a[2] and a[2] + a[4] <= 400, a
        for b in labels[i + 1:]:
            apart = (a[1] + a[3] <= b[1] or b[1] + b[3] <= a[1]
                     or a[2] + a[4] <= b[2] or b[2] + b[4] <= a[2])
            assert apart, (a, b)
    note = page.inner_text("#p-zl-note")
    assert "zero line" in note and "w·x + b is 0" in note and "h1.2: layer 1, neuron 2" in note
    page.uncheck("#p-zerolines")
    assert page.is_hidden("#p-zl-note")
    assert page.get_attribute("#p-boundary", "data-zero-labels") == "[]"
    page.check("#p-zerolines")
    # --- a mouse reads the loss chart by hovering
    assert page.inner_text("#p-curves-how") == "hover"
    # --- two clicks that add points, aimed at the plot as it was before the first
    page.select_option("#p-click", "add")
    page.locator("#p-boundary").scroll_into_view_if_needed()
    box = page.locator("#p-boundary").bounding_box()
    aims = [(-1.0, 1.0), (0.8, -0.9)]
    for k, (x, y) in enumerate(aims):
        page.mouse.click(*canvas_point(page, box, x, y))
        page.wait_for_function(f"Play.accepted.added.length === {k + 1}")
        page.wait_for_selector("#p-notice:not([hidden])")
    page.screenshot(path=str(ARTIFACTS / "playground-two-clicks.png"))
    added = page.evaluate("Play.accepted.added")
    step = page.evaluate("(Play.plot.map.ix(1) - Play.plot.map.ix(0))")  # one canvas pixel
    for (x, y), (ax, ay, _label) in zip(aims, added):
        assert abs(ax - x) <= 2 * step and abs(ay - y) <= 2 * step, ((x, y), (ax, ay))
    assert page.locator("#p-boundary").bounding_box()["y"] == box["y"]
    assert "added a point" in page.inner_text("#p-notice")
    assert page.errors == []
    ctx.close()


def test_a_touch_screen_taps_the_loss_chart(browser, srv):
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True,
                              is_mobile=True, device_scale_factor=2)
    page = open_play(ctx, srv, ODD)
    assert page.inner_text("#p-curves-how") == "tap"
    page.click("#p-step")
    page.wait_for_function("Play.history.length >= 2")
    box = page.locator("#p-curves").bounding_box()
    page.locator("#p-curves").scroll_into_view_if_needed()
    box = page.locator("#p-curves").bounding_box()
    page.touchscreen.tap(box["x"] + box["width"] - 10, box["y"] + box["height"] / 2)
    page.wait_for_function("document.querySelector('#p-hover').textContent.startsWith('step ')")
    assert "train loss" in page.inner_text("#p-hover")
    # the accuracy and its count fit the phone's width
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.locator("#p-boundary").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "playground-phone-accuracy.png"))
    assert page.errors == []
    ctx.close()

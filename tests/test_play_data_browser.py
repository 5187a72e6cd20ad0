# ruff: noqa: F811  (the fixtures browser and srv, imported, are the tests' arguments)
"""Your own data in the Playground, in a real headless Chromium against a real ``micrograd
serve``: a CSV file imported through the file input and exported again (the same points,
the same file), a bad file refused with its line and field, a large data set that travels
as a file, clear all and points drawn of each class and target; and tidy state: fast
edits leave each field, the URL and the session equal, and a notice goes with its cause.

Screenshots go to test-artifacts/ (gitignored). These tests never skip.
"""

import json
from pathlib import Path
from urllib.parse import parse_qs

import pytest
from test_web_play_browser import (ARTIFACTS, PLAY, browser, open_play,  # noqa: F401
                                   pause, srv, state)  # browser, srv: the fixtures

from micrograd.points_csv import read_points, write_points

pytestmark = pytest.mark.browser

SMALL = ("page=play&ds=circle&noise=0.1&n=60&ratio=0.5&seed=2&hidden=4&act=tanh&loss=mse"
         "&opt=sgd&lr=0.1&batch=0&iseed=0&add=0.25:-0.5:1;1.5:0.125:-1&rm=3")
GOOD = "x1,x2,label\n0.5,0.5,1\n-0.5,-0.5,-1\n0.6,0.4,1\n-0.4,-0.6,-1\n0.7,0.2,1\n-0.3,-0.8,-1\n"
BAD = "x1,x2,label\n0.5,0.5,1\n0.1,abc,1\n"


def new_page(browser, width=1280, height=800):
    pg = browser.new_page(viewport={"width": width, "height": height}, accept_downloads=True)
    pg.add_init_script(PLAY)
    pg.errors = []
    pg.on("pageerror", lambda e: pg.errors.append(str(e)))
    return pg


@pytest.fixture
def page(browser, srv):
    pg = new_page(browser)
    yield pg
    pg.close()
    assert pg.errors == [], pg.errors


def settled(page):
    """every edit answered and nothing on its way"""
    page.wait_for_function("Play.edits === 0 && !Play.inflight")


def upload(page, tmp_path, text, name="points.csv"):
    f = tmp_path / name
    f.write_text(text)
    page.set_input_files("#p-csv-file", str(f))


def export(page):
    with page.expect_download() as d:
        page.click("#p-csv-export")
    return Path(d.value.path()).read_text()


def hash_of(page):
    return {k: v[0] for k, v in parse_qs(page.url.split("#", 1)[1]).items()}


def test_a_file_exported_and_imported_is_the_same_data_set(page, srv, tmp_path):
    open_play(page, srv, SMALL)
    first = export(page)
    assert first.startswith("x1,x2,label\n") and len(first.splitlines()) == 1 + 60 - 1 + 2
    upload(page, tmp_path, first, "circle.csv")
    page.wait_for_function("Play.state.config.dataset === 'own'")
    settled(page)
    assert state(page, "Play.state.config.points") == read_points(first).points
    # the same points in the same order: the same split, and the same file again
    assert export(page) == first
    assert page.is_hidden("#p-csv-error")
    assert "61 points from circle.csv" in page.inner_text("#p-notice")
    # the link carries them (61 <= the points a link carries) and reopens them exactly
    assert hash_of(page)["ds"] == "own" and "file" not in hash_of(page)
    other = new_page(page.context.browser)
    try:
        other.goto(page.url)
        other.wait_for_function("window.Play && Play.state && Play.state.config.dataset === 'own'")
        assert state(other, "Play.state.config.points") == read_points(first).points
        assert export(other) == first
    finally:
        other.close()


def test_a_bad_file_is_refused_with_its_line_and_field_and_nothing_changes(page, srv, tmp_path):
    open_play(page, srv, SMALL)
    before = state(page, "Play.accepted")
    upload(page, tmp_path, BAD, "bad.csv")
    page.wait_for_selector("#p-csv-error:not([hidden])")
    assert page.inner_text("#p-csv-error") == "bad.csv: line 3, field x2: 'abc' is not a number"
    assert state(page, "Play.accepted") == before and page.is_hidden("#p-banner")
    # a label the loss refuses, and too few points: the Python side's sentences
    upload(page, tmp_path, "x1,x2,label\n0,0,0\n", "zero.csv")
    page.wait_for_function("document.querySelector('#p-csv-error').textContent"
                           ".includes('zero.csv')")
    assert "line 2, field label: 0 is not a label of the loss 'mse'" in \
        page.inner_text("#p-csv-error")
    upload(page, tmp_path, "x1,x2,label\n0,0,1\n1,1,-1\n", "two.csv")
    page.wait_for_function("document.querySelector('#p-csv-error').textContent"
                           ".includes('two.csv')")
    assert "your data has 2 points" in page.inner_text("#p-csv-error")
    page.locator("#p-csv-error").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "play-csv-error.png"))
    # a good file: the error goes with its cause
    upload(page, tmp_path, GOOD, "good.csv")
    page.wait_for_function("Play.state.config.dataset === 'own'")
    assert page.is_hidden("#p-csv-error")


def test_a_large_data_set_travels_as_a_file_and_the_page_says_so(page, srv, tmp_path):
    open_play(page, srv, "page=play&ds=circle&n=300&hidden=3")
    text = export(page)
    upload(page, tmp_path, text, "big.csv")
    page.wait_for_function("Play.state.config.dataset === 'own'")
    settled(page)
    h = hash_of(page)
    assert "pts" not in h and h["file"] == "300" and h["ds"] == "own"
    assert "more than a link carries (200)" in page.inner_text("#p-data-note")
    other = new_page(page.context.browser)
    try:
        other.goto(page.url)
        other.wait_for_function("window.Play && Play.state && Play.edits === 0")
        other.wait_for_selector("#p-notice:not([hidden])")
        assert "300 points of your own" in other.inner_text("#p-notice")
        assert "import that CSV file" in other.inner_text("#p-notice")
        assert other.evaluate("Play.state.config.dataset") == "disk"  # the rest, not lost
        assert other.evaluate("Play.state.config.hidden") == [3]
    finally:
        other.close()


def click_plot(page, x, y):
    """a click on the plot at the plane's point (x, y)"""
    X, Y = page.evaluate(f"[Play.plot.map.px({x}), Play.plot.map.py({y})]")
    box = page.locator("#p-boundary").bounding_box()
    w = page.evaluate("document.querySelector('#p-boundary').width")
    page.mouse.click(box["x"] + X * box["width"] / w, box["y"] + Y * box["height"] / w)


def test_clear_all_then_points_drawn_of_each_class(page, srv):
    open_play(page, srv, SMALL)
    page.click("#p-clear-all")
    page.wait_for_function("Play.data.draft && Play.data.draft.points.length === 0")
    assert page.input_value("#p-click") == "add"
    assert "every point is gone" in page.inner_text("#p-notice")
    drawn = [(0.5, 0.5, "1"), (-0.5, -0.5, "-1"), (0.5, -0.25, "1")]
    for x, y, lab in drawn:
        page.select_option("#p-addlabel", lab)
        click_plot(page, x, y)
        settled(page)
    # three points: too few to train and test; the page draws them and says why
    assert page.evaluate("Play.data.draft.points.length") == 3
    assert "your data has 3 points" in page.inner_text("#p-data-note")
    page.select_option("#p-addlabel", "-1")
    click_plot(page, -0.25, 0.5)
    page.wait_for_function("Play.state.config.dataset === 'own' && !Play.data.draft")
    settled(page)
    pts = state(page, "Play.state.config.points")
    assert [p[2] for p in pts] == [1, -1, 1, -1]
    for (x, y, _), p in zip(drawn + [(-0.25, 0.5, "-1")], pts):
        assert abs(p[0] - x) < 0.02 and abs(p[1] - y) < 0.02
    # one more point, of your own data set: added where it is clicked
    page.select_option("#p-addlabel", "1")
    click_plot(page, 0.75, 0.75)
    page.wait_for_function("Play.state.config.points.length === 5")
    # three classes: a point of class 2
    page.fill("#p-classes", "3")
    page.press("#p-classes", "Enter")
    page.wait_for_function("Play.state.config.classes === 3")
    settled(page)
    page.select_option("#p-addlabel", "2")
    click_plot(page, -0.75, 0.75)
    page.wait_for_function("Play.state.config.points.length === 6")
    assert state(page, "Play.state.config.points")[-1][2] == 2


def test_regression_targets_are_drawn_and_clearly_visible(page, srv, tmp_path):
    open_play(page, srv, "page=play&ds=plane&loss=mse&n=60&hidden=3")
    page.click("#p-clear-all")
    page.wait_for_function("Play.data.draft")
    assert page.is_visible("#p-addtarget") and page.is_hidden("#p-addlabel-box")
    for x, y, t in [(0.5, 0.5, "1"), (-0.5, -0.5, "-1"), (0.5, -0.5, "0.5"), (-0.5, 0.5, "-0.25")]:
        page.fill("#p-addtarget", t)
        click_plot(page, x, y)
        settled(page)
    page.wait_for_function("Play.state.config.dataset === 'own_regression' && !Play.data.draft")
    assert [p[2] for p in state(page, "Play.state.config.points")] == [1, -1, 0.5, -0.25]
    # every target stands out from the output under it: a dark ring round a full colour
    pixels = page.evaluate("""() => {
      const cv = document.querySelector('#p-boundary'), ctx = cv.getContext('2d');
      const m = Play.plot.map;
      const px = (x, y) => Array.from(ctx.getImageData(Math.round(x), Math.round(y), 1, 1).data);
      return Play.state.config.points.map(([x, y, t]) => ({t, centre: px(m.px(x), m.py(y)),
        ring: px(m.px(x) + 5, m.py(y))}));
    }""")
    for p in pixels:
        r, g, b = p["ring"][:3]
        assert 0.299 * r + 0.587 * g + 0.114 * b < 90, p  # the ring: near black
    strong = {p["t"]: p["centre"] for p in pixels}
    assert strong[1][2] - strong[1][0] > 150 and strong[-1][0] - strong[-1][2] > 150
    page.screenshot(path=str(ARTIFACTS / "play-regression-targets.png"))


# ---------------------------------------------------------------------------------------
# tidy state
# ---------------------------------------------------------------------------------------

FIELDS = {"lr": ("#p-lr", "lr"), "noise": ("#p-noise", "noise"), "l2": ("#p-l2", "l2"),
          "batch_size": ("#p-batch_size", "batch")}


def test_fast_edits_leave_each_field_the_url_and_the_session_equal(page, srv):
    """Three rounds of edits typed as fast as keys go, while training: at the end each
    field, the link, the page's state and the Python side's session agree, on the last
    values typed."""
    open_play(page, srv, SMALL)
    rounds = [[("lr", "0.03"), ("noise", "0.2"), ("lr", "0.5"), ("l2", "0.001"),
               ("batch_size", "10"), ("lr", "0.07"), ("noise", "0.05"), ("lr", "0.3")],
              [("l2", "0.01"), ("lr", "0.9"), ("batch_size", "4"), ("lr", "0.02"),
               ("noise", "0.3")],
              [("batch_size", "0"), ("lr", "0.25"), ("l2", "0"), ("lr", "0.125"),
               ("noise", "0")]]
    for typed in rounds:
        page.click("#p-play")  # training on while the edits arrive
        for name, text in typed:  # no waits: each key as fast as the browser takes it
            page.click(FIELDS[name][0], click_count=3)
            page.keyboard.type(text, delay=0)
            page.keyboard.press("Tab")
        page.wait_for_function("Play.edits === 0")
        pause(page)
        settled(page)
        want = {name: float(text) for name, text in typed}
        h = hash_of(page)
        server = page.evaluate("Play.client.call('play.get', {sid: Play.sid})"
                               ".then((s) => ({...s.config, lr: s.lr}))")
        for name, (sel, key) in FIELDS.items():
            shown = float(page.input_value(sel))
            trained = page.evaluate("Play.state.lr" if name == "lr"
                                    else f"Play.state.config.{name}")
            assert shown == float(h[key]) == trained == server[name], \
                (name, shown, h[key], trained, server[name])
            if name in want:
                assert shown == want[name], (name, shown, want[name])


def test_a_notice_goes_when_its_cause_does(page, srv):
    open_play(page, srv, "page=play&ds=circle&n=60&hidden=8")
    page.click("#p-net .layerhead button[aria-label='one neuron more in hidden layer 1']")
    page.wait_for_selector("#p-notice:not([hidden])")
    assert "the + button stops at 8 neurons" in page.inner_text("#p-notice")
    page.fill("#p-lr", "0.2")
    page.press("#p-lr", "Tab")
    page.wait_for_function("Play.state.lr === 0.2")
    settled(page)
    assert page.is_hidden("#p-notice")
    # and through a change of the set-up
    page.click("#p-net .layerhead button[aria-label='one neuron more in hidden layer 1']")
    page.wait_for_selector("#p-notice:not([hidden])")
    page.fill("#p-noise", "0.1")
    page.press("#p-noise", "Tab")
    page.wait_for_function("Play.state.config.noise === 0.1")
    settled(page)
    assert page.is_hidden("#p-notice")


@pytest.mark.parametrize("width, height", [(1280, 800), (390, 844)])
def test_the_csv_import_at_desktop_and_phone_size(browser, srv, tmp_path, width, height):
    page = new_page(browser, width, height)
    try:
        open_play(page, srv, SMALL)
        upload(page, tmp_path, BAD, "bad.csv")
        page.wait_for_selector("#p-csv-error:not([hidden])")
        err = page.locator("#p-csv-error")
        err.scroll_into_view_if_needed()
        box = err.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width + 1  # within the screen
        page.screenshot(path=str(ARTIFACTS / f"play-csv-error-{width}.png"))
        pts = [[0.5 * ((i % 7) - 3), 0.3 * ((i % 5) - 2), 1 if i % 2 else -1] for i in range(40)]
        upload(page, tmp_path, write_points(pts, "label"), "mine.csv")
        page.wait_for_function("Play.state.config.dataset === 'own'")
        settled(page)
        assert page.is_hidden("#p-csv-error")
        assert json.loads(json.dumps(state(page, "Play.state.config.points"))) == \
            [[float(a), float(b), c] for a, b, c in pts]
        page.locator("#p-boundary").scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / f"play-csv-imported-{width}.png"))
        assert page.errors == []
    finally:
        page.close()


def test_your_data_from_the_keyboard_alone(page, srv, tmp_path):
    """The file input, export, clear all and points typed at (x1, x2): every step by keys."""
    open_play(page, srv, SMALL)
    f = tmp_path / "keys.csv"
    f.write_text(GOOD)
    page.focus("#p-undoedits")
    page.keyboard.press("Tab")  # the next stop is the file input
    assert page.evaluate("document.activeElement.id") == "p-csv-file"
    # (Space opens the browser's own file dialog there; the file is chosen as in it)
    page.set_input_files("#p-csv-file", str(f))
    page.wait_for_function("Play.state.config.dataset === 'own'")
    settled(page)
    page.keyboard.press("Tab")  # past the (hidden) error to export
    assert page.evaluate("document.activeElement.id") == "p-csv-export"
    with page.expect_download() as d:
        page.keyboard.press("Enter")
    assert Path(d.value.path()).read_text() == write_points(read_points(GOOD).points)
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "p-clear-all"
    page.keyboard.press("Enter")
    page.wait_for_function("Play.data.draft")
    page.screenshot(path=str(ARTIFACTS / "play-clear-all.png"))
    for x, y, lab in [("0.5", "0.5", "1"), ("-0.5", "-0.5", "-1"), ("0.5", "-0.5", "1"),
                      ("-0.5", "0.5", "-1")]:
        page.focus("#p-addlabel")
        page.select_option("#p-addlabel", lab)
        page.fill("#p-px", x)
        page.fill("#p-py", y)
        page.focus("#p-pgo")
        page.keyboard.press("Enter")
        settled(page)
    page.wait_for_function("Play.state.config.dataset === 'own' && !Play.data.draft")
    assert state(page, "Play.state.config.points") == [[0.5, 0.5, 1], [-0.5, -0.5, -1],
                                                       [0.5, -0.5, 1], [-0.5, 0.5, -1]]
    page.screenshot(path=str(ARTIFACTS / "play-drawn.png"))


def test_fit_fits_what_is_shown_when_a_neuron_is_folded(page, srv):
    """The Walk's graph view: folded, the lecture's neuron is one box; "fit" fits that box
    (zoomed in, centred), not the hidden nodes around it."""
    page.goto(f"{srv.url}#page=walk&preset=neuron")
    page.wait_for_selector("#w-graph g.node")
    fit = page.locator("#w-graph .gv-bar button[aria-label='fit the whole graph']")
    fit.click()
    whole = float(page.get_attribute("#w-graph", "data-zoom"))
    page.click("#w-graph button[data-fold]")
    page.wait_for_selector("#w-graph g.fold")
    fit.click()
    page.wait_for_function(f"Number(document.querySelector('#w-graph').dataset.zoom) > {whole}")
    folded = float(page.get_attribute("#w-graph", "data-zoom"))
    assert folded > 1.5 * whole, (whole, folded)
    port = page.locator("#w-graph .gv-port").bounding_box()
    box = page.locator("#w-graph g.fold").bounding_box()
    centre = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    assert abs(centre[0] - (port["x"] + port["width"] / 2)) < 0.05 * port["width"]
    assert abs(centre[1] - (port["y"] + port["height"] / 2)) < 0.1 * port["height"]
    page.click("#w-graph button[data-fold]")  # opened again: fit is the whole graph again
    fit.click()
    page.wait_for_function(f"Number(document.querySelector('#w-graph').dataset.zoom) === {whole}")


def test_choosing_your_points_starts_from_the_points_on_screen(page, srv):
    open_play(page, srv, SMALL)
    before = export(page)
    page.select_option("#p-dataset", "own")
    page.wait_for_function("Play.state.config.dataset === 'own'")
    settled(page)
    assert export(page) == before  # the same 61 points, hand edits included, now yours
    assert page.is_hidden("#p-samples") and page.is_hidden("#p-noise")
    # your points for regression from a classification set: an empty plane to draw on
    page.select_option("#p-dataset", "own_regression")
    page.wait_for_function("Play.data.draft && Play.data.draft.dataset === 'own_regression'")
    assert page.is_visible("#p-addtarget")
    settled(page)
    assert page.input_value("#p-dataset") == "own_regression"

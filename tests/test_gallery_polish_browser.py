"""The gallery of mistakes as a person reads it (issue 31), in a real headless Chromium
against a real ``micrograd serve``: in a mistake's row only the numbers it got wrong are
red (the Python side says which: ``Result.wrong``), with words that say so; the rows name
what they ran ("the mistake's code on this package's engine", "this package's engine
(right)"); no line of code is cut off in its box, at 1280x800 or 390x844; a Walk link
opens the Walk at the top, the tabs in view.

One browser and one server for the module; two page loads.
"""

import pytest

from browser_kit import ARTIFACTS, Server, chromium
from micrograd import mistakes
from micrograd.mistakes import OURS
from micrograd.mistakes.record import RIGHT

pytestmark = pytest.mark.browser

#: every row, every cell, as the page drew them
ROWS = """() => [...document.querySelectorAll('#page-mistakes .mg-g-entry')].map((card) => ({
  key: card.dataset.key,
  rows: [...card.querySelectorAll('.mg-g-table tbody tr')].map((tr) => ({
    kind: tr.className, label: tr.querySelector('th').textContent,
    tinted: [...tr.querySelectorAll('td')]
      .filter((td) => getComputedStyle(td).backgroundColor !== 'rgba(0, 0, 0, 0)')
      .map((td) => td.dataset.leaf || 'value'),
    wrong: [...tr.querySelectorAll('td.mg-g-wrong')].map((td) => td.dataset.leaf || 'value'),
  })),
  legend: (card.querySelector('.mg-g-legend') || {}).textContent || '',
}))"""

#: a code box whose text is wider than the box (cut off, or only seen by scrolling)
CLIPPED = """() => [...document.querySelectorAll('#page-mistakes pre')]
  .filter((p) => p.scrollWidth > p.clientWidth + 1).map((p) => p.textContent.slice(0, 60))"""


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


def open_gallery(ctx, srv, hash_="page=mistakes"):
    page = ctx.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.goto(f"{srv.url}#{hash_}")
    page.wait_for_selector("#page-mistakes[data-state='ready']", timeout=60_000)
    return page


def test_wrong_cells_row_names_code_and_the_walk_link_at_1280(browser, srv):
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    page = open_gallery(ctx, srv)
    cards = {c["key"]: c for c in page.evaluate(ROWS)}
    direct = {m.key: m.run() for m in mistakes.GALLERY if m.key in cards}
    marked = 0
    for key, card in cards.items():
        r = direct[key]
        if not card["rows"]:
            continue
        mistakes_rows = [row for row in card["rows"] if row["kind"] == "mg-g-mistake"]
        assert len(mistakes_rows) == len(r.learner), key
        for row, outcome in zip(mistakes_rows, r.learner):
            # only the cells the Python side says differ are red, and nothing else is tinted
            assert row["wrong"] == r.wrong(outcome), (key, row)
            assert row["tinted"] == row["wrong"], (key, row)
            marked += len(row["wrong"])
        if any(r.wrong(o) for o in r.learner):
            assert "differs from this package's engine" in card["legend"], key
    assert marked >= 10  # the gallery has wrong numbers to show
    # the rows say what they ran: the mistake's code, or this package's engine done right
    nzg = cards["no_zero_grad"]["rows"]
    labels = [row["label"] for row in nzg]
    assert OURS in labels and f"{RIGHT} (right)" in labels
    assert "micrograd.engine" not in labels and "micrograd.engine (right)" not in labels
    # the assign row: a is wrong (3 for 6), the value is right and stays plain
    assign = cards["assign"]["rows"][0]
    assert assign["wrong"] == ["a"] and "value" not in assign["tinted"]
    page.locator("#page-mistakes .mg-g-entry[data-key='assign'] .mg-g-table").screenshot(
        path=str(ARTIFACTS / "gallery-wrong-row.png"))
    # no code box cuts a line off
    assert page.evaluate(CLIPPED) == []
    # a Walk link from far down the gallery: the Walk opens at the top, the tabs in view
    link = page.locator("#page-mistakes .mg-g-entry[data-key='no_zero_grad'] a.mg-g-walklink")
    link.scroll_into_view_if_needed()
    assert page.evaluate("window.scrollY") > 500
    link.click()
    page.wait_for_function("!document.querySelector('#page-walk').hidden"
                           " && document.querySelectorAll('#page-walk g.node').length > 0")
    page.wait_for_timeout(500)  # the Walk's own fitting is done
    assert page.evaluate("window.scrollY") == 0
    tabs = page.locator("#tabs").bounding_box()
    assert tabs["y"] >= 0
    assert page.get_attribute("#tab-walk", "aria-selected") == "true"
    assert page.errors == []
    ctx.close()


def test_no_code_is_cut_off_on_a_phone(browser, srv):
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True,
                              is_mobile=True, device_scale_factor=2)
    page = open_gallery(ctx, srv, "page=mistakes&mistake=deep_recursive_topo")
    assert page.evaluate(CLIPPED) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.screenshot(path=str(ARTIFACTS / "gallery-phone.png"))
    assert page.errors == []
    ctx.close()

"""The page's gallery of classic mistakes in a real headless Chromium (Debian's, through
playwright) against a real ``micrograd serve`` on 127.0.0.1, at 1280x800 and 390x844.

Every entry is read off the page: its code, the rows of its table (one per engine the
learner's code ran on, micrograd.engine's, the finite differences, the fixed code's),
each number's full value and each error, compared with the same handler run here; the
entries with a teaching mode open the Walk in that mode; and the whole round is done
once with the keyboard only. Screenshots go to test-artifacts/.
"""


import pytest
from test_mistakes_page import KEYS, WHERE_MEASURED
from test_web_walk_browser import ARTIFACTS, browser, server  # noqa: F401 (fixtures)

from micrograd.web.handlers import dispatch, run_to_end

pytestmark = pytest.mark.browser

VIEWPORTS = {"desktop": (1280, 800), "phone": (390, 844)}
WALK_MODES = {"assign": "assign", "recursive_backward": "recursive",
              "no_zero_grad": "no_zero_grad"}


def answers():
    """Each entry as the handler gives it, run here (the server runs the same code)."""
    out = {}
    for key in KEYS:
        job = run_to_end(dispatch("mistakes.run", {"key": key}, None))
        assert job["ok"], job
        out[key] = job["answer"]
    return out


@pytest.fixture(scope="module")
def expected():
    return answers()


def open_gallery(browser, server, size):  # noqa: F811 (the fixtures, by name)
    width, height = VIEWPORTS[size]
    page = browser.new_page(viewport={"width": width, "height": height})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    page.goto(f"{server}#page=mistakes")
    page.wait_for_selector("#page-mistakes[data-state=ready]", timeout=120_000)
    return page


#: one card as the page shows it: its state, code, rows (label, cells' values and texts)
READ_CARD = """(card) => ({
  state: card.dataset.state,
  code: card.querySelector('.mg-g-code code').textContent,
  example: (card.querySelector('.mg-g-example') || {}).textContent,
  heads: [...card.querySelectorAll('thead th')].map((th) => th.textContent),
  rows: [...card.querySelectorAll('tbody tr')].map((tr) => ({
    kind: tr.className,
    label: tr.querySelector('th').textContent,
    cells: [...tr.querySelectorAll('td')].map((td) => ({
      value: td.dataset.value === undefined ? null : td.dataset.value,
      leaf: td.dataset.leaf || null, text: td.textContent })),
  })),
  facts: Object.fromEntries([...card.querySelectorAll('.mg-g-facts dt')].map((dt) =>
    [dt.textContent, dt.nextElementSibling.dataset.value])),
  walk: (card.querySelector('a.mg-g-walklink') || {}).hash || null,
  overflow: (() => { const box = card.querySelector('.mg-g-scroll');
                     return box ? box.scrollWidth - box.clientWidth : 0; })(),
  visible: card.getBoundingClientRect().width,
})"""


def same(held, x):
    """The page holds ``x``: a number's full value (``data-value``: JavaScript's
    shortest round-trip text, so equal floats), a text as it is (``"NaN"``, a sentence),
    nothing for a missing number."""
    if x is None or held is None:
        return held is None and x is None
    if isinstance(x, str):
        return held == x
    return float(held) == float(x)


def check_outcome(row, outcome, leaves, where):
    cells = row["cells"]
    assert same(cells[0]["value"], outcome["value"]), where
    if outcome["error"]:
        assert len(cells) == 2, where
        err = outcome["error"]
        assert cells[1]["text"] == f"raised {err['type']}: {err['message']}", where
    else:
        assert [c["leaf"] for c in cells[1:]] == leaves, where
        for c, leaf in zip(cells[1:], leaves):
            assert same(c["value"], outcome["grads"].get(leaf)), (where, leaf)
            assert c["text"], where  # the number is written, not only held


def check_card(card, entry):
    key, r = entry["key"], entry["result"]
    assert card["state"] == "done", key
    assert card["code"] == entry["code"], key
    assert card["example"] == r["example"], key
    leaves = [h.removeprefix("grad[").removesuffix("]") for h in card["heads"][2:]]
    assert leaves[:len(r["right"]["grads"])] == list(r["right"]["grads"]), key
    rows = card["rows"]
    learner = r["learner"]
    kinds = ["mg-g-mistake"] * len(learner) + ["mg-g-right", "mg-g-fd"] + \
        (["mg-g-fixed"] if r["fixed"] else [])
    assert [row["kind"] for row in rows] == kinds, key
    for row, outcome in zip(rows, learner):
        assert row["label"] == outcome["runs_on"], key
        check_outcome(row, outcome, leaves, key)
    check_outcome(rows[len(learner)], r["right"], leaves, key)
    assert rows[len(learner)]["label"] == f"{r['right']['runs_on']} (right)"
    fd = {"value": None, "error": None, "grads": r["finite_differences"]}
    check_outcome(rows[len(learner) + 1], fd, leaves, key)
    if r["fixed"]:
        check_outcome(rows[-1], r["fixed"], leaves, key)
        assert rows[-1]["label"] == r["fixed"]["runs_on"]
    assert set(card["facts"]) == set(r["facts"]), key
    for name, value in r["facts"].items():
        if name != WHERE_MEASURED:  # the depth the server's stack had left: its own
            assert same(card["facts"][name], value), (key, name)


@pytest.mark.parametrize("size", list(VIEWPORTS))
def test_every_entry_is_shown_with_its_numbers(browser, server, expected, size):  # noqa: F811
    page = open_gallery(browser, server, size)
    width = VIEWPORTS[size][0]
    try:
        cards = page.locator("#page-mistakes article.mg-g-entry")
        assert cards.count() == len(KEYS)
        assert [cards.nth(i).get_attribute("data-key") for i in range(len(KEYS))] == KEYS
        for i, key in enumerate(KEYS):
            card = cards.nth(i)
            card.scroll_into_view_if_needed()
            seen = card.evaluate(READ_CARD)
            check_card(seen, expected[key])
            assert 0 < seen["visible"] <= width, (key, seen["visible"])
            if len(seen["heads"]) <= 4:  # a graph of one or two leaves: its table fits
                assert seen["overflow"] <= 0, (key, seen["overflow"])
            walk = expected[key]["walk"]
            assert (seen["walk"] is not None) == (walk is not None), key
        # nothing wider than the window: wide tables scroll inside their own box
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        status = page.inner_text("#m-status")
        assert status == f"{len(KEYS)} of {len(KEYS)} entries run now in Python."
        page.evaluate("window.scrollTo(0, 0)")
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"mistakes-{size}.png"))
        page.screenshot(path=str(ARTIFACTS / f"mistakes-{size}-full.png"), full_page=True)
        assert page.errors == []
    finally:
        page.close()


@pytest.mark.parametrize("key", list(WALK_MODES))
def test_a_walk_link_opens_the_walk_in_the_mistakes_mode(browser, server, expected, key):  # noqa: F811
    page = open_gallery(browser, server, "desktop")
    try:
        link = page.locator(f"article[data-key={key}] a.mg-g-walklink")
        assert link.get_attribute("data-mode") == WALK_MODES[key]
        link.click()
        page.wait_for_selector("#tab-walk[aria-selected=true]")
        page.wait_for_selector("#w-graph g.node")
        assert page.is_hidden("#page-mistakes") and page.is_visible("#page-walk")
        setup = expected[key]["walk"]
        assert page.input_value("#w-mode") == WALK_MODES[key]
        assert page.input_value("#w-preset") == setup["preset"]
        names = page.eval_on_selector_all("#w-graph g.node[data-name]",
                                          "(ns) => ns.map((n) => n.dataset.name)")
        assert set(expected[key]["result"]["right"]["grads"]) <= set(names)
        # back: the gallery again, its numbers still there
        page.go_back()
        page.wait_for_selector("#tab-mistakes[aria-selected=true]")
        assert page.get_attribute("#page-mistakes", "data-state") == "ready"
        assert page.is_visible(f"article[data-key={key}] table")
        assert page.errors == []
    finally:
        page.close()


def focused(page):
    return page.evaluate("""(() => { const a = document.activeElement;
      return {id: a.id, cls: a.className, text: a.textContent.trim().slice(0, 80),
              key: (a.closest('article') || {dataset: {}}).dataset.key || null}; })()""")


def tab_until(page, test, limit=80):
    for _ in range(limit):
        page.keyboard.press("Tab")
        now = focused(page)
        if test(now):
            return now
    raise AssertionError(f"never focused: last {focused(page)}")


def test_keyboard_only(browser, server, expected):  # noqa: F811
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    try:
        page.goto(server)
        page.wait_for_selector("body[data-ready='1']")
        tab_until(page, lambda f: f["id"] == "tab-mistakes")
        page.keyboard.press("Enter")
        page.wait_for_selector("#page-mistakes[data-state=ready]", timeout=120_000)
        # the list of mistakes: Enter on one moves the focus to its entry
        title = expected["no_zero_grad"]["title"].replace("`", "")
        tab_until(page, lambda f: "mg-g-jump" in f["cls"] and f["text"] == title)
        page.keyboard.press("Enter")
        now = focused(page)
        assert now["key"] == "no_zero_grad" and now["id"].endswith("no_zero_grad-title")
        assert "mistake=no_zero_grad" in page.evaluate("location.hash")
        top = page.evaluate("document.activeElement.getBoundingClientRect().top")
        assert 0 <= top < 800  # scrolled to it
        # on through the entry (its code and its numbers can be scrolled by keys) to the link
        stops = [tab_until(page, lambda f: f["key"] == "no_zero_grad")]
        while "mg-g-walklink" not in stops[-1]["cls"]:
            stops.append(tab_until(page, lambda f: True, limit=1))
            assert len(stops) < 10, stops
        # its own link, the code, the table
        assert [s["cls"] for s in stops[:3]] == ["mg-g-self", "", "mg-g-scroll"]
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "mistakes-keyboard.png"))
        page.keyboard.press("Enter")
        page.wait_for_selector("#tab-walk[aria-selected=true]")
        page.wait_for_selector("#w-graph g.node")
        assert page.input_value("#w-mode") == "no_zero_grad"
        assert "mode=no_zero_grad" in page.evaluate("location.hash")
    finally:
        page.close()


def test_a_link_to_one_mistake_opens_the_gallery_there(browser, server):  # noqa: F811
    page = browser.new_page(viewport={"width": 390, "height": 844})
    try:
        key = "deep_recursive_topo"
        page.goto(f"{server}#page=mistakes&mistake={key}")
        page.wait_for_selector("#page-mistakes[data-state=ready]", timeout=120_000)
        assert focused(page)["key"] == key
        top = page.evaluate("document.activeElement.getBoundingClientRect().top")
        assert 0 <= top < 844, top  # in view, the numbers above it drawn since
        # each entry's own link is that link
        href = page.get_attribute("article[data-key=assign] a.mg-g-self", "href")
        assert href == "#page=mistakes&mistake=assign"
        page.click("article[data-key=assign] a.mg-g-self")
        page.wait_for_function("document.activeElement.id.endsWith('assign-title')")
    finally:
        page.close()

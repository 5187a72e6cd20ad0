"""The gallery of classic mistakes in the static site, in a real headless Chromium: written
by ``micrograd site``, served by ``python -m http.server`` (nothing else running), every
request to another host aborted. Every entry's code runs in Python in the page's worker
(Pyodide), except the one whose endless recursion would overflow the browser's
WebAssembly stack, which says so; the numbers are those the handler gives on this
machine's Python (PyTorch's rows aside: the browser has none), within the last places
the two math libraries may round differently.
"""

import pytest
from browser_kit import ARTIFACTS, StaticServer, build_site, chromium, guard
from test_mistakes_page import KEYS, close
from test_mistakes_page_browser import READ_CARD, answers

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site served from its folder; yields its address."""
    out, _ = build_site(tmp_path_factory.mktemp("site"))
    server = StaticServer(out, tmp_path_factory.mktemp("logs") / "site.log")
    yield server.url
    server.stop()


def held(cell):
    v = cell["value"]
    if v is None:
        return None
    try:
        return float(v) if v not in ("NaN", "Infinity", "-Infinity") else v
    except ValueError:
        return v


def check_row(row, outcome, key):
    cells = row["cells"]
    assert close(held(cells[0]), outcome["value"]), key
    if outcome["error"]:  # the same error; its message is each Python version's own
        assert cells[1]["text"].startswith(f"raised {outcome['error']['type']}: "), key
    else:
        for c in cells[1:]:
            assert close(held(c), outcome["grads"].get(c["leaf"]), 1e-9), (key, c)


def test_the_gallery_runs_in_the_pages_python(site):
    expected = answers()
    with chromium() as browser:
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        seen = guard(context)
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(site + "#page=mistakes")
        page.wait_for_selector("#page-mistakes[data-state=ready]", timeout=300_000)
        status = page.inner_text("#m-status")
        cards = {k: page.locator(f"article[data-key={k}]").evaluate(READ_CARD) for k in KEYS}
        notice = page.inner_text("article[data-key=radd_recursion] .mg-g-notrun")
        page.locator("article[data-key=radd_recursion]").scroll_into_view_if_needed()
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "mistakes-static-site.png"))
        context.close()
    assert errors == [] and seen["foreign"] == []
    n = len(KEYS)
    assert status == f"{n - 1} of {n} entries run now in Python; 1 not run in this page " \
                     "(it says why)."
    assert cards["radd_recursion"]["state"] == "not-run" and cards["radd_recursion"]["rows"] == []
    assert "WebAssembly stack" in notice and "micrograd serve" in notice
    for key in KEYS:
        if key == "radd_recursion":
            continue
        card, r = cards[key], expected[key]["result"]
        assert card["state"] == "done" and card["code"] == expected[key]["code"], key
        assert card["example"] == r["example"], key
        # PyTorch's rows are this machine's only: the browser's Python has no PyTorch
        learner = [o for o in r["learner"] if not o["runs_on"].startswith("PyTorch")]
        rows = card["rows"]
        assert [row["label"] for row in rows[:len(learner)]] == [o["runs_on"] for o in learner]
        for row, outcome in zip(rows, learner + [r["right"]]):
            check_row(row, outcome, key)
        check_row(rows[len(learner) + 1],
                  {"value": None, "error": None, "grads": r["finite_differences"]}, key)
        if r["fixed"]:
            check_row(rows[-1], r["fixed"], key)
    deep = cards["deep_recursive_topo"]["rows"][0]["cells"][1]["text"]
    assert deep.startswith("raised RecursionError")  # the deep sort did run in the browser

"""The page and the notebooks linked both ways, in Chromium: ``micrograd site`` served
under a sub-path (/course/micrograd/) by a plain static server, every request to another
host refused and counted (any one fails the test).

- The Walk's line names the notebook of the set-up shown; its link opens JupyterLite's
  page with that notebook, in a new tab. The Playground's line and the gallery's (under
  its title and in each entry) link the notebooks notebook_links' table gives them; a
  tab writes its page's key in the URL.
- A notebook's link to the page (a markdown cell, micrograd.web.notebook_links) opens the
  page in that state: JupyterLab leaves the link as written, the Walk shows the preset
  and the step the link names.
- Served by ``micrograd serve`` (no notebooks beside the page), the line names the
  notebook's file and how to open it in Jupyter, and links nowhere.
"""

import pytest

from browser_kit import ARTIFACTS, SUB, StaticServer, build_site, chromium, guard, serve
from micrograd.mistakes import GALLERY
from micrograd.web import notebook_links as nl

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: JupyterLite's page has opened a notebook: its path
OPENED = """() => {
  const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  return w && w.context ? w.context.path : null;
}"""
#: each gallery entry's key -> the notebooks its line links (once every entry has one)
ENTRY_NOTEBOOKS = """() => {
  const cards = [...document.querySelectorAll('#page-mistakes article.mg-g-entry')];
  const lines = cards.map(c => [...c.querySelectorAll('.mg-g-nb a.nblink')]);
  if (!cards.length || lines.some(as => !as.length)) return null;
  return Object.fromEntries(cards.map((c, i) =>
    [c.dataset.key, lines[i].map(a => a.dataset.notebook)]));
}"""
#: a rendered markdown cell's links (JupyterLab's own heading anchors left out)
MARKDOWN_LINKS = ".jp-RenderedMarkdown a:not(.jp-InternalAnchorLink)"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    top = tmp_path_factory.mktemp("links-site")
    build_site(top)
    server = StaticServer(top, top / "http.log")
    try:
        yield f"{server.url}{SUB}/"
    finally:
        server.stop()


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def page_ready(page):
    page.wait_for_selector("body[data-ready='1']", timeout=120_000)


def linked(page, selector):
    """The notebooks a line links, once it has its links."""
    links = page.locator(selector)
    links.first.wait_for(timeout=120_000)
    return links.evaluate_all("as => as.map(a => a.dataset.notebook)")


def test_each_parts_notebook_line_and_the_walks_link_opens_it(browser, served):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    seen = guard(context)
    try:
        page = context.new_page()
        page.goto(served + "index.html#page=walk&preset=neuron")
        page_ready(page)
        assert linked(page, "#w-notebook a.nblink") == \
            nl.notebooks_for("walk", {"preset": "neuron", "mode": "correct"})
        with context.expect_page() as opened:
            page.locator("#w-notebook a.nblink").first.click()
        notebook = opened.value
        notebook.wait_for_function(OPENED, timeout=120_000)
        assert notebook.evaluate(OPENED) == "04_a_neuron.ipynb"
        assert notebook.url.startswith(served + "notebooks/notebooks/index.html?path=")
        notebook.screenshot(path=str(ARTIFACTS / "site-notebook-link-04.png"))
        # a mistake's teaching mode names the notebook that teaches it
        page.select_option("#w-mode", "assign")
        page.wait_for_function("""() => document.querySelector('#w-notebook a.nblink')
                                  .dataset.notebook.startsWith('05_')""", timeout=60_000)
        # the Playground's line, its tab's key in the URL; the gallery's, title and entries
        page.click("#tab-play")
        assert f"{nl.PAGE_KEY}=play" in page.url.split("#", 1)[1].split("&")
        assert linked(page, "#p-notebook a.nblink") == nl.notebooks_for("play", {})
        page.click("#tab-mistakes")
        assert linked(page, "#m-notebook a.nblink") == nl.notebooks_for("mistakes", {})
        page.wait_for_function(ENTRY_NOTEBOOKS, timeout=120_000)
        assert page.evaluate(ENTRY_NOTEBOOKS) == \
            {m.key: nl.notebooks_for("mistakes", {"key": m.key}) for m in GALLERY}
    finally:
        context.close()
    assert seen["foreign"] == []


def test_a_notebooks_link_opens_the_page_in_that_state(browser, served):
    stop = nl.STOPS["03_backprop_by_hand"][1]  # the lecture's graph, every step done
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    seen = guard(context)
    try:
        page = context.new_page()
        page.goto(served + "notebooks/notebooks/index.html?path=03_backprop_by_hand.ipynb")
        link = page.locator(MARKDOWN_LINKS, has_text=stop.text.split("`")[0]).first
        link.wait_for(timeout=120_000)
        # as written: JupyterLab rewrites a relative link it can read to its files/
        assert link.get_attribute("href") == \
            f"{nl.SITE_PAGE}{nl.SITE_MARK}#{stop.fragment()}"
        with context.expect_page() as opened:
            link.click()
        walk = opened.value
        page_ready(walk)
        walk.wait_for_function("() => document.querySelector('#w-k').textContent === '11'",
                               timeout=120_000)
        assert walk.url.startswith(served + "index.html")
        assert walk.eval_on_selector("#w-preset", "s => s.value") == "lecture"
        assert walk.locator("#w-phase").text_content() == "done"
        walk.screenshot(path=str(ARTIFACTS / "site-notebook-link-walk.png"))
    finally:
        context.close()
    assert seen["foreign"] == []


def test_the_served_page_names_the_notebook_and_links_nowhere(browser):
    with serve() as url:
        context = browser.new_context()
        try:
            page = context.new_page()
            page.goto(url + "#page=walk&preset=lecture")
            page_ready(page)
            line = page.locator("#w-notebook")
            line.locator(".nbname").first.wait_for(timeout=60_000)
            assert line.locator("a").count() == 0
            text = line.text_content()
            assert "03_backprop_by_hand.ipynb" in text and nl.LOCAL["command"] in text
        finally:
            context.close()

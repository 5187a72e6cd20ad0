"""The page and the notebooks linked both ways, in Chromium: ``micrograd site`` served
under a sub-path (/course/micrograd/) by a plain static server, every request to another
host refused and counted (any one fails the test).

- The Walk's line names the notebook of the set-up shown; its link opens JupyterLite's
  page with that notebook, in a new tab.
- A notebook's link to the page (a markdown cell, micrograd.web.notebook_links) opens the
  page in that state: JupyterLab leaves the link as written, the Walk shows the preset
  and the step the link names.
- Served by ``micrograd serve`` (no notebooks beside the page), the line names the
  notebook's file and how to open it in Jupyter, and links nowhere.
"""

import pytest

from browser_kit import ARTIFACTS, SUB, StaticServer, build_site, chromium, guard, serve
from micrograd.web import notebook_links as nl

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: JupyterLite's page has opened a notebook: its path
OPENED = """() => {
  const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  return w && w.context ? w.context.path : null;
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


def test_the_walks_notebook_link_opens_that_notebook(browser, served):
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    seen = guard(context)
    try:
        page = context.new_page()
        page.goto(served + "index.html#page=walk&preset=neuron")
        page_ready(page)
        links = page.locator("#w-notebook a.nblink")
        links.first.wait_for(timeout=120_000)
        assert links.evaluate_all("as => as.map(a => a.dataset.notebook)") == \
            nl.notebooks_for("walk", {"preset": "neuron", "mode": "correct"})
        with context.expect_page() as opened:
            links.first.click()
        notebook = opened.value
        notebook.wait_for_function(OPENED, timeout=120_000)
        assert notebook.evaluate(OPENED) == "04_a_neuron.ipynb"
        assert notebook.url.startswith(served + "notebooks/notebooks/index.html?path=")
        notebook.screenshot(path=str(ARTIFACTS / "site-notebook-link-04.png"))
        # a mistake's teaching mode names the notebook that teaches it
        page.select_option("#w-mode", "assign")
        page.wait_for_function("""() => document.querySelector('#w-notebook a.nblink')
                                  .dataset.notebook.startsWith('05_')""", timeout=60_000)
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

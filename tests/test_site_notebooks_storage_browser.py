"""What the notebooks' site keeps in the learner's browser, in Chromium: ``micrograd site``
served under a sub-path (/course/micrograd/) by a plain static server, every request to
another host refused and counted (any one fails the test).

A notebook edited and saved in JupyterLite's page is there again on the next visit;
start-over.html (the site's own page) lists it as edited, starts one notebook over, then
all of them (each asked first; a page holding the storage open is told to be closed),
and the shipped notebooks come back. A newer build (the notebooks changed, written over
the same folder) opens its own notebooks as shipped, not the older edits, and says so:
on JupyterLite's page and on start-over.html, which gives the older copy to download and
deletes it, asked first; a start over leaves it alone. Another micrograd site's storage
on the same host is neither called older nor deleted with the older edits.
"""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from browser_kit import ARTIFACTS, ROOT, SUB, StaticServer, chromium, guard

pytestmark = [pytest.mark.browser, pytest.mark.slow]

FIRST = "01_derivative_as_a_nudge.ipynb"
SECOND = "02_value_and_its_graph.ipynb"

#: the page's notebook is read and its model ready (its kernel may still be starting)
LOADED = """() => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  return !!(w && w.context && w.context.isReady && w.content && w.content.model
            && w.content.model.cells.length > 0); }"""
CELL = "i => window.jupyterapp.shell.currentWidget.content.model.cells.get(i).sharedModel"


def build(out, cwd=ROOT):
    """``micrograd site OUT --no-bytecode`` run in ``cwd`` (its notebooks/ folder is the
    one shipped)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src") + os.pathsep
               + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-m", "micrograd", "site", str(out),
                           "--no-bytecode"], capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.fixture
def site(tmp_path):
    """(the site's folder, its URL): built from the checkout's notebooks, served."""
    out = build(tmp_path / "top" / SUB)
    server = StaticServer(tmp_path / "top", tmp_path / "http.log")
    try:
        yield out, f"{server.url}{SUB}/"
    finally:
        server.stop()


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


@pytest.fixture
def context(browser):
    """One browser profile (its IndexedDB) for the whole test; requests to other hosts
    refused and counted."""
    context = browser.new_context(viewport={"width": 1280, "height": 800},
                                  accept_downloads=True)
    seen = guard(context)
    try:
        yield context, seen
    finally:
        context.close()


def open_notebook(page, url, name):
    page.goto(f"{url}notebooks/notebooks/index.html?path={name}")
    try:
        page.wait_for_function(LOADED, timeout=180_000)
    except Exception:  # what the page shows instead, for the failure's report
        page.screenshot(path=str(ARTIFACTS / "site-notebooks-storage-failed.png"))
        dialogs = page.locator(".jp-Dialog").all_inner_texts()
        raise AssertionError(f"{name} not loaded at {page.url}: dialogs {dialogs}") from None


def source(page, index=0):
    return page.evaluate(f"i => ({CELL})(i).getSource()", index)


def edit_and_save(page, url, name, text):
    """Open ``name``, put ``text`` as its first cell, save: the shipped first cell."""
    open_notebook(page, url, name)
    shipped = source(page)
    page.evaluate(f"([i, s]) => ({CELL})(i).setSource(s)", [0, text])
    # the context's own save, awaited (the model may turn dirty again after it: the
    # kernel's start writes the notebook's language_info)
    page.evaluate("() => window.jupyterapp.shell.currentWidget.context.save()")
    return shipped


def save_when_settled(page):
    """Wait for the page's kernel (its start writes the notebook's language_info), then
    save: the notebook is clean, and JupyterLab's autosave has nothing to write later."""
    dirty = page.evaluate("""async () => {
      const c = window.jupyterapp.shell.currentWidget.context;
      const settled = (async () => {
        await c.sessionContext.ready;
        const kernel = c.sessionContext.session && c.sessionContext.session.kernel;
        if (kernel) await kernel.info;
        await new Promise((r) => setTimeout(r, 500));
      })();
      await Promise.race([settled, new Promise((r) => setTimeout(r, 180000))]);
      await c.save();
      return c.model.dirty;
    }""")
    assert not dirty


def hold_open(page, name):
    """Open database ``name`` in ``page`` and keep it open, deaf to a deletion's request
    to close (window.held)."""
    page.evaluate("""name => new Promise((resolve, reject) => {
      const q = indexedDB.open(name);
      q.onsuccess = () => { window.held = q.result; resolve(); };
      q.onerror = () => reject(q.error);
    })""", name)


def databases(page):
    return page.evaluate("async () => (await indexedDB.databases()).map(d => d.name)")


def open_start_over(page, url):
    page.goto(f"{url}notebooks/start-over.html")
    page.wait_for_function("() => document.body.dataset.ready !== undefined",
                           timeout=60_000)
    assert page.locator("body").get_attribute("data-ready") != "error", \
        page.inner_text("#state")


def states(page):
    """{notebook: "edited" or "shipped"} as start-over.html lists them."""
    items = page.locator("#notebooks li")
    return {items.nth(i).get_attribute("data-name"): items.nth(i).get_attribute("data-state")
            for i in range(items.count())}


def test_an_edit_persists_and_start_over_brings_the_shipped_notebooks_back(site, context):
    out, url = site
    context, seen = context
    page = context.new_page()
    first = edit_and_save(page, url, FIRST, "# my edit of the first")
    second = edit_and_save(page, url, SECOND, "# my edit of the second")
    open_notebook(page, url, FIRST)
    assert source(page) == "# my edit of the first"  # kept in the browser

    open_start_over(page, url)
    listed = states(page)
    assert listed[FIRST] == listed[SECOND] == "edited"
    assert {v for k, v in listed.items() if k not in (FIRST, SECOND)} == {"shipped"}
    page.screenshot(path=str(ARTIFACTS / "site-notebooks-start-over.png"), full_page=True)

    # one notebook started over, asked first: "Keep it" (focused) keeps it, the focus
    # back on the button; then confirmed, the first as shipped, the second still edited
    again = page.get_by_role("button", name=f"Start {FIRST} over: back to the shipped "
                             "notebook")
    again.click()
    ask = page.get_by_role("group", name=f"Start {FIRST} over")
    assert f"deletes your edit of {FIRST}" in ask.inner_text()
    assert page.evaluate("() => document.activeElement.textContent") == "Keep it"
    page.keyboard.press("Enter")
    assert ask.is_hidden()
    assert page.evaluate("() => document.activeElement.getAttribute('aria-label')") \
        == f"Start {FIRST} over: back to the shipped notebook"
    assert states(page)[FIRST] == "edited"
    again.click()
    page.get_by_role("button", name=f"Yes, start {FIRST} over").click()
    page.wait_for_function(f"() => document.querySelector('#notebooks li[data-name=\"{FIRST}\"]')"
                           ".dataset.state === 'shipped'", timeout=30_000)
    assert states(page)[SECOND] == "edited"
    open_notebook(page, url, FIRST)
    assert source(page) == first
    open_notebook(page, url, SECOND)
    assert source(page) == "# my edit of the second"

    # all of them: the page deletes this build's storage and opens the notebooks; a
    # notebook's page open in another tab is asked to reload (saved first, its kernel
    # started: its autosave has nothing to write back); a page holding the storage open
    # holds the deletion up, and the learner is told to close it
    other = context.new_page()
    open_notebook(other, url, SECOND)
    save_when_settled(other)
    hold_open(other, json.loads((out / "site.json").read_text())["notebooks"]["storage"])
    open_start_over(page, url)
    page.get_by_role("button", name="Start over…").click()
    page.locator("#confirm").wait_for()
    assert "your edits of 1 file" in page.inner_text("#confirm-text")
    page.get_by_role("button", name="Delete my edits and start over").click()
    page.wait_for_function("() => document.getElementById('done').textContent"
                           ".startsWith(\"Close the notebooks' other tabs to finish\")",
                           timeout=30_000)
    assert page.url.endswith("/start-over.html")
    other.evaluate("() => window.held.close()")
    # the notebooks' index.html, then JupyterLab it sends the browser on to: the next
    # goto must not cut that second navigation short
    page.wait_for_url(re.compile(r"/notebooks/lab/"), timeout=60_000)
    page.wait_for_load_state()
    told = other.locator("#mg-started-over")
    told.wait_for(timeout=30_000)
    assert "started over in another tab: reload this page" in told.inner_text()
    other.close()
    open_notebook(page, url, SECOND)
    assert source(page) == second
    open_start_over(page, url)
    assert set(states(page).values()) == {"shipped"}
    assert "Every notebook is as shipped" in page.inner_text("#state")
    assert page.locator("#older").is_hidden()
    assert seen["foreign"] == []


def newer_notebooks(folder):
    """A copy of the checkout's notebooks in ``folder``/notebooks with FIRST's first cell
    changed; returns that cell's new source."""
    (folder / "notebooks").mkdir(parents=True)
    for nb in (ROOT / "notebooks").glob("*.ipynb"):
        shutil.copyfile(nb, folder / "notebooks" / nb.name)
    path = folder / "notebooks" / FIRST
    data = json.loads(path.read_text("utf-8"))
    data["cells"][0]["source"] = "# The newer notebook\n\nShipped after your edit."
    path.write_text(json.dumps(data, indent=1) + "\n", "utf-8")
    return "# The newer notebook\n\nShipped after your edit."


#: another micrograd site's storage on this host, recorded as that site's, and one recorded
#: as no site's (its site unknown)
ELSEWHERE = "micrograd-notebooks-0123456789abcdef"
UNKNOWN = "micrograd-notebooks-fedcba9876543210"


def other_site_storage(page, name, site):
    """Storage ``name`` as JupyterLite writes it (a "files" store, one notebook saved),
    recorded as ``site``'s (none if None)."""
    page.evaluate("""([name, site]) => new Promise((resolve, reject) => {
      const q = indexedDB.open(name, 2);
      q.onupgradeneeded = () => q.result.createObjectStore("files");
      q.onerror = () => reject(q.error);
      q.onsuccess = () => {
        const db = q.result;
        const tx = db.transaction("files", "readwrite");
        tx.objectStore("files").put({ name: "theirs.ipynb", path: "theirs.ipynb",
          type: "notebook", format: "json", last_modified: new Date().toISOString(),
          content: { cells: [], metadata: {}, nbformat: 4, nbformat_minor: 5 } },
          "theirs.ipynb");
        tx.oncomplete = () => { db.close(); resolve(); };
        tx.onerror = () => reject(tx.error);
      };
      if (site) localStorage.setItem("micrograd-notebooks-site:" + name, site);
    })""", [name, site])


def test_a_newer_build_opens_its_notebooks_and_says_the_older_edits_are_kept(
        site, context, tmp_path):
    out, url = site
    context, seen = context
    page = context.new_page()
    edit_and_save(page, url, FIRST, "# my edit of the older notebook")
    older = json.loads((out / "site.json").read_text())["notebooks"]["storage"]
    # the notebooks' page records that this site owns its storage
    page.wait_for_function("s => document.documentElement.dataset.mgStorageRecorded === s",
                           arg=older, timeout=30_000)
    assert page.evaluate("s => localStorage.getItem('micrograd-notebooks-site:' + s)",
                         older) == f"{url}notebooks/"
    # another micrograd site on this host (a teacher's build beside the student's), and a
    # storage whose site was never recorded
    elsewhere = url.replace(SUB, "teacher/micrograd") + "notebooks/"
    other_site_storage(page, ELSEWHERE, elsewhere)
    other_site_storage(page, UNKNOWN, None)

    newer = newer_notebooks(tmp_path / "newer")
    build(out, cwd=tmp_path / "newer")  # the same folder, rebuilt with the newer notebooks
    storage = json.loads((out / "site.json").read_text())["notebooks"]["storage"]
    assert storage != older

    open_notebook(page, url, FIRST)
    assert source(page) == newer  # the newer shipped notebook, not the older edit
    notice = page.locator("#mg-older-notebooks")
    notice.wait_for(timeout=30_000)
    assert "This site has newer notebooks; your edits of the older ones are kept" \
        in notice.inner_text()
    # only this site's older storage counts: not the other sites'
    assert page.evaluate("() => document.documentElement.dataset.mgOlderNotebooks") == "1"
    page.screenshot(path=str(ARTIFACTS / "site-notebooks-newer-notice.png"))

    open_start_over(page, url)
    assert page.locator("#older").is_visible()
    assert "This site has newer notebooks" in page.inner_text("#older-note")
    assert set(states(page).values()) == {"shipped"}
    box = page.locator(f'#older-list [data-storage="{older}"]')
    assert box.locator("li").count() == 1
    assert page.locator("#older-list [data-storage]").count() == 1
    # the other sites' storages: listed apart, as theirs, not as older notebooks
    assert page.locator("#others").is_visible()
    theirs = page.locator(f'#others-list [data-storage="{ELSEWHERE}"]')
    assert theirs.get_attribute("data-owner") == "other"
    assert f"Another micrograd site on this host ({elsewhere})" in theirs.inner_text()
    unknown = page.locator(f'#others-list [data-storage="{UNKNOWN}"]')
    assert unknown.get_attribute("data-owner") == "unknown"
    assert "older" not in page.inner_text("#others").lower()
    assert "newer" not in page.inner_text("#others").lower()
    with page.expect_download() as download:
        box.get_by_role("link", name=f"Download: {FIRST}").click()
    assert download.value.suggested_filename == FIRST
    copy = json.loads(Path(download.value.path()).read_text("utf-8"))
    assert "".join(copy["cells"][0]["source"]) == "# my edit of the older notebook"
    page.screenshot(path=str(ARTIFACTS / "site-notebooks-older-edits.png"), full_page=True)
    page.set_viewport_size({"width": 390, "height": 844})
    page.screenshot(path=str(ARTIFACTS / "site-notebooks-older-edits-phone.png"),
                    full_page=True)
    page.set_viewport_size({"width": 1280, "height": 800})

    # a start over of these notebooks leaves the older ones' and the other sites' alone
    page.get_by_role("button", name="Start over…").click()
    page.get_by_role("button", name="Delete my edits and start over").click()
    page.wait_for_url(re.compile(r"/notebooks/lab/"), timeout=60_000)  # index.html's next
    page.wait_for_load_state()
    assert {older, ELSEWHERE, UNKNOWN} <= set(databases(page))
    open_start_over(page, url)
    box = page.locator(f'#older-list [data-storage="{older}"]')

    # deleting the older edits asks first ("Keep them" focused), then deletes them only
    trigger = box.get_by_role("button", name=re.compile("Delete your edits of the older"))
    trigger.click()
    ask = box.get_by_role("group")
    assert "deletes your edits of 1 file of this site's older notebooks" in ask.inner_text()
    assert page.evaluate("() => document.activeElement.textContent") == "Keep them"
    page.screenshot(path=str(ARTIFACTS / "site-notebooks-older-confirm.png"), full_page=True)
    box.get_by_role("button", name=re.compile("Yes, delete the 1 file of the older")).click()
    page.locator("#older").wait_for(state="hidden", timeout=30_000)
    assert page.evaluate("() => document.activeElement.id") == "cleared"
    names = databases(page)
    assert older not in names
    assert ELSEWHERE in names and UNKNOWN in names
    assert page.locator(f'#others-list [data-storage="{ELSEWHERE}"]').is_visible()
    open_notebook(page, url, FIRST)
    page.wait_for_function("() => document.documentElement.dataset.mgOlderNotebooks === '0'",
                           timeout=30_000)
    assert page.locator("#mg-older-notebooks").count() == 0
    assert seen["foreign"] == []

"""The page and the notebooks, linked both ways (micrograd.web.notebook_links).

From each notebook to the page: every link of every notebook to the page is read by the
set-ups' own link readers, strictly (``WalkSetup.from_url``, ``Experiment.from_url``, a
gallery entry's key), names a page that exists, and the static site's link carries the
mark that keeps JupyterLab from rewriting it; every notebook the site ships links to the
page; the cells are the ones the table makes (scripts/notebook_links.py --check), all
markdown, so no code cell moves. From the page to the notebooks: every rule names a
notebook the site ships, by the title it has, and its state by keys of the set-up.
The browser's side is tests/test_site_notebook_links_browser.py.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from urllib.parse import parse_qsl, unquote_to_bytes, urlsplit

import nbformat
import pytest

from micrograd import mistakes
from micrograd.commands import site_notebooks
from micrograd.experiment import Experiment
from micrograd.walk import walk
from micrograd.walk_setup import MODES, PRESETS, WalkSetup
from micrograd.web import notebook_links as nl
from micrograd.web.handlers.meta import meta

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
ALL = sorted(p.stem for p in NOTEBOOKS.glob("*.ipynb"))
#: a markdown link's target
LINK = re.compile(r"\]\(([^()\s]+(?:\([^()\s]*\)[^()\s]*)*)\)")
PAGES = ("walk", "play", "mistakes")


def page_links(name):
    """[(cell index, target)] of the links of notebook ``name`` to the page (the static
    site's or the served one's)."""
    nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    return [(i, t) for i, c in enumerate(nb.cells) if c.cell_type == "markdown"
            for t in LINK.findall(c.source)
            if t.startswith((nl.SITE_PAGE, nl.SERVED))]


def read_fragment(fragment):
    """(page, its state as the set-up's reader reads it, strictly)."""
    query = dict(parse_qsl(fragment, keep_blank_values=True, strict_parsing=True))
    page = query.pop(nl.PAGE_KEY)
    assert page in PAGES, page
    if page in ("walk", "play"):
        # strict: no notes, a bad value raises; written again, the same query (a key
        # the reader does not know would be left out)
        state = (WalkSetup if page == "walk" else Experiment).from_url(query)
        assert state.to_url() == query
        return page, state
    assert set(query) <= {nl.MISTAKE_KEY}, query
    if query:
        mistakes.get(query[nl.MISTAKE_KEY])  # a KeyError for an unknown entry
    return page, query


def test_the_notebooks_are_the_table():
    """Every notebook of the checkout is in STOPS, and nothing else is."""
    assert sorted(nl.STOPS) == ALL


@pytest.mark.parametrize("name", ALL)
def test_every_link_to_the_page_reads_strictly(name):
    links = page_links(name)
    assert links, f"{name} has no link to the page"
    site = [t for _, t in links if t.startswith(nl.SITE_PAGE)]
    served = [t for _, t in links if t.startswith(nl.SERVED)]
    assert len(site) == len(served) == len(nl.STOPS[name])
    for s, v, stop in zip(site, served, nl.STOPS[name], strict=True):
        parts = urlsplit(s)
        assert parts.path == nl.SITE_PAGE and parts.fragment == urlsplit(v).fragment
        page, state = read_fragment(parts.fragment)
        assert page == stop.page
        if page == "walk":
            assert state == WalkSetup.from_dict(stop.state)
        elif page == "play":
            assert state == Experiment.from_dict(stop.state)


@pytest.mark.parametrize("name", ALL)
def test_the_site_link_is_one_jupyterlab_leaves_as_written(name):
    """JupyterLab rewrites a relative link it can decode (decodeURI) into a link to its
    own files; the query's %FF is no UTF-8, so it cannot."""
    for _, target in page_links(name):
        if target.startswith(nl.SITE_PAGE):
            query = urlsplit(target).query
            with pytest.raises(UnicodeDecodeError):
                unquote_to_bytes(query).decode("utf-8")


def test_every_shipped_notebook_links_to_the_page():
    shipped = site_notebooks.NOTEBOOKS + site_notebooks.TEACHER
    assert [n for n in shipped if not page_links(n.removesuffix(".ipynb"))] == []


def test_the_cells_are_the_tables(capsys):
    spec = importlib.util.spec_from_file_location("notebook_links_script",
                                                  ROOT / "scripts" / "notebook_links.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    assert script.main(["--check"]) == 0, capsys.readouterr().out


@pytest.mark.parametrize("name", ALL)
def test_the_page_cells_are_markdown_after_the_title(name):
    """Markdown cells only: the code cells keep their indexes (the browser tests count
    them), and the first cell is still the title."""
    nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    ours = [c for c in nb.cells if c.get("id", "").startswith("page-after-")]
    assert len(ours) == len(nl.STOPS[name])
    assert all(c.cell_type == "markdown" for c in ours)
    assert nb.cells[0].cell_type == "markdown" and nb.cells[0].source.startswith("# ")


def test_the_exercises_answer_cell_stays_where_the_browser_test_edits_it():
    nb = nbformat.read(NOTEBOOKS / "exercises.ipynb", as_version=4)
    assert nb.cells[3].source.startswith("dL_da = None")


def test_a_step_in_a_link_is_a_step_of_its_walk():
    """02 opens at the end of the forward pass, 03's second link at the last step."""
    from micrograd import expr

    ends = {}
    for name, stops in nl.STOPS.items():
        for stop in stops:
            if stop.page == "walk" and "step" in stop.state:
                w = walk(expr.parse(WalkSetup.from_dict(stop.state).source))
                ends[name] = (stop.state["step"], len(w.forward), len(w.forward) + len(w.backward))
    assert ends["02_value_and_its_graph"][0] == ends["02_value_and_its_graph"][1]
    assert ends["03_backprop_by_hand"][0] == ends["03_backprop_by_hand"][2]


# ---------------------------------------------------------------------------------------
# from the page to the notebooks
# ---------------------------------------------------------------------------------------


def title(name):
    nb = nbformat.read(NOTEBOOKS / f"{name}.ipynb", as_version=4)
    return nb.cells[0].source.splitlines()[0].removeprefix("# ").replace("`", "")


def test_every_notebook_the_page_names_ships_with_its_title():
    spec = nl.spec()
    shipped = set(site_notebooks.NOTEBOOKS)
    named = {n for part in PAGES for rule in spec[part] for n in rule["notebooks"]}
    files = {n["name"]: n["file"] for n in spec["notebooks"]}
    assert named <= set(files)
    assert {files[n] for n in named} <= shipped
    assert {n["name"]: n["title"] for n in spec["notebooks"]} == \
        {n: title(n) for n in files}


def test_each_rule_names_the_set_ups_keys_and_values():
    fields = {f["name"]: f for f in WalkSetup.spec()["fields"]}
    for when, _ in nl.WALK:
        for k, v in when.items():
            assert k in fields and v in fields[k]["choices"], (k, v)
    keys = {m.key for m in mistakes.GALLERY}
    for when, _ in nl.MISTAKES:
        assert set(when) <= {"key"} and set(when.values()) <= keys
    for rules in (nl.WALK, nl.PLAY, nl.MISTAKES):
        assert rules[-1][0] == {}  # every state finds its notebooks


@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_preset_has_a_notebook_of_its_own(preset):
    assert nl.notebooks_for("walk", {"preset": preset, "mode": "correct"}) != \
        nl.notebooks_for("walk", {"expr": "a = 1"})


@pytest.mark.parametrize("mode", [m for m in MODES if m != "correct"])
def test_every_mistake_mode_names_the_notebook_that_teaches_it(mode):
    assert nl.notebooks_for("walk", {"preset": "lecture", "mode": mode})[0] == \
        "05_topological_sort_and_plus_equals"


def test_the_page_reads_the_table_from_meta():
    assert meta()["notebooks"] == nl.spec()


def test_the_site_paths_are_the_sites():
    folder, app = nl.SITE["open"].split("/")[:2]
    assert folder == site_notebooks.FOLDER and app in site_notebooks.APPS
    assert nl.SITE["listing"] == f"{site_notebooks.FOLDER}/api/contents/all.json"
    assert nl.SITE_PAGE.count("../") == 2  # DIR/notebooks/<app>/index.html -> DIR/


def test_the_page_keys_are_the_pages():
    app = (ROOT / "src/micrograd/web/static/app.js").read_text()
    gallery = (ROOT / "src/micrograd/web/static/gallery.js").read_text()
    assert all(f'"{p}"' in app for p in PAGES) and f'get("{nl.MISTAKE_KEY}")' in gallery
    # that a tab writes PAGE_KEY in the URL: tests/test_site_notebook_links_browser.py

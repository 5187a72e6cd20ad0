"""The notebooks' part of ``micrograd site`` (DIR/notebooks/, JupyterLite), read from the
folder it writes: every wheel the kernel loads is in the site and in its lock with its
digest, the pinned ones as pinned; the kernel is pointed at the site's one Pyodide and
never at another host; the student's exercises ship, the solutions only in a teacher's
build (--teacher); the licences ship; --no-notebooks leaves it all out.
(tests/test_site_notebooks_browser.py runs the notebooks.)
"""

import hashlib
import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from micrograd.commands import site_kernel, site_notebooks

ROOT = Path(__file__).resolve().parent.parent


def build(out, *flags):
    proc = subprocess.run([sys.executable, "-m", "micrograd", "site", str(out), *flags],
                          capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert proc.returncode == 0, proc.stderr
    return out, proc.stdout


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return build(tmp_path_factory.mktemp("site") / "out", "--no-bytecode")


def test_the_lock_names_every_wheel_shipped_with_its_digest(built):
    kernel = built[0] / "notebooks" / "kernel"
    lock = json.loads((kernel / "pyodide-lock.json").read_text())
    wheels = sorted(p.name for p in kernel.glob("*.whl"))
    assert sorted(e["file_name"] for e in lock["packages"].values()) == wheels
    for entry in lock["packages"].values():
        data = (kernel / entry["file_name"]).read_bytes()
        assert entry["sha256"] == hashlib.sha256(data).hexdigest()
        assert set(entry["depends"]) <= set(lock["packages"])
    runtime = json.loads((ROOT / "web-runtime/node_modules/pyodide/pyodide-lock.json")
                         .read_text())
    assert lock["info"] == runtime["info"]  # the site's Pyodide's own header
    for name, (version, digest) in site_kernel.pinned().items():
        if name in lock["packages"]:
            entry = lock["packages"][name]
            assert (entry["version"], entry["sha256"]) == (version, digest)
    assert set(site_kernel.PRELOAD) <= set(lock["packages"])


def test_micrograd_ships_in_the_kernel_with_its_widget(built):
    kernel = built[0] / "notebooks" / "kernel"
    (wheel,) = kernel.glob("micrograd_lecture-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        names = zf.namelist()
        assert "micrograd/widget.js" in names and "micrograd/engine.py" in names
        assert zf.read("micrograd/widget.js") == (ROOT / "src/micrograd/widget.js").read_bytes()


def test_the_kernel_is_pointed_at_the_sites_pyodide_and_no_other_host(built):
    out = built[0]
    config = json.loads((out / "notebooks" / "jupyter-lite.json").read_text())
    kernel = config["jupyter-config-data"]["litePluginSettings"][site_notebooks.KERNEL_PLUGIN]
    assert kernel["pyodideUrl"] == "./../pyodide/pyodide.mjs"
    assert (out / "notebooks" / "../pyodide/pyodide.mjs").is_file()
    assert kernel["disablePyPIFallback"] is True
    # piplite's index: the kernel extension's own wheels, in the site
    assert all(url.startswith("./extensions/") for url in kernel["pipliteUrls"])
    assert kernel["loadPyodideOptions"]["lockFileURL"] == "kernel/pyodide-lock.json"
    text = json.dumps(config)
    assert not re.search(r"https?://", text)


def test_the_students_exercises_ship_and_the_solutions_do_not(built):
    files = built[0] / "notebooks" / "files"
    assert sorted(p.name for p in files.iterdir()) == sorted(site_notebooks.NOTEBOOKS)
    assert (files / "exercises.ipynb").read_bytes() == \
        (ROOT / "notebooks" / "exercises.ipynb").read_bytes()
    listing = json.loads((built[0] / "notebooks/api/contents/all.json").read_text())
    assert [m["name"] for m in listing["content"]] == list(site_notebooks.NOTEBOOKS)
    assert not list(built[0].rglob("exercises_solutions*"))


def test_the_licences_ship_and_the_summary_names_the_notebooks(built):
    out, printed = built
    text = (out / "notebooks" / "THIRD-PARTY-LICENSES.txt").read_text()
    for wheel in (out / "notebooks" / "kernel").glob("*.whl"):
        if not wheel.name.startswith("micrograd_lecture-"):
            assert wheel.name in text
    assert "jupyterlite-core" in text and "BSD" in text
    manifest = json.loads((out / "site.json").read_text())
    assert manifest["notebooks"]["included"] is True
    assert f"the notebooks: {out}/notebooks/" in printed


def test_a_teachers_build_ships_the_solutions_too(tmp_path):
    out, _ = build(tmp_path / "out", "--no-bytecode", "--teacher")
    files = out / "notebooks" / "files"
    assert (files / "exercises_solutions.ipynb").read_bytes() == \
        (ROOT / "notebooks" / "exercises_solutions.ipynb").read_bytes()
    assert (files / "exercises.ipynb").is_file()
    manifest = json.loads((out / "site.json").read_text())
    assert manifest["notebooks"]["notebooks"][-1] == "exercises_solutions.ipynb"


def test_no_notebooks_leaves_them_out(tmp_path):
    out, printed = build(tmp_path / "out", "--no-bytecode", "--no-notebooks")
    assert not (out / "notebooks").exists()
    assert json.loads((out / "site.json").read_text())["notebooks"] == {"included": False}
    assert "the notebooks are left out (--no-notebooks)" in printed


# What the learner's browser keeps (start-over.html; tests/test_site_notebooks_storage_
# browser.py drives it in Chromium)

def test_the_browser_storage_is_one_database_named_by_the_notebooks_digest(built):
    out = built[0]
    config = json.loads((out / "notebooks" / "jupyter-lite.json").read_text())
    config = config["jupyter-config-data"]
    storage = json.loads((out / "site.json").read_text())["notebooks"]["storage"]
    assert storage == site_notebooks.storage_name(ROOT / "notebooks")
    assert re.fullmatch(r"micrograd-notebooks-[0-9a-f]{16}", storage)
    # the files, the settings and the workspace: one database, which a start over deletes
    assert config["contentsStorageName"] == config["settingsStorageName"] == \
        config["workspacesStorageName"] == storage
    # the pages find the other builds' storages by the same pattern
    js = (ROOT / "src/micrograd/commands/lite_storage.js").read_text()
    assert "/^micrograd-notebooks-[0-9a-f]{16}$/" in js


def test_the_storage_name_changes_with_any_notebooks_bytes(tmp_path):
    names = ("a.ipynb", "b.ipynb")
    for name in names:
        (tmp_path / name).write_text('{"cells": []}')
    before = site_notebooks.storage_name(tmp_path, names)
    assert site_notebooks.storage_name(tmp_path, names) == before  # the same bytes
    (tmp_path / "b.ipynb").write_text('{"cells": [1]}')
    assert site_notebooks.storage_name(tmp_path, names) != before
    assert site_notebooks.storage_name(tmp_path, names[:1]) != before


def test_the_start_over_page_ships_with_no_inline_script_and_is_at_hand(built):
    folder = built[0] / "notebooks"
    commands = ROOT / "src/micrograd/commands"
    for name, source in site_notebooks.START_OVER_FILES.items():
        assert (folder / name).read_bytes() == (commands / source).read_bytes()
    page = (folder / "start-over.html").read_text()
    # a strict Content-Security-Policy: scripts and styles from files only
    assert re.findall(r"<script\b[^>]*>", page) == \
        ['<script type="module" src="start-over.js">']
    assert "<style" not in page and not re.search(r"\s(style|on\w+)=", page)
    # its modules import each other by the names they ship under
    for name in ("start-over.js", "start-over-notice.js"):
        for imported in re.findall(r'from "\./([^"]+)"', (folder / name).read_text()):
            assert (folder / imported).is_file(), (name, imported)
    # JupyterLite's pages load the notice, once each
    for rel in site_notebooks.NOTICE_PAGES:
        text = (folder / rel).read_text()
        assert text.count(site_notebooks.NOTICE_TAG) == 1
        assert (folder / rel).parent.joinpath("../start-over-notice.js").resolve().is_file()
    # the Help menu of JupyterLab and Jupyter Notebook links to the page, from one folder
    # down (an app's page)
    config = json.loads((folder / "jupyter-lite.json").read_text())["jupyter-config-data"]
    menus = config["settingsOverrides"]["@jupyterlab/mainmenu-extension:plugin"]["menus"]
    (item,) = [i for m in menus if m["id"] == "jp-mainmenu-help" for i in m["items"]]
    assert item["command"] == "help:open" and item["args"]["url"] == "../start-over.html"
    assert (folder / "lab" / item["args"]["url"]).resolve() == folder / "start-over.html"


def test_the_notice_is_added_once_and_a_page_without_head_is_refused(tmp_path):
    for rel in site_notebooks.NOTICE_PAGES:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("<html><head><title>x</title></head><body></body></html>")
    site_notebooks.write_start_over(tmp_path)
    site_notebooks.write_start_over(tmp_path)  # again: still once
    for rel in site_notebooks.NOTICE_PAGES:
        assert (tmp_path / rel).read_text().count(site_notebooks.NOTICE_TAG) == 1
    (tmp_path / "lab/index.html").write_text("<html><body></body></html>")
    with pytest.raises(site_notebooks.SiteError, match="lab/index.html"):
        site_notebooks.write_start_over(tmp_path)

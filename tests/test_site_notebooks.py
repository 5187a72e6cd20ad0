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

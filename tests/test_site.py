"""``micrograd site DIR``: what it writes, run as the real command. The site in a real
chromium is tests/test_site_browser.py."""

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from html.parser import HTMLParser
from pathlib import Path

import pytest

from micrograd.cli import main
from micrograd.commands import site
from test_site_rebuild import list_in_manifest

ROOT = Path(__file__).resolve().parent.parent
RUNTIME = ROOT / "web-runtime" / "node_modules" / "pyodide"
PACKAGE = ROOT / "src" / "micrograd"


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("site") / "out"
    proc = subprocess.run([sys.executable, "-m", "micrograd", "site", str(out)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return out, proc.stdout


def test_the_pinned_version_is_the_one_npm_installs():
    pkg = json.loads((ROOT / "web-runtime" / "package.json").read_text())
    lock = json.loads((ROOT / "web-runtime" / "package-lock.json").read_text())
    assert pkg["dependencies"]["pyodide"] == site.PYODIDE_VERSION
    assert lock["packages"]["node_modules/pyodide"]["version"] == site.PYODIDE_VERSION
    assert json.loads((RUNTIME / "package.json").read_text())["version"] == site.PYODIDE_VERSION


def test_the_site_holds_the_page_the_runtime_the_sources_and_the_worker(built):
    out, _ = built
    static = PACKAGE / "web" / "static"
    for p in static.rglob("*"):  # the page's files, as they are, where /static/ serves them
        if p.is_file():
            assert (out / "static" / p.relative_to(static)).read_bytes() == p.read_bytes()
    # the same page, told its door (the worker) and given the file:// notice
    page = (static / "index.html").read_text()
    assert (out / "index.html").read_text() == page.replace(
        '<meta charset="utf-8">\n', '<meta charset="utf-8">\n' + site.SITE_HEAD, 1)
    assert '<meta name="micrograd-door" content="pyodide">' in site.SITE_HEAD
    assert '<meta name="micrograd-door"' not in page  # micrograd serve's page: HTTP
    for name in site.RUNTIME_FILES:
        if name == site.STDLIB:  # compiled (tests/test_site_bytecode.py)
            continue
        assert (out / "pyodide" / name).read_bytes() == (RUNTIME / name).read_bytes(), name
    for name in ("pyodide_worker.js", "pyodide_client.js", "file_check.js",
                 "pyodide-check.html"):
        assert (out / name).read_bytes() == (PACKAGE / "web" / "pyodide" / name).read_bytes()


def test_the_sources_are_every_py_file_of_the_package_the_gpt_names_and_program(built):
    out, _ = built
    with zipfile.ZipFile(out / "micrograd.zip") as zf:
        names = [n for n in zf.namelist() if "/__pycache__/" not in n]  # the bytecode
        assert zf.read("micrograd/engine.py") == (PACKAGE / "engine.py").read_bytes()
        assert zf.read("micrograd/gpt/names.txt") == (PACKAGE / "gpt/names.txt").read_bytes()
    want = sorted([f"micrograd/{p.relative_to(PACKAGE).as_posix()}"
                   for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts]
                  + [f"micrograd/{name}" for name in site.DATA_FILES + site.MADE_FILES])
    assert sorted(names) == want
    assert "micrograd/web/pyodide/door.py" in names and "micrograd/engine.py" in names
    data = [f"micrograd/{name}" for name in site.DATA_FILES + site.MADE_FILES]
    assert not [n for n in names if "test" in n.split("/")[-1]
                or not (n.endswith(".py") or n in data)]


def test_the_sources_archive_alone_runs_the_lecture(built, tmp_path):
    out, _ = built
    code = ("import sys; sys.path.insert(0, sys.argv[1])\n"
            "import micrograd\n"
            "assert micrograd.__file__.startswith(sys.argv[1]), micrograd.__file__\n"
            "from micrograd.web.handlers import run_to_end\n"
            "from micrograd.web.pyodide.door import call\n"
            "g = run_to_end(call('walk', {'preset': 'lecture'}))['graph']\n"
            "print(sorted((n['name'], n['grad']) for n in g['nodes'] if n['leaf']))\n")
    proc = subprocess.run([sys.executable, "-c", code, str(out / "micrograd.zip")],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120,
                          env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[('a', 6.0), ('b', -4.0), ('c', -2.0), ('f', 4.0)]"


def test_the_same_sources_give_the_same_archive(built, tmp_path):
    out, _ = built
    assert main(["site", str(tmp_path / "again")]) == 0
    assert (tmp_path / "again" / "micrograd.zip").read_bytes() == \
        (out / "micrograd.zip").read_bytes()


def test_it_says_the_size_and_how_to_serve_it(built):
    out, printed = built
    manifest = json.loads((out / "site.json").read_text())
    files = [p for p in out.rglob("*") if p.is_file() and p.name != "site.json"]
    assert manifest["files"] == {p.relative_to(out).as_posix(): p.stat().st_size
                                 for p in files}
    assert manifest["bytes"] == sum(p.stat().st_size for p in files)
    assert manifest["pyodide"] == site.PYODIDE_VERSION
    mb = f"{manifest['bytes'] / 1e6:.1f} MB"
    assert f"wrote {out}/ ({mb} in {len(files) + 1} files" in printed
    assert f"python -m http.server -d {out}/" in printed
    lite = sum(size for rel, size in manifest["files"].items()
               if rel.startswith("notebooks/"))
    assert 10e6 < manifest["bytes"] - lite < 20e6  # Pyodide is most of it
    assert 15e6 < lite < 40e6  # the notebooks: JupyterLite's page and the kernel's wheels


class Refs(HTMLParser):
    def __init__(self):
        super().__init__()
        self.refs = []

    def handle_starttag(self, tag, attrs):
        for key, value in attrs:
            if key in ("src", "href") and value and not value.startswith(("data:", "#")):
                self.refs.append(value)


@pytest.mark.parametrize("page", ["index.html", "pyodide-check.html"])
def test_every_file_a_page_loads_is_in_the_site_by_a_relative_url(built, page):
    out, _ = built
    parser = Refs()
    parser.feed((out / page).read_text())
    assert parser.refs, page
    for ref in parser.refs:
        assert not re.match(r"^(/|[a-z]+:)", ref), f"{page}: {ref} is not relative"
        assert (out / ref.split("?")[0]).is_file(), f"{page}: {ref} is not in the site"


def test_the_workers_files_name_no_other_host_and_no_absolute_path():
    for p in (PACKAGE / "web" / "pyodide").glob("*.js"):
        text = p.read_text()
        assert not re.search(r"https?://(?!localhost:8000/)", text), p.name
        assert not re.search(r"""(fetch|import|URL)\(\s*["'`]/""", text), p.name


def test_a_previous_site_is_replaced_and_a_file_it_did_not_write_kept(tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["site", str(out)]) == 0
    (out / "pyodide_worker.js").write_bytes(b"")  # what a half-copied site would hold
    list_in_manifest(out, "pyodide_worker.js")
    (out / "mine.js").write_text("a teacher's")
    assert main(["site", str(out)]) == 0
    assert (out / "pyodide_worker.js").read_bytes() == \
        (PACKAGE / "web" / "pyodide" / "pyodide_worker.js").read_bytes()
    assert (out / "mine.js").read_text() == "a teacher's"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]  # no temporary folder left
    assert not [p for p in out.iterdir() if p.name.endswith(".partial")]


def test_a_folder_that_is_not_a_site_is_refused_untouched(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("mine")
    assert main(["site", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "is not empty and is not a site written by micrograd site" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
    file = tmp_path / "notes.txt"
    assert main(["site", str(file)]) == 2
    assert "is a file, not a folder" in capsys.readouterr().err


def test_missing_or_other_pyodide_files_say_how_to_install_them(tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert main(["site", str(tmp_path / "out"), "--pyodide", str(empty)]) == 1
    err = capsys.readouterr().err
    assert "lacks Pyodide's pyodide.mjs" in err and "npm ci --prefix web-runtime" in err
    other = tmp_path / "other"
    shutil.copytree(RUNTIME, other)
    meta = json.loads((other / "package.json").read_text())
    (other / "package.json").write_text(json.dumps(dict(meta, version="0.27.0")))
    assert main(["site", str(tmp_path / "out"), "--pyodide", str(other)]) == 1
    err = capsys.readouterr().err
    assert f"holds Pyodide 0.27.0, not {site.PYODIDE_VERSION}" in err
    assert "npm ci --prefix web-runtime" in err
    assert not (tmp_path / "out").exists()


def test_without_the_projects_node_modules_it_says_how_to_install(tmp_path):
    # the command run from an installed copy of the package (no web-runtime beside it)
    shutil.copytree(PACKAGE, tmp_path / "micrograd",
                    ignore=shutil.ignore_patterns("__pycache__"))
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    proc = subprocess.run([sys.executable, "-m", "micrograd", "site", "out"], cwd=tmp_path,
                          capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 1
    assert f"Pyodide {site.PYODIDE_VERSION}'s runtime files are not installed" in proc.stderr
    assert "npm ci --prefix web-runtime" in proc.stderr and "--pyodide" in proc.stderr
    assert not (tmp_path / "out").exists()


def test_the_command_is_listed_with_its_help():
    out = subprocess.run([sys.executable, "-m", "micrograd", "--help"], capture_output=True,
                         text=True, timeout=60, cwd=ROOT).stdout
    assert re.search(r"^\s+site\s+write the page as a static site", out, re.M)
    out = subprocess.run([sys.executable, "-m", "micrograd", "site", "--help"],
                         capture_output=True, text=True, timeout=60, cwd=ROOT).stdout
    assert "python -m http.server -d out/" in out and "--pyodide PATH" in out

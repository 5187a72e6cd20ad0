"""The static site's Python modules ship as bytecode compiled by Pyodide's own Python
(``micrograd site``; micrograd/web/pyodide/bytecode.py run in node), so the page's
Python loads them instead of compiling every module at every start; without node the
site ships the sources alone and says so."""

import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from micrograd.commands import site

ROOT = Path(__file__).resolve().parent.parent
RUNTIME = ROOT / "web-runtime" / "node_modules" / "pyodide"
RUN = ROOT / "tests" / "run_site_python.mjs"


def build(out, *flags, env=None):
    proc = subprocess.run([sys.executable, "-m", "micrograd", "site", str(out), *flags],
                          capture_output=True, text=True, cwd=ROOT, timeout=600,
                          env=env)
    assert proc.returncode == 0, proc.stderr
    return out, proc.stdout


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    return build(tmp_path_factory.mktemp("compiled") / "out")


@pytest.fixture(scope="module")
def plain(tmp_path_factory):
    return build(tmp_path_factory.mktemp("plain") / "out", "--no-bytecode")


def flags(pyc):
    return int.from_bytes(pyc[4:8], "little")


@pytest.mark.slow  # Pyodide in node, or a long run: CI runs it, the quick run does not
def test_the_standard_library_ships_compiled_module_for_module(compiled):
    out, _ = compiled
    with zipfile.ZipFile(RUNTIME / site.STDLIB) as npm, \
            zipfile.ZipFile(out / "pyodide" / site.STDLIB) as ours:
        theirs = {n: npm.read(n) for n in npm.namelist()}
        mine = {n: ours.read(n) for n in ours.namelist()}
    pycs = [n for n in mine if n.endswith(".pyc")]
    assert len(pycs) > 400 and "json/__init__.pyc" in pycs
    # every module is there once: compiled, or (if it does not compile) as its source
    assert sorted(n[:-1] if n.endswith(".pyc") else n for n in mine) == sorted(theirs)
    assert all(flags(mine[n]) == 0b01 for n in pycs)  # hash-based, never checked
    assert all(mine[n] == theirs[n] for n in mine if not n.endswith(".pyc"))
    manifest = json.loads((out / "site.json").read_text())
    assert manifest["bytecode"] is True and "no_bytecode" not in manifest


@pytest.mark.slow  # Pyodide in node, or a long run: CI runs it, the quick run does not
def test_micrograd_ships_its_sources_and_their_bytecode(compiled):
    out, _ = compiled
    with zipfile.ZipFile(out / "micrograd.zip") as zf:
        names = set(zf.namelist())
        pycs = {n: zf.read(n) for n in names if "/__pycache__/" in n}
    sources = {n for n in names if n.endswith(".py")}
    for name in sources:
        folder, stem = name.rsplit("/", 1)
        matches = [n for n in pycs if n.startswith(f"{folder}/__pycache__/{stem[:-3]}.")]
        assert len(matches) == 1 and re.search(r"\.cpython-3\d+\.pyc$", matches[0]), name
    assert len(pycs) == len(sources)
    assert all(flags(b) == 0b01 for b in pycs.values())


LECTURE = """
import json, sys
import micrograd.engine
from micrograd.web.handlers import run_to_end
from micrograd.web.pyodide.door import call
g = run_to_end(call("walk", {"preset": "lecture"}))["graph"]
print(json.dumps({"grads": sorted([n["name"], n["grad"]] for n in g["nodes"] if n["leaf"]),
                  "json": json.__file__, "python": sys.version.split()[0]}))
"""
SPOILED = "micrograd/engine.py,micrograd/web/pyodide/door.py,micrograd/walk.py"


def site_python(out, spoil=""):
    return subprocess.run(["node", str(RUN), str(out)], input=LECTURE, capture_output=True,
                          text=True, timeout=600, cwd=ROOT, env=dict(os.environ, SPOIL=spoil))


@pytest.mark.slow  # Pyodide in node, or a long run: CI runs it, the quick run does not
def test_the_pages_python_runs_the_bytecode_not_the_sources(compiled, plain):
    # the sources of the modules the lecture's graph needs overwritten with a line that
    # raises: the compiled site never reads them
    proc = site_python(compiled[0], SPOILED)
    assert proc.returncode == 0, proc.stderr[-2000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["grads"] == [["a", 6.0], ["b", -4.0], ["c", -2.0], ["f", 4.0]]
    assert got["python"].startswith("3.14") and got["json"].endswith("__init__.pyc")
    # the sources alone: the same spoiled file is read, and the import fails
    proc = site_python(plain[0], SPOILED)
    assert proc.returncode == 1 and "the source was compiled" in proc.stderr
    proc = site_python(plain[0])
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert json.loads(proc.stdout.strip().splitlines()[-1])["json"].endswith("__init__.py")


@pytest.mark.slow  # Pyodide in node, or a long run: CI runs it, the quick run does not
def test_without_node_the_sources_ship_alone_and_it_says_so(tmp_path, compiled):
    no_node = dict(os.environ, PATH=str(tmp_path / "empty"), XDG_CACHE_HOME=str(tmp_path))
    # a cache of its own: the bytecode's alone (the notebooks' wheels and page left out)
    out, printed = build(tmp_path / "out", "--no-notebooks", env=no_node)
    assert "ship as sources, not compiled (node is not installed)" in printed
    manifest = json.loads((out / "site.json").read_text())
    assert manifest["bytecode"] is False and manifest["no_bytecode"] == "node is not installed"
    assert (out / "pyodide" / site.STDLIB).read_bytes() == (RUNTIME / site.STDLIB).read_bytes()
    with zipfile.ZipFile(out / "micrograd.zip") as zf:
        assert not [n for n in zf.namelist() if "__pycache__" in n]
    # compiled before (the module's first site): taken from the cache, no node needed
    warm = dict(os.environ, PATH=str(tmp_path / "empty"))
    again, printed = build(tmp_path / "again", env=warm)
    assert "not compiled" not in printed
    assert (again / "micrograd.zip").read_bytes() == (compiled[0] / "micrograd.zip").read_bytes()


def test_the_handlers_import_no_xml_http_or_email():
    # xml.sax brings urllib.request, http and email: the page's Python would compile
    # them at every start for the SVG escaping the page never asks for
    code = ("import sys, micrograd.web.pyodide.door, micrograd.web.lowered_play\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('xml', 'http', 'email')))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_a_failing_node_leaves_the_sources_alone_and_nothing_in_the_cache(tmp_path):
    (tmp_path / "bin").mkdir()
    node = tmp_path / "bin" / "node"
    node.write_text("#!/bin/sh\necho 'no WebAssembly here' >&2\nexit 3\n")
    node.chmod(0o755)
    env = dict(os.environ, PATH=str(tmp_path / "bin"), XDG_CACHE_HOME=str(tmp_path / "c"))
    out, printed = build(tmp_path / "out", "--no-notebooks", env=env)
    assert "not compiled (node failed: no WebAssembly here)" in printed
    assert json.loads((out / "site.json").read_text())["bytecode"] is False
    assert [p for p in (tmp_path / "c").rglob("*") if p.is_file()] == []

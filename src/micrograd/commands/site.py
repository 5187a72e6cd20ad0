"""``micrograd site DIR``: write the page as a static site that runs micrograd in the
browser, with no server process behind it.

    micrograd site out/                      # then: python -m http.server -d out/
    micrograd site out/ --pyodide PATH       # Pyodide's runtime files from PATH

DIR gets:

  index.html, static/     the page, as ``micrograd serve`` serves it (/ and /static/)
  pyodide/                Pyodide's runtime (Python compiled to WebAssembly), version
                          PYODIDE_VERSION, from the npm package the project pins; its
                          standard library as bytecode (see below)
  micrograd.zip           micrograd's Python sources and their bytecode, unpacked into
                          Pyodide at start-up, with the GPT tab's lowered program
                          (recorded and lowered by the build: a few seconds)
  pyodide_worker.js       the module Web Worker that runs them (pyodide_client.js is the
                          page's side of it; file_check.js says what to do when the
                          page is opened from a file)
  embed.js, embed.html    walks inside a lesson: the <micrograd-walk> element (in the
                          lesson itself next to these files, in an iframe elsewhere)
  lesson.html             a sample lesson: backprop's text with its walks in between
  pyodide-check.html      a page that starts Python and shows the lecture's grads
  notebooks/              the lecture's notebooks in JupyterLite, on the same Pyodide
                          (--no-notebooks leaves them out; see site_notebooks.py)
  site.json               what was written, with sizes and digests: the files a rebuild
                          replaces

Every URL in the site is relative: serve DIR from any static file server, at any path
(https://example.org/course/micrograd/ too). Nothing is fetched from another host.
Pyodide's files come from the project's web-runtime folder, installed by
``npm ci --prefix web-runtime`` (``bash scripts/test.sh`` does it), or from --pyodide.
The bytecode: Pyodide's Python would compile every module it imports at every start
of the page (most of the wait for the first graph); the site ships them compiled, by
Pyodide's Python itself run in node (micrograd/web/pyodide/bytecode.py), once per
Pyodide release and version of the sources, kept in a cache ($XDG_CACHE_HOME or
~/.cache, under micrograd/site). Without node (or with --no-bytecode) the site ships the
sources alone and says so: it works the same and starts slower.

Rebuilding: DIR may be new (made, with any missing parent folders), empty, or a site
written before. A rebuild replaces only the files its own site.json lists (and removes
those of them the new site no longer has); it keeps every other file: a lesson of yours
beside the site, folders and files of your own, inside the site's folders too. DIR is a
site written before when its site.json lists files with their sizes and digests, at
least one of them is there and each one there is as written; any other non-empty folder
is refused untouched, and so is a rebuild that would replace a file site.json does not
list or one changed since it was written (move yours out of the folder first).
The new site is built whole inside DIR (.micrograd-site.partial), then its files are
moved in one by one, each replacing the old one whole (the pages last): readers of a
served DIR meanwhile may get a mix of old and new files for that moment, never half a
file. A build that fails or is stopped (Ctrl-C, SIGTERM) before then leaves the
previous site as it was and removes its partial files; a build killed outright
(SIGKILL) leaves them, and the next run removes them. A symlinked DIR is written
through: the folder it points to gets the site, the link stays. Exit codes: 0 written;
1 Pyodide's files missing, DIR cannot be written, or another micrograd site is writing
it; 2 DIR is something else (a file, a folder it did not write); 130 Ctrl-C; 143 SIGTERM.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import zipfile
from pathlib import Path

from . import site_notebooks
from .site_folder import (FORMAT, SiteError, check_replaces, listing, locked, make_stage,
                          move_in, owned_files, remove_stage, signals_held)

#: the Pyodide release the site runs (web-runtime/package.json pins the same)
PYODIDE_VERSION = "314.0.7"
#: the runtime files the browser loads (of the npm package's files)
RUNTIME_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip",
                 "pyodide-lock.json", "package.json")
#: the worker and its page-side files, from micrograd/web/pyodide/
SITE_FILES = ("pyodide_worker.js", "pyodide_client.js", "file_check.js", "executor_port.js",
              "pyodide-check.html", "pyodide-check.js", "embed.js", "embed.html",
              "embed_walk.js", "embed_frame.js", "lesson.html")
SOURCES = "micrograd.zip"

REQUIRES = ()  # the standard library builds the site

PACKAGE = Path(__file__).resolve().parent.parent  # the micrograd package's folder


def add_parser(subparsers):
    from argparse import RawDescriptionHelpFormatter

    p = subparsers.add_parser(
        "site", help="write the page as a static site that runs micrograd in the browser",
        description=__doc__, formatter_class=RawDescriptionHelpFormatter)
    p.add_argument("dir", metavar="DIR", help="the folder to write (new, empty, or a site "
                                              "written before: its listed files are "
                                              "replaced, every other file kept)")
    p.add_argument("--pyodide", metavar="PATH",
                   help="a folder holding Pyodide's runtime files (the npm package "
                        f"pyodide@{PYODIDE_VERSION}); default: the project's "
                        "web-runtime/node_modules/pyodide")
    p.add_argument("--no-bytecode", action="store_true",
                   help="ship the Python sources alone, not compiled (no node needed; "
                        "the page starts slower)")
    site_notebooks.add_options(p)  # DIR/notebooks/: the lecture's notebooks, JupyterLite
    p.set_defaults(func=run)
    return p


def _install_hint():
    return ("install them from the project's folder with: npm ci --prefix web-runtime "
            "(bash scripts/test.sh does it too), or give their folder with --pyodide PATH")


def find_runtime(given=None):
    """The folder of Pyodide's runtime files at PYODIDE_VERSION; SiteError if none."""
    if given is not None:
        candidates = [Path(given)]
    else:
        here = Path("web-runtime", "node_modules", "pyodide")
        candidates = [Path.cwd() / here, PACKAGE.parent.parent / here]
    for folder in candidates:
        missing = [name for name in RUNTIME_FILES if not (folder / name).is_file()]
        if given is None and missing:
            continue
        if missing:
            raise SiteError(f"{folder} lacks Pyodide's {', '.join(missing)}; "
                            + _install_hint(), 1)
        try:
            version = json.loads((folder / "package.json").read_text("utf-8"))["version"]
        except (ValueError, KeyError, TypeError, OSError):
            version = None
        if version != PYODIDE_VERSION:
            raise SiteError(f"{folder} holds Pyodide {version}, not {PYODIDE_VERSION}; "
                            + _install_hint(), 1)
        return folder
    raise SiteError(f"Pyodide {PYODIDE_VERSION}'s runtime files are not installed; "
                    + _install_hint(), 1)


def _check_target(out):
    if out.exists() and not out.is_dir():
        raise SiteError(f"{out} is a file, not a folder", 2)


#: what the site's copy of the page adds to micrograd serve's: the door to the worker
#: (static/client.js reads it) and the file:// notice (a classic script: modules do not
#: run from files)
SITE_HEAD = ('<meta name="micrograd-door" content="pyodide">\n'
             '<script src="file_check.js"></script>\n')


def site_page(html):
    """micrograd serve's page as the site serves it: the same page, told its door."""
    head = '<meta charset="utf-8">\n'
    if head not in html:
        raise SiteError("the page's index.html lacks its <meta charset> line", 1)
    return html.replace(head, head + SITE_HEAD, 1)


#: the package's data files the site's Python reads, beside its .py files: the GPT tab's
#: names (and where they come from, their licence)
DATA_FILES = ("gpt/names.txt", "gpt/names.README.md")


#: the files the build makes for the site's Python, beside DATA_FILES: the GPT tab's
#: lowered program (web/gpt_runners.py: recorded and lowered here, a few seconds)
MADE_FILES = ("gpt/program.json",)


def made_file(name):
    """The bytes of one of MADE_FILES, made now."""
    from ..web.gpt_runners import program_text

    if name != "gpt/program.json":
        raise KeyError(name)
    return program_text().encode("utf-8")


def write_sources(path):
    """micrograd's .py files (and DATA_FILES, and MADE_FILES made now) in one zip (fixed
    dates and order: the same sources give the same bytes, so a browser's cached copy
    stays valid)."""
    files = {p.relative_to(PACKAGE).as_posix(): p.read_bytes
             for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts}
    files.update({name: (PACKAGE / name).read_bytes for name in DATA_FILES})
    files.update({name: (lambda name=name: made_file(name)) for name in MADE_FILES})
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name in sorted(files):
            info = zipfile.ZipInfo(f"micrograd/{name}", date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, files[name]())
    return len(files)


#: where the worker unpacks micrograd.zip (pyodide_worker.js's HOME): the code objects'
#: file names
PYODIDE_HOME = "/home/pyodide/site"
#: the standard library's zip, by the name Pyodide loads it under
STDLIB = "python_stdlib.zip"
#: compiled archives kept per cache folder (the newest; each is a few MB)
CACHE_KEEP = 6


def cache_folder():
    """Where compiled archives are kept: $XDG_CACHE_HOME (or ~/.cache)/micrograd/site."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "micrograd" / "site"


def _digest(*parts):
    h = hashlib.sha256()
    for part in parts:
        h.update(hashlib.sha256(part).digest())
    return h.hexdigest()[:24]


def compile_bytecode(out, runtime):
    """Put the bytecode into the site in ``out``: its standard library's zip and
    micrograd.zip replaced by their compiled twins (micrograd/web/pyodide/bytecode.py
    on Pyodide's Python, in node), from the cache when they were compiled before.
    Returns None, or why the sources ship alone (no node, a failure). One build at a
    time uses the cache (a lock on its folder): a later one waits, then copies what the
    first compiled."""
    tool = PACKAGE / "web" / "pyodide" / "bytecode.py"
    key = tool.read_bytes() + PYODIDE_VERSION.encode()
    std, src = out / "pyodide" / STDLIB, out / SOURCES
    cache = cache_folder()
    want = {std: cache / f"stdlib-{_digest(key, std.read_bytes())}.zip",
            src: cache / f"sources-{_digest(key, src.read_bytes())}.zip"}
    cache.mkdir(parents=True, exist_ok=True)
    with locked(cache, cache, wait=True):
        _prune_partial(cache)
        missing = [(site_file, cached) for site_file, cached in want.items()
                   if not cached.is_file()]
        if missing:
            why = _compile(tool, runtime, missing)
            if why is not None:
                return why
        for site_file, cached in want.items():
            shutil.copyfile(cached, site_file)
            os.utime(cached)  # kept: the newest are the ones in use
        _prune(cache)
    return None


def _compile(tool, runtime, missing):
    """Compile the (site file, cache file) pairs of ``missing`` in node into the cache;
    None, or why not. Each output is written under a partial name and renamed whole;
    stopped half-way (an error, Ctrl-C, SIGTERM), node is stopped with it and its
    partial files removed."""
    node = shutil.which("node")
    if node is None:
        return "node is not installed"
    jobs = [{"kind": cached.name.split("-")[0],  # stdlib or sources
             "input": str(site_file), "output": f"{cached}.{os.getpid()}.partial",
             "home": PYODIDE_HOME} for site_file, cached in missing]
    try:
        try:
            code, err = _run_node([node, str(tool.with_name("compile_bytecode.mjs")),
                                   str(runtime.resolve()), json.dumps(jobs)])
        except (OSError, subprocess.TimeoutExpired) as error:
            return f"node failed: {error}"
        if code:
            return f"node failed: {err.strip()[-300:]}"
        for job, (_, cached) in zip(jobs, missing):
            os.replace(job["output"], cached)  # whole, even with builds side by side
    finally:
        for job in jobs:
            Path(job["output"]).unlink(missing_ok=True)
    return None


def _run_node(command, timeout=600):
    """Run ``command`` to its end: (exit status, stderr). Whatever stops the wait (its
    time out, Ctrl-C, SIGTERM) stops the process too, and waits for it."""
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        _, err = proc.communicate(timeout=timeout)
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    return proc.returncode, err


#: the names of the cache's partial files (``_compile``'s outputs, before their rename)
PARTIAL = re.compile(r"(stdlib|sources)-[0-9a-f]{24}\.zip\.\d+\.partial")


def _prune_partial(cache):
    """Remove the partial files of builds killed outright (called under the cache's
    lock: no build is writing one)."""
    for p in cache.glob("*.partial"):
        if PARTIAL.fullmatch(p.name) and p.is_file():
            p.unlink(missing_ok=True)


def _prune(cache):
    for kind in ("stdlib", "sources"):
        old = sorted(cache.glob(f"{kind}-*.zip"), key=lambda p: p.stat().st_mtime)
        for p in old[:-CACHE_KEEP]:
            p.unlink(missing_ok=True)


def build(out, runtime, bytecode=True, notebooks=None):
    """Write the site's files into the folder ``out`` (which exists and is empty); with
    ``bytecode``, the Python modules compiled too (see ``compile_bytecode``). Returns
    its site.json (the caller writes it)."""
    static = PACKAGE / "web" / "static"
    shutil.copytree(static, out / "static", ignore=shutil.ignore_patterns("__pycache__"))
    (out / "index.html").write_text(site_page((static / "index.html").read_text("utf-8")),
                                    "utf-8")
    for name in SITE_FILES:
        shutil.copyfile(PACKAGE / "web" / "pyodide" / name, out / name)
    (out / "pyodide").mkdir()
    for name in RUNTIME_FILES:
        shutil.copyfile(runtime / name, out / "pyodide" / name)
    write_sources(out / SOURCES)
    why = compile_bytecode(out, runtime) if bytecode else "--no-bytecode"
    lite = site_notebooks.build(out, runtime, notebooks, cache_folder(), _version())
    files, digests = listing(out)
    manifest = {"format": FORMAT, "version": 2, "micrograd": _version(),
                "pyodide": PYODIDE_VERSION, "bytecode": why is None,
                "bytes": sum(files.values()), "notebooks": lite, "files": files,
                "sha256": digests}
    if why is not None:
        manifest["no_bytecode"] = why
    return manifest


def _version():
    from .. import __version__

    return __version__


def _make_folder(real):
    """Make the folder ``real`` and any missing parents; the ones made, outermost first."""
    made = []
    here = real
    while not here.exists():
        made.append(here)
        here = here.parent
    for folder in reversed(made):
        folder.mkdir(exist_ok=True)
    return made[::-1]


def write_site(out, runtime, bytecode=True, notebooks=None):
    """Write the site into the folder ``out`` (made if missing; through a symlink):
    built whole inside it, then moved over the files its site.json lists, every other
    file kept (micrograd.commands.site_folder). SiteError for a folder it did not write
    or a file it would replace that it did not write; nothing changed then."""
    real = Path(os.path.realpath(out))
    made = _make_folder(real)
    try:
        with locked(real, out, wait=False):
            owned = owned_files(real, out)  # proved ours before anything is touched
            remove_stage(real, out)  # a killed build's
            stage = make_stage(real)
            try:
                manifest = build(stage, runtime, bytecode, notebooks)
                owned = owned_files(real, out)  # again: a file changed meanwhile stays
                check_replaces(real, out, manifest["files"], owned)
                move_in(real, manifest, owned)
            finally:
                with signals_held():  # a second Ctrl-C does not cut the clean-up short
                    remove_stage(real, out)
    except BaseException:
        for folder in reversed(made):  # the folders made for it, left empty
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise
    return manifest


def _mb(n):
    return f"{n / 1e6:.1f} MB"


def summary(out, manifest):
    files = manifest["files"]
    part = {k: sum(v for name, v in files.items() if name.startswith(k))
            for k in ("pyodide/", SOURCES, "static/")}
    shown = str(out).rstrip("/\\") + "/"
    note = ("" if manifest["bytecode"] else
            "the Python modules ship as sources, not compiled "
            f"({manifest['no_bytecode']}): the page works the same and starts slower\n")
    return (f"micrograd site: wrote {shown} ({_mb(manifest['bytes'])} in {len(files) + 1} "
            f"files: Pyodide {PYODIDE_VERSION} {_mb(part['pyodide/'])}, micrograd's "
            f"sources {_mb(part[SOURCES])}, the page {_mb(part['static/'])})\n{note}"
            f"{site_notebooks.summary(manifest, shown)}"
            f"serve it with: python -m http.server -d {shown}  "
            "(then open http://localhost:8000/)")


class Terminated(BaseException):
    """SIGTERM during a build: raised where the build is, so that it cleans up as it
    does for Ctrl-C."""


def _on_sigterm(signum, frame):
    raise Terminated


def run(args):
    out = Path(args.dir)
    try:
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    except ValueError:  # not the main thread: SIGTERM stays as it is
        previous = None
    try:
        runtime = find_runtime(args.pyodide)
        _check_target(out)
        manifest = write_site(out, runtime, not args.no_bytecode,
                              site_notebooks.options(args))
    except SiteError as err:
        print(f"micrograd site: error: {err}", file=sys.stderr)
        return err.code
    except Terminated:
        print(f"micrograd site: stopped by SIGTERM; {out} holds the previous site (or the "
              "new one, if it was being moved in already) and no partial file",
              file=sys.stderr)
        return 143
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    print(summary(out, manifest))
    return 0

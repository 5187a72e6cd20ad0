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
                          Pyodide at start-up
  pyodide_worker.js       the module Web Worker that runs them (pyodide_client.js is the
                          page's side of it; file_check.js says what to do when the
                          page is opened from a file)
  embed.js, embed.html    walks inside a lesson: the <micrograd-walk> element (in the
                          lesson itself next to these files, in an iframe elsewhere)
  lesson.html             a sample lesson: backprop's text with its walks in between
  pyodide-check.html      a page that starts Python and shows the lecture's grads
  site.json               what was written, with the sizes

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
DIR may be new, empty or a site written before (it is replaced whole, only once the new
one is complete). Exit codes: 0 written; 1 Pyodide's files missing or DIR cannot be
written; 2 DIR is something else.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

#: the Pyodide release the site runs (web-runtime/package.json pins the same)
PYODIDE_VERSION = "314.0.7"
#: the runtime files the browser loads (of the npm package's files)
RUNTIME_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip",
                 "pyodide-lock.json", "package.json")
#: the worker and its page-side files, from micrograd/web/pyodide/
SITE_FILES = ("pyodide_worker.js", "pyodide_client.js", "file_check.js", "play_runner.js",
              "pyodide-check.html", "pyodide-check.js", "embed.js", "embed.html",
              "embed_walk.js", "embed_frame.js", "lesson.html")
SOURCES = "micrograd.zip"
MANIFEST = "site.json"
FORMAT = "micrograd-site"

REQUIRES = ()  # the standard library builds the site

PACKAGE = Path(__file__).resolve().parent.parent  # the micrograd package's folder


def add_parser(subparsers):
    from argparse import RawDescriptionHelpFormatter

    p = subparsers.add_parser(
        "site", help="write the page as a static site that runs micrograd in the browser",
        description=__doc__, formatter_class=RawDescriptionHelpFormatter)
    p.add_argument("dir", metavar="DIR", help="the folder to write (new, empty, or a site "
                                              "written before)")
    p.add_argument("--pyodide", metavar="PATH",
                   help="a folder holding Pyodide's runtime files (the npm package "
                        f"pyodide@{PYODIDE_VERSION}); default: the project's "
                        "web-runtime/node_modules/pyodide")
    p.add_argument("--no-bytecode", action="store_true",
                   help="ship the Python sources alone, not compiled (no node needed; "
                        "the page starts slower)")
    p.set_defaults(func=run)
    return p


class SiteError(Exception):
    """A refusal with its exit code and the one line that says why."""

    def __init__(self, message, code):
        super().__init__(message)
        self.code = code


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
    if not out.parent.is_dir():
        raise SiteError(f"the folder {out.parent} does not exist", 1)
    if out.is_dir() and any(out.iterdir()):
        try:
            ours = json.loads((out / MANIFEST).read_text("utf-8")).get("format") == FORMAT
        except (OSError, ValueError, AttributeError):
            ours = False
        if not ours:
            raise SiteError(f"{out} is not empty and is not a site written by micrograd "
                            "site; give a new or empty folder", 2)


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


def write_sources(path):
    """micrograd's .py files in one zip (fixed dates and order: the same sources give the
    same bytes, so a browser's cached copy stays valid)."""
    files = sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for p in files:
            info = zipfile.ZipInfo(f"micrograd/{p.relative_to(PACKAGE).as_posix()}",
                                   date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, p.read_bytes())
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
    Returns None, or why the sources ship alone (no node, a failure)."""
    tool = PACKAGE / "web" / "pyodide" / "bytecode.py"
    key = tool.read_bytes() + PYODIDE_VERSION.encode()
    std, src = out / "pyodide" / STDLIB, out / SOURCES
    cache = cache_folder()
    want = {std: cache / f"stdlib-{_digest(key, std.read_bytes())}.zip",
            src: cache / f"sources-{_digest(key, src.read_bytes())}.zip"}
    missing = [(site_file, cached) for site_file, cached in want.items()
               if not cached.is_file()]
    jobs = [{"kind": "stdlib" if site_file == std else "sources", "input": str(site_file),
             "output": f"{cached}.{os.getpid()}.partial", "home": PYODIDE_HOME}
            for site_file, cached in missing]
    if jobs:
        node = shutil.which("node")
        if node is None:
            return "node is not installed"
        cache.mkdir(parents=True, exist_ok=True)
        try:
            done = subprocess.run(
                [node, str(tool.with_name("compile_bytecode.mjs")), str(runtime.resolve()),
                 json.dumps(jobs)], capture_output=True, text=True, timeout=600)
        except (OSError, subprocess.TimeoutExpired) as err:
            done = err
        if not isinstance(done, subprocess.CompletedProcess) or done.returncode:
            for job in jobs:
                Path(job["output"]).unlink(missing_ok=True)
            why = done.stderr.strip()[-300:] if hasattr(done, "returncode") else done
            return f"node failed: {why}"
        for job, (_, cached) in zip(jobs, missing):
            os.replace(job["output"], cached)  # whole, even with builds side by side
    for site_file, cached in want.items():
        shutil.copyfile(cached, site_file)
        os.utime(cached)  # kept: the newest are the ones in use
    _prune(cache)
    return None


def _prune(cache):
    for kind in ("stdlib", "sources"):
        old = sorted(cache.glob(f"{kind}-*.zip"), key=lambda p: p.stat().st_mtime)
        for p in old[:-CACHE_KEEP]:
            p.unlink(missing_ok=True)


def build(out, runtime, bytecode=True):
    """Write the site's files into the folder ``out`` (which exists and is empty); with
    ``bytecode``, the Python modules compiled too (see ``compile_bytecode``)."""
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
    files = {p.relative_to(out).as_posix(): p.stat().st_size
             for p in sorted(out.rglob("*")) if p.is_file()}
    manifest = {"format": FORMAT, "version": 1, "micrograd": _version(),
                "pyodide": PYODIDE_VERSION, "bytecode": why is None,
                "bytes": sum(files.values()), "files": files}
    if why is not None:
        manifest["no_bytecode"] = why
    (out / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", "utf-8")
    return manifest


def _version():
    from .. import __version__

    return __version__


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_site(out, runtime, bytecode=True):
    """Build the site beside ``out``, then put it in place of ``out`` (a previous site is
    removed only once the new one is complete)."""
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", suffix=".partial", dir=out.parent))
    old = None
    try:
        os.chmod(tmp, 0o777 & ~_umask())  # served folders are readable as usual
        manifest = build(tmp, runtime, bytecode)
        if out.exists():
            old = out.parent / f"{tmp.name[:-len('.partial')]}.old"
            os.rename(out, old)
        os.rename(tmp, out)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
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
            f"serve it with: python -m http.server -d {shown}  "
            "(then open http://localhost:8000/)")


def run(args):
    out = Path(args.dir)
    try:
        runtime = find_runtime(args.pyodide)
        _check_target(out)
    except SiteError as err:
        print(f"micrograd site: error: {err}", file=sys.stderr)
        return err.code
    manifest = write_site(out, runtime, not args.no_bytecode)
    print(summary(out, manifest))
    return 0

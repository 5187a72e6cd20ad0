"""The lecture's notebooks in the static site: ``micrograd site DIR`` writes them as a
JupyterLite site in ``DIR/notebooks/`` (``--no-notebooks`` leaves it out), whose Python
kernel runs on the site's own Pyodide (``DIR/pyodide/``: one runtime and one standard
library for the whole site).

    DIR/notebooks/index.html          JupyterLite's page (its lab/, tree/ and notebooks/
                                      apps, build/, extensions/), by ``jupyter lite build``
    DIR/notebooks/files/              the notebooks: 01-11 and the student's exercises
                                      (--teacher: the solutions too)
    DIR/notebooks/api/contents/       their listing (JupyterLite's Contents API)
    DIR/notebooks/kernel/             the kernel's wheels and its pyodide-lock.json
                                      (micrograd.commands.site_kernel)
    DIR/notebooks/THIRD-PARTY-LICENSES.txt   the licences of what ships here

The build's own tools are JupyterLite's (``jupyterlite-core``, pinned in the ``site``
extra, installed by ``bash scripts/test.sh``), run as ``python -m jupyterlite_core
build`` with nothing taken from the Python environment (``--ignore-sys-prefix``): its
page extensions come from the pinned wheels. The kernel is told (``jupyter-lite.json``)
to load Pyodide from ``../pyodide/``, to read its lock from ``kernel/`` and preload from
it every package it starts with, and never to ask PyPI. Nothing is requested from another
host.

Edits a learner makes are kept in the browser: JupyterLite keeps every file saved, its
settings and its workspace in IndexedDB (through localforage), in one database named by
jupyter-lite.json's contentsStorageName, settingsStorageName and workspacesStorageName,
which the site sets to ``micrograd-notebooks-<digest>``, the digest of the shipped
notebooks (``storage_name``). A site with other notebooks thus opens them as shipped,
never shadowed by edits of older ones; those stay in the browser under the older name,
and are said, not silent:

    DIR/notebooks/start-over.html     the site's own page (start-over.js/.css/-storage.js,
                                      no inline script): the notebooks edited in this
                                      browser, each one's copy to download or to start
                                      over; "Start over", which deletes this build's
                                      database and opens the notebooks as shipped; and,
                                      when the browser keeps edits of older notebooks
                                      (another micrograd-notebooks-* database), "this site
                                      has newer notebooks", those copies to download and a
                                      button to delete them
    DIR/notebooks/start-over-notice.js   loaded by JupyterLite's lab/, notebooks/ and
                                      tree/ pages: the same "newer notebooks" note there,
                                      linking to start-over.html, and a note to reload
                                      when a start over in another tab deleted the page's
                                      storage

JupyterLab's and Jupyter Notebook's Help menu link to start-over.html (a settings
override of the main menu, ``START_OVER_MENU``): a start over is always at hand.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from .site_folder import SiteError
from .site_kernel import EXTENSIONS, PRELOAD, fetch_wheels, licence_texts, write_kernel

#: the sub-folder of DIR
FOLDER = "notebooks"
#: the notebooks shipped, from the checkout's notebooks/ (the student's exercises; the
#: solutions stay out)
NOTEBOOKS = ("01_derivative_as_a_nudge.ipynb", "02_value_and_its_graph.ipynb",
             "03_backprop_by_hand.ipynb", "04_a_neuron.ipynb",
             "05_topological_sort_and_plus_equals.ipynb", "06_training_an_mlp.ipynb",
             "07_pytorch_side_by_side.ipynb", "08_walk_widget.ipynb",
             "09_classic_mistakes.ipynb", "10_everything_else_is_efficiency.ipynb",
             "11_from_micrograd_to_a_gpt.ipynb", "exercises.ipynb")
#: what a teacher's build adds (``--teacher``): the exercises with their solutions
TEACHER = ("exercises_solutions.ipynb",)
#: JupyterLite's apps the site ships: JupyterLab, and Jupyter Notebook's file list and
#: one-notebook page
APPS = ("lab", "tree", "notebooks")
KERNEL_PLUGIN = "@jupyterlite/pyodide-kernel-extension:kernel"
#: the site's own page of what the browser keeps of the notebooks, and its files:
#: {name in DIR/notebooks/: the file of this package's commands/ folder}
START_OVER = "start-over.html"
START_OVER_FILES = {"start-over.html": "lite_start_over.html",
                    "start-over.js": "lite_start_over.js",
                    "start-over.css": "lite_start_over.css",
                    "start-over-storage.js": "lite_storage.js",
                    "start-over-notice.js": "lite_notice.js"}
#: JupyterLite's pages that load start-over-notice.js (relative to DIR/notebooks/)
NOTICE_PAGES = ("lab/index.html", "notebooks/index.html", "tree/index.html")
NOTICE_TAG = '<script type="module" src="../start-over-notice.js"></script>'
#: the Help menu's item to start-over.html, in JupyterLab and Jupyter Notebook (their
#: help:open command; the URL is relative to an app's page, one folder down)
START_OVER_MENU = {"@jupyterlab/mainmenu-extension:plugin": {"menus": [{
    "id": "jp-mainmenu-help", "items": [
        {"command": "help:open", "rank": 0,
         "args": {"text": "Your notebooks in this browser: start over, older edits",
                  "url": f"../{START_OVER}", "newBrowserTab": True}}]}]}}
#: a fixed time for the notebooks' listing: the same notebooks give the same bytes
EPOCH = "2020-01-01T00:00:00Z"
PACKAGE = Path(__file__).resolve().parent.parent


def add_options(parser):
    """``micrograd site``'s options for the notebooks."""
    parser.add_argument("--no-notebooks", action="store_true",
                        help="leave the notebooks (DIR/notebooks/, JupyterLite) out")
    parser.add_argument("--teacher", action="store_true",
                        help="a teacher's build: the notebooks' site also ships the "
                             "exercises' solutions (exercises_solutions.ipynb)")
    parser.add_argument("--wheels", metavar="PATH",
                        help="a folder holding the notebooks' pinned wheels "
                             "(commands/notebook_wheels.txt); default: downloaded once "
                             "(pip, hash-checked) into micrograd site's cache")


def options(args):
    """What ``build`` needs of the command line: None for no notebooks."""
    if getattr(args, "no_notebooks", False):
        return None
    names = NOTEBOOKS + (TEACHER if getattr(args, "teacher", False) else ())
    return {"wheels": getattr(args, "wheels", None), "notebooks": names}


def _hint():
    return ("install the site's build tools from the project's folder with: pip install "
            "--require-hashes --no-deps -r web-runtime/site-build-requirements.txt (bash "
            "scripts/test.sh does it), or leave the notebooks out with --no-notebooks")


def find_notebooks(names=NOTEBOOKS):
    """The checkout's notebooks/ folder; SiteError if it is not there."""
    for folder in (Path.cwd() / "notebooks", PACKAGE.parent.parent / "notebooks"):
        if all((folder / name).is_file() for name in names):
            return folder
    raise SiteError("the notebooks (notebooks/*.ipynb of the project's checkout) are not "
                    "here: build from the checkout, or leave them out with --no-notebooks",
                    1)


def _tools():
    import importlib.util

    if importlib.util.find_spec("jupyterlite_core") is None:
        raise SiteError("JupyterLite's build tool (jupyterlite-core) is not installed; "
                        + _hint(), 1)


def storage_name(notebooks, names=NOTEBOOKS):
    """The browser storage's name for edits of these notebooks (their digest)."""
    h = hashlib.sha256()
    for name in names:
        h.update(name.encode() + b"\0" + (notebooks / name).read_bytes())
    return f"micrograd-notebooks-{h.hexdigest()[:16]}"


def lite_config():
    """JupyterLite's jupyter-lite.json for the site (``write_contents`` adds the
    notebooks' part)."""
    return {"jupyter-lite-schema-version": 0, "jupyter-config-data": {
        "appName": "micrograd notebooks",
        # window.jupyterapp: the tests (and a teacher's scripts) drive the page by it
        "exposeAppInBrowser": True,
        "litePluginSettings": {KERNEL_PLUGIN: {
            # "./" makes it relative to this file's folder: the site's one Pyodide
            "pyodideUrl": "./../pyodide/pyodide.mjs",
            "disablePyPIFallback": True,
            "pipliteUrls": [],
            "loadPyodideOptions": {"lockFileURL": "kernel/pyodide-lock.json",
                                   "packages": list(PRELOAD)}}}}}


def _run(command, cwd, timeout=600):
    """Run ``command`` to its end: (exit status, its output). Whatever stops the wait
    (its time out, Ctrl-C, SIGTERM) stops the process too."""
    proc = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        out, _ = proc.communicate(timeout=timeout)
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    return proc.returncode, out


#: finished builds kept in the cache (the newest)
CACHE_KEEP = 3


def cached_lite_build(out, wheels, cache):
    """JupyterLite's page into ``out`` (new): a copy of the cache's build for the same
    inputs (the tool's version, the configuration, the extensions' wheels), built there
    first if there is none. One build at a time uses the cache (a lock on its folder);
    a build stopped half-way leaves no partial folder, one killed outright leaves it for
    the next to remove."""
    from importlib import metadata

    from .site_folder import file_digest, locked

    h = hashlib.sha256(json.dumps([metadata.version("jupyterlite-core"), lite_config(),
                                   APPS, [file_digest(wheels[n])[1] for n in EXTENSIONS]],
                                  sort_keys=True).encode())
    done = cache / f"lite-{h.hexdigest()[:24]}"
    cache.mkdir(parents=True, exist_ok=True)
    with locked(cache, cache, wait=True):
        for old in cache.glob("lite-*.partial"):
            shutil.rmtree(old, ignore_errors=True)
        if not done.is_dir():
            partial = cache / f"{done.name}.{os.getpid()}.partial"
            try:
                lite_build(partial, wheels)
                os.replace(partial, done)
            finally:
                shutil.rmtree(partial, ignore_errors=True)
        os.utime(done)  # kept: the newest are the ones in use
        for old in sorted(cache.glob("lite-*"), key=lambda p: p.stat().st_mtime)[:-CACHE_KEEP]:
            shutil.rmtree(old, ignore_errors=True)
    shutil.copytree(done, out)


def lite_build(out, wheels):
    """``jupyter lite build`` into ``out`` (new), its page extensions from ``wheels``."""
    with tempfile.TemporaryDirectory(prefix="micrograd-lite-") as tmp:
        lite = Path(tmp)
        (lite / "jupyter-lite.json").write_text(json.dumps(lite_config(), indent=1),
                                                "utf-8")
        command = [sys.executable, "-m", "jupyterlite_core", "build",
                   "--lite-dir", str(lite), "--output-dir", str(out),
                   "--no-sourcemaps", "--no-unused-shared-packages", "--ignore-sys-prefix"]
        for app in APPS:
            command += ["--apps", app]
        for name in EXTENSIONS:
            command.append(f"--LiteBuildConfig.federated_extensions={wheels[name]}")
        env_before = os.environ.get("SOURCE_DATE_EPOCH")
        try:
            os.environ["SOURCE_DATE_EPOCH"] = "1577836800"  # EPOCH: the same bytes
            try:
                code, printed = _run(command, cwd=lite)
            except (OSError, subprocess.TimeoutExpired) as err:
                raise SiteError(f"jupyter lite build failed: {err}", 1) from None
        finally:
            if env_before is None:
                os.environ.pop("SOURCE_DATE_EPOCH", None)
            else:
                os.environ["SOURCE_DATE_EPOCH"] = env_before
        if code:
            raise SiteError(f"jupyter lite build failed: {printed.strip()[-600:]}", 1)


def write_contents(out, notebooks, storage, names=NOTEBOOKS):
    """The notebooks ``names`` in ``out``/files, their listing in ``out``/api/contents,
    and the browser storage's name for their edits (``storage``) in jupyter-lite.json."""
    (out / "files").mkdir(exist_ok=True)
    models = []
    for name in names:
        data = (notebooks / name).read_bytes()
        (out / "files" / name).write_bytes(data)
        models.append({"name": name, "path": name, "type": "notebook", "format": None,
                       "mimetype": None, "content": None, "size": len(data),
                       "writable": True, "created": EPOCH, "last_modified": EPOCH,
                       "hash": None, "hash_algorithm": None})
    listing = {"name": "", "path": "", "type": "directory", "format": "json",
               "mimetype": None, "content": models, "size": None, "writable": True,
               "created": EPOCH, "last_modified": EPOCH, "hash": None,
               "hash_algorithm": None}
    api = out / "api" / "contents"
    api.mkdir(parents=True, exist_ok=True)
    (api / "all.json").write_text(json.dumps(listing, indent=1, sort_keys=True), "utf-8")
    config = out / "jupyter-lite.json"
    data = json.loads(config.read_text("utf-8"))
    data["jupyter-config-data"].update(contentsAllJsonFile="all.json",
                                       contentsStorageName=storage,
                                       settingsStorageName=storage,
                                       workspacesStorageName=storage)
    overrides = data["jupyter-config-data"].setdefault("settingsOverrides", {})
    overrides.update(START_OVER_MENU)
    config.write_text(json.dumps(data, indent=2, sort_keys=True), "utf-8")


def write_start_over(out):
    """start-over.html and its files in ``out`` (DIR/notebooks), and the notice's script
    tag in JupyterLite's pages (NOTICE_PAGES); SiteError if a page has no </head>."""
    here = Path(__file__).resolve().parent
    for name, source in START_OVER_FILES.items():
        shutil.copyfile(here / source, out / name)
    for rel in NOTICE_PAGES:
        page = out / rel
        text = page.read_text("utf-8")
        if NOTICE_TAG in text:
            continue
        if text.count("</head>") != 1:
            raise SiteError(f"JupyterLite's {rel} has no single </head> for the notebooks' "
                            "notice", 1)
        page.write_text(text.replace("</head>", f"    {NOTICE_TAG}\n  </head>"), "utf-8")


def _tool_wheel_licences():
    """[(title, [(file, text)])] of the build tool's own licence (its app's files ship)."""
    from importlib import metadata

    out = []
    dist = metadata.distribution("jupyterlite-core")
    texts = [(str(f), f.read_text()) for f in dist.files or []
             if "dist-info" in str(f) and _is_licence(str(f))]
    out.append((f"jupyterlite-core {dist.version} (JupyterLite's page: lab/, tree/, "
                "notebooks/, build/; the JavaScript packages it bundles list theirs in "
                "build/third-party-licenses.json)", texts))
    return out


def _is_licence(path):
    name = path.rsplit("/", 1)[-1].upper()
    return "/licenses/" in path or name.startswith(("LICEN", "COPYING", "NOTICE"))


def write_licences(out, kernel, wheels):
    """THIRD-PARTY-LICENSES.txt: the licence of every wheel shipped (``kernel``: the
    kernel's folder) and of the page's extensions and app."""
    parts = ["The notebooks' site ships these projects' files, each under its own "
             "licence, given here in full.\n"]
    sources = [(p.name, p) for p in sorted(kernel.glob("*.whl"))
               if not p.name.startswith("micrograd_lecture-")]
    sources += [(f"{wheels[name].name} (its page extension)", wheels[name])
                for name in EXTENSIONS if wheels[name].parent != kernel]
    sections = [(title, licence_texts(path)) for title, path in sources]
    sections += _tool_wheel_licences()
    for title, texts in sections:
        parts.append("=" * 78 + f"\n{title}\n" + "=" * 78 + "\n")
        if not texts:
            parts.append("(the wheel carries no licence file; its metadata names the "
                         "licence)\n")
        for file, text in texts:
            parts.append(f"--- {file}\n{text.rstrip()}\n")
    (out / "THIRD-PARTY-LICENSES.txt").write_text("\n".join(parts), "utf-8")


def wheels_folder(given, cache):
    """Where the pinned wheels are (``given``), or are downloaded to (``cache``)."""
    return (Path(given), False) if given else (cache / "wheels", True)


def build(out, runtime, opts, cache, version):
    """Write DIR/notebooks into the site being built in ``out`` (after its pyodide/);
    ``opts``: ``options(args)``. Returns what site.json says of it."""
    if opts is None:
        return {"included": False}
    _tools()
    names = opts.get("notebooks", NOTEBOOKS)
    notebooks = find_notebooks(names)
    folder, download = wheels_folder(opts.get("wheels"), cache)
    wheels = fetch_wheels(folder, download)
    site = out / FOLDER
    storage = storage_name(notebooks, names)
    cached_lite_build(site, wheels, cache)
    write_contents(site, notebooks, storage, names)
    write_start_over(site)
    packages = write_kernel(site / "kernel", wheels, runtime, version)
    write_licences(site, site / "kernel", wheels)
    return {"included": True, "folder": FOLDER, "notebooks": list(names),
            "storage": storage, "kernel": {name: packages[name]["version"]
                                           for name in sorted(packages)}}


def summary(manifest, shown):
    """The summary's line on the notebooks."""
    part = manifest.get("notebooks") or {}
    if not part.get("included"):
        return "the notebooks are left out (--no-notebooks)\n"
    size = sum(v for k, v in manifest["files"].items() if k.startswith(FOLDER + "/"))
    return (f"the notebooks: {shown}{FOLDER}/ ({size / 1e6:.1f} MB: JupyterLite, "
            f"{len(part['notebooks'])} notebooks, their kernel's "
            f"{len(part['kernel'])} packages)\n")

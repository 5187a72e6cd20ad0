"""The Python that the notebooks' site runs in the browser: the pinned wheels its
Pyodide kernel loads (downloaded and checked by hash), micrograd's own wheel, and the
lock file that tells Pyodide where each one is, so that the kernel asks no other host
for anything.

The wheels come from ``notebook_wheels.txt`` beside this module: one pinned version and
its SHA-256 per line. ``fetch_wheels`` downloads the missing ones with pip (``pip
download --require-hashes``) into a folder and checks every file's digest again before
the site uses it. ``write_kernel`` writes ``kernel/``: those wheels, the small wheels
JupyterLite's kernel extension ships itself (its ipykernel shim, piplite,
pyodide_kernel), micrograd's wheel, and ``pyodide-lock.json``, written here from the
wheels' own metadata (each package's dependencies as Pyodide's Python sees them: the
platform ``emscripten``) and the digests of the files shipped. Pyodide loads a package
of the lock from the lock's own folder and checks its digest.
"""

from __future__ import annotations

import base64
import email.parser
import hashlib
import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path, PurePosixPath

from .site_folder import SiteError, file_digest

#: the pinned wheels (name==version --hash=sha256:...)
WHEELS_FILE = Path(__file__).with_name("notebook_wheels.txt")
#: the JupyterLite extensions among them: their labextension goes to the page
EXTENSIONS = ("jupyterlite-pyodide-kernel", "jupyterlab-widgets", "anywidget")
#: the kernel extension's own wheels (inside its labextension's static/pypi/)
EXTENSION_WHEELS = ("ipykernel", "piplite", "pyodide-kernel", "widgetsnbextension")
#: what the page alone needs: dropped from the kernel's dependencies
PAGE_ONLY = ("jupyterlab-widgets",)
#: the packages loaded while the kernel starts (the rest on import)
PRELOAD = ("micropip", "piplite", "ipykernel", "comm", "pyodide-kernel", "jedi", "ipython",
           "anywidget", "micrograd-lecture")
#: Pyodide's Python, for the wheels' environment markers
ENVIRONMENT = {"sys_platform": "emscripten", "platform_system": "Emscripten",
               "platform_machine": "wasm32", "os_name": "posix",
               "implementation_name": "cpython", "platform_python_implementation": "CPython",
               "python_version": "3.14", "python_full_version": "3.14.2", "extra": ""}
PACKAGE = Path(__file__).resolve().parent.parent  # the micrograd package's folder
DIST_NAME = "micrograd-lecture"
#: micrograd's files besides its modules that the notebooks read (the GPT's names with
#: their source and licence)
PACKAGE_DATA = ("widget.js", "gpt/names.txt", "gpt/names.README.md")
LINE = re.compile(r"^([A-Za-z0-9._-]+)==(\S+)\s+--hash=sha256:([0-9a-f]{64})\s*$")


def canonical(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def pinned(path=WHEELS_FILE):
    """{canonical name: (version, sha256)} of the pinned wheels."""
    out = {}
    for raw in path.read_text("utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        m = LINE.match(line)
        if not m:
            raise SiteError(f"{path}: not a pinned wheel with its hash: {line!r}", 1)
        out[canonical(m.group(1))] = (m.group(2), m.group(3))
    return out


def _wheel_name(p):
    name, version = p.name.split("-")[:2]
    return canonical(name), version


def _found(folder, pins):
    """{name: path} of the pinned wheels in ``folder`` with their pinned digests."""
    found = {}
    for p in sorted(folder.glob("*.whl")) if folder.is_dir() else []:
        name, version = _wheel_name(p)
        if name in pins and pins[name][0] == version and file_digest(p)[1] == pins[name][1]:
            found[name] = p
    return found


def fetch_wheels(folder, download=True):
    """The pinned wheels, {name: path}, from ``folder``; the missing ones downloaded
    there first (pip, hash-checked) when ``download``. SiteError when one is missing or
    is not the pinned file."""
    pins = pinned()
    found = _found(folder, pins)
    missing = sorted(set(pins) - set(found))
    if missing and download:
        folder.mkdir(parents=True, exist_ok=True)
        wanted = [line for line in WHEELS_FILE.read_text("utf-8").splitlines()
                  if LINE.match(line.strip()) and canonical(line.split("==")[0]) in missing]
        req = folder / f"missing-{_pid()}.txt"
        req.write_text("\n".join(wanted) + "\n", "utf-8")
        try:
            proc = subprocess.run(
                [sys.executable, "-m", "pip", "download", "-q", "--only-binary=:all:",
                 "--no-deps", "--python-version", "3.14", "--platform", "any",
                 "--require-hashes", "-r", str(req), "-d", str(folder)],
                capture_output=True, text=True, timeout=600)
        finally:
            req.unlink(missing_ok=True)
        if proc.returncode:
            raise SiteError("the notebooks' wheels could not be downloaded (pip: "
                            f"{proc.stderr.strip()[-400:]}); give a folder holding them "
                            "with --wheels PATH, or leave the notebooks out with "
                            "--no-notebooks", 1)
        found = _found(folder, pins)
        missing = sorted(set(pins) - set(found))
    if missing:
        raise SiteError(f"{folder} lacks the notebooks' wheels {', '.join(missing)} (as "
                        f"pinned, with their digests, in {WHEELS_FILE.name}); leave the "
                        "notebooks out with --no-notebooks", 1)
    return found


def _pid():
    import os

    return os.getpid()


def _metadata(zf):
    meta = next(n for n in zf.namelist()
                if n.count("/") == 1 and n.endswith(".dist-info/METADATA"))
    return email.parser.Parser().parsestr(zf.read(meta).decode("utf-8"))


def _depends(meta):
    """The canonical names a wheel's metadata requires on Pyodide (no extras)."""
    from packaging.requirements import Requirement

    out = []
    for spec in meta.get_all("Requires-Dist") or []:
        req = Requirement(spec)
        if req.marker is not None and not req.marker.evaluate(dict(ENVIRONMENT)):
            continue
        out.append(canonical(req.name))
    return sorted(set(out) - set(PAGE_ONLY))


def _imports(zf):
    """The top-level import names a wheel provides."""
    names = set()
    for n in zf.namelist():
        top = PurePosixPath(n).parts[0]
        if top.endswith((".dist-info", ".data")):
            continue
        names.add(top[:-3] if top.endswith(".py") and "/" not in n else top)
    return sorted(x for x in names if x.isidentifier())


def lock_entry(path):
    """The wheel at ``path`` as Pyodide's lock lists it."""
    with zipfile.ZipFile(path) as zf:
        meta = _metadata(zf)
        imports = _imports(zf)
    name = canonical(meta["Name"])
    return name, {"name": name, "version": meta["Version"], "file_name": path.name,
                  "install_dir": "site", "sha256": file_digest(path)[1],
                  "package_type": "package", "imports": imports,
                  "depends": _depends(meta), "unvendored_tests": False}


def write_lock(folder, wheels, runtime):
    """``folder``/pyodide-lock.json for the wheels in ``folder`` (paths): Pyodide's own
    lock's header (the runtime's), these packages alone. SiteError for a dependency
    no wheel provides."""
    base = json.loads((runtime / "pyodide-lock.json").read_text("utf-8"))
    packages = dict(lock_entry(p) for p in sorted(wheels))
    for name, entry in sorted(packages.items()):
        lacking = [d for d in entry["depends"] if d not in packages]
        if lacking:
            raise SiteError(f"the notebooks' kernel: {name} needs {', '.join(lacking)}, "
                            f"which {WHEELS_FILE.name} does not pin", 1)
    lock = {"info": base["info"], "packages": packages}
    (folder / "pyodide-lock.json").write_text(json.dumps(lock, indent=1, sort_keys=True)
                                              + "\n", "utf-8")
    return packages


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return f"{name},sha256={digest.decode()},{len(data)}"


def micrograd_wheel(folder, version):
    """micrograd's wheel, written into ``folder`` from this package's files (its modules
    and ``PACKAGE_DATA``): the same files give the same bytes. Returns its path."""
    files = sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)
    files += [PACKAGE / name for name in PACKAGE_DATA]
    dist = f"micrograd_lecture-{version}"
    path = folder / f"{dist}-py3-none-any.whl"
    meta = (f"Metadata-Version: 2.1\nName: {DIST_NAME}\nVersion: {version}\n"
            "Summary: micrograd, as the site's notebooks import it\n"
            "Requires-Python: >=3.10\n").encode()
    wheel = (b"Wheel-Version: 1.0\nGenerator: micrograd site\nRoot-Is-Purelib: true\n"
             b"Tag: py3-none-any\n")
    entries = [(f"micrograd/{p.relative_to(PACKAGE).as_posix()}", p.read_bytes())
               for p in files]
    entries += [(f"{dist}.dist-info/METADATA", meta), (f"{dist}.dist-info/WHEEL", wheel),
                (f"{dist}.dist-info/top_level.txt", b"micrograd\n")]
    record = "\n".join(_record_line(n, d) for n, d in entries)
    record += f"\n{dist}.dist-info/RECORD,,\n"
    entries.append((f"{dist}.dist-info/RECORD", record.encode()))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
    return path


def extension_wheels(kernel_extension, folder):
    """Copy the kernel extension's own wheels (``EXTENSION_WHEELS``, from the pinned
    jupyterlite-pyodide-kernel wheel) into ``folder``; their paths."""
    out = []
    with zipfile.ZipFile(kernel_extension) as zf:
        for n in zf.namelist():
            if "/static/pypi/" not in n or not n.endswith(".whl"):
                continue
            name = PurePosixPath(n).name
            if canonical(name.split("-")[0]) not in EXTENSION_WHEELS:
                continue
            if name.startswith("widgetsnbextension-3."):
                continue  # ipywidgets 8 wants widgetsnbextension 4
            (folder / name).write_bytes(zf.read(n))
            out.append(folder / name)
    return out


def write_kernel(folder, wheels, runtime, version):
    """The kernel's folder: every wheel its Python loads and the lock naming them.
    ``wheels``: the pinned wheels ({name: path}). Returns the lock's packages."""
    import shutil

    folder.mkdir(parents=True)
    shipped = []
    for name, path in sorted(wheels.items()):
        if name in PAGE_ONLY or name == "jupyterlite-pyodide-kernel":
            continue
        shutil.copyfile(path, folder / path.name)
        shipped.append(folder / path.name)
    shipped += extension_wheels(wheels["jupyterlite-pyodide-kernel"], folder)
    shipped.append(micrograd_wheel(folder, version))
    packages = write_lock(folder, shipped, runtime)
    missing = [name for name in PRELOAD if name not in packages]
    if missing:
        raise SiteError(f"the notebooks' kernel lacks {', '.join(missing)}", 1)
    return packages


#: the files of a wheel's metadata that hold its licence
LICENSE_FILE = re.compile(r"[^/]+\.dist-info/(licenses/.+|(LICEN[CS]E|COPYING|NOTICE)[^/]*)$")


def licence_texts(path):
    """[(file name, text)] of the licence files in the wheel at ``path``."""
    with zipfile.ZipFile(path) as zf:
        return [(n.split("/", 1)[1], zf.read(n).decode("utf-8", "replace"))
                for n in sorted(zf.namelist()) if LICENSE_FILE.match(n)]

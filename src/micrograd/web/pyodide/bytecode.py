"""The static site's Python modules as bytecode, compiled by the browser's own Python.

Pyodide's Python compiles every module it imports from its source, at every start:
its standard library (``python_stdlib.zip`` holds ``.py`` files only) and micrograd's
sources. In a page that is most of the time before the first graph. ``micrograd site``
runs this module on Pyodide's Python itself, in node (``compile_bytecode.mjs``), so the
bytecode is that interpreter's (its magic number, its compiler), once per Pyodide
release and per version of the sources (it keeps the results in a cache):

* :func:`compile_stdlib`: the standard library's zip with each ``.py`` replaced by its
  ``.pyc`` (zipimport loads a module's ``.pyc`` from the zip; data files are kept);
* :func:`compile_sources`: micrograd's zip with each ``.py`` kept and its ``.pyc`` added
  under ``__pycache__/`` (where the import system looks for it, the sources unpacked).

Every ``.pyc`` is an unchecked hash-based one (PEP 552): the import system loads it
without comparing it with a source file, whose time stamp is the unpacking's. The
archives change only with the inputs, so the cache's key is their bytes. Standard
library only (it runs in Pyodide).
"""

from __future__ import annotations

import importlib.util
import marshal
import zipfile

__all__ = ["pyc", "compile_stdlib", "compile_sources"]

#: a pyc's flags (PEP 552): bit 0 "hash-based", bit 1 "check the source" left off
UNCHECKED_HASH = (0b01).to_bytes(4, "little")
DATE = (1980, 1, 1, 0, 0, 0)  # fixed: the same inputs give the same bytes


def pyc(source, filename):
    """The ``.pyc`` bytes of ``source`` (bytes) for this Python, its code objects
    naming ``filename`` (where the module lives at run time); None if it does not
    compile (a test file written to fail, say: the source is used instead)."""
    try:
        code = compile(source, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return None
    return (importlib.util.MAGIC_NUMBER + UNCHECKED_HASH
            + importlib.util.source_hash(source) + marshal.dumps(code))


def _entry(name):
    info = zipfile.ZipInfo(name, date_time=DATE)
    info.external_attr = 0o644 << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def compile_stdlib(src, dst, where):
    """Write ``dst``: the zip ``src`` (the standard library) with every ``.py`` that
    compiles replaced by its ``.pyc``; ``where`` is the zip's path at run time (what
    ``sys.path`` holds, e.g. /lib/python314.zip). Returns the number compiled."""
    n = 0
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info)
            code = (pyc(data, f"{where}/{info.filename}")
                    if info.filename.endswith(".py") else None)
            if code is None:
                zout.writestr(info, data)
            else:
                zout.writestr(_entry(info.filename + "c"), code)
                n += 1
    return n


def compile_sources(src, dst, home):
    """Write ``dst``: the zip ``src`` (micrograd's sources) with, after each ``.py``,
    its ``.pyc`` at ``__pycache__/NAME.<this Python's tag>.pyc``; ``home`` is the
    folder the zip is unpacked into at run time. Returns the number compiled."""
    n = 0
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            data = zin.read(info)
            zout.writestr(info, data)
            if not info.filename.endswith(".py"):
                continue
            code = pyc(data, f"{home}/{info.filename}")
            if code is not None:
                cached = importlib.util.cache_from_source(f"/{info.filename}")[1:]
                zout.writestr(_entry(cached), code)
                n += 1
    return n

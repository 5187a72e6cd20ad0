"""The gallery of classic mistakes (``micrograd.mistakes``) for the page: its entries, and
one entry run now.

    >>> [e["key"] for e in entries({})["mistakes"]][:3]
    ['assign', 'recursive_backward', 'no_zero_grad']
    >>> entry = run({"key": "assign"})
    >>> entry["walk"], entry["result"]["learner"][0]["grads"], entry["result"]["right"]["grads"]
    ({'preset': 'square', 'mode': 'assign'}, {'a': 3.0}, {'a': 6.0})

An entry is the gallery's own data (``key``, ``title``, ``code``: the learner's code as
shipped, ``why``, ``fix``), with ``walk``: the Walk's link query that opens the mistake's
teaching mode (``micrograd.walk_setup.WalkSetup.to_url``; None where the Walk has no
mode for it), and ``not_run``: None, or why this Python does not run the entry (a
browser's Python and an endless recursion through the interpreter's C code: its
WebAssembly stack would overflow and end it). ``run`` adds ``result``: the learner's code
run now, beside ``micrograd.engine`` and central differences (``Result.to_dict``), or
None when it is not run here. Every number comes from that run.
"""

from __future__ import annotations

import sys

from ... import mistakes as _gallery
from ...walk_setup import WalkSetup
from .errors import Failure, clip
from .request_fields import Field, read

RUN = (Field("key", "str", max_length=40, description="an entry's key, e.g. 'assign' "
                                                      "(micrograd.mistakes.GALLERY)"),)


def in_browser():
    """This Python is a browser's (Pyodide: WebAssembly, a small stack)."""
    return sys.platform == "emscripten"


def _entry(mistake):
    walk = WalkSetup.from_dict(mistake.walk).to_url() if mistake.walk else None
    not_run = mistake.not_in_browser if in_browser() and mistake.not_in_browser else None
    return {"key": mistake.key, "title": mistake.title, "code": mistake.code,
            "why": mistake.why, "fix": mistake.fix, "walk": walk, "not_run": not_run}


def entries(request, sessions=None):
    """``GET /api/mistakes``: every entry, not run (the page runs them one at a time)."""
    if request:
        raise Failure("invalid", f"{clip(next(iter(request)), 40)}: unknown field (the "
                                 "list of mistakes takes none)", field=None)
    return {"mistakes": [_entry(m) for m in _gallery.GALLERY]}


def run(request, sessions=None):
    """``GET /api/mistakes/{key}``: one entry with its ``result``, run now."""
    key = read(RUN, request)["key"]
    try:
        mistake = _gallery.get(key)
    except KeyError:
        raise Failure("not_found", f"no mistake {clip(key)}; the gallery has: "
                                   f"{', '.join(m.key for m in _gallery.GALLERY)}",
                      field="key") from None
    entry = _entry(mistake)
    entry["result"] = None if entry["not_run"] else mistake.run().to_dict()
    return entry

"""How the static site's worker calls Python: a request in, one JSON answer out.

    >>> from micrograd.web.pyodide.calls import Call, entry_point
    >>> call = entry_point("micrograd.web.pyodide.door:call")
    >>> Call(call, "walk.build", '{"preset": "diamond"}').step() is None  # a job: turns
    True

The worker (``pyodide_worker.js``) names the entry point as ``module:function`` (a module
of the ``micrograd`` package) and calls ``function(name, request)`` for every message
``{id, name, request}`` it gets. The function returns the answer's data (JSON values), or
a generator: a job that yields at its turn boundaries and returns the data; the worker
runs such a job one ``step()`` at a time and takes other messages (a stop, another
request) between the steps. The answer is the JSON text of ``{"ok": true, "data": ...}``
or ``{"ok": false, "error": {"kind": ..., "message": ...}}``:

* an exception with a ``kind`` attribute (a string) gives that kind, and one with an
  ``error`` attribute (a dict: a request handler's error data) adds its fields
  (``field``, ``free``...);
* a ``ValueError`` or ``TypeError`` is a request refused (``"refused"``): that is how
  micrograd's modules say that their input is wrong;
* anything else is ``"internal"``, with the exception's type in the message;
* data that JSON cannot carry (NaN, infinities, objects) is ``"internal"`` too: the
  entry point sends non-finite numbers as ``micrograd.wire`` does, as strings.
"""

from __future__ import annotations

import importlib
import json
import re
import sys
import types

__all__ = ["Call", "entry_point", "describe"]

_ENTRY = re.compile(r"micrograd(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*\Z")


def entry_point(spec):
    """The function named by ``"micrograd.module:function"``, imported."""
    if not isinstance(spec, str) or not _ENTRY.match(spec):
        raise ValueError(f"an entry point is 'micrograd.module:function', got {spec!r}")
    module, _, name = spec.partition(":")
    fn = getattr(importlib.import_module(module), name, None)
    if not callable(fn):
        raise ValueError(f"{module} has no function {name!r}")
    return fn


def describe(spec):
    """What the worker reports once it is ready, as JSON text."""
    from micrograd import __version__

    return json.dumps({"python": sys.version.split()[0], "platform": sys.platform,
                       "micrograd": __version__, "entry": spec})


def _ok(data):
    try:
        return json.dumps({"ok": True, "data": data}, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError) as err:
        return _error(err, kind="internal")


def _error(err, kind=None):
    if kind is None:
        kind = getattr(err, "kind", None)
    if not isinstance(kind, str):
        kind = "refused" if isinstance(err, (ValueError, TypeError)) else "internal"
    message = str(err) if kind != "internal" else f"{type(err).__name__}: {err}"
    extra = getattr(err, "error", None)  # a handler's error data: field, free...
    error = {**extra} if isinstance(extra, dict) and kind != "internal" else {}
    error.update(kind=kind, message=message)
    try:
        return json.dumps({"ok": False, "error": error}, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError):
        return json.dumps({"ok": False, "error": {"kind": kind, "message": message}},
                          separators=(",", ":"))


class Call:
    """One request to ``fn``: ``step()`` until it returns the answer (JSON text).

    ``request_json`` is the request as JSON text (the worker checked its depth). A plain
    answer is ready at the first ``step()``; a job runs one turn per ``step()``, which
    returns None while it has turns left. ``close()`` stops a job between two turns."""

    def __init__(self, fn, name, request_json):
        self._job = None
        self._answer = None
        try:
            result = fn(name, json.loads(request_json))
        except Exception as err:  # every failure is an answer; the worker lives on
            self._answer = _error(err)
            return
        if isinstance(result, types.GeneratorType):
            self._job = result
        else:
            self._answer = _ok(result)

    def step(self):
        if self._answer is None:
            try:
                next(self._job)
            except StopIteration as done:
                self._answer = _ok(done.value)
            except Exception as err:
                self._answer = _error(err)
        return self._answer

    def close(self):
        """Stop the job (``GeneratorExit`` at the turn it yielded from)."""
        if self._job is not None and self._answer is None:
            self._job.close()
            self._answer = _error(RuntimeError("stopped"), kind="stopped")
        return self._answer

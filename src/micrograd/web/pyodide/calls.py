"""How the static site's worker calls Python: a request in, one JSON answer out.

    >>> from micrograd.web.pyodide.calls import Call, entry_point
    >>> call = entry_point("micrograd.web.pyodide.door:call")
    >>> Call(call, "walk", '{"preset": "diamond"}').step() is None  # a job: turns
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

With ``floats=True`` (the worker's way) the long lists of finite floats in an answer
(a Playground state's pictures and boundary: most of its numbers) leave the JSON text:
the text holds ``null`` in their place and ``"floats": [[path, count], ...]`` beside
``"data"``, and ``Call.floats`` holds their numbers, one after the other, as one
``array('d')`` (copied to the page as a Float64Array, every bit kept, -0.0 too), where
``pyodide_client.js`` puts them back as arrays. Writing each float's digits and
reading them back was a third of a step's time in Python; the page gets the same
values either way.
"""

from __future__ import annotations

import importlib
import json
import re
import sys
import types
from array import array

__all__ = ["Call", "entry_point", "describe", "split_floats"]

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


def _ok(data, floats=None):
    answer = {"ok": True, "data": data}
    if floats is not None:
        answer["data"], places = split_floats(data, floats)
        if places:
            answer["floats"] = places
    try:
        return json.dumps(answer, allow_nan=False, separators=(",", ":"))
    except (TypeError, ValueError) as err:
        if floats is not None:
            del floats[:]
        return _error(err, kind="internal")


#: lists shorter than this stay in the JSON text (their digits cost little)
LEAST = 32


def split_floats(data, out):
    """``data`` with each list of LEAST or more floats, all finite, taken out: ``(the
    data with None in their places, [[path, count], ...])``, their numbers appended to
    ``out`` (an ``array('d')``) in that order. Containers on a path are copied, the
    rest shared: ``data`` is never changed. Only a list whose items are all ``float``
    (not int, not bool) goes: anything else, a non-finite number too, stays in the text
    (where a non-finite one is refused, as before)."""
    places = []

    def walk(value, path):
        if type(value) is dict:
            copy = None
            for key, item in value.items():
                if type(item) is dict or type(item) is list:
                    new = walk(item, path + [key])
                    if new is not item:
                        copy = dict(value) if copy is None else copy
                        copy[key] = new
            return value if copy is None else copy
        n = len(value)
        if not n:
            return value
        first = value[0]
        if type(first) is float:
            if n >= LEAST and set(map(type, value)) == {float}:
                total = sum(value)
                if total - total == 0:  # every one finite (else the text refuses it)
                    places.append([path, n])
                    out.extend(value)
                    return None
            return value
        if type(first) is dict or (type(first) is list and (
                len(first) >= LEAST or (first and type(first[0]) in (list, dict)))):
            copy = None
            for i, item in enumerate(value):
                if type(item) is dict or type(item) is list:
                    new = walk(item, path + [i])
                    if new is not item:
                        copy = list(value) if copy is None else copy
                        copy[i] = new
            return value if copy is None else copy
        return value

    if type(data) is dict or type(data) is list:
        data = walk(data, [])
    return data, places


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

    ``request_json`` is the request as JSON text (the worker checked its depth);
    ``floats``: the long float lists apart (see the module's doc). A plain
    answer is ready at the first ``step()``; a job runs one turn per ``step()``, which
    returns None while it has turns left. ``close()`` stops a job between two turns."""

    def __init__(self, fn, name, request_json, floats=False):
        self._job = None
        self._answer = None
        #: the answer's long float lists (``floats=True``), an array('d'), else None
        self.floats = array("d") if floats else None
        try:
            result = fn(name, json.loads(request_json))
        except Exception as err:  # every failure is an answer; the worker lives on
            self._answer = _error(err)
            return
        if isinstance(result, types.GeneratorType):
            self._job = result
        else:
            self._answer = _ok(result, self.floats)

    def step(self):
        if self._answer is None:
            try:
                next(self._job)
            except StopIteration as done:
                self._answer = _ok(done.value, self.floats)
            except Exception as err:
                self._answer = _error(err)
        return self._answer

    def close(self):
        """Stop the job (``GeneratorExit`` at the turn it yielded from)."""
        if self._job is not None and self._answer is None:
            self._job.close()
            self._answer = _error(RuntimeError("stopped"), kind="stopped")
        return self._answer

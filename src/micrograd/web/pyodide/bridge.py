"""A small entry point for the static site's worker, built on micrograd's own graph
modules, for the time until the page's request handlers run in the worker:

* ``meta``: the Python and micrograd that answer (``{"python": "3.14.2", ...}``);
* ``walk.build``: ``{"source": text, "values": {name: number}}`` (default: the lecture's
  ``L``) -> ``{"graph": ..., "walk": ...}``: the graph laid out with its data and grads
  after ``backward()`` (``micrograd.viz``'s JSON form) and the forward and backward step
  events (``micrograd.walk``, as ``micrograd.wire`` encodes them).

    >>> from micrograd.web.pyodide.bridge import dispatch
    >>> g = dispatch("walk.build", {})["graph"]
    >>> {n["name"]: n["grad"] for n in g["nodes"] if n["leaf"]}
    {'a': 6.0, 'b': -4.0, 'c': -2.0, 'f': 4.0}

Names are looked up in ``HANDLERS``; an unknown name is refused with the kind
``"unknown"``. Standard library and micrograd only, as everything the worker imports.
"""

from __future__ import annotations

import sys
from numbers import Real

from ... import __version__, expr, viz, walk, wire

__all__ = ["dispatch", "HANDLERS", "LECTURE", "UnknownRequest"]

#: the lecture's expression: L = (a*b + c) * f, grads 6, -4, -2, 4
LECTURE = "a = 2; b = -3; c = 10; f = -2; e = a*b; d = e + c; L = d*f"
#: the longest expression text taken (the served page's own cap)
MAX_SOURCE = 1000


class UnknownRequest(LookupError):
    kind = "unknown"


def dispatch(name, request):
    """Answer the request ``name`` (a string) with ``request`` (a dict)."""
    handler = HANDLERS.get(name) if isinstance(name, str) else None
    if handler is None:
        raise UnknownRequest(f"no request named {name!r}; known: {', '.join(sorted(HANDLERS))}")
    if not isinstance(request, dict):
        raise TypeError(f"a request is a JSON object, got {type(request).__name__}")
    return handler(request)


def meta(request):
    return {"python": sys.version.split()[0], "platform": sys.platform,
            "micrograd": __version__, "requests": sorted(HANDLERS)}


def build_walk(request):
    unknown = sorted(set(request) - {"source", "values"})
    if unknown:
        raise ValueError(f"walk.build takes 'source' and 'values', not {unknown}")
    source = request.get("source", LECTURE)
    if not isinstance(source, str):
        raise TypeError(f"'source' must be a string, got {type(source).__name__}")
    if len(source) > MAX_SOURCE:
        raise ValueError(f"'source' has {len(source)} characters; at most {MAX_SOURCE}")
    values = request.get("values", {})
    if not isinstance(values, dict):
        raise TypeError(f"'values' must be an object, got {type(values).__name__}")
    for key, x in values.items():
        if isinstance(x, bool) or not isinstance(x, Real):
            raise TypeError(f"the value of {key!r} must be a number, got {type(x).__name__}")
    root = expr.parse(source, values, override=True)
    steps = walk.walk(root)
    root.backward()
    return {"graph": viz.to_dict(root), "walk": wire.encode(steps)}


HANDLERS = {"meta": meta, "walk.build": build_walk}

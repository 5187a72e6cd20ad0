"""One encoder from micrograd's data types to JSON-ready Python, used for everything the
walk and the web page send.

    >>> from dataclasses import dataclass
    >>> @dataclass
    ... class Point:
    ...     x: float
    ...     pass_: int = 1
    >>> encode([Point(float("inf"))])
    [{'x': 'Infinity', 'pass': 1}]

The rules, the same for every type:

* a dataclass becomes a dict of its fields in declaration order; a field whose name ends
  in ``_`` (``pass_``: a Python keyword) is sent without the underscore; fields declared
  with ``metadata={"wire": False}`` are not sent (a back reference to a ``Value``);
* floats go through :func:`micrograd.graph.num`: finite floats as they are, else
  ``"Infinity"``, ``"-Infinity"`` or ``"NaN"`` (JSON has no such numbers; JavaScript's
  ``Number()`` reads these strings back);
* lists and tuples become lists, dicts keep their (string) keys, ``str``, ``int``,
  ``bool`` and ``None`` pass through; anything else is a ``TypeError`` naming its type.

``micrograd.web.schemas`` builds the API's pydantic models from the same dataclasses
with :func:`wire_name`, so the documented shapes cannot drift from what is sent.
"""

from __future__ import annotations

import dataclasses

from .graph import num

__all__ = ["encode", "wire_name", "wire_fields"]


def wire_name(name):
    """The JSON key of a dataclass field: ``pass_`` -> ``pass``."""
    return name[:-1] if name.endswith("_") else name


def wire_fields(cls):
    """The dataclass fields of ``cls`` that go on the wire, in order."""
    return [f for f in dataclasses.fields(cls) if f.metadata.get("wire", True)]


def encode(obj):
    """``obj`` as JSON-ready Python (see the module docstring for the rules)."""
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, int):
        return obj
    if isinstance(obj, float):
        return num(obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {wire_name(f.name): encode(getattr(obj, f.name)) for f in wire_fields(obj)}
    if isinstance(obj, (list, tuple)):
        return [encode(x) for x in obj]
    if isinstance(obj, dict):
        out = {}
        for k, v in obj.items():
            if not isinstance(k, str):
                raise TypeError(f"cannot encode a dict key of type {type(k).__name__} "
                                "(JSON keys are strings)")
            out[k] = encode(v)
        return out
    raise TypeError(f"cannot encode an object of type {type(obj).__name__} for JSON")

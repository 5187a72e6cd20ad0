"""A request's fields, declared once: read here in plain Python, documented over HTTP.

Each handler declares its request as a tuple of :class:`Field`; :func:`read` checks a
request dict against it (unknown keys, missing fields, types, ranges, lengths) and
returns the request with its defaults filled in, or raises an ``invalid`` Failure that
names the field. The HTTP schemas (``micrograd.web.schemas``) are made from the same
declarations, so the OpenAPI page and the 422 answers say what is checked here.

    >>> STEP = (Field("steps", "int", 1, ge=1, le=20),)
    >>> read(STEP, {})
    {'steps': 1}

A field of a set-up (an experiment's, a Walk's: ``micrograd.setup_field``) is not written
again here: ``Field.declared`` makes the request field from its one declaration.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ...setup_field import request_terms
from .errors import Failure

#: a field without a default must be given
REQUIRED = object()

#: the kinds of value a field holds
KINDS = ("int", "float", "number", "bool", "str", "list", "dict", "object")


@dataclass(frozen=True)
class Field:
    """One request field.

    ``kind``: ``int``; ``float`` (finite, an int accepted); ``number`` (the same, for
    a learner's answer: text refused even where a lenient reader would take it);
    ``bool``; ``str``; ``list`` of ``items``; ``dict`` from names to ``items``;
    ``object`` (a nested request of ``fields``). ``ge``/``gt``/``le``/``lt`` bound a number,
    ``min_items``/``max_items`` a list's or a dict's size, ``max_length`` a text's.
    ``choices``: the values a text (or each text of a list) may take.
    ``nullable``: None is accepted (and is the usual default)."""

    name: str
    kind: str
    default: object = REQUIRED
    ge: float | None = None
    gt: float | None = None
    le: float | None = None
    lt: float | None = None
    min_items: int | None = None
    max_items: int | None = None
    max_length: int | None = None
    items: str | None = None
    fields: tuple = ()
    choices: tuple = ()
    nullable: bool = False
    description: str = ""

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"field {self.name}: unknown kind {self.kind!r}")

    @classmethod
    def declared(cls, meta, **change):
        """The request field of a set-up's field, from its declaration (``meta``:
        ``micrograd.setup_field.declared``): its kind, default, bounds, sizes, choices
        and help; ``change``: what a request reads otherwise. A None default is
        nullable."""
        kw = dict(request_terms(meta), **change)
        kw.setdefault("nullable", kw["default"] is None)
        return cls(meta["name"], **kw)

    @property
    def required(self):
        return self.default is REQUIRED

    def default_value(self):
        """The default, a fresh copy for a list or a dict."""
        d = self.default
        return list(d) if isinstance(d, list) else dict(d) if isinstance(d, dict) else d


def read(fields, data, *, where=""):
    """``data`` (a dict) checked against ``fields``: a new dict holding every field (the
    defaults filled in); an ``invalid`` Failure naming the first field at fault."""
    if not isinstance(data, dict):
        raise Failure("invalid", f"{where or 'body'}: expected an object of fields, got "
                                 f"{_kind_of(data)}", field=where or None)
    names = {f.name for f in fields}
    for key in data:
        if key not in names:
            shown = key if len(str(key)) <= 40 else str(key)[:40] + "..."
            raise Failure("invalid", f"{where + '.' if where else ''}{shown}: unknown "
                                     f"field (fields: {', '.join(sorted(names))})",
                          field=where or None)
    out = {}
    for f in fields:
        path = f"{where}.{f.name}" if where else f.name
        if f.name not in data:
            if f.required:
                raise Failure("invalid", f"{path}: field required", field=path)
            out[f.name] = f.default_value()
            continue
        out[f.name] = _value(f, data[f.name], path)
    return out


def _value(f, v, path):
    if v is None:
        if f.nullable:
            return None
        raise Failure("invalid", f"{path}: a value is required, got null", field=path)
    if f.kind == "object":
        return read(f.fields, v, where=path)
    if f.kind in ("list", "dict"):
        return _collection(f, v, path)
    v = _scalar(f.kind, v, path)
    _choice(f, v, path, path)
    if f.kind == "str" and f.max_length is not None and len(v) > f.max_length:
        raise Failure("invalid", f"{path}: at most {f.max_length} characters, got "
                                 f"{len(v)}", field=path)
    if f.kind in ("int", "float", "number"):
        _bounds(f, v, path)
    return v


def _collection(f, v, path):
    want = list if f.kind == "list" else dict
    if not isinstance(v, want):
        raise Failure("invalid", f"{path}: expected a {'list' if want is list else 'object'}"
                                 f", got {_kind_of(v)}", field=path)
    if f.min_items is not None and len(v) < f.min_items:
        raise Failure("invalid", f"{path}: at least {f.min_items} item"
                                 f"{'s' if f.min_items > 1 else ''}, got {len(v)}",
                      field=path)
    if f.max_items is not None and len(v) > f.max_items:
        raise Failure("invalid", f"{path}: at most {f.max_items} items, got {len(v)}",
                      field=path)
    if want is list:
        out = [_scalar(f.items, x, f"{path}[{i}]", field=path) for i, x in enumerate(v)]
        for i, x in enumerate(out):
            _choice(f, x, f"{path}[{i}]", path)
        return out
    out = {}
    for k, x in v.items():
        if not isinstance(k, str):
            raise Failure("invalid", f"{path}: names are text", field=path)
        out[k] = _scalar(f.items, x, f"{path}.{k[:40]}", field=path)
    return out


def _scalar(kind, v, path, field=None):
    field = field or path
    if kind == "list":  # a list of lists: the inner ones of numbers
        if not isinstance(v, list):
            raise Failure("invalid", f"{path}: expected a list, got {_kind_of(v)}",
                          field=field)
        return [_scalar("float", x, f"{path}[{i}]", field) for i, x in enumerate(v)]
    if kind == "bool":
        if isinstance(v, bool):
            return v
    elif kind == "str":
        if isinstance(v, str):
            return v
    elif isinstance(v, bool):
        pass  # a bool is no number here
    elif kind == "int":
        if isinstance(v, int):
            return v
        if isinstance(v, float) and v.is_integer():
            return int(v)
    elif isinstance(v, (int, float)):  # float, number
        if not math.isfinite(v):
            raise Failure("invalid", f"{path}: a finite number is required, got {v}",
                          field=field)
        return float(v) if kind == "float" else v
    word = {"int": "an integer", "float": "a number", "number": "a number",
            "bool": "true or false", "str": "text"}[kind]
    raise Failure("invalid", f"{path}: {word} is required, got {_kind_of(v)}",
                  field=field)


def _choice(f, v, path, field):
    if f.choices and v not in f.choices:
        raise Failure("invalid", f"{path}: one of {', '.join(map(repr, f.choices))}, got "
                                 f"{v!r:.60}", field=field)


def _bounds(f, v, path):
    for bound, ok, says in ((f.ge, lambda b: v >= b, "at least"),
                            (f.gt, lambda b: v > b, "greater than"),
                            (f.le, lambda b: v <= b, "at most"),
                            (f.lt, lambda b: v < b, "less than")):
        if bound is not None and not ok(bound):
            raise Failure("invalid", f"{path}: {says} {bound:g}, got {v:g}", field=path)


def _kind_of(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a bool"
    if isinstance(v, (int, float)):
        return f"the number {v!r}"
    if isinstance(v, str):
        return f"the text {v[:40]!r}" + ("..." if len(v) > 40 else "")
    return {list: "a list", dict: "an object"}.get(type(v), type(v).__name__)

"""What every schema is made from: :data:`Num` (a number that may be infinite or nan, as
it travels), ``Strict`` (a request: unknown fields refused), ``request_model`` (a
request's pydantic model from its handler's field declarations), ``experiment_model``
(an Experiment's, from its fields' declarations) and ``model_of`` (a response's, from
the dataclass ``micrograd.wire.encode`` sends)."""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import Any, Dict, List, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, create_model

from ... import experiment as _experiment
from ...setup_field import declared
from ...wire import wire_fields, wire_name
from ..handlers.request_fields import Field as RequestField

Num = Union[float, Literal["Infinity", "-Infinity", "NaN"]]


class Strict(BaseModel):
    """A request: unknown fields refused, numbers finite."""
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


# ---------------------------------------------------------------------------------------
# requests: made from the handlers' field declarations
# ---------------------------------------------------------------------------------------

_SCALARS = {"int": int, "float": float, "number": StrictFloat, "bool": StrictBool,
            "str": str, "list": List[float]}
_objects = {}


def _item(kind, choices=()):
    return Literal[tuple(choices)] if choices else _SCALARS[kind]


def _annotation(f):
    if f.kind == "object":
        tp = _objects[id(f.fields)]
    elif f.kind == "list":
        tp = List[_item(f.items, f.choices)]
    elif f.kind == "dict":
        tp = Dict[str, _item(f.items)]
    else:
        tp = _item(f.kind, f.choices)
    return Optional[tp] if f.nullable else tp


def request_model(name, fields, doc=None, base=None):
    """The pydantic model of a request declared as handler ``fields`` (the session id,
    a path parameter, left out): the same names, kinds, defaults, ranges and texts."""
    spec = {}
    for f in fields:
        if f.name == "sid":
            continue
        kw = {k: getattr(f, k) for k in ("ge", "gt", "le", "lt", "max_length")
              if getattr(f, k) is not None}
        if f.kind in ("list", "dict"):
            kw.update({k: v for k, v in (("min_length", f.min_items),
                                         ("max_length", f.max_items)) if v is not None})
        if f.description:
            kw["description"] = f.description
        if f.required:
            info = Field(..., **kw)
        elif isinstance(f.default, (list, dict)):
            info = Field(default_factory=f.default_value, **kw)
        else:
            info = Field(f.default, **kw)
        spec[f.name] = (_annotation(f), info)
    model = create_model(name, __base__=base or Strict, __doc__=doc, **spec)
    _objects[id(fields)] = model
    return model


# -- responses: built from the dataclasses the walk and the layout produce -----------------
# (micrograd.wire.encode sends those dataclasses; these models are made from the same
# field lists, so a field added to a step appears here and on the wire at once)

_models = {}


def _wire_type(tp):
    """A dataclass field's type as it travels: float -> Num, dataclass -> its model."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if tp is float:
        return Num
    if dataclasses.is_dataclass(tp):
        return model_of(tp)
    if origin in (list, tuple):
        return List[_wire_type(args[0])] if args else List[Any]
    if origin is dict:
        return Dict[str, _wire_type(args[1])]
    if origin in (Union, types.UnionType):
        return Optional[_wire_type(next(a for a in args if a is not type(None)))]
    return tp


def model_of(cls, exclude=(), **extra):
    """The pydantic model of a dataclass as ``micrograd.wire.encode`` sends it: the
    wire fields (``pass_`` as ``pass``), floats as :data:`Num`; ``extra``: fields added
    after encoding (name -> type)."""
    key = (cls, tuple(exclude), tuple(sorted(extra)))
    if key not in _models:
        hints = typing.get_type_hints(cls)
        fields = {}
        for f in wire_fields(cls):
            if f.name in exclude:
                continue
            fields[wire_name(f.name)] = (_wire_type(hints[f.name]), ...)
        for name, tp in extra.items():
            fields[name] = (tp, ...)
        _models[key] = create_model(
            cls.__name__ if not extra else cls.__name__ + "Drawn",
            __doc__=(cls.__doc__ or "").strip() or None, **fields)
    return _models[key]


# ---------------------------------------------------------------------------------------
# an experiment
# ---------------------------------------------------------------------------------------


def _experiment_field(f):
    """One Experiment field as a request field, from its one declaration, the page's
    older names among its choices (they are read as aliases). What only a combination
    of fields decides is left to Experiment.check."""
    meta = declared(f)
    names = (*meta.get("choices", ()), *_experiment.ALIASES.get(f.name, ()))
    return RequestField.declared(meta, choices=names)


def experiment_model(name, extra=(), doc=None):
    """The pydantic model of an Experiment (``micrograd.experiment``), field by field
    from its declarations; ``extra``: handler fields after them."""
    base = request_model(name + "Fields", tuple(
        _experiment_field(f) for f in dataclasses.fields(_experiment.Experiment)))
    return request_model(name, extra, doc, base=base) if extra else \
        create_model(name, __base__=base, __doc__=doc)

"""An experiment's outer forms: a dict (the HTTP body), a link's query, the page's
description of the fields (``spec``), and the command line's options (``from_options``).
Reading takes the page's older names as aliases; writing gives the canonical ones."""

from __future__ import annotations

import math
from dataclasses import fields

from .. import losses as _losses
from ..setup_field import declared
from ..urltext import NUMBER, js_number
from .fields import (ALIASES, GROUPS, MAX_CLASSES, MAX_EDITS, MAX_LAYERS, MAX_NEURONS,
                     MAX_PARAMETERS, MAX_SAMPLES, MULTICLASS, OWN, REGRESSION,
                     REGRESSION_LOSS, Depends, ExperimentError)


#: how a link writes a list (``hidden=4,2``) and points (``pts=0.5:1:1;-1:0:-1``: a point's
#: coordinates and label by POINT_PAIR, the points by POINT_SEP); the page's codec
#: (``web/static/setup_codec.js``) reads these marks from ``spec()``
LINK_SEP = ","
POINT_SEP = ";"
POINT_PAIR = ":"
#: the kinds a link leaves out when they hold nothing (every other field is written, so a
#: link keeps its meaning if a default changes)
OMITTED_WHEN_EMPTY = ("points", "indices")


def _resolve_aliases(d):
    """``d`` with the page's older names replaced (an alias may set other fields too,
    unless ``d`` gives them)."""
    out = dict(d)
    for name, table in ALIASES.items():
        value = d.get(name)
        if isinstance(value, str) and value in table:
            new = table[value]
            if isinstance(new, dict):
                out.update({k: v for k, v in new.items() if k == name or k not in d})
            else:
                out[name] = new
    return out


def _coerce(f, x):
    """A JSON number for an int field that is whole (``2.0``) becomes an int; a number
    field takes ints. Anything else is left for the check to refuse."""
    kind = declared(f)["kind"]
    if kind == "int" and isinstance(x, float) and math.isfinite(x) and x == int(x):
        return int(x)
    if kind == "number" and isinstance(x, int) and not isinstance(x, bool):
        return float(x)
    if kind in ("ints", "indices") and isinstance(x, list):
        return [_coerce_int(v) for v in x]
    if kind == "points" and isinstance(x, list):
        return [list(p) if isinstance(p, (list, tuple)) else p for p in x]
    return x


def _coerce_int(v):
    if isinstance(v, float) and math.isfinite(v) and v == int(v):
        return int(v)
    return v


def from_dict(cls, d):
    if not isinstance(d, dict):
        raise ExperimentError(f"a set-up is a dict of fields, got {type(d).__name__}")
    by_name = {f.name: f for f in fields(cls)}
    unknown = [k for k in d if k not in by_name]
    if unknown:
        raise ExperimentError(f"unknown field {unknown[0]!r}; the fields are "
                              f"{', '.join(by_name)}", str(unknown[0]))
    d = _resolve_aliases(d)
    exp = cls(**{k: _coerce(by_name[k], v) for k, v in d.items()})
    exp.check()
    return exp


def from_options(cls, values, surface="cli"):
    """An experiment from a surface's values, ``{field name: value}`` (the command
    line's parsed options), not checked: a value that is None or absent takes the
    surface's declared default (a ``Depends`` picks it from the value of the field it
    follows), a field the surface sets from another (``same_as``) takes that value,
    and a field the surface does not offer keeps the page's default."""
    out, follow, same = {}, {}, {}
    for f in fields(cls):
        meta = declared(f, surface)
        if meta is None:
            continue
        x = values.get(f.name)
        if "same_as" in meta:
            same[f.name] = meta["same_as"]
        elif x is not None:
            out[f.name] = x
        elif isinstance(meta["default"], Depends):
            follow[f.name] = meta["default"]
        else:
            out[f.name] = meta["default"]
    for name, rule in follow.items():
        out[name] = rule.pick(out[rule.on])
    for name, source in same.items():
        out[name] = out[source]
    return cls(**out)


# ---------------------------------------------------------------------------------------
# the link: {url key: text}
# ---------------------------------------------------------------------------------------

def _parse_number(text, f, what="a number"):
    text = text.strip()
    if not NUMBER.fullmatch(text):
        raise ExperimentError(f"{declared(f)['url']} ({f.name}) must be {what}, got "
                              f"{text!r:.40}", f.name)
    return float(text)


def _parse_int(text, f):
    x = _parse_number(text, f, "a whole number")
    if x != int(x):
        raise ExperimentError(f"{declared(f)['url']} ({f.name}) must be a whole number, "
                              f"got {text!r:.40}", f.name)
    return int(x)


def _parse(f, text):
    """One field from its link text (as the page has always written it)."""
    kind = declared(f)["kind"]
    if kind == "choice":
        return text
    if kind == "int":
        return _parse_int(text, f)
    if kind == "number":
        return _parse_number(text, f)
    if kind == "bool":
        if text not in ("0", "1", "true", "false"):
            raise ExperimentError(f"{declared(f)['url']} ({f.name}) is 1 or 0, got "
                                  f"{text!r:.40}", f.name)
        return text in ("1", "true")
    if text == "":
        return []
    if kind == "choices":
        return text.split(LINK_SEP)
    if kind in ("ints", "indices"):
        return [_parse_int(t, f) for t in text.split(LINK_SEP)]
    # points: x1:x2:label;...
    return [[_parse_number(t, f) for t in p.split(POINT_PAIR)]
            for p in text.split(POINT_SEP)]


def from_url(cls, query):
    if not isinstance(query, dict):
        raise ExperimentError(f"a link's query is a dict of strings, got "
                              f"{type(query).__name__}")
    d = {}
    for f in fields(cls):
        text = query.get(declared(f)["url"])
        if text is None:
            continue
        if not isinstance(text, str):
            raise ExperimentError(f"{declared(f)['url']} must be text, got "
                                  f"{type(text).__name__}", f.name)
        d[f.name] = _parse(f, text)
    return from_dict(cls, d)


def _text(f, x):
    kind = declared(f)["kind"]
    if kind == "choice":
        return x
    if kind == "bool":
        return "1" if x else "0"
    if kind in ("int", "number"):
        return js_number(x)
    if kind == "points":
        return POINT_SEP.join(POINT_PAIR.join(js_number(v) for v in p) for p in x)
    return LINK_SEP.join(js_number(v) if not isinstance(v, str) else v for v in x)


def to_url(exp):
    out = {}
    for f in fields(exp):
        x = getattr(exp, f.name)
        if declared(f)["kind"] in OMITTED_WHEN_EMPTY and not x:
            continue
        out[declared(f)["url"]] = _text(f, x)
    return out


# ---------------------------------------------------------------------------------------
# the page's description
# ---------------------------------------------------------------------------------------

_SPEC_KEYS = ("min", "max", "min_exclusive", "max_exclusive", "choices", "choice_labels",
              "max_len")


def _field_spec(f):
    meta = declared(f)
    out = {"name": f.name, "url": meta["url"], "kind": meta["kind"],
           "default": meta["default"], "label": meta["label"], "help": meta["help"],
           "group": meta["group"], "place": meta["place"],
           "keeps_weights": meta["keeps_weights"]}
    for key in _SPEC_KEYS:
        if key in meta:
            value = meta[key]
            out[key] = (list(value) if isinstance(value, tuple) else
                        dict(value) if isinstance(value, dict) else value)
    if meta["kind"] in ("ints", "indices", "choices", "points"):  # how a link writes it
        out["sep"] = POINT_SEP if meta["kind"] == "points" else LINK_SEP
    if meta["kind"] == "points":
        out["pair"] = POINT_PAIR
    if meta["kind"] not in OMITTED_WHEN_EMPTY:  # a link writes it even at its default
        out["always"] = True
    if "choice_labels" in out:
        out["choice_labels"] = {c: out["choice_labels"].get(c, c) for c in out["choices"]}
    return out


def spec(cls):
    losses = _losses.LOSSES
    return {
        "fields": [_field_spec(f) for f in fields(cls)],
        "regression": list(REGRESSION),
        "multiclass": list(MULTICLASS),
        "own": list(OWN),
        "regression_loss": REGRESSION_LOSS,
        "groups": [{"name": k, "text": g.text, "place": g.place} for k, g in GROUPS.items()],
        "output_activation": {k: v.output_activation for k, v in losses.items()},
        "losses": {k: {"labels": v.labels, "outputs": v.outputs,
                       "output_activation": v.output_activation, "help": v.doc}
                   for k, v in losses.items()},
        "aliases": {k: dict(v) for k, v in ALIASES.items()},
        "limits": {"max_samples": MAX_SAMPLES, "max_layers": MAX_LAYERS,
                   "max_neurons": MAX_NEURONS, "max_parameters": MAX_PARAMETERS,
                   "max_edits": MAX_EDITS, "max_classes": MAX_CLASSES},
    }

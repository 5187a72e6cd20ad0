"""A set-up's field, declared once: the one field type of every set-up (a training
experiment's ``micrograd.experiment.Experiment``, a Walk's ``micrograd.walk_setup.WalkSetup``)
and how each surface reads it.

A declaration is a dataclass field whose metadata says, once: its ``kind`` (``KINDS``),
``label`` and ``help``, its key in a link (``url``: the field's name unless it says
otherwise), its bounds (``min``/``max``, either of them exclusive with
``min_exclusive``/``max_exclusive``), its sizes (``max_len``, ``min_len``), its
``choices``, and what a surface other than the page reads differently (``cli=``: the
command line's caps, default, help, flag...). The default is the dataclass field's own.

    >>> from dataclasses import dataclass, fields
    >>> @dataclass
    ... class Demo:
    ...     steps: int = declare("int", 1, "steps", "steps per request", min=1, max=20,
    ...                          cli=dict(max=1000))
    >>> f = fields(Demo)[0]
    >>> declared(f)["max"], declared(f, "cli")["max"], declared(f, "cli")["flag"]
    (20, 1000, '--steps')
    >>> request_terms(declared(f))
    {'kind': 'int', 'default': 1, 'description': 'steps per request', 'ge': 1, 'le': 20}

Each surface reads the declaration through ``declared``: the page's links and
description (``experiment.links``, ``walk_setup``), the set-up's checks, the command
line's options and their ``--help`` (``commands.field_options``, ``commands.graph``), and
a request's fields (``request_terms``, read by ``web.handlers.request_fields.Field.declared``:
the web's request checks and its schemas).
"""

from __future__ import annotations

from dataclasses import MISSING, field

#: the kinds of value a set-up field holds, and what a request carries for each
#: (``request_terms``: the request's kind, and for a list or a dict, its items')
KINDS = {
    "choice": ("str", None),      # one of ``choices``
    "text": ("str", None),        # at most ``max_len`` characters
    "int": ("int", None),         # a whole number in [min, max]
    "number": ("float", None),    # a finite number in [min, max]
    "bool": ("bool", None),
    "ints": ("list", "int"),      # ``min_len`` to ``max_len`` whole numbers in [min, max]
    "choices": ("list", "str"),   # some of ``choices``, each at most once
    "points": ("list", "list"),   # [x1, x2, label] lists, coordinates in [min, max]
    "indices": ("list", "int"),   # whole numbers in [min, max]
    "values": ("dict", "float"),  # a name -> a finite number
}

#: the scalar kinds, whose bounds a request checks itself (a list's items are the
#: set-up's own check)
SCALARS = ("int", "number")

#: what a surface's overrides may change in a field's declaration (``cli=``)
SURFACE_KEYS = frozenset({"flag", "metavar", "label", "help", "default", "min", "max",
                          "max_len", "choices", "applies_to", "max_parameters", "same_as",
                          "pairs"})


def declare(kind, default, label, help, *, url=None, cli=None, **meta):
    """A set-up's field: a dataclass field (a fresh copy of a list or dict default for
    each instance) whose metadata is its declaration. ``url``: its key in a link (default:
    the field's name); ``cli``: the command line's overrides (keys in ``SURFACE_KEYS``;
    None: the command line does not offer the field); ``meta``: bounds, sizes, choices
    and what the set-up itself reads (a group, a link's separator...)."""
    if kind not in KINDS:
        raise ValueError(f"field {label!r}: no kind {kind!r}; kinds: {', '.join(KINDS)}")
    if cli is not None and not set(cli) <= SURFACE_KEYS:
        raise ValueError(f"field {label!r}: the command line cannot override "
                         f"{', '.join(sorted(set(cli) - SURFACE_KEYS))}")
    meta.update(kind=kind, label=label, help=help)
    if url is not None:
        meta["url"] = url
    if cli is not None:
        meta["cli"] = dict(cli)
    if isinstance(default, (list, dict)):
        return field(default_factory=lambda: type(default)(default), metadata=meta)
    return field(default=default, metadata=meta)


def default_of(f):
    """A declared field's default (a fresh list or dict for a list or dict field)."""
    return f.default_factory() if f.default is MISSING else f.default


def declared(f, surface=None):
    """Field ``f``'s declaration as ``surface`` reads it, a dict with its ``name``, its
    ``url`` key and its ``default``: the page's (None), or the command line's
    (``"cli"``), its overrides laid over the page's and its ``flag`` (``--weight-decay``
    for ``weight_decay``); None when that surface does not offer the field."""
    meta = {k: v for k, v in f.metadata.items() if k != "cli"}
    meta.setdefault("url", f.name)
    meta.update(name=f.name, default=default_of(f))
    if surface is None:
        return meta
    over = f.metadata.get(surface)
    if over is None:
        return None
    meta.update(over)
    meta.setdefault("flag", "--" + f.name.replace("_", "-"))
    return meta


def request_terms(meta):
    """A declaration (``declared``) in a request's terms: the keywords of
    ``web.handlers.request_fields.Field`` (its kind, its items', its default and
    description, a scalar's bounds, a text's length or a collection's size, the
    choices)."""
    kind, items = KINDS[meta["kind"]]
    out = {"kind": kind, "default": meta["default"], "description": meta["help"]}
    if items is not None:
        out["items"] = items
    if meta["kind"] in SCALARS:
        if meta.get("min") is not None:
            out["gt" if meta.get("min_exclusive") else "ge"] = meta["min"]
        if meta.get("max") is not None:
            out["lt" if meta.get("max_exclusive") else "le"] = meta["max"]
    size = meta.get("max_len")
    if size is not None:
        out["max_length" if kind == "str" else "max_items"] = size
    if meta.get("min_len") is not None:
        out["min_items"] = meta["min_len"]
    if meta.get("choices"):
        out["choices"] = tuple(meta["choices"])
    return out

"""The Walk's requests: a graph with its steps, the visit-order experiment, the nudge, a
learner's answer. Each is one turn of work, or several for a big graph (its parse, walk,
each sweep of its layout, its texts: ``walkview.build_in_turns``); the documents come
from ``walkview``. A request's fields that are the Walk's set-up (``preset``, ``expr``,
``values``, ``mode``, ``ask``, ``of``, ``questions``) are made from their one declaration,
``micrograd.walk_setup.WalkSetup``'s (:func:`setup_field`); the mode may also come as an
older request's flag (``"assign": true``: ``walk_setup.OLD_MODE_KEYS``).

    >>> from micrograd.web.handlers import run_to_end
    >>> run_to_end(walk({"preset": "lecture"}))["question"]["text"]
    'With a = 2, b = -3, c = 10, f = -2, what is dL/da?'
"""

from __future__ import annotations

from dataclasses import MISSING, fields

from ...walk_setup import OLD_MODE_KEYS, WalkSetup
from .. import limits, walk_questions, walkview
from .errors import Failure, clip
from .fields import Field, read

_SETUP = {f.name: f for f in fields(WalkSetup)}
_KINDS = {"choice": "str", "text": "str", "int": "int", "values": "dict", "choices": "list"}


def setup_field(name, **change):
    """WalkSetup's field ``name`` as a request field: its kind, default, caps, choices
    and help from its one declaration (``change``: what a request reads otherwise)."""
    f = _SETUP[name]
    meta = f.metadata
    kw = {"kind": _KINDS[meta["kind"]], "description": meta["help"],
          "default": f.default_factory() if f.default is MISSING else f.default,
          "choices": tuple(meta.get("choices", ()))}
    if meta["kind"] == "text":
        kw["max_length"] = meta["max_len"]
    elif meta["kind"] == "int":
        kw.update(ge=meta["min"], le=meta["max"])
    elif meta["kind"] in ("values", "choices"):
        kw.update(max_items=meta["max_len"],
                  items="float" if meta["kind"] == "values" else "str")
    kw.update(change)
    return Field(name, nullable=kw["default"] is None, **kw)


GRAPH = (
    # a preset is looked up by its key (an unknown one is not_found), and a request
    # names either a preset or an expression: neither has a default
    setup_field("preset", default=None, choices=(), max_length=40),
    setup_field("expr"),
    setup_field("values"),
)
ASKED = (setup_field("ask"), setup_field("of"))
KINDS = tuple(walk_questions.KINDS)
#: the older requests' teaching-mode flags (``"assign": true``...), read as the mode
OLD_MODES = tuple(Field(key, "bool", False, description=f"older name: true is mode "
                                                        f"{mode!r}")
                  for key, mode in OLD_MODE_KEYS.items())
WALK = GRAPH + ASKED + (setup_field("questions"), setup_field("mode")) + OLD_MODES + (
    Field("rankdir", "str", "LR", choices=("LR", "TB"),
          description="the drawing's direction: left to right (the lecture's) or top to "
                      "bottom (a narrow screen's)"),
    Field("stack", "bool", False, description="each record's cells one above another "
                                              "(a narrow screen's) instead of side by side"),
    Field("stagger", "bool", False, description="the leaves that feed one op over two "
                                                "ranks (a narrow screen's: a row of "
                                                "leaves halved)"),
)
ORDER = GRAPH + (
    Field("order", "list", items="str", max_items=limits.MAX_ORDER_LEN,
          description="node ids, first visited first"),
)
CHECK = GRAPH + ASKED + (
    Field("answer", "number", description="the learner's number (text refused)"),
    Field("kind", "str", "grad", choices=KINDS,
          description="which question: value, local, grad (d(of)/d(ask)) or path"),
)
NUDGE = GRAPH + (
    Field("leaf", "str", max_length=limits.MAX_NODE_CHARS),
    Field("h", "float", 1e-4, gt=0, le=1),
)


def _mode(request, req):
    """The teaching mode: ``mode``, or an older request's flag; one at a time."""
    asked = [req["mode"]] if "mode" in request else []
    asked += [mode for key, mode in OLD_MODE_KEYS.items() if req[key]]
    asked = list(dict.fromkeys(asked))
    if len(asked) > 1:
        raise Failure("refused", f"choose one teaching mode at a time (got "
                                 f"{' and '.join(asked)})", field="mode")
    return asked[0] if asked else req["mode"]


def _source(req):
    """(source text, title, preset or None) of the request's graph."""
    for name in req["values"]:  # refused by length before any message quotes it
        if len(name) > limits.MAX_NAME_CHARS:
            raise Failure("invalid", f"values: a leaf name of {len(name)} characters "
                                     f"({clip(name, 20)}); names are at most "
                                     f"{limits.MAX_NAME_CHARS}", field="values")
    if (req["preset"] is None) == (req["expr"] is None):
        raise Failure("invalid", "give either 'preset' or 'expr' (exactly one)",
                      field="preset")
    if req["preset"] is not None:
        preset = walkview.PRESETS.get(req["preset"])
        if preset is None:
            raise Failure("not_found", f"unknown preset {req['preset']!r}; presets: "
                                       f"{', '.join(walkview.PRESETS)}", field="preset")
        return preset.expr, preset.title, preset
    return req["expr"], "", None


def _refused(err):
    """A WalkViewError as error data (with the free names when values are missing)."""
    extra = {"free": err.free} if err.free is not None else {}
    return Failure("refused", str(err), field="values" if extra else None, **extra)


def walk(request, sessions=None):
    """``POST /api/walk``: the page's document for one graph (``walkview.build``), in
    turns for a big graph."""
    req = read(WALK, request)
    source, title, preset = _source(req)
    mode = _mode(request, req)
    try:
        return (yield from walkview.build_in_turns(
            source, req["values"], mode=mode, title=title, preset=preset, ask=req["ask"],
            of=req["of"], questions=tuple(req["questions"]), rankdir=req["rankdir"],
            stack=req["stack"], stagger=req["stagger"]))
    except walkview.WalkViewError as err:
        raise _refused(err) from None


def check(request, sessions=None):
    """``POST /api/walk/check``: a learner's answer checked against the engine (in
    turns for a big graph)."""
    req = read(CHECK, request)
    source, _, preset = _source(req)
    try:
        return (yield from walkview.check_in_turns(
            source, req["answer"], req["values"], preset=preset, ask=req["ask"],
            of=req["of"], kind=req["kind"]))
    except walkview.WalkViewError as err:
        raise _refused(err) from None


def order(request, sessions=None):
    """``POST /api/walk/order``: the backward pass in the learner's visit order."""
    req = read(ORDER, request)
    source, _, _ = _source(req)
    try:
        return walkview.visit_order(source, req["order"], req["values"])
    except walkview.WalkViewError as err:
        raise _refused(err) from None


def nudge(request, sessions=None):
    """``POST /api/walk/nudge``: the finite-difference slope at a leaf, beside its grad."""
    req = read(NUDGE, request)
    source, _, _ = _source(req)
    try:
        return walkview.nudge(source, req["leaf"], req["h"], req["values"])
    except walkview.WalkViewError as err:
        raise _refused(err) from None

"""The Walk's requests: a graph with its steps, the visit-order experiment, the nudge, a
learner's answer. Each is one turn of work, or several for a big graph (its parse, walk,
each sweep of its layout, its texts: ``walkview.build_in_turns``); the documents come
from ``walkview``.

    >>> from micrograd.web.handlers import run_to_end
    >>> run_to_end(walk({"preset": "lecture"}))["question"]["text"]
    'With a = 2, b = -3, c = 10, f = -2, what is dL/da?'
"""

from __future__ import annotations

from .. import limits, walk_questions, walkview
from .errors import Failure, clip
from .fields import Field, read

GRAPH = (
    Field("preset", "str", None, max_length=40, nullable=True,
          description="a preset by its key (micrograd.walk_setup.PRESETS)"),
    Field("expr", "str", None, max_length=limits.MAX_EXPR_CHARS, nullable=True,
          description="a graph in the walk's language, e.g. 'a = 2; b = a*a'"),
    Field("values", "dict", {}, items="float", max_items=limits.MAX_VALUES,
          description="leaf name -> value: edits of the graph's leaves"),
)
ASKED = (
    Field("ask", "str", None, max_length=limits.MAX_NODE_CHARS, nullable=True,
          description="the question's node: what is d(of)/d(ask)? (default: the "
                      "preset's, or the first leaf)"),
    Field("of", "str", None, max_length=limits.MAX_NODE_CHARS, nullable=True,
          description="the question's output node (default: the root)"),
)
KINDS = tuple(walk_questions.KINDS)
WALK = GRAPH + ASKED + (
    Field("questions", "list", list(KINDS), items="str", choices=KINDS,
          max_items=len(KINDS), description="the kinds of question asked, in the order "
                                             "value, local, grad, path"),
    Field("assign", "bool", False, description="teaching mode: '=' instead of '+='"),
    Field("recursive", "bool", False, description="teaching mode: recursive backward, "
                                                  "no topological sort"),
    Field("no_zero_grad", "bool", False, description="teaching mode: backward twice "
                                                     "without zero_grad"),
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
    try:
        return (yield from walkview.build_in_turns(
            source, req["values"], assign=req["assign"], recursive=req["recursive"],
            no_zero_grad=req["no_zero_grad"], title=title, preset=preset, ask=req["ask"],
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

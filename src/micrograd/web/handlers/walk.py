"""The Walk's requests: a graph with its steps, the visit-order experiment, the nudge, a
learner's answer. Each is one turn of work, or several for a big graph (its parse, walk,
each sweep of its layout, its texts: ``walkview.build_in_turns``); the documents come
from ``walkview``. A request's fields that are the Walk's set-up (``preset``, ``expr``,
``values``, ``mode``, ``step``, ``ask``, ``of``, ``questions``, ``hide``, ``answers``) are made from
their one declaration, ``micrograd.walk_setup.WalkSetup``'s (:func:`setup_field`), and
checked by its rules; the mode may also come as an older request's flag (``"assign":
true``: ``walk_setup.OLD_MODE_KEYS``), the whole set-up as a link's texts (``link``).
The walk's answer says the set-up it shows, so the page applies what Python decided::

    "setup": {"fields": {"preset": "lecture", "values": {"a": 3.0}, ...},
              "text": "a = 3; b = -3; ...",      # the expression box: values written in
              "notes": ["left out of the link: ..."]}

    >>> from micrograd.web.handlers import run_to_end
    >>> run_to_end(walk({"preset": "lecture"}))["question"]["text"]
    'With a = 2, b = -3, c = 10, f = -2, what is dL/da?'
"""

from __future__ import annotations

from dataclasses import fields

from ...setup_field import declared
from ...walk_setup import OLD_MODE_KEYS, PRESETS, WalkSetup, WalkSetupError
from .. import limits, walk_questions, walkview
from .errors import Failure, clip
from .request_fields import Field, read

_SETUP = {f.name: f for f in fields(WalkSetup)}


def setup_field(name, **change):
    """WalkSetup's field ``name`` as a request field, from its one declaration
    (``change``: what a request reads otherwise)."""
    return Field.declared(declared(_SETUP[name]), **change)


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
#: the set-up as a link gives it: its texts by their keys, read as the page reads a link
LINK = Field("link", "dict", None, items="str", nullable=True,
             max_items=2 * (len(_SETUP) + len(OLD_MODE_KEYS)),
             description="instead of the set-up's fields, the texts of a link or of a "
                         "lesson element's attributes by their keys (v=a:3, mode=assign, "
                         "step=4...), read as a learner's page reads a link: what the "
                         "walk cannot use is left out and said in the answer's "
                         "setup.notes")
WALK = GRAPH + ASKED + tuple(setup_field(name) for name in (
    "questions", "mode", "step", "hide", "answers")) + OLD_MODES + (LINK,) + (
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


def _setup(request, req):
    """``(set-up, notes)``: the request's ``WalkSetup``, checked by its own rules (exactly
    one of preset and expr...), and what a link's texts asked for that was left out."""
    if req.get("link") is not None:
        given = [k for k in request if k in _SETUP or k in OLD_MODE_KEYS]
        if given:
            raise Failure("invalid", f"give the set-up as fields or as a link, not both "
                                     f"(got {given[0]} and link)", field="link")
        notes = []
        return WalkSetup.from_url(req["link"], notes), notes
    if req["preset"] is not None and req["preset"] not in PRESETS:
        raise Failure("not_found", f"unknown preset {clip(req['preset'])}; presets: "
                                   f"{', '.join(PRESETS)}", field="preset")
    d = {name: req[name] for name in _SETUP if name in req}
    if "mode" in req:
        d["mode"] = _mode(request, req)
    try:
        return WalkSetup(**d).check(), []
    except WalkSetupError as err:
        raise Failure("invalid", str(err), field=err.field) from None


def _refused(err):
    """A WalkViewError as error data (with the free names when values are missing)."""
    extra = {"free": err.free} if err.free is not None else {}
    return Failure("refused", str(err), field="values" if extra else None, **extra)


def walk(request, sessions=None):
    """``POST /api/walk``: the page's document for one graph (``walkview.build``), in
    turns for a big graph, with the set-up it shows (``setup``: its fields, the text of
    its graph with the leaf values in, what a link asked for and could not have)."""
    req = read(WALK, request)
    setup, notes = _setup(request, req)
    if req["link"] is not None:  # what the graph cannot use, left out and said
        setup = setup.replace(**walkview.usable(setup.source, setup.values, setup.ask,
                                                setup.of, notes))
    preset = PRESETS.get(setup.preset)
    try:
        doc = yield from walkview.build_in_turns(
            setup.source, setup.values, mode=setup.mode, title=preset.title if preset
            else "", preset=preset, ask=setup.ask, of=setup.of,
            questions=tuple(setup.questions), rankdir=req["rankdir"], stack=req["stack"],
            stagger=req["stagger"])
    except walkview.WalkViewError as err:
        raise _refused(err) from None
    if setup.ask:  # a teacher's aim: the sequence opens at the asked node's questions
        doc["questions"] = walk_questions.aimed(doc["questions"])
    steps = len(doc["walk"]["forward"]) + len(doc["walk"]["backward"])
    if setup.step > steps and req["link"] is not None:
        notes.append(f"left out of the link: step {setup.step}; this walk has {steps} "
                     f"steps, and opens at the last")
    text, values = setup.written()
    shown = setup.replace(values=values, step=min(setup.step, steps))
    doc["setup"] = {"fields": shown.to_dict(), "text": text, "notes": notes}
    return doc


def check(request, sessions=None):
    """``POST /api/walk/check``: a learner's answer checked against the engine (in
    turns for a big graph)."""
    req = read(CHECK, request)
    setup, _ = _setup(request, req)
    try:
        return (yield from walkview.check_in_turns(
            setup.source, req["answer"], setup.values, preset=PRESETS.get(setup.preset),
            ask=setup.ask, of=setup.of, kind=req["kind"]))
    except walkview.WalkViewError as err:
        raise _refused(err) from None


def order(request, sessions=None):
    """``POST /api/walk/order``: the backward pass in the learner's visit order."""
    req = read(ORDER, request)
    setup, _ = _setup(request, req)
    try:
        return walkview.visit_order(setup.source, req["order"], setup.values)
    except walkview.WalkViewError as err:
        raise _refused(err) from None


def nudge(request, sessions=None):
    """``POST /api/walk/nudge``: the finite-difference slope at a leaf, beside its grad."""
    req = read(NUDGE, request)
    setup, _ = _setup(request, req)
    try:
        return walkview.nudge(setup.source, req["leaf"], req["h"], setup.values)
    except walkview.WalkViewError as err:
        raise _refused(err) from None


#: what a learner's record says it is (walk_questions.js writes it at the end of a
#: lesson's questions)
RECORD = "micrograd walk record"


def recheck(record):
    """A teacher's re-check of a learner's record (the JSON the Walk's questions offer to
    copy or download at the end of a lesson): its set-up read from its link as the page
    read it, each question asked again and each answer tried checked again by the engine
    (``walkview.check``). A question whose text is not the engine's, or whose ``right``
    is not what the engine says of its answers, is marked. It catches a wrong copy (an
    edited verdict, a question of another graph), not a forgery: a learner can write the
    right number into ``tried`` and the record says nothing of how it was found::

        {"ok": False, "setup": {...}, "questions": [{"kind": "grad", "text": ...,
          "claimed": True, "engine": False, "same_text": True, "agrees": False,
          "tried": [{"answer": 5.0, "correct": False}]}, ...]}
    """
    if not isinstance(record, dict) or record.get("record") != RECORD \
            or not isinstance(record.get("link"), dict) \
            or not isinstance(record.get("questions"), list):
        raise WalkSetupError(f"not a Walk record: a dict with record={RECORD!r}, its "
                             "link's texts and its questions")
    notes = []
    setup = WalkSetup.from_url({k: str(v) for k, v in record["link"].items()}, notes)
    setup = setup.replace(**walkview.usable(setup.source, setup.values, setup.ask,
                                            setup.of, notes))
    out = []
    for q in record["questions"]:
        kind = q.get("kind")
        asked = _engine(setup, 0.0, kind)["question"]  # None: no such question here
        tried = [{"answer": x, "correct": _engine(setup, x, kind)["correct"]}
                 for x in q.get("tried") or []]
        engine = any(t["correct"] for t in tried)
        same = asked is not None and asked == q.get("text")
        out.append({"kind": kind, "text": q.get("text"), "tried": tried,
                    "claimed": bool(q.get("right")), "engine": engine, "same_text": same,
                    "agrees": same and bool(q.get("right")) == engine})
    return {"ok": all(q["agrees"] for q in out), "setup": setup.to_url(), "notes": notes,
            "questions": out}


def _engine(setup, x, kind):
    """walkview.check's verdict on answer ``x`` to the set-up's question of ``kind``
    (an answer or a kind it cannot take: not correct, no question)."""
    try:
        return walkview.check(setup.source, float(x), setup.values, ask=setup.ask,
                              of=setup.of, preset=PRESETS.get(setup.preset), kind=kind)
    except (walkview.WalkViewError, TypeError, ValueError):
        return {"correct": False, "question": None}

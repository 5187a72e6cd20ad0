"""The Playground's requests: make a training session, step it, edit it, read it, drop it;
and what a change of one field of a set-up implies (no session: ``play.change``).

Each handler takes the request (a dict; a session's id under ``"sid"``) and the store of
sessions, and gives the answer as plain data. Training is a job of many turns: one turn
per optimizer step, then one to record the metrics and draw the state, so a driver can
hand the turns in between to other work (the server to other tabs, a page's worker to
its messages: a pause or a stop acts between two steps).

    >>> sessions = LocalSessions()
    >>> made = run_to_end(dispatch("play.create", {"samples": 60}, sessions))
    >>> sid = made["answer"]["sid"]
    >>> run_to_end(dispatch("play.step", {"sid": sid, "steps": 3}, sessions))["answer"]["step"]
    3
"""

from __future__ import annotations

import math
from dataclasses import fields

from ...experiment import Experiment, ExperimentError, declared, make_points
from ...experiment.changes import implied, makes_own
from ...losses import LOSSES
from ...points_csv import COLUMNS, PointsError, read_points, write_points
from .. import limits
from ..gpt_session import GptSession
from ..play_pictures import follow, play_state
from ..play_session import PlayError, PlaySession
from .errors import Failure, StoreFull, clip
from .request_fields import REQUIRED, Field, read


def setup_field(name, **change):
    """The Experiment's field ``name`` as a request field, from its one declaration
    (``change``: what a request reads otherwise)."""
    return Field.declared(declared(next(f for f in fields(Experiment) if f.name == name)),
                          **change)


INSPECT = (
    Field("x", "float", ge=-10, le=10),
    Field("y", "float", ge=-10, le=10),
    Field("label", "float", None, nullable=True),
)
#: what a new session takes besides its set-up (a micrograd.experiment.Experiment, its
#: fields read and checked by Experiment.from_dict): a lost session's weights, step and
#: followed point
RESTORE = (
    Field("weights", "list", None, items="float", max_items=limits.MAX_PARAMETERS,
          nullable=True, description="every parameter, in the parameter table's order"),
    Field("step", "int", 0, ge=0, le=10**9),
    Field("inspect", "object", None, fields=INSPECT, nullable=True,
          description="follow one point: a point of the plane, or a data point with its "
                      "label (then the graph ends in that point's loss)"),
)
SID = (Field("sid", "str", description="the session's id"),)
STEP = SID + (
    Field("steps", "int", 1, ge=1, le=limits.MAX_STEPS_PER_REQUEST),
    setup_field("lr", default=None, description="change the learning rate first (no "
                                                "reset)"),
)
LR = SID + (setup_field("lr", default=REQUIRED),)
RESET = SID + (setup_field("init_seed", default=None),)
WEIGHT = SID + (
    Field("name", "str", max_length=30,
          description="w<layer>.<neuron>.<input> or b<layer>.<neuron>, from 1"),
    Field("value", "float", ge=-100, le=100),
)
FOLLOW = SID + INSPECT
#: a CSV file of points to read (micrograd.points_csv)
CSV_READ = (
    Field("text", "str", max_length=limits.MAX_CSV_CHARS,
          description="the file: x1,x2,label or x1,x2,target a line, a header optional"),
    Field("column", "str", "label", choices=COLUMNS,
          description="what the third column is when the file has no header"),
    Field("loss", "str", "mse", choices=tuple(LOSSES),
          description="the loss the labels are for (its labels: -1/+1, 0/1 or indices)"),
)

#: a control's value, as the page sends it for a change: more than any field takes (the
#: set-up's check, on the set-up the change makes, says what a field takes)
MAX_VALUE_ITEMS = 64
MAX_VALUE_CHARS = 200
#: a change of one field of the accepted set-up: besides ``field``, ``setup`` (the
#: accepted set-up's fields, read and checked by Experiment.from_dict) and ``value``
#: (:func:`control_value`)
CHANGE = (Field("field", "str", choices=tuple(f.name for f in fields(Experiment)),
                description="the field the learner changed"),)


def _session(sessions, sid):
    try:
        session = sessions.get(sid)
        if isinstance(session, GptSession):  # the GPT tab's, not a Playground's
            raise KeyError(sid)
        return session
    except KeyError:
        raise Failure("lost", f"no playground session {clip(sid)} (it may have expired: "
                              f"sessions idle for {limits.SESSION_IDLE_SECONDS} s are "
                              "dropped, and one resting for "
                              f"{sessions.evict_after:g} s may give its "
                              "place to a new one); create a new one with "
                              "POST /api/play", field="sid") from None


def busy(err):
    """A full store's refusal (StoreFull) as a ``busy`` Failure: ask again in 5 s."""
    return Failure("busy", str(err), retry_after=5)


def _refused(err):
    return Failure("refused", str(err))


def _state(sid, session, **kw):
    return {"sid": sid, **play_state(session, **kw)}


def experiment_of(setup):
    """A checked Experiment from a set-up's fields (the page's older names read as
    aliases); a refusal names its field."""
    try:
        return Experiment.from_dict(setup)
    except ExperimentError as err:
        raise Failure("refused", str(err), field=err.field) from None


def _finite(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def control_value(value):
    """``value`` if a control of the page can give it: a number, a text, true or false,
    null (a number field that holds none), or a list of numbers and nulls (the sizes of
    the layers); an ``invalid`` Failure naming ``value`` else."""
    if (value is None or isinstance(value, bool) or _finite(value)
            or (isinstance(value, str) and len(value) <= MAX_VALUE_CHARS)
            or (isinstance(value, list) and len(value) <= MAX_VALUE_ITEMS
                and all(v is None or _finite(v) for v in value))):
        return value
    raise Failure("invalid", f"value: a finite number, a text of at most {MAX_VALUE_CHARS} "
                             "characters, true or false, null, or a list of at most "
                             f"{MAX_VALUE_ITEMS} such numbers and nulls, got "
                             f"{clip(repr(value))}", field="value")


def change(request, sessions):
    """``POST /api/play/change``: the patch that setting ``field`` of the accepted
    ``setup`` to ``value`` implies (``micrograd.experiment.changes``: the field itself and
    every field that changes with it), and ``own``: whether the data set becomes one of
    your own points (the page takes them from what it shows). Nothing is trained; the
    set-up the patch makes is checked when the page proposes it (``play.create``)."""
    if not isinstance(request, dict):
        raise Failure("invalid", "body: expected an object of fields")
    known = {f.name for f in CHANGE} | {"setup", "value"}
    for key in request:
        if key not in known:
            raise Failure("invalid", f"{clip(str(key))}: unknown field (fields: "
                                     f"{', '.join(sorted(known))})")
    for key in ("setup", "value"):
        if key not in request:
            raise Failure("invalid", f"{key}: field required", field=key)
    req = read(CHANGE, {k: v for k, v in request.items() if k not in ("setup", "value")})
    value = control_value(request["value"])
    if not isinstance(request["setup"], dict):
        raise Failure("invalid", "setup: expected an object of fields", field="setup")
    try:
        accepted = experiment_of(request["setup"])
    except Failure as err:  # the set-up the page holds as accepted: a bug of the page
        raise Failure("refused", f"setup: {err.message}", field="setup") from None
    return {"patch": implied(accepted, req["field"], value),
            "own": makes_own(req["field"], value)}


def create(request, sessions):
    """``POST /api/play``: a new session from a set-up (restoring a lost one's weights,
    step and followed point when given); its id and state."""
    if not isinstance(request, dict):
        raise Failure("invalid", "body: expected an object of fields")
    extra = {f.name for f in RESTORE}
    restore = read(RESTORE, {k: v for k, v in request.items() if k in extra})
    experiment = experiment_of({k: v for k, v in request.items() if k not in extra})
    try:
        sessions.room()  # before building anything: the store may be full
        kept = {k: restore[k] for k in ("weights", "step") if restore[k]}
        session = PlaySession(experiment, **kept)
        if restore["inspect"] is not None:
            point = restore["inspect"]
            follow(session, point["x"], point["y"], point["label"])
        sid = sessions.create(session)
    except StoreFull as err:
        raise busy(err) from None
    except PlayError as err:
        raise _refused(err) from None
    return _state(sid, session, points=True, graph_layout=True)


def get(request, sessions):
    """``GET /api/play/{sid}``: the state with the points and the whole history."""
    req = read(SID, request)
    session = _session(sessions, req["sid"])
    return _state(req["sid"], session, points=True, graph_layout=True)


def step(request, sessions):
    """``POST /api/play/{sid}/step``: ``steps`` optimizer steps, one turn each, then one
    turn to record the metrics and draw the state."""
    req = read(STEP, request)
    session = _session(sessions, req["sid"])
    if req["lr"] is not None:
        session.set_lr(req["lr"])
    for _ in range(req["steps"]):
        session.train(1, record=False)
        yield
    session.train(0)  # no step: record the metrics after the steps above
    return _state(req["sid"], session, history="last")


def set_lr(request, sessions):
    """``PATCH /api/play/{sid}``: a new learning rate, no reset."""
    req = read(LR, request)
    session = _session(sessions, req["sid"])
    session.set_lr(req["lr"])
    return {"sid": req["sid"], "lr": session.opt.lr}


def reset(request, sessions):
    """``POST /api/play/{sid}/reset``: new weights (from ``init_seed``), same data."""
    req = read(RESET, request)
    session = _session(sessions, req["sid"])
    session.reset(req["init_seed"])
    return _state(req["sid"], session, points=True, graph_layout=True)


def set_weight(request, sessions):
    """``PATCH /api/play/{sid}/weight``: one weight or bias edited by name."""
    req = read(WEIGHT, request)
    session = _session(sessions, req["sid"])
    try:
        session.set_weight(req["name"], req["value"])
    except PlayError as err:
        raise Failure("refused", str(err), field="name") from None
    return _state(req["sid"], session, history="last")


def inspect(request, sessions):
    """``POST /api/play/{sid}/inspect``: follow one point through the network."""
    req = read(FOLLOW, request)
    session = _session(sessions, req["sid"])
    try:
        follow(session, req["x"], req["y"], req["label"])
    except PlayError as err:
        raise _refused(err) from None
    return _state(req["sid"], session, history="last", graph_layout=True)


def inspect_stop(request, sessions):
    """``DELETE /api/play/{sid}/inspect``: follow no point."""
    req = read(SID, request)
    session = _session(sessions, req["sid"])
    session.inspect = None
    return _state(req["sid"], session, history="last")


def delete(request, sessions):
    """``DELETE /api/play/{sid}``: drop the session."""
    req = read(SID, request)
    if not sessions.delete(req["sid"]):
        _session(sessions, req["sid"])  # raises the lost error with its message
    return {"deleted": True}


def csv_read(request, sessions):
    """``POST /api/play/csv``: the points of a CSV file (``micrograd.points_csv``), or a
    refusal that names the line and the field."""
    req = read(CSV_READ, request)
    try:
        got = read_points(req["text"], column=req["column"], loss=req["loss"])
    except PointsError as err:
        raise Failure("refused", str(err), field="text") from None
    # every number a float, as JSON gives it to the page through either door
    points = [[x1, x2, float(v)] for x1, x2, v in got.points]
    return {"points": points, "column": got.column, "classes": got.classes,
            "count": len(got.points)}


def csv_write(request, sessions):
    """``GET /api/play/{sid}/csv``: the session's data set (every point, the hand edits
    applied, in the order the split draws from) as a CSV file's text."""
    req = read(SID, request)
    session = _session(sessions, req["sid"])
    exp = session.experiment
    X, y, _ = make_points(exp, session.loss_spec.labels)
    column = "target" if session.kind == "regression" else "label"
    text = write_points([[a, b, t] for (a, b), t in zip(X, y)], column)
    return {"sid": req["sid"], "text": text, "column": column, "count": len(X)}

"""The Playground's requests: make a training session, step it, edit it, read it, drop it.

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

from .. import limits
from ..play_config import (ACTIVATIONS, DATASETS, FEATURES, LOSSES, MAX_CLASSES, MAX_EDITS,
                           MAX_LAYERS, OPTIMIZERS, PlayConfig, PlayError)
from ..play_pictures import follow, play_state
from ..play_session import PlaySession
from .errors import Failure, StoreFull, clip
from .fields import Field, read

SEED = dict(ge=0, le=2**31 - 1)

#: the set-up of a session (its fields, defaults and ranges)
CONFIG = (
    Field("dataset", "str", "circle", choices=tuple(DATASETS)),
    Field("classes", "int", 2, ge=2, le=MAX_CLASSES,
          description="3 or more: spiral or blobs, with loss 'ce'"),
    Field("noise", "float", 0.0, ge=0, le=2),
    Field("samples", "int", 200, ge=10, le=limits.MAX_SAMPLES),
    Field("train_ratio", "float", 0.5, ge=0.1, le=0.9),
    Field("seed", "int", 1, **SEED),
    Field("features", "list", ["x1", "x2"], items="str", choices=tuple(FEATURES),
          min_items=1, max_items=len(FEATURES)),
    Field("hidden", "list", [4, 2], items="int", min_items=1, max_items=MAX_LAYERS),
    Field("activation", "str", "tanh", choices=tuple(ACTIVATIONS)),
    Field("loss", "str", "mse", choices=tuple(LOSSES)),
    Field("optimizer", "str", "sgd", choices=tuple(OPTIMIZERS)),
    Field("lr", "float", 0.1, gt=0, le=10),
    Field("batch_size", "int", 0, ge=0, le=limits.MAX_SAMPLES),
    Field("l1", "float", 0.0, ge=0, le=1),
    Field("l2", "float", 0.0, ge=0, le=1),
    Field("init_seed", "int", 0, **SEED),
    Field("added", "list", [], items="list", max_items=MAX_EDITS,
          description="points put in by hand: [x1, x2, label]"),
    Field("removed", "list", [], items="int", max_items=MAX_EDITS,
          description="generated points taken out, by index"),
)
INSPECT = (
    Field("x", "float", ge=-10, le=10),
    Field("y", "float", ge=-10, le=10),
    Field("label", "float", None, nullable=True),
)
CREATE = CONFIG + (
    Field("weights", "list", None, items="float", max_items=limits.MAX_PARAMETERS,
          nullable=True),
    Field("step", "int", 0, ge=0, le=10**9),
    Field("inspect", "object", None, fields=INSPECT, nullable=True,
          description="follow one point: a point of the plane, or a data point with its "
                      "label (then the graph ends in that point's loss)"),
)
SID = (Field("sid", "str", description="the session's id"),)
STEP = SID + (
    Field("steps", "int", 1, ge=1, le=limits.MAX_STEPS_PER_REQUEST),
    Field("lr", "float", None, gt=0, le=10, nullable=True,
          description="change the learning rate first (no reset)"),
)
LR = SID + (Field("lr", "float", gt=0, le=10),)
RESET = SID + (Field("init_seed", "int", None, nullable=True, **SEED),)
WEIGHT = SID + (
    Field("name", "str", max_length=30,
          description="w<layer>.<neuron>.<input> or b<layer>.<neuron>, from 1"),
    Field("value", "float", ge=-100, le=100),
)
FOLLOW = SID + INSPECT


def _session(sessions, sid):
    try:
        return sessions.get(sid)
    except KeyError:
        raise Failure("lost", f"no playground session {clip(sid)} (it may have expired: "
                              f"sessions idle for {limits.SESSION_IDLE_SECONDS} s are "
                              "dropped, and one resting for "
                              f"{getattr(sessions, 'evict_after', 0):g} s may give its "
                              "place to a new one); create a new one with "
                              "POST /api/play", field="sid") from None


def busy(err):
    """A full store's refusal (StoreFull) as a ``busy`` Failure: ask again in 5 s."""
    return Failure("busy", str(err), retry_after=5)


def _refused(err):
    return Failure("refused", str(err))


def _state(sid, session, **kw):
    return {"sid": sid, **play_state(session, **kw)}


def create(request, sessions):
    """``POST /api/play``: a new session from a set-up (restoring a lost one's weights,
    step and followed point when given); its id and state."""
    req = read(CREATE, request)
    fields = {f.name: req[f.name] for f in CONFIG}
    try:
        sessions.room()  # before building anything: the store may be full
        restore = {k: req[k] for k in ("weights", "step") if req[k]}
        session = PlaySession(PlayConfig(**fields), **restore)
        if req["inspect"] is not None:
            point = req["inspect"]
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

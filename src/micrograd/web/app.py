"""The ``micrograd serve`` application: FastAPI routes over the walk and the playground.

    >>> from micrograd.web import create_app
    >>> app = create_app()            # run with: uvicorn, or `micrograd serve`

Routes (JSON in and out; every error is ``{"error": message}`` with a 4xx status):

    GET    /                      the page
    GET    /api/meta              presets, options, defaults and caps
    POST   /api/walk              a graph with its forward and backward steps
    POST   /api/walk/order        the visit-order experiment
    POST   /api/walk/nudge        the finite-difference slope at a leaf, beside its grad
    POST   /api/walk/check        a learner's answer to the graph's question, checked
    POST   /api/play              a new training session (returns its id and state)
    GET    /api/play/{sid}        a session's state
    POST   /api/play/{sid}/step   train some steps, return the new state
    PATCH  /api/play/{sid}        change the learning rate (no reset)
    POST   /api/play/{sid}/reset  new weights, same data
    PATCH  /api/play/{sid}/weight edit one weight or bias by name
    POST   /api/play/{sid}/inspect  follow one point: its whole graph, data and grad
    DELETE /api/play/{sid}/inspect  stop following it
    DELETE /api/play/{sid}        drop a session

All engine work runs on one engine thread in bounded turns (``web/schedule.py``): the walk
ahead of training, the playground sessions in rotation, so no tab starves another. The
guard in front of the routes (``web/guard.py``) refuses foreign hosts and origins and
bodies over the cap before any of this.
"""

from __future__ import annotations

import logging
from contextlib import asynccontextmanager
from dataclasses import asdict
from pathlib import Path

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from .. import __version__
from . import limits, schemas
from .guard import Guard, clip, cut_message
from .playground import PlayConfig, Playground, PlaygroundError
from .schedule import WALK, EngineScheduler
from .sessions import SessionStore, StoreFull
from .walkview import (FUNCTIONS, PRESETS, WalkViewError, build, check, nudge,
                       visit_order)

STATIC = Path(__file__).parent / "static"
log = logging.getLogger("micrograd.web")


class ApiError(Exception):
    def __init__(self, status, message, **extra):
        super().__init__(message)
        self.status = status
        self.message = message
        self.extra = extra


def _validation_message(err):
    parts = []
    for e in err.errors()[:5]:
        if e.get("type") == "json_invalid":
            why = str(e.get("ctx", {}).get("error", ""))[:200]
            parts.append(f"the body is not valid JSON ({why})")
            continue
        # a key of the client's body may be any length: quote a short piece of it
        loc = ".".join(str(x) if len(str(x)) <= 40 else clip(x, 40)
                       for x in e.get("loc", ()) if x != "body")
        parts.append(f"{loc or 'body'}: {str(e.get('msg', 'invalid'))[:200]}")
    return "; ".join(parts) or "invalid request"


def create_app(*, max_sessions=limits.MAX_SESSIONS,
               idle_seconds=limits.SESSION_IDLE_SECONDS,
               evict_after=limits.SESSION_EVICTABLE_SECONDS, allowed_hosts=()):
    """The FastAPI app; ``max_sessions`` / ``idle_seconds`` bound the playground sessions
    (a full store gives a resting session's place to a new one after ``evict_after`` s);
    ``allowed_hosts``: names besides the server's address and ``localhost`` that a
    request's Host may give (see ``micrograd.web.guard``)."""
    engine = EngineScheduler()

    @asynccontextmanager
    async def lifespan(app):
        yield
        engine.close()  # the server stops: so does the engine thread

    app = FastAPI(title="micrograd serve", version=__version__, lifespan=lifespan,
                  description="Walk a graph; train a network live. Every number is "
                              "computed by micrograd.")
    app.add_middleware(Guard, allowed_hosts=allowed_hosts)
    sessions = SessionStore(max_sessions=max_sessions, idle_seconds=idle_seconds,
                            evict_after=evict_after)
    app.state.sessions = sessions
    app.state.engine = engine

    # -- errors: always JSON with a message ---------------------------------------------

    @app.exception_handler(ApiError)
    async def _api_error(request, exc):
        return JSONResponse({"error": cut_message(exc.message), **exc.extra},
                            status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request, exc):
        return JSONResponse({"error": cut_message(_validation_message(exc))},
                            status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request, exc):
        msg = exc.detail if isinstance(exc.detail, str) else "request refused"
        if exc.status_code == 404 and msg == "Not Found":
            msg = f"no such route: {request.method} {clip(request.url.path)}"
        if exc.status_code == 405:
            msg = f"method {request.method} is not allowed on {clip(request.url.path)}"
        return JSONResponse({"error": cut_message(msg)}, status_code=exc.status_code)

    @app.exception_handler(Exception)
    async def _unexpected(request, exc):  # a bug: say so plainly, log the traceback
        log.exception("unexpected error on %s %s", request.method, request.url.path)
        return JSONResponse({"error": f"internal error ({type(exc).__name__}); "
                                      "this is a bug in micrograd serve"}, status_code=500)

    # -- the page -------------------------------------------------------------------------

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/", include_in_schema=False)
    def index():
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    @app.get("/api/meta", response_model=schemas.Meta)
    def meta():
        from ..experiment import Experiment
        from ..walk_setup import WalkSetup
        from .playground import (ACTIVATIONS, DATASETS, FEATURES, LOSSES, OPTIMIZERS,
                                 play_limits)

        return {"version": __version__,
                "walk_presets": [{"key": p.key, "title": p.title, "expr": p.source}
                                 for p in PRESETS.values()],
                "functions": list(FUNCTIONS), "datasets": list(DATASETS),
                "features": list(FEATURES),
                "regression": [k for k, v in DATASETS.items() if v[1] == "regression"],
                "activations": ACTIVATIONS, "losses": list(LOSSES),
                "optimizers": OPTIMIZERS, "play_defaults": asdict(PlayConfig()),
                "limits": limits.as_dict(), "play_limits": play_limits(),
                "experiment": Experiment.spec(), "walk": WalkSetup.spec()}

    # -- the walk -------------------------------------------------------------------------

    def _source(spec):
        for name in spec.values:  # refused by length before any message quotes it
            if len(name) > limits.MAX_NAME_CHARS:
                raise ApiError(422, f"values: a leaf name of {len(name)} characters "
                                    f"({clip(name, 20)}); names are at most "
                                    f"{limits.MAX_NAME_CHARS}")
        if (spec.preset is None) == (spec.expr is None):
            raise ApiError(422, "give either 'preset' or 'expr' (exactly one)")
        if spec.preset is not None:
            if spec.preset not in PRESETS:
                raise ApiError(404, f"unknown preset {spec.preset!r}; presets: "
                                    f"{', '.join(PRESETS)}")
            p = PRESETS[spec.preset]
            return p.source, p.title, p
        return spec.expr, "", None

    async def _walk_call(fn, *args, **kwargs):
        try:
            return await engine.call(WALK, fn, *args, **kwargs)
        except WalkViewError as err:
            extra = {"free": err.free} if err.free is not None else {}
            raise ApiError(400, str(err), **extra) from None

    @app.post("/api/walk", response_model=schemas.WalkResponse,
              responses={400: {"model": schemas.ErrorResponse}})
    async def walk(req: schemas.WalkRequest):
        source, title, preset = _source(req)
        return await _walk_call(build, source, req.values, assign=req.assign,
                                recursive=req.recursive, no_zero_grad=req.no_zero_grad,
                                title=title, preset=preset, ask=req.ask, of=req.of)

    @app.post("/api/walk/check", response_model=schemas.CheckResponse,
              responses={400: {"model": schemas.ErrorResponse}})
    async def walk_check(req: schemas.CheckRequest):
        source, _, preset = _source(req)
        return await _walk_call(check, source, req.answer, req.values, preset=preset,
                                ask=req.ask, of=req.of)

    @app.post("/api/walk/order", response_model=schemas.OrderResponse,
              responses={400: {"model": schemas.ErrorResponse}})
    async def walk_order(req: schemas.OrderRequest):
        source, _, _ = _source(req)
        return await _walk_call(visit_order, source, req.order, req.values)

    @app.post("/api/walk/nudge", response_model=schemas.NudgeResponse,
              responses={400: {"model": schemas.ErrorResponse}})
    async def walk_nudge(req: schemas.NudgeRequest):
        source, _, _ = _source(req)
        return await _walk_call(nudge, source, req.leaf, req.h, req.values)

    # -- the playground -------------------------------------------------------------------
    # Each turn on the engine is bounded (see web/schedule.py): a request for n steps
    # takes n one-step turns, then one turn to record the metrics and draw the state;
    # other tabs' turns come in between.

    def _session(sid):
        try:
            return sessions.get(sid)
        except KeyError:
            raise ApiError(404, f"no playground session {clip(sid)} (it may have expired: "
                                "sessions idle for "
                                f"{limits.SESSION_IDLE_SECONDS} s are dropped, and one "
                                f"resting for {sessions.evict_after:g} s may give its "
                                "place to a new one); create a new one with "
                                "POST /api/play") from None

    def _state(sid, pg, **kw):
        return {"sid": sid, **pg.state(**kw)}

    def _busy(err):
        return JSONResponse({"error": str(err)}, status_code=503,
                            headers={"Retry-After": "5"})

    async def _play_call(lane, fn, *args):
        """One turn of ``lane`` on the engine; a PlaygroundError is a 400."""
        try:
            return await engine.call(lane, fn, *args)
        except PlaygroundError as err:
            raise ApiError(400, str(err)) from None

    @app.post("/api/play", response_model=schemas.PlayState,
              responses={400: {"model": schemas.ErrorResponse},
                         503: {"model": schemas.ErrorResponse}})
    async def play_create(req: schemas.PlayCreate):
        fields = req.model_dump(exclude={"weights", "step", "inspect"})

        def build_session():
            sessions.room()  # again: the store may have filled while this one waited
            restore = {k: v for k, v in (("weights", req.weights), ("step", req.step)) if v}
            pg = Playground(PlayConfig(**fields), **restore)
            if req.inspect is not None:
                pg.set_inspect(req.inspect.x, req.inspect.y, req.inspect.label)
            sid = sessions.create(pg)
            return _state(sid, pg, points=True, graph_layout=True)

        try:
            sessions.room()  # refuse before building anything
            return await _play_call(object(), build_session)  # a lane of its own
        except StoreFull as err:
            return _busy(err)

    @app.get("/api/play/{sid}", response_model=schemas.PlayState)
    async def play_get(sid: str):
        pg = _session(sid)
        return await engine.call(sid, _state, sid, pg, points=True, graph_layout=True)

    @app.post("/api/play/{sid}/step", response_model=schemas.PlayState)
    async def play_step(sid: str, req: schemas.StepRequest):
        pg = _session(sid)

        def stepping():  # one turn a step, then one to record and draw
            if req.lr is not None:
                pg.set_lr(req.lr)
            for _ in range(req.steps):
                pg.train(1, record=False)
                yield
            pg.train(0)  # no step: record the metrics after the steps above
            return _state(sid, pg, history="last")

        return await engine.run(sid, stepping())

    @app.patch("/api/play/{sid}", response_model=schemas.LrResponse)
    async def play_set_lr(sid: str, req: schemas.LrRequest):
        pg = _session(sid)
        await engine.call(sid, pg.set_lr, req.lr)
        return {"sid": sid, "lr": pg.opt.lr}

    @app.post("/api/play/{sid}/reset", response_model=schemas.PlayState)
    async def play_reset(sid: str, req: schemas.ResetRequest):
        pg = _session(sid)

        def reset():
            pg.reset(req.init_seed)
            return _state(sid, pg, points=True, graph_layout=True)

        return await engine.call(sid, reset)

    @app.patch("/api/play/{sid}/weight", response_model=schemas.PlayState,
               responses={400: {"model": schemas.ErrorResponse}})
    async def play_set_weight(sid: str, req: schemas.WeightRequest):
        pg = _session(sid)

        def edit():
            pg.set_weight(req.name, req.value)
            return _state(sid, pg, history="last")
        return await _play_call(sid, edit)

    @app.post("/api/play/{sid}/inspect", response_model=schemas.PlayState,
              responses={400: {"model": schemas.ErrorResponse}})
    async def play_inspect(sid: str, req: schemas.InspectRequest):
        pg = _session(sid)

        def follow():
            pg.set_inspect(req.x, req.y, req.label)
            return _state(sid, pg, history="last", graph_layout=True)
        return await _play_call(sid, follow)

    @app.delete("/api/play/{sid}/inspect", response_model=schemas.PlayState)
    async def play_inspect_stop(sid: str):
        pg = _session(sid)

        def stop():
            pg.inspect = None
            return _state(sid, pg, history="last")
        return await engine.call(sid, stop)

    @app.delete("/api/play/{sid}", response_model=schemas.Deleted)
    def play_delete(sid: str):
        if not sessions.delete(sid):
            _session(sid)  # raises the 404 with its message
        return {"deleted": True}

    return app

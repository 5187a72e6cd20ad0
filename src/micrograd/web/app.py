"""The ``micrograd serve`` application: FastAPI routes over the walk and the playground.

    >>> from micrograd.web import create_app
    >>> app = create_app()            # run with: uvicorn, or `micrograd serve`

Routes (JSON in and out; every error is ``{"error": message}`` with a 4xx status):

    GET    /                      the page
    GET    /api/meta              presets, options, defaults and caps
    POST   /api/walk              a graph with its forward and backward steps
    POST   /api/walk/order        the visit-order experiment
    POST   /api/walk/nudge        the finite-difference slope at a leaf, beside its grad
    POST   /api/play              a new training session (returns its id and state)
    GET    /api/play/{sid}        a session's state
    POST   /api/play/{sid}/step   train some steps, return the new state
    PATCH  /api/play/{sid}        change the learning rate (no reset)
    POST   /api/play/{sid}/reset  new weights, same data
    PATCH  /api/play/{sid}/weight edit one weight or bias by name
    POST   /api/play/{sid}/inspect  follow one point: its whole graph, data and grad
    DELETE /api/play/{sid}/inspect  stop following it
    DELETE /api/play/{sid}        drop a session

The engine's modes (``no_grad``) are process-wide, so all engine work runs under one lock;
on a 2-core machine with the GIL this costs nothing and keeps concurrent tabs correct.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import asdict
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from .. import __version__
from . import limits, schemas
from .playground import Playground, PlayConfig, PlaygroundError
from .sessions import SessionStore
from .walkview import FUNCTIONS, PRESETS, WalkViewError, build, nudge, visit_order

STATIC = Path(__file__).parent / "static"
log = logging.getLogger("micrograd.web")


class ApiError(Exception):
    def __init__(self, status, message):
        super().__init__(message)
        self.status = status
        self.message = message


def _validation_message(err):
    parts = []
    for e in err.errors()[:5]:
        if e.get("type") == "json_invalid":
            parts.append(f"the body is not valid JSON ({e.get('ctx', {}).get('error', '')})")
            continue
        loc = ".".join(str(x) for x in e.get("loc", ()) if x != "body")
        parts.append(f"{loc or 'body'}: {e.get('msg', 'invalid')}")
    return "; ".join(parts) or "invalid request"


def create_app(*, max_sessions=limits.MAX_SESSIONS,
               idle_seconds=limits.SESSION_IDLE_SECONDS):
    """The FastAPI app; ``max_sessions`` / ``idle_seconds`` bound the playground sessions."""
    app = FastAPI(title="micrograd serve", version=__version__,
                  description="Walk a graph; train a network live. Every number is "
                              "computed by micrograd.")
    engine_lock = threading.Lock()
    sessions = SessionStore(max_sessions=max_sessions, idle_seconds=idle_seconds)
    app.state.sessions = sessions

    # -- errors: always JSON with a message ---------------------------------------------

    @app.exception_handler(ApiError)
    async def _api_error(request, exc):
        return JSONResponse({"error": exc.message}, status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request, exc):
        return JSONResponse({"error": _validation_message(exc)}, status_code=422)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request, exc):
        msg = exc.detail if isinstance(exc.detail, str) else "request refused"
        if exc.status_code == 404 and msg == "Not Found":
            msg = f"no such route: {request.method} {request.url.path}"
        if exc.status_code == 405:
            msg = f"method {request.method} is not allowed on {request.url.path}"
        return JSONResponse({"error": msg}, status_code=exc.status_code)

    @app.exception_handler(Exception)
    async def _unexpected(request, exc):  # a bug: say so plainly, log the traceback
        log.exception("unexpected error on %s %s", request.method, request.url.path)
        return JSONResponse({"error": f"internal error ({type(exc).__name__}); "
                                      "this is a bug in micrograd serve"}, status_code=500)

    @app.middleware("http")
    async def _cap_body(request: Request, call_next):
        size = request.headers.get("content-length")
        if size is not None:
            if not size.isdigit():
                return JSONResponse({"error": "invalid Content-Length"}, status_code=400)
            if int(size) > limits.MAX_BODY_BYTES:
                return JSONResponse({"error": f"request body of {size} bytes; the cap is "
                                              f"{limits.MAX_BODY_BYTES}"}, status_code=413)
        return await call_next(request)

    # -- the page -------------------------------------------------------------------------

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/", include_in_schema=False)
    def index():
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})

    @app.get("/api/meta", response_model=schemas.Meta)
    def meta():
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
                "limits": limits.as_dict(), "play_limits": play_limits()}

    # -- the walk -------------------------------------------------------------------------

    def _source(spec):
        if (spec.preset is None) == (spec.expr is None):
            raise ApiError(422, "give either 'preset' or 'expr' (exactly one)")
        if spec.preset is not None:
            if spec.preset not in PRESETS:
                raise ApiError(404, f"unknown preset {spec.preset!r}; presets: "
                                    f"{', '.join(PRESETS)}")
            return PRESETS[spec.preset].source, PRESETS[spec.preset].title
        return spec.expr, ""

    def _walk_call(fn, *args, **kwargs):
        try:
            with engine_lock:
                return fn(*args, **kwargs)
        except WalkViewError as err:
            raise ApiError(400, str(err)) from None

    @app.post("/api/walk", response_model=schemas.WalkResponse,
              responses={400: {"model": schemas.ErrorResponse}})
    def walk(req: schemas.WalkRequest):
        source, title = _source(req)
        return _walk_call(build, source, req.values, assign=req.assign,
                          recursive=req.recursive, no_zero_grad=req.no_zero_grad, title=title)

    @app.post("/api/walk/order", response_model=schemas.OrderResponse,
              responses={400: {"model": schemas.ErrorResponse}})
    def walk_order(req: schemas.OrderRequest):
        source, _ = _source(req)
        return _walk_call(visit_order, source, req.order, req.values)

    @app.post("/api/walk/nudge", response_model=schemas.NudgeResponse,
              responses={400: {"model": schemas.ErrorResponse}})
    def walk_nudge(req: schemas.NudgeRequest):
        source, _ = _source(req)
        return _walk_call(nudge, source, req.leaf, req.h, req.values)

    # -- the playground -------------------------------------------------------------------

    def _session(sid):
        try:
            return sessions.get(sid)
        except KeyError:
            raise ApiError(404, f"no playground session {sid!r} (it may have expired: "
                                "sessions idle for "
                                f"{limits.SESSION_IDLE_SECONDS} s or beyond the "
                                f"{sessions.max_sessions} most recent are dropped); "
                                "create a new one with POST /api/play") from None

    def _state(sid, pg, **kw):
        return {"sid": sid, **pg.state(**kw)}

    def _play_call(fn, *args):
        try:
            with engine_lock:
                return fn(*args)
        except PlaygroundError as err:
            raise ApiError(400, str(err)) from None

    @app.post("/api/play", response_model=schemas.PlayState,
              responses={400: {"model": schemas.ErrorResponse}})
    def play_create(req: schemas.PlayCreate):
        fields = req.model_dump(exclude={"weights", "step", "inspect"})

        def make():
            pg = Playground(PlayConfig(**fields), weights=req.weights, step=req.step)
            if req.inspect is not None:
                pg.set_inspect(req.inspect.x, req.inspect.y, req.inspect.label)
            sid = sessions.create(pg)
            return _state(sid, pg, points=True, graph_layout=True)
        return _play_call(make)

    @app.get("/api/play/{sid}", response_model=schemas.PlayState)
    def play_get(sid: str):
        pg = _session(sid)
        with engine_lock:
            return _state(sid, pg, points=True, graph_layout=True)

    @app.post("/api/play/{sid}/step", response_model=schemas.PlayState)
    def play_step(sid: str, req: schemas.StepRequest):
        pg = _session(sid)
        with engine_lock:
            if req.lr is not None:
                pg.set_lr(req.lr)
            pg.train(req.steps)
            return _state(sid, pg, history="last")

    @app.patch("/api/play/{sid}", response_model=schemas.LrResponse)
    def play_set_lr(sid: str, req: schemas.LrRequest):
        pg = _session(sid)
        with engine_lock:
            pg.set_lr(req.lr)
        return {"sid": sid, "lr": pg.opt.lr}

    @app.post("/api/play/{sid}/reset", response_model=schemas.PlayState)
    def play_reset(sid: str, req: schemas.ResetRequest):
        pg = _session(sid)
        with engine_lock:
            pg.reset(req.init_seed)
            return _state(sid, pg, points=True, graph_layout=True)

    @app.patch("/api/play/{sid}/weight", response_model=schemas.PlayState,
               responses={400: {"model": schemas.ErrorResponse}})
    def play_set_weight(sid: str, req: schemas.WeightRequest):
        pg = _session(sid)

        def edit():
            pg.set_weight(req.name, req.value)
            return _state(sid, pg, history="last")
        return _play_call(edit)

    @app.post("/api/play/{sid}/inspect", response_model=schemas.PlayState,
              responses={400: {"model": schemas.ErrorResponse}})
    def play_inspect(sid: str, req: schemas.InspectRequest):
        pg = _session(sid)

        def follow():
            pg.set_inspect(req.x, req.y, req.label)
            return _state(sid, pg, history="last", graph_layout=True)
        return _play_call(follow)

    @app.delete("/api/play/{sid}/inspect", response_model=schemas.PlayState)
    def play_inspect_stop(sid: str):
        pg = _session(sid)
        with engine_lock:
            pg.inspect = None
            return _state(sid, pg, history="last")

    @app.delete("/api/play/{sid}", response_model=schemas.Deleted)
    def play_delete(sid: str):
        if not sessions.delete(sid):
            _session(sid)  # raises the 404 with its message
        return {"deleted": True}

    return app

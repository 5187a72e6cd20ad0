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
        return JSONResponse({"error": exc.message, **exc.extra}, status_code=exc.status)

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
        from .playground import ACTIVATIONS, DATASETS, LOSSES, OPTIMIZERS

        return {"version": __version__,
                "walk_presets": [{"key": p.key, "title": p.title, "expr": p.source}
                                 for p in PRESETS.values()],
                "functions": list(FUNCTIONS), "datasets": list(DATASETS),
                "activations": ACTIVATIONS, "losses": list(LOSSES),
                "optimizers": OPTIMIZERS, "play_defaults": asdict(PlayConfig()),
                "limits": limits.as_dict()}

    # -- the walk -------------------------------------------------------------------------

    def _source(spec):
        if (spec.preset is None) == (spec.expr is None):
            raise ApiError(422, "give either 'preset' or 'expr' (exactly one)")
        if spec.preset is not None:
            if spec.preset not in PRESETS:
                raise ApiError(404, f"unknown preset {spec.preset!r}; presets: "
                                    f"{', '.join(PRESETS)}")
            p = PRESETS[spec.preset]
            return p.source, p.title, p
        return spec.expr, "", None

    def _walk_call(fn, *args, **kwargs):
        try:
            with engine_lock:
                return fn(*args, **kwargs)
        except WalkViewError as err:
            extra = {"free": err.free} if err.free is not None else {}
            raise ApiError(400, str(err), **extra) from None

    @app.post("/api/walk", response_model=schemas.WalkResponse,
              responses={400: {"model": schemas.ErrorResponse}})
    def walk(req: schemas.WalkRequest):
        source, title, preset = _source(req)
        return _walk_call(build, source, req.values, assign=req.assign,
                          recursive=req.recursive, no_zero_grad=req.no_zero_grad, title=title,
                          preset=preset, ask=req.ask, of=req.of)

    @app.post("/api/walk/check", response_model=schemas.CheckResponse,
              responses={400: {"model": schemas.ErrorResponse}})
    def walk_check(req: schemas.CheckRequest):
        source, _, preset = _source(req)
        return _walk_call(check, source, req.answer, req.values, preset=preset, ask=req.ask,
                          of=req.of)

    @app.post("/api/walk/order", response_model=schemas.OrderResponse,
              responses={400: {"model": schemas.ErrorResponse}})
    def walk_order(req: schemas.OrderRequest):
        source, _, _ = _source(req)
        return _walk_call(visit_order, source, req.order, req.values)

    @app.post("/api/walk/nudge", response_model=schemas.NudgeResponse,
              responses={400: {"model": schemas.ErrorResponse}})
    def walk_nudge(req: schemas.NudgeRequest):
        source, _, _ = _source(req)
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

    @app.post("/api/play", response_model=schemas.PlayState,
              responses={400: {"model": schemas.ErrorResponse}})
    def play_create(cfg: schemas.PlayConfigIn):
        try:
            with engine_lock:
                pg = Playground(PlayConfig(**cfg.model_dump()))
                sid = sessions.create(pg)
                return _state(sid, pg, points=True)
        except PlaygroundError as err:
            raise ApiError(400, str(err)) from None

    @app.get("/api/play/{sid}", response_model=schemas.PlayState)
    def play_get(sid: str):
        pg = _session(sid)
        with engine_lock:
            return _state(sid, pg, points=True)

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
            return _state(sid, pg, points=True)

    @app.delete("/api/play/{sid}", response_model=schemas.Deleted)
    def play_delete(sid: str):
        if not sessions.delete(sid):
            _session(sid)  # raises the 404 with its message
        return {"deleted": True}

    return app

"""The ``micrograd serve`` application: the guard, the routers, the turns, the sessions.

    >>> from micrograd.web import create_app
    >>> app = create_app()            # run with: uvicorn, or `micrograd serve`

Routes (JSON in and out; every error is ``{"error": message}`` with a 4xx status):

    GET    /                      the page
    GET    /api/meta              presets, options, defaults and caps
    POST   /api/walk              a graph with its forward and backward steps
    POST   /api/walk/order        the visit-order experiment
    POST   /api/walk/nudge        the finite-difference slope at a leaf, beside its grad
    POST   /api/walk/check        a learner's answer to the graph's question, checked
    GET    /api/mistakes          the gallery of classic mistakes (not run)
    GET    /api/mistakes/{key}    one mistake, its learner's code run now
    POST   /api/play              a new training session (returns its id and state)
    GET    /api/play/{sid}        a session's state
    POST   /api/play/{sid}/step   train some steps, return the new state
    PATCH  /api/play/{sid}        change the learning rate (no reset)
    POST   /api/play/{sid}/reset  new weights, same data
    PATCH  /api/play/{sid}/weight edit one weight or bias by name
    POST   /api/play/{sid}/inspect  follow one point: its whole graph, data and grad
    DELETE /api/play/{sid}/inspect  stop following it
    DELETE /api/play/{sid}        drop a session
    POST   /api/gpt               a new run of microgpt's GPT on the packaged names
    POST   /api/gpt/{sid}/step    train some steps: their losses, the mean, steps/s
    POST   /api/gpt/{sid}/sample  names drawn at a temperature (new ones marked)
    POST   /api/gpt/{sid}/attention  each head's attention over a name (or a sampled one)
    DELETE /api/gpt/{sid}         drop a GPT run
    GET    /api/debug/turns       the waits for turns (only with timing=True: --timing)
    DELETE /api/debug/turns       start that log afresh

Every answer carries the headers of ``web/server/headers.py`` (nothing from another host,
framed only by this server's pages); ``/openapi.json`` describes the routes (no ``/docs``
page: its viewer would load scripts from another host).

How a request flows: the guard (``web/server/guard.py``) refuses foreign hosts and
origins and bodies over the cap; the route (``web/routers/``) reads the body through its
schema (``web/schemas/``) and hands it, as plain data, to its handler's job
(``web/handlers/``); the job runs in bounded turns (``web/server/schedule.py``: the
walk on a work thread of its own, the sessions in rotation on another); its
outcome becomes the JSON answer or the error's status (``web/routers/answers.py``).
"""

from __future__ import annotations

import asyncio
import logging
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from .. import __version__
from . import limits
from .handlers.errors import clip, cut_message
from .routers import gpt, mistakes, page, play, walk
from .routers.page import STATIC
from .server.guard import Guard
from .server.headers import SecurityHeaders
from .server.lanes import MIN_CHARGE
from .server.schedule import JOIN_SECONDS, TurnScheduler
from .server.sessions import SessionStore
from .server.timing import ServerTiming, TurnLog
from .server.timing import router as timing_router

log = logging.getLogger("micrograd.web")


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


def _json_errors(app):
    """Every refusal FastAPI or Starlette makes is JSON with a message, as ours are."""

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


def create_app(*, max_sessions=limits.MAX_SESSIONS,
               idle_seconds=limits.SESSION_IDLE_SECONDS,
               evict_after=limits.SESSION_EVICTABLE_SECONDS, allowed_hosts=(),
               timing=False, min_charge=MIN_CHARGE,
               max_gpt_sessions=limits.MAX_GPT_SESSIONS):
    """The FastAPI app; ``max_sessions`` / ``idle_seconds`` bound the playground sessions
    (a full store gives a resting session's place to a new one after ``evict_after`` s);
    ``allowed_hosts``: names besides the server's address and ``localhost`` that a
    request's Host may give (see ``micrograd.web.server.guard``); ``timing``: report
    each request's wait for its turn (``micrograd.web.server.timing``); ``min_charge``:
    the least CPU time a turn is charged (``web/server/lanes.py``; one above any turn's
    makes every turn cost alike: the lanes then take turns in rotation);
    ``max_gpt_sessions``: the GPT tab's sessions at once (within ``max_sessions``)."""
    log = TurnLog() if timing else None
    turns = TurnScheduler(log=log, min_charge=min_charge)

    @asynccontextmanager
    async def lifespan(app):
        yield
        # the server stops: the jobs still waiting are answered (the server is shutting
        # down), the work threads close what is left of them and end
        turns.close()
        await asyncio.to_thread(turns.join, JOIN_SECONDS)

    app = FastAPI(title="micrograd serve", version=__version__, lifespan=lifespan,
                  docs_url=None, redoc_url=None,  # their viewers load from a CDN
                  description="Walk a graph; train a network live. Every number is "
                              "computed by micrograd.")
    if timing:
        app.add_middleware(ServerTiming)
    app.add_middleware(Guard, allowed_hosts=allowed_hosts)
    app.add_middleware(SecurityHeaders)  # the outermost: the guard's refusals get them too
    app.state.turns = turns
    app.state.sessions = SessionStore(max_sessions=max_sessions, idle_seconds=idle_seconds,
                                      evict_after=evict_after,
                                      caps={"gpt": max_gpt_sessions})
    _json_errors(app)
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    for feature in (page, walk, play, mistakes, gpt):
        app.include_router(feature.router)
    if timing:
        app.include_router(timing_router(log))
    return app

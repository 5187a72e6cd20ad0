"""Outcomes of the handlers' jobs as HTTP answers: the answer as JSON, an error kind as
its status (``{"error": message}``, plus ``field`` naming the refused field where the
handler knows it, and ``free`` for the walk's missing values); and the lane each
request's job runs in.

A page's requests share one lane (``web/server/schedule.py``: in the order they came,
the lanes sharing the training thread by CPU time), whatever they ask for: its
session's steps, a new session, a CSV file read, the gallery's runs. The page is named
by the token the served page sends with every request (``X-Micrograd-Page``: a random
id made once per page load, ``static/client.js``). A request without one (curl, a
script) is in its session's lane on a session's route, else in its connection's
(client address and port): one client's requests on a kept-alive connection share a
lane, and its charge, while a client that opens a connection for each request gets a
new lane each time, which starts at the scheduler's clock, never ahead of the lanes
waiting. Not the address alone: on loopback every client has 127.0.0.1, and every
script would share one lane and wait for each other's requests in order. The walk's
jobs run on a thread of their own; their page (the same token, or the connection)
counts its walks in turns.
"""

from __future__ import annotations

import re

from fastapi import Request
from fastapi.responses import JSONResponse

from ..handlers import dispatch
from ..handlers.errors import Failure, cut_message
from ..server.schedule import WALK, Busy, SchedulerClosed, TurnNote
from ..server.timing import ARRIVAL, NOTE

#: an error kind -> its HTTP status
STATUS = {"invalid": 422, "refused": 400, "not_found": 404, "lost": 404, "busy": 503,
          "unavailable": 503}
#: seconds a client is told to wait before it asks a server shutting down again (the
#: page then finds it back, restarted, or finds it down and says so)
CLOSED_RETRY = 2

#: the lane of a route whose work is its page's, not a session's (a new session, a CSV
#: file read, the gallery): the page's lane (a marker no session's id can equal)
PAGE = object()
#: the header that names the page a request comes from, and what a page's token is
PAGE_HEADER = "x-micrograd-page"
_TOKEN = re.compile(r"[A-Za-z0-9_-]{8,64}")

__all__ = ["STATUS", "WALK", "PAGE", "PAGE_HEADER", "respond", "answer", "route_name",
           "sent", "page_of", "lane_of"]


def sent(body):
    """The fields the client sent, as plain data: the handler fills in the defaults
    (so an older name such as optimizer 'momentum' can set the fields it implies)."""
    return body.model_dump(exclude_unset=True)


def respond(outcome):
    """The answer itself (FastAPI sends it through the route's response model), or a
    JSONResponse with the error's status."""
    if outcome["ok"]:
        return outcome["answer"]
    err = outcome["error"]
    body = {"error": cut_message(err["message"])}
    for key in ("field", "free"):  # the refused field, the walk's missing values
        if err.get(key) is not None:
            body[key] = err[key]
    headers = {"Retry-After": str(err["retry_after"])} if "retry_after" in err else None
    return JSONResponse(body, status_code=STATUS[err["kind"]], headers=headers)


def route_name(http: Request):
    """The name of the route a request came by (the ``name`` of its decorator): the key of
    ``handlers.ROUTES`` that answers it, the name the page's client calls it by."""
    return http.scope["route"].name


def page_of(http: Request):
    """The page a request comes from: ``("page", token)`` when it sends a well-formed
    token, else ``("connection", address, port)`` (a request with no client address,
    which a real server always gives: a lane of its own)."""
    token = http.headers.get(PAGE_HEADER)
    if token is not None and _TOKEN.fullmatch(token):
        return "page", token
    client = http.scope.get("client")
    return ("connection", *client) if client else ("request", object())


def lane_of(page, lane):
    """The lane of a request from ``page`` (:func:`page_of`) on a route of ``lane``
    (:data:`WALK`, :data:`PAGE` or a session's id): the walk's for the walk's routes,
    the page's for the others, except that a session's route without a page's token
    is in that session's own lane."""
    if lane == WALK:
        return WALK
    if page[0] != "page" and lane is not PAGE:
        return lane
    return page


async def answer(http: Request, lane, request):
    """Run the job of the request's route (its name: :func:`route_name`) on ``request``
    (plain data) in its lane's turns (:func:`lane_of`: ``lane`` is :data:`WALK`,
    :data:`PAGE` or a session's id); its TurnNote (the wait, the turns) goes in the
    request's state for ``--timing``."""
    route = route_name(http)
    state = http.app.state
    scope_state = http.scope.setdefault("state", {})
    note = TurnNote(route, arrival=scope_state.get(ARRIVAL))
    scope_state[NOTE] = note
    job, page = dispatch(route, request, state.sessions), page_of(http)
    try:
        outcome = await state.turns.run(lane_of(page, lane), job, note, page)
    except SchedulerClosed as closed:  # the server is shutting down: an error as data
        outcome = {"ok": False, "error": Failure("unavailable", str(closed),
                                                 retry_after=CLOSED_RETRY).data()}
    except Busy as busy:  # too many walks in turns: ask again shortly
        outcome = {"ok": False, "error": Failure("busy", str(busy),
                                                 retry_after=busy.retry_after).data()}
    return respond(outcome)

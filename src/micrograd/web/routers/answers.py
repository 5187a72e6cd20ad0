"""Outcomes of the handlers' jobs as HTTP answers: the answer as JSON, an error kind as
its status (``{"error": message}``, plus ``field`` naming the refused field where the
handler knows it, and ``free`` for the walk's missing values)."""

from __future__ import annotations

from fastapi import Request
from fastapi.responses import JSONResponse

from ..handlers import dispatch
from ..handlers.errors import Failure, cut_message
from ..server.schedule import WALK, SchedulerClosed, TurnNote
from ..server.timing import ARRIVAL, NOTE

#: an error kind -> its HTTP status
STATUS = {"invalid": 422, "refused": 400, "not_found": 404, "lost": 404, "busy": 503,
          "unavailable": 503}
#: seconds a client is told to wait before it asks a server shutting down again (the
#: page then finds it back, restarted, or finds it down and says so)
CLOSED_RETRY = 2

__all__ = ["STATUS", "WALK", "respond", "answer", "route_name", "sent"]


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


async def answer(http: Request, lane, request):
    """Run the job of the request's route (its name: :func:`route_name`) on ``request``
    (plain data) in ``lane``'s turns; its TurnNote (the wait, the turns) goes in the
    request's state for ``--timing``."""
    route = route_name(http)
    state = http.app.state
    scope_state = http.scope.setdefault("state", {})
    note = TurnNote(route, arrival=scope_state.get(ARRIVAL))
    scope_state[NOTE] = note
    try:
        outcome = await state.turns.run(lane, dispatch(route, request, state.sessions), note)
    except SchedulerClosed as closed:  # the server is shutting down: an error as data
        outcome = {"ok": False, "error": Failure("unavailable", str(closed),
                                                 retry_after=CLOSED_RETRY).data()}
    return respond(outcome)

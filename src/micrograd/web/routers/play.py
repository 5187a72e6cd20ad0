"""The Playground's routes: ``/api/play`` and ``/api/play/{sid}...``; besides them, what a
change of a set-up implies (``/api/play/change``) and a CSV file read (``/api/play/csv``).

A page's requests run in its lane, in the order they came (a session's requests
without a page's token in the session's own: ``answers.lane_of``); the lanes share the
training thread by CPU time (``web/server/schedule.py``): a request for n steps is n
one-step turns, then one turn to record the metrics and draw the state, with other
pages' turns in between.
"""

from __future__ import annotations

from fastapi import APIRouter, Request

from .. import schemas
from ..handlers import play as handlers
from ..handlers.errors import StoreFull
from .answers import PAGE, answer, respond, sent

ERRORS = {400: {"model": schemas.ErrorResponse}, 404: {"model": schemas.ErrorResponse}}

router = APIRouter(prefix="/api/play", tags=["playground"], responses=ERRORS)


@router.post("", name="play.create", response_model=schemas.PlayState,
             responses={503: {"model": schemas.ErrorResponse}})
async def play_create(req: schemas.PlayCreate, http: Request):
    try:
        http.app.state.sessions.room()  # refuse at once, before waiting for a turn
    except StoreFull as err:
        return respond({"ok": False, "error": handlers.busy(err).data()})
    return await answer(http, PAGE, sent(req))  # the page's lane


@router.post("/change", name="play.change", response_model=schemas.ChangeAnswer)
async def play_change(req: schemas.ChangeRequest, http: Request):
    return await answer(http, PAGE, sent(req))  # no session: the page's lane


@router.post("/csv", name="play.csv.read", response_model=schemas.CsvPoints)
async def play_csv_read(req: schemas.CsvReadRequest, http: Request):
    return await answer(http, PAGE, sent(req))  # no session: the page's lane


@router.get("/{sid}/csv", name="play.csv.write", response_model=schemas.CsvText)
async def play_csv_write(sid: str, http: Request):
    return await answer(http, sid, {"sid": sid})


@router.get("/{sid}", name="play.get", response_model=schemas.PlayState)
async def play_get(sid: str, http: Request):
    return await answer(http, sid, {"sid": sid})


@router.post("/{sid}/step", name="play.step", response_model=schemas.PlayState)
async def play_step(sid: str, req: schemas.StepRequest, http: Request):
    return await answer(http, sid, {"sid": sid, **sent(req)})


@router.patch("/{sid}", name="play.lr", response_model=schemas.LrResponse)
async def play_set_lr(sid: str, req: schemas.LrRequest, http: Request):
    return await answer(http, sid, {"sid": sid, **sent(req)})


@router.post("/{sid}/reset", name="play.reset", response_model=schemas.PlayState)
async def play_reset(sid: str, req: schemas.ResetRequest, http: Request):
    return await answer(http, sid, {"sid": sid, **sent(req)})


@router.patch("/{sid}/weight", name="play.weight", response_model=schemas.PlayState)
async def play_set_weight(sid: str, req: schemas.WeightRequest, http: Request):
    return await answer(http, sid, {"sid": sid, **sent(req)})


@router.post("/{sid}/inspect", name="play.inspect", response_model=schemas.PlayState)
async def play_inspect(sid: str, req: schemas.InspectRequest, http: Request):
    return await answer(http, sid, {"sid": sid, **sent(req)})


@router.delete("/{sid}/inspect", name="play.inspect.stop", response_model=schemas.PlayState)
async def play_inspect_stop(sid: str, http: Request):
    return await answer(http, sid, {"sid": sid})


@router.delete("/{sid}", name="play.delete", response_model=schemas.Deleted)
async def play_delete(sid: str, http: Request):
    return await answer(http, sid, {"sid": sid})

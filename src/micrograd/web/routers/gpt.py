"""The GPT tab's routes: ``/api/gpt`` and ``/api/gpt/{sid}...``.

As the Playground's: a page's requests run in its lane (``answers.lane_of``), a request
for n steps is n one-step turns with other pages' turns in between
(``web/server/schedule.py``). A new run is refused at once (503, busy) when every GPT
place is taken (``limits.MAX_GPT_SESSIONS``, counted apart from the Playground's).
"""

from __future__ import annotations

from fastapi import APIRouter, Request

from .. import schemas
from ..handlers import gpt as handlers
from ..handlers.errors import Failure, StoreFull
from ..schemas import gpt as models
from .answers import PAGE, answer, respond, sent

ERRORS = {400: {"model": schemas.ErrorResponse}, 404: {"model": schemas.ErrorResponse}}

router = APIRouter(prefix="/api/gpt", tags=["gpt"], responses=ERRORS)


@router.post("", name="gpt.create", response_model=models.GptRun,
             responses={503: {"model": schemas.ErrorResponse}})
async def gpt_create(req: models.GptCreate, http: Request):
    try:
        if req.replace is None:  # (a run replaced gives its place)
            http.app.state.sessions.room(handlers.KIND)  # at once, before a turn's wait
    except StoreFull as err:
        return respond({"ok": False, "error": Failure("busy", str(err),
                                                      retry_after=5).data()})
    return await answer(http, PAGE, sent(req))  # the page's lane


@router.post("/{sid}/step", name="gpt.step", response_model=models.GptSteps)
async def gpt_step(sid: str, req: models.GptStepRequest, http: Request):
    return await answer(http, sid, {"sid": sid, **sent(req)})


@router.post("/{sid}/sample", name="gpt.sample", response_model=models.GptSamples)
async def gpt_sample(sid: str, req: models.GptSampleRequest, http: Request):
    return await answer(http, sid, {"sid": sid, **sent(req)})


@router.post("/{sid}/attention", name="gpt.attention", response_model=models.GptAttention)
async def gpt_attention(sid: str, req: models.GptAttentionRequest, http: Request):
    return await answer(http, sid, {"sid": sid, **sent(req)})


@router.post("/{sid}/walk", name="gpt.walk", response_model=models.GptWalk)
async def gpt_walk(sid: str, req: models.GptWalkRequest, http: Request):
    return await answer(http, sid, {"sid": sid, **sent(req)})


@router.post("/{sid}/walk/block", name="gpt.walk.block", response_model=models.GptWalkBlock)
async def gpt_walk_block(sid: str, req: models.GptWalkBlockRequest, http: Request):
    return await answer(http, sid, {"sid": sid, **sent(req)})


@router.delete("/{sid}", name="gpt.delete", response_model=schemas.Deleted)
async def gpt_delete(sid: str, http: Request):
    return await answer(http, sid, {"sid": sid})

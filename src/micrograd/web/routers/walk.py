"""The Walk's routes: ``POST /api/walk``, ``/api/walk/order``, ``/nudge``, ``/check``.

Each runs in the walk's lane, on a work thread of its own beside training (one turn, or
a few for a big graph: ``web/server/schedule.py``)."""

from __future__ import annotations

from fastapi import APIRouter, Request

from .. import schemas
from .answers import WALK, answer, sent

router = APIRouter(prefix="/api/walk", tags=["walk"],
                   responses={400: {"model": schemas.ErrorResponse}})


@router.post("", name="walk", response_model=schemas.WalkResponse)
async def walk(req: schemas.WalkRequest, http: Request):
    return await answer(http, WALK, sent(req))


@router.post("/check", name="walk.check", response_model=schemas.CheckResponse)
async def walk_check(req: schemas.CheckRequest, http: Request):
    return await answer(http, WALK, sent(req))


@router.post("/order", name="walk.order", response_model=schemas.OrderResponse)
async def walk_order(req: schemas.OrderRequest, http: Request):
    return await answer(http, WALK, sent(req))


@router.post("/nudge", name="walk.nudge", response_model=schemas.NudgeResponse)
async def walk_nudge(req: schemas.NudgeRequest, http: Request):
    return await answer(http, WALK, sent(req))

"""The gallery's routes: ``GET /api/mistakes`` (its entries) and ``GET
/api/mistakes/{key}`` (one entry, its learner's code run now).

The runs take turns in a lane of their own, in the order they came (one run is one
turn: ``web/server/schedule.py``), so a page running the whole gallery never holds up
the Walk."""

from __future__ import annotations

from fastapi import APIRouter, Request

from .. import schemas
from .answers import answer

#: the lane of the gallery's runs
MISTAKES = "mistakes"

router = APIRouter(prefix="/api/mistakes", tags=["mistakes"],
                   responses={404: {"model": schemas.ErrorResponse}})


@router.get("", name="mistakes.list")
async def mistakes_list(http: Request):
    return await answer(http, MISTAKES, {})


@router.get("/{key}", name="mistakes.run")
async def mistakes_run(key: str, http: Request):
    return await answer(http, MISTAKES, {"key": key})

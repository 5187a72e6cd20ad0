"""The gallery's routes: ``GET /api/mistakes`` (its entries) and ``GET
/api/mistakes/{key}`` (one entry, its learner's code run now).

A page's runs are in its lane, in the order they came (one run is one turn:
``web/server/schedule.py``), charged their CPU time like its other work, so a page
running the whole gallery takes its share of the training thread and no more."""

from __future__ import annotations

from fastapi import APIRouter, Request

from .. import schemas
from .answers import PAGE, answer

router = APIRouter(prefix="/api/mistakes", tags=["mistakes"],
                   responses={404: {"model": schemas.ErrorResponse}})


@router.get("", name="mistakes.list")
async def mistakes_list(http: Request):
    return await answer(http, PAGE, {})


@router.get("/{key}", name="mistakes.run")
async def mistakes_run(key: str, http: Request):
    return await answer(http, PAGE, {"key": key})

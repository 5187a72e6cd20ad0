"""The page itself and ``GET /api/meta`` (its menus and caps)."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse

from .. import schemas
from ..handlers import dispatch, run_to_end
from .answers import respond, route_name

STATIC = Path(__file__).resolve().parents[1] / "static"

router = APIRouter()


@router.get("/", include_in_schema=False)
def index():
    return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-cache"})


@router.get("/api/meta", name="meta", response_model=schemas.Meta)
def meta(http: Request):
    # tables only: no turn needed
    return respond(run_to_end(dispatch(route_name(http), {}, None)))

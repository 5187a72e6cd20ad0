"""GET /api/meta's answer, and the error every route may answer with."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Union

from pydantic import BaseModel, Field

from .play import PlayConfigIn


class Preset(BaseModel):
    key: str
    title: str
    expr: str


class Meta(BaseModel):
    version: str
    experiment: Dict[str, Any] = Field(description="micrograd.experiment.Experiment.spec()"
                                                   ": the Playground's fields, choices "
                                                   "and caps")
    walk: Dict[str, Any] = Field(description="micrograd.walk_setup.WalkSetup.spec(): the "
                                             "Walk's presets, modes and fields")
    walk_presets: List[Preset]
    functions: List[str]
    datasets: List[str]
    features: List[str]
    regression: List[str]
    activations: List[str]
    losses: List[str]
    optimizers: List[str]
    play_defaults: PlayConfigIn
    limits: Dict[str, Union[int, float]] = Field(description="the server's caps (counts as "
                                                              "integers)")
    play_limits: Dict[str, int] = Field(description="the playground's own caps (hidden "
                                                    "layers, classes, hand edits, nodes "
                                                    "of one point's graph)")
    play_fields: Dict[str, Union[str, List[str]]] = Field(
        description="the fields the Playground handles by themselves, by the part each "
                    "plays there (micrograd.experiment.changes.PAGE_FIELDS)")
    notebooks: Dict[str, Any] = Field(description="micrograd.web.notebook_links.spec(): the "
                                                  "lecture's notebook each part of the "
                                                  "page links to")
    experiment: Dict[str, Any]
    walk: Dict[str, Any]


class ErrorResponse(BaseModel):
    error: str
    free: Optional[List[str]] = Field(None, description="the walk: names the expression "
                                      "uses without assigning, when values are missing")

"""The GPT tab's requests (from the handlers' declarations) and answers."""

from __future__ import annotations

from dataclasses import replace
from typing import List, Optional

from pydantic import BaseModel, Field

from ..handlers import gpt as _gpt
from .base import Num, request_model
from .walk import Graph


def _open_temperature(fields):
    """The fields with the temperature's bounds left to the handler, which refuses a
    temperature outside them in a learner's words (the same through either door)."""
    return tuple(replace(f, ge=None, le=None, description=f.description + " (0.1 to 2)")
                 if f.name == "temperature" else f for f in fields)


GptCreate = request_model("GptCreate", tuple(
    replace(f, max_length=None, description=f.description + " (at most "
            f"{f.max_length:,} characters: the handler says it in words)")
    if f.name == "weights" else f for f in _gpt.CREATE),
    "A new run of microgpt's GPT on the packaged names (from a weights file, if one "
    "is given).")
GptStepRequest = request_model("GptStepRequest", _gpt.STEP)
GptSampleRequest = request_model("GptSampleRequest", _open_temperature(_gpt.SAMPLE))
GptAttentionRequest = request_model("GptAttentionRequest",
                                    _open_temperature(_gpt.ATTENTION))


class GptRun(BaseModel):
    sid: str
    step: int = Field(description="steps done")
    steps: int = Field(description="the run's length (the rate reaches 0 there)")
    seed: int
    runner: str = Field(description="how a step runs: eager (the Value graph of the name)")
    names: int = Field(description="the training names")
    vocab: int
    parameters: int
    n_layer: int
    n_head: int
    block_size: int
    chars: str = Field(description="the letters the model knows")
    weights_file: Optional[str] = Field(
        description="the weights file the run started from (null: drawn from the seed)")
    mean: Optional[Num] = Field(description="the mean loss of the last mean_of steps")
    mean_of: int


class GptSteps(GptRun):
    losses: List[Num] = Field(description="the loss of each step this request ran")
    steps_per_second: Optional[float] = Field(
        description="those steps over their wall time (the steps alone, not the waits "
                    "for turns between them)")


class GptSample(BaseModel):
    name: str
    in_list: bool = Field(description="the training names hold it")


class GptSamples(BaseModel):
    sid: str
    step: int
    temperature: float
    samples: List[GptSample]
    new: int = Field(description="how many of the samples are not training names")


class GptAttention(BaseModel):
    sid: str
    step: int
    name: str
    sampled: bool = Field(description="the name was drawn now (none was given)")
    in_list: bool
    tokens: List[str] = Field(description="the axes: <BOS>, then the letters fed")
    left_out: int = Field(description="the name's letters past the model's context, "
                                      "not fed (0 but for the longest names)")
    heads: List[List[List[List[Optional[float]]]]] = Field(
        description="[layer][head]: rows the query's position, columns the key's: the "
                    "softmax weight; null after the query (the causal mask)")


GptWalkRequest = request_model("GptWalkRequest", _open_temperature(_gpt.WALK))
GptWalkBlockRequest = request_model("GptWalkBlockRequest", _gpt.WALK_BLOCK)


class GptWalkInput(BaseModel):
    from_: str = Field(alias="from", description="what holds them: a block, a weight "
                                                 "matrix, the earlier positions' cache")
    count: int = Field(description="how many of its nodes feed the box")


class GptWalkBox(BaseModel):
    id: str
    name: str
    kind: str = Field(description="block, weights, cache (inputs from outside), or part")
    nodes: int = Field(description="the nodes the box holds")
    opens: bool = Field(description="it unfolds on a click (inputs are summarized only)")
    outputs: int
    data: List[Num] = Field(description="the first outputs' data")
    grad: List[Num] = Field(description="the first outputs' grads")
    data_norm: Num
    grad_norm: Num
    rank: int = Field(description="the longest path of boxes that reaches it")
    inputs: List[GptWalkInput] = Field(description="what feeds it from outside the boxes")


class GptWalkEdge(BaseModel):
    src: str
    dst: str
    count: int = Field(description="node edges from src's nodes to dst's")


class _GptWalkAbout(BaseModel):
    sid: str
    step: int
    name: str
    position: int
    positions: int
    tokens: List[str]
    token: str = Field(description="the token fed at the position")
    target: str = Field(description="the next token, whose -log probability is the loss")
    loss: Num
    graph_nodes: int = Field(description="the nodes of the position's graph")
    cap: int = Field(description="the most boxes or nodes an answer holds")
    note: str = Field(description="what is folded, in words")


class GptWalk(_GptWalkAbout):
    sampled: bool
    in_list: bool
    boxes: List[GptWalkBox]
    edges: List[GptWalkEdge]


class GptWalkBlock(_GptWalkAbout):
    block: str
    path: List[int]
    title: str
    kind: str = Field(description="nodes: the nodes drawn; parts: folded one level down")
    nodes: int
    graph: Optional[Graph] = None
    inputs: Optional[List[GptWalkInput]] = None
    boxes: Optional[List[GptWalkBox]] = None
    edges: Optional[List[GptWalkEdge]] = None

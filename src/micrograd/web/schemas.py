"""Request and response schemas of the ``micrograd serve`` API (pydantic models).

Numbers that may be infinite or nan travel as the strings ``"Infinity"``, ``"-Infinity"``,
``"NaN"`` (JSON has no such numbers): their type is ``Num``.
"""

from __future__ import annotations

from typing import Dict, List, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, StrictBool

from . import limits
from .playground import ACTIVATIONS, DATASETS, LOSSES, OPTIMIZERS

Num = Union[float, Literal["Infinity", "-Infinity", "NaN"]]
Finite = float  # request numbers: refused when not finite (allow_inf_nan=False below)


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


# ---------------------------------------------------------------------------------------
# the walk
# ---------------------------------------------------------------------------------------

ExprText = Field(None, max_length=limits.MAX_EXPR_CHARS,
                 description="a graph in the walk's language, e.g. 'a = 2; b = a*a'")


class GraphSpec(Strict):
    """A graph: a preset by key, or an expression; ``values`` override leaf values."""
    preset: Optional[str] = Field(None, max_length=40)
    expr: Optional[str] = ExprText
    values: Dict[str, Finite] = Field(default_factory=dict, max_length=100)


class WalkRequest(GraphSpec):
    assign: StrictBool = Field(False, description="teaching mode: '=' instead of '+='")
    recursive: StrictBool = Field(False, description="teaching mode: recursive backward, "
                                                     "no topological sort")
    no_zero_grad: StrictBool = Field(False, description="teaching mode: backward twice "
                                                        "without zero_grad")


class OrderRequest(GraphSpec):
    order: List[str] = Field(..., max_length=limits.MAX_ORDER_LEN,
                             description="node ids, first visited first")


class NudgeRequest(GraphSpec):
    leaf: str = Field(..., max_length=60)
    h: float = Field(1e-4, gt=0, le=1)


class Update(BaseModel):
    """``grad[node] (op) upstream * local``: what one edge delivers at one visit."""
    node: str
    source: Optional[str] = Field(None, alias="from", description="the node whose grad "
                                                                  "flows (None: the seed)")
    edge: Optional[str]
    seed: bool = False
    upstream: Optional[Num]
    local: Optional[Num]
    contribution: Num
    before: Optional[Num]
    after: Num
    op: Literal["+=", "="]
    lost: bool = Field(False, description="arrived after its node had been visited")
    model_config = ConfigDict(populate_by_name=True, serialize_by_alias=True)


class Step(BaseModel):
    phase: Literal["forward", "backward"]
    node: str
    text: str
    data: Optional[Num] = None
    updates: List[Update] = []


class Box(BaseModel):
    x: float
    y: float
    w: float
    h: float


class Node(BaseModel):
    id: str
    name: str
    label: str
    op: str
    leaf: bool
    const: bool
    box: Box
    op_box: Optional[Box]
    op_edge: List[List[float]]
    cells: List[str] = Field(description="the record's texts as laid out (widths)")
    data: Num
    grad: Num
    true_grad: Num


class Edge(BaseModel):
    id: str
    src: str
    dst: str
    index: int
    local: Num
    points: List[List[float]]
    rule: str


class Leaf(BaseModel):
    id: str
    name: str
    value: Num


class WalkResponse(BaseModel):
    title: str
    source: str
    mode: str
    root: str
    width: float
    height: float
    nodes: List[Node]
    edges: List[Edge]
    leaves: List[Leaf]
    reverse_topo: List[str]
    steps: List[Step]
    notes: List[str]


class Lost(BaseModel):
    node: str
    via: str
    edge: str
    missing: Num
    reason: str


class OrderResponse(BaseModel):
    ok: bool
    message: str
    steps: List[Step]
    lost: List[Lost]
    never_visited: List[str]
    grads: Dict[str, Num]
    true_grads: Dict[str, Num]


class NudgeResponse(BaseModel):
    leaf: str
    h: float
    f_plus: Num
    f_minus: Num
    slope: Num
    grad: Num
    difference: Num
    ok: bool
    text: str


# ---------------------------------------------------------------------------------------
# the playground
# ---------------------------------------------------------------------------------------


class PlayConfigIn(Strict):
    dataset: Literal[tuple(DATASETS)] = "circle"
    noise: float = Field(0.0, ge=0, le=2)
    samples: int = Field(200, ge=10, le=limits.MAX_SAMPLES)
    train_ratio: float = Field(0.5, ge=0.1, le=0.9)
    seed: int = Field(1, ge=0, le=2**31 - 1)
    hidden: List[int] = Field(default_factory=lambda: [9], min_length=1,
                              max_length=limits.MAX_HIDDEN_LAYERS)
    activation: Literal[tuple(ACTIVATIONS)] = "tanh"
    loss: Literal[tuple(LOSSES)] = "mse"
    optimizer: Literal[tuple(OPTIMIZERS)] = "sgd"
    lr: float = Field(0.1, gt=0, le=10)
    batch_size: int = Field(0, ge=0, le=limits.MAX_SAMPLES)
    l2: float = Field(0.0, ge=0, le=1)
    init_seed: int = Field(0, ge=0, le=2**31 - 1)


class StepRequest(Strict):
    steps: int = Field(1, ge=1, le=limits.MAX_STEPS_PER_REQUEST)
    lr: Optional[float] = Field(None, gt=0, le=10, description="change the learning rate "
                                                               "first (no reset)")


class LrRequest(Strict):
    lr: float = Field(..., gt=0, le=10)


class ResetRequest(Strict):
    init_seed: Optional[int] = Field(None, ge=0, le=2**31 - 1)


class Metrics(BaseModel):
    train_loss: Num
    test_loss: Num
    train_acc: float
    test_acc: float


class Boundary(BaseModel):
    n: int
    extent: List[float]
    values: List[Num] = Field(description="in [-1, 1]; \"NaN\" where the network's "
                                          "output is nan (training diverged)")


class LayerWeights(BaseModel):
    w: List[List[Num]]
    b: List[Num]


class Network(BaseModel):
    sizes: List[int]
    layers: List[LayerWeights]


class Points(BaseModel):
    train: List[List[float]]
    test: List[List[float]]


class PlayState(BaseModel):
    sid: str
    config: PlayConfigIn
    step: int
    epoch: int
    lr: float
    metrics: Metrics
    engine: Literal["traced", "eager"] = Field(
        description="traced: micrograd.trace runs the model's scalar graph over the batch "
                    "with NumPy; eager: the Value graph, sample by sample")
    history: List[List[Num]] = Field(description="rows [step, train_loss, test_loss, "
                                                 "train_acc, test_acc]")
    diverged: bool = Field(False, description="the loss or a weight is no longer finite: "
                                              "training diverged (reset, lower the lr)")
    diverged_at: Optional[int] = Field(None, description="the step where it first showed")
    boundary: Boundary
    network: Network
    points: Optional[Points] = None


class LrResponse(BaseModel):
    sid: str
    lr: float


class Deleted(BaseModel):
    deleted: bool


# ---------------------------------------------------------------------------------------
# meta
# ---------------------------------------------------------------------------------------


class Preset(BaseModel):
    key: str
    title: str
    expr: str


class Meta(BaseModel):
    version: str
    walk_presets: List[Preset]
    functions: List[str]
    datasets: List[str]
    activations: List[str]
    losses: List[str]
    optimizers: List[str]
    play_defaults: PlayConfigIn
    limits: Dict[str, float]


class ErrorResponse(BaseModel):
    error: str

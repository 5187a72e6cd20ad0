"""Request and response schemas of the ``micrograd serve`` API (pydantic models).

Numbers that may be infinite or nan travel as the strings ``"Infinity"``, ``"-Infinity"``,
``"NaN"`` (JSON has no such numbers): their type is ``Num``.
"""

from __future__ import annotations

from typing import Dict, List, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, StrictBool

from . import limits
from .playground import (ACTIVATIONS, DATASETS, FEATURES, LOSSES, MAX_CLASSES, MAX_EDITS,
                         MAX_LAYERS, OPTIMIZERS)

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
    classes: int = Field(2, ge=2, le=MAX_CLASSES, description="3 or more: spiral or "
                                                              "blobs, with loss 'ce'")
    noise: float = Field(0.0, ge=0, le=2)
    samples: int = Field(200, ge=10, le=limits.MAX_SAMPLES)
    train_ratio: float = Field(0.5, ge=0.1, le=0.9)
    seed: int = Field(1, ge=0, le=2**31 - 1)
    features: List[Literal[tuple(FEATURES)]] = Field(
        default_factory=lambda: ["x1", "x2"], min_length=1, max_length=len(FEATURES))
    hidden: List[int] = Field(default_factory=lambda: [4, 2], min_length=1,
                              max_length=MAX_LAYERS)
    activation: Literal[tuple(ACTIVATIONS)] = "tanh"
    loss: Literal[tuple(LOSSES)] = "mse"
    optimizer: Literal[tuple(OPTIMIZERS)] = "sgd"
    lr: float = Field(0.1, gt=0, le=10)
    batch_size: int = Field(0, ge=0, le=limits.MAX_SAMPLES)
    l1: float = Field(0.0, ge=0, le=1)
    l2: float = Field(0.0, ge=0, le=1)
    init_seed: int = Field(0, ge=0, le=2**31 - 1)
    added: List[List[float]] = Field(default_factory=list, max_length=MAX_EDITS,
                                     description="points put in by hand: [x1, x2, label]")
    removed: List[int] = Field(default_factory=list, max_length=MAX_EDITS,
                               description="generated points taken out, by index")


class InspectRequest(Strict):
    """Follow one point through the network: a point of the plane, or a data point with
    its label (then the graph ends in that point's loss)."""
    x: float = Field(..., ge=-10, le=10)
    y: float = Field(..., ge=-10, le=10)
    label: Optional[float] = None


class PlayCreate(PlayConfigIn):
    """A set-up, optionally restoring a lost session: its weights, step and point."""
    weights: Optional[List[float]] = Field(None, max_length=limits.MAX_PARAMETERS)
    step: int = Field(0, ge=0, le=10**9)
    inspect: Optional[InspectRequest] = None


class StepRequest(Strict):
    steps: int = Field(1, ge=1, le=limits.MAX_STEPS_PER_REQUEST)
    lr: Optional[float] = Field(None, gt=0, le=10, description="change the learning rate "
                                                               "first (no reset)")


class LrRequest(Strict):
    lr: float = Field(..., gt=0, le=10)


class ResetRequest(Strict):
    init_seed: Optional[int] = Field(None, ge=0, le=2**31 - 1)


class WeightRequest(Strict):
    name: str = Field(..., max_length=30, description="w<layer>.<neuron>.<input> or "
                                                      "b<layer>.<neuron>, from 1")
    value: float = Field(..., ge=-100, le=100)


class Metrics(BaseModel):
    train_loss: Num
    test_loss: Num
    train_acc: Optional[float]
    test_acc: Optional[float]


class Boundary(BaseModel):
    n: int
    extent: List[float]
    values: List[float]
    classes: Optional[List[int]] = None


class LayerWeights(BaseModel):
    w: List[List[Num]]
    b: List[Num]


class Network(BaseModel):
    sizes: List[int]
    features: List[str]
    layers: List[LayerWeights]


class Points(BaseModel):
    train: List[List[float]] = Field(description="[x1, x2, label, index] (index -1: "
                                                 "added by hand)")
    test: List[List[float]]


class ParamTable(BaseModel):
    state: List[str] = Field(description="the optimizer state's names per parameter")
    rows: List[List[Union[str, Num, List[Num]]]] = Field(
        description="[name, value, grad, [state...], last update]")


class PointGraph(BaseModel):
    x: List[float]
    label: Optional[float]
    n: int
    values: List[List[Num]] = Field(description="[data, grad] per node, n0 first "
                                                "(forward order)")
    layout: Optional[dict] = Field(None, description="micrograd.viz's JSON layout "
                                                     "(docs/graphs.md)")
    key: str
    output: Num = Field(description="the root's data")
    root: str = Field(description="the root's name: out, loss, or 'loss if class k' "
                                  "(K classes, a point without a label)")


class PlayState(BaseModel):
    sid: str
    config: PlayConfigIn
    task: Literal["classes", "regression"]
    step: int
    epoch: int
    lr: float
    nparams: int
    metrics: Metrics
    engine: Literal["traced", "eager"] = Field(
        description="traced: micrograd.trace runs the model's scalar graph over the batch "
                    "with NumPy; eager: the Value graph, sample by sample")
    history: List[List[Optional[Num]]] = Field(description="rows [step, train_loss, "
                                                           "test_loss, train_acc, test_acc]")
    boundary: Boundary
    thumbnails: List[List[List[float]]] = Field(description="per layer (features first), "
                                                            "per neuron: its output on a "
                                                            "coarse grid")
    zero_lines: List[List[List[float]]] = Field(
        description="per first-layer neuron, the segments [xa, ya, xb, yb] where its "
                    "weighted sum is 0")
    network: Network
    params: ParamTable
    points: Optional[Points] = None
    graph: Optional[PointGraph] = None


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
    features: List[str]
    regression: List[str]
    activations: List[str]
    losses: List[str]
    optimizers: List[str]
    play_defaults: PlayConfigIn
    limits: Dict[str, float]
    play_limits: Dict[str, int] = Field(description="the playground's own caps (hidden "
                                                    "layers, classes, hand edits, nodes "
                                                    "of one point's graph)")


class ErrorResponse(BaseModel):
    error: str

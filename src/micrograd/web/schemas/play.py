"""The Playground's requests (an Experiment's fields and its handlers', from their
declarations) and responses."""

from __future__ import annotations

from typing import Annotated, Any, Dict, List, Literal, Optional, Union

from pydantic import BaseModel, Field, StrictBool, StrictFloat, StrictInt, StrictStr

from ..handlers import play as _play
from .base import Num, Strict, experiment_model, request_model

PlayConfigIn = experiment_model("PlayConfigIn", doc="A Playground set-up: a "
                                "micrograd.experiment.Experiment (GET /api/meta's "
                                "'experiment' describes its fields).")
InspectRequest = request_model("InspectRequest", _play.INSPECT,
                               "Follow one point through the network: a point of the "
                               "plane, or a data point with its label (then the graph "
                               "ends in that point's loss).")
PlayCreate = experiment_model("PlayCreate", _play.RESTORE,
                              "A set-up, optionally restoring a lost session: its "
                              "weights, step and point.")
StepRequest = request_model("StepRequest", _play.STEP)
LrRequest = request_model("LrRequest", _play.LR)
ResetRequest = request_model("ResetRequest", _play.RESET)
WeightRequest = request_model("WeightRequest", _play.WEIGHT)
#: a control's value (micrograd.web.handlers.play.control_value)
_Finite = Union[StrictInt, StrictFloat]
ControlValue = Optional[Union[
    StrictBool, _Finite, Annotated[StrictStr, Field(max_length=_play.MAX_VALUE_CHARS)],
    Annotated[List[Optional[_Finite]], Field(max_length=_play.MAX_VALUE_ITEMS)]]]


class _ChangeFields(Strict):
    setup: PlayConfigIn = Field(description="the accepted set-up, as the page holds it")
    value: ControlValue = Field(description="the field's new value, as its control gives "
                                            "it (null: a number field that holds none)")


ChangeRequest = request_model("ChangeRequest", _play.CHANGE,
                              "One field of the accepted set-up changed: what it implies "
                              "(micrograd.experiment.changes).", base=_ChangeFields)


class ChangeAnswer(BaseModel):
    patch: Dict[str, Any] = Field(description="the field and every field that changes "
                                              "with it, to apply to the set-up")
    own: bool = Field(description="the data set becomes one of your own points: the page "
                                  "takes them from what it shows")


CsvReadRequest = request_model("CsvReadRequest", _play.CSV_READ,
                               "A CSV file of points to read (micrograd.points_csv).")


class CsvPoints(BaseModel):
    points: List[List[float]] = Field(description="[x1, x2, label or target] each")
    column: Literal["label", "target"]
    classes: Optional[int] = Field(None, description="class indices: the classes they "
                                                     "need (the largest + 1)")
    count: int


class CsvText(BaseModel):
    sid: str
    text: str = Field(description="the data set as CSV: a header, floats written with "
                                  "repr (read back, the same numbers)")
    column: Literal["label", "target"]
    count: int


class Metrics(BaseModel):
    train_loss: Num
    test_loss: Num
    train_acc: Optional[float]
    test_acc: Optional[float]


class Boundary(BaseModel):
    n: int
    extent: List[float]
    values: List[Num] = Field(description="one output: in [-1, 1]; K classes: the "
                                          "softmax probability of the argmax; \"NaN\" "
                                          "where the output is nan (training diverged)")
    classes: List[int] = Field(default_factory=list, description="K classes: the argmax "
                                                                  "per cell (empty for one "
                                                                  "output)")


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
    execution: Literal["traced", "eager", "lowered"] = Field(
        description="how the steps run. traced: micrograd.trace runs the model's scalar "
                    "graph over the batch with NumPy; eager: the Value graph, sample by "
                    "sample; lowered: the traced program lowered to array primitives and "
                    "run by the page's JavaScript executor (the static site)")
    engine: Literal["traced", "eager", "runner"] = Field(
        description="execution's old name, still sent, with its old values (runner: "
                    "lowered)")
    history: List[List[Optional[Num]]] = Field(description="rows [step, train_loss, "
                                                           "test_loss, train_acc, test_acc]"
                                                           " (accuracy null: regression)")
    diverged: bool = Field(False, description="the loss or a weight is no longer finite: "
                                              "training diverged (reset, lower the lr)")
    diverged_at: Optional[int] = Field(None, description="the step where it first showed")
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

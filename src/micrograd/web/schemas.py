"""Request and response schemas of the ``micrograd serve`` API (pydantic models).

The request models are made from the handlers' field declarations
(``micrograd.web.handlers.request_fields``: the one place a request's fields, defaults
and ranges are written), the walk's response models from the dataclasses
``micrograd.walk`` sends. FastAPI reads a body through them (the 422 answers) and
documents them (``/docs``).

Numbers that may be infinite or nan travel as the strings ``"Infinity"``, ``"-Infinity"``,
``"NaN"`` (JSON has no such numbers): their type is ``Num``.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from typing import Annotated, Any, Dict, List, Literal, Optional, Union

from pydantic import (BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt,
                      StrictStr, create_model)

from .. import experiment as _experiment
from .. import viz as _viz
from .. import walk as _walk
from ..wire import wire_fields, wire_name
from .handlers import play as _play
from .handlers import walk as _walk_requests

Num = Union[float, Literal["Infinity", "-Infinity", "NaN"]]


class Strict(BaseModel):
    """A request: unknown fields refused, numbers finite."""
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


# ---------------------------------------------------------------------------------------
# requests: made from the handlers' field declarations
# ---------------------------------------------------------------------------------------

_SCALARS = {"int": int, "float": float, "number": StrictFloat, "bool": StrictBool,
            "str": str, "list": List[float]}
_objects = {}


def _item(kind, choices=()):
    return Literal[tuple(choices)] if choices else _SCALARS[kind]


def _annotation(f):
    if f.kind == "object":
        tp = _objects[id(f.fields)]
    elif f.kind == "list":
        tp = List[_item(f.items, f.choices)]
    elif f.kind == "dict":
        tp = Dict[str, _item(f.items)]
    else:
        tp = _item(f.kind, f.choices)
    return Optional[tp] if f.nullable else tp


def request_model(name, fields, doc=None, base=None):
    """The pydantic model of a request declared as handler ``fields`` (the session id,
    a path parameter, left out): the same names, kinds, defaults, ranges and texts."""
    spec = {}
    for f in fields:
        if f.name == "sid":
            continue
        kw = {k: getattr(f, k) for k in ("ge", "gt", "le", "max_length")
              if getattr(f, k) is not None}
        if f.kind in ("list", "dict"):
            kw.update({k: v for k, v in (("min_length", f.min_items),
                                         ("max_length", f.max_items)) if v is not None})
        if f.description:
            kw["description"] = f.description
        if f.required:
            info = Field(..., **kw)
        elif isinstance(f.default, (list, dict)):
            info = Field(default_factory=f.default_value, **kw)
        else:
            info = Field(f.default, **kw)
        spec[f.name] = (_annotation(f), info)
    model = create_model(name, __base__=base or Strict, __doc__=doc, **spec)
    _objects[id(fields)] = model
    return model


# ---------------------------------------------------------------------------------------
# the walk
# ---------------------------------------------------------------------------------------

WalkRequest = request_model("WalkRequest", _walk_requests.WALK,
                            "A graph (a preset by key, or an expression; ``values`` "
                            "override leaf values), a teaching mode and a question.")
OrderRequest = request_model("OrderRequest", _walk_requests.ORDER)
CheckRequest = request_model("CheckRequest", _walk_requests.CHECK)
NudgeRequest = request_model("NudgeRequest", _walk_requests.NUDGE)


# -- responses: built from the dataclasses the walk and the layout produce -----------------
# (micrograd.wire.encode sends those dataclasses; these models are made from the same
# field lists, so a field added to a step appears here and on the wire at once)

_models = {}


def _wire_type(tp):
    """A dataclass field's type as it travels: float -> Num, dataclass -> its model."""
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if tp is float:
        return Num
    if dataclasses.is_dataclass(tp):
        return model_of(tp)
    if origin in (list, tuple):
        return List[_wire_type(args[0])] if args else List[Any]
    if origin is dict:
        return Dict[str, _wire_type(args[1])]
    if origin in (Union, types.UnionType):
        return Optional[_wire_type(next(a for a in args if a is not type(None)))]
    return tp


def model_of(cls, exclude=(), **extra):
    """The pydantic model of a dataclass as ``micrograd.wire.encode`` sends it: the
    wire fields (``pass_`` as ``pass``), floats as :data:`Num`; ``extra``: fields added
    after encoding (name -> type)."""
    key = (cls, tuple(exclude), tuple(sorted(extra)))
    if key not in _models:
        hints = typing.get_type_hints(cls)
        fields = {}
        for f in wire_fields(cls):
            if f.name in exclude:
                continue
            fields[wire_name(f.name)] = (_wire_type(hints[f.name]), ...)
        for name, tp in extra.items():
            fields[name] = (tp, ...)
        _models[key] = create_model(
            cls.__name__ if not extra else cls.__name__ + "Drawn",
            __doc__=(cls.__doc__ or "").strip() or None, **fields)
    return _models[key]


WalkData = model_of(_walk.WalkResult)
NudgeResponse = model_of(_walk.Nudge)


class Box(BaseModel):
    x: float
    y: float
    w: float
    h: float


# a node of the layout: graph.Node's fields (its Value back reference stays home),
# the properties it sends (name, leaf) and its place in the drawing
GraphNode = model_of(_viz.Node, exclude=("value",), name=str, leaf=bool, box=Box,
                     cells=List[str], cell_widths=List[float], op_box=Optional[Box],
                     op_edge=List[List[float]])
GraphEdge = model_of(_viz.Edge, points=List[List[float]])


class Graph(BaseModel):
    """``micrograd.viz.layout_to_dict``: the laid-out graph (docs/graphs.md)."""
    format: str
    version: int
    rankdir: str
    show_grad: bool
    width: float
    height: float
    root: str
    crossings: int
    stack: bool = Field(False, description="the records' cells one above another")
    stagger: bool = Field(False, description="the leaves that feed one op over two ranks")
    nodes: List[GraphNode]
    edges: List[GraphEdge]


class Leaf(BaseModel):
    id: str
    name: str
    value: Num


class Neuron(BaseModel):
    """Nodes the drawing can fold into one box (an activation and what feeds only it)."""
    id: str
    output: str
    title: str
    members: List[str]


class Lesson(BaseModel):
    reused_inner: List[str] = Field(description="inner nodes used more than once")
    text: str


class Question(BaseModel):
    of: str = Field(description="node id: the derivative of this node ...")
    wrt: str = Field(description="... with respect to this one")
    text: str


class AskedQuestion(BaseModel):
    kind: Literal["value", "local", "grad", "path"] = Field(
        description="a forward value, a local derivative, the gradient d(of)/d(wrt), "
                    "one path's share (micrograd.web.walk_questions)")
    title: str
    text: str
    hint: str = Field(description="a pointer for a learner who asks, not the number")
    node: Optional[str] = Field(None, description="value: the node asked about")
    edge: Optional[str] = Field(None, description="local, path: the edge asked about")
    of: Optional[str] = None
    wrt: Optional[str] = None


class ConventionRow(BaseModel):
    id: str
    name: str
    leaf: bool
    one_pass: Num
    micrograd: Num
    pytorch: Num
    texts: Dict[str, str]


class Conventions(BaseModel):
    """``micrograd.walk_setup.compare_conventions``: two passes without zero_grad in
    micrograd's published engine and in PyTorch's and ours, side by side."""
    passes: int
    title: str
    conventions: List[Dict[str, str]]
    columns: Dict[str, str]
    note: str
    rows: List[ConventionRow]


class WalkResponse(BaseModel):
    title: str
    source: str
    mode: str
    graph: Graph
    walk: WalkData
    leaves: List[Leaf]
    free: List[str] = Field(description="names the expression uses without assigning")
    edge_notes: Dict[str, str] = Field(description="edge id -> its local derivative, "
                                                   "and the op's rule")
    neurons: List[Neuron]
    lesson: Lesson
    question: Optional[Question]
    questions: List[AskedQuestion] = Field(description="the questions in sequence (their "
                                                       "answers are checked, not sent)")
    conventions: Optional[Conventions] = Field(
        description="in the no_zero_grad mode: the two conventions side by side")
    setup: Dict[str, Any] = Field(
        description="the set-up shown: its fields (micrograd.walk_setup.WalkSetup), its "
                    "graph's text with the leaf values in, and what a link asked for "
                    "that was left out (notes)")


class OrderResponse(BaseModel):
    ok: bool
    message: str
    walk: WalkData


class CheckResponse(BaseModel):
    correct: bool
    question: str
    answer: float
    hint: str
    grad: Optional[Num] = Field(description="the engine's number, once answered right")
    text: str


# ---------------------------------------------------------------------------------------
# the playground
# ---------------------------------------------------------------------------------------


def _experiment_field(f):
    """One Experiment field as a pydantic field: its kind, default, range and choices
    from its declaration (the page's older names among the choices: they are read as
    aliases). What only a combination of fields decides is left to Experiment.check."""
    meta, kind = f.metadata, f.metadata["kind"]
    default = f.default_factory() if f.default is dataclasses.MISSING else f.default
    kw = {"description": meta["help"]}
    if kind in ("int", "number"):
        kw["gt" if meta.get("min_exclusive") else "ge"] = meta["min"]
        kw["lt" if meta.get("max_exclusive") else "le"] = meta["max"]
    if "max_len" in meta:
        kw["max_length"] = meta["max_len"]
    if kind in ("ints", "choices"):  # Experiment.check asks for at least one
        kw["min_length"] = meta.get("min_len", 1)
    names = (*meta.get("choices", ()), *_experiment.ALIASES.get(f.name, ()))
    tp = {"choice": Literal[names] if names else str, "int": int, "number": float,
          "bool": StrictBool, "ints": List[int], "choices": List[Literal[names]],
          "points": List[List[float]], "indices": List[int]}[kind]
    if isinstance(default, list):
        return tp, Field(default_factory=lambda: list(default), **kw)
    return tp, Field(default, **kw)


def experiment_model(name, extra=(), doc=None):
    """The pydantic model of an Experiment (``micrograd.experiment``), field by field
    from its declarations; ``extra``: handler fields after them."""
    spec = {f.name: _experiment_field(f) for f in dataclasses.fields(_experiment.Experiment)}
    base = create_model(name + "Fields", __base__=Strict, **spec)
    return request_model(name, extra, doc, base=base) if extra else \
        create_model(name, __base__=base, __doc__=doc)


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


# ---------------------------------------------------------------------------------------
# meta
# ---------------------------------------------------------------------------------------


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
    experiment: Dict[str, Any]
    walk: Dict[str, Any]


class ErrorResponse(BaseModel):
    error: str
    free: Optional[List[str]] = Field(None, description="the walk: names the expression "
                                      "uses without assigning, when values are missing")

"""The Walk's requests (made from its handlers' fields, ``web/handlers/walk.py``) and
responses (from the dataclasses the walk and the layout send)."""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional

from pydantic import BaseModel, Field

from ... import viz as _viz
from ... import walk as _walk
from ..handlers import walk as _walk_requests
from .base import Num, model_of, request_model

WalkRequest = request_model("WalkRequest", _walk_requests.WALK,
                            "A graph (a preset by key, or an expression; ``values`` "
                            "override leaf values), a teaching mode and a question.")
OrderRequest = request_model("OrderRequest", _walk_requests.ORDER)
CheckRequest = request_model("CheckRequest", _walk_requests.CHECK)
NudgeRequest = request_model("NudgeRequest", _walk_requests.NUDGE)


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
    wrong: List[str] = Field(description="the conventions whose grad here is not the "
                                         "one-pass gradient (the cells marked)")


class Conventions(BaseModel):
    """``micrograd.walk_setup.compare_conventions``: two passes without zero_grad in
    micrograd's published engine and in PyTorch's and ours, side by side."""
    passes: int
    title: str
    conventions: List[Dict[str, str]]
    columns: Dict[str, str]
    note: str
    legend: str = Field(description="what the marked cells are")
    rows: List[ConventionRow]


class ModeExplained(BaseModel):
    """``micrograd.walk_explain.explain``: what the mode does to this graph."""
    mode: str
    text: str
    offer: Optional[Dict[str, str]] = Field(
        None, description="where nothing goes wrong here: the preset where it does "
                          "({preset, label})")


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
    explain: ModeExplained
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

"""Request and response schemas of the ``micrograd serve`` API (pydantic models).

The request models are made from the handlers' field declarations
(``micrograd.web.handlers.request_fields``: the one place a request's fields, defaults
and ranges are written), the walk's response models from the dataclasses
``micrograd.walk`` sends. FastAPI reads a body through them (the 422 answers) and
documents them (``/docs``).

Numbers that may be infinite or nan travel as the strings ``"Infinity"``, ``"-Infinity"``,
``"NaN"`` (JSON has no such numbers): their type is ``Num``.

One module a part: ``base`` (what every model is made from), ``walk``, ``play`` and
``meta`` (GET /api/meta's answer and the error every route may give); the routers read
their models from here.
"""

from .base import (  # noqa: F401  (the routers' names)
    Num, Strict, experiment_model, model_of, request_model)
from .walk import (  # noqa: F401  (the routers' names)
    AskedQuestion, Box, CheckRequest, CheckResponse, ConventionRow, Conventions, Graph,
    GraphEdge, GraphNode, Leaf, Lesson, Neuron, NudgeRequest, NudgeResponse, OrderRequest,
    OrderResponse, Question, WalkData, WalkRequest, WalkResponse)
from .play import (  # noqa: F401  (the routers' names)
    Boundary, ChangeAnswer, ChangeRequest, ControlValue, CsvPoints, CsvReadRequest, CsvText,
    Deleted, InspectRequest, LayerWeights, LrRequest, LrResponse, Metrics, Network,
    ParamTable, PlayConfigIn, PlayCreate, PlayState, PointGraph, Points, ResetRequest,
    StepRequest, WeightRequest)
from .meta import (  # noqa: F401  (the routers' names)
    ErrorResponse, Meta, Preset)

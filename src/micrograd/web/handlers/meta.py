"""``GET /api/meta``: what the page offers (presets, data sets, options, defaults, caps).

``experiment`` and ``walk`` are the set-ups' own descriptions
(``micrograd.experiment.Experiment.spec()``, ``micrograd.walk_setup.WalkSetup.spec()``):
the page draws its controls from them; ``play_fields`` names the fields the Playground
handles by themselves, by the part each plays there
(``micrograd.experiment.changes.PAGE_FIELDS``). The other keys say the same in the
older, flat form (canonical names), for a page written before those. ``notebooks`` is
the lecture's notebook each part of the page links to (``micrograd.web.notebook_links``).
"""

from __future__ import annotations

from ... import __version__
from ... import experiment as _experiment
from ...experiment import Experiment
from ...experiment.changes import PAGE_FIELDS
from ...nn import ACTIVATIONS
from ...losses import LOSSES
from ...optim import OPTIMIZERS
from ...walk_setup import PRESETS, WalkSetup
from .. import limits, notebook_links
from ..walkview import FUNCTIONS


def play_limits():
    """The Playground's own caps (layers, classes, hand edits, one point's graph)."""
    return {"max_layers": _experiment.MAX_LAYERS, "max_classes": _experiment.MAX_CLASSES,
            "max_edits": _experiment.MAX_EDITS,
            "max_graph_nodes": limits.MAX_POINT_GRAPH_NODES, "thumb": limits.THUMB}


def meta(request=None, sessions=None):
    """The page's menus and caps, read from the tables that define them."""
    return {"version": __version__,
            "experiment": Experiment.spec(), "walk": WalkSetup.spec(),
            "walk_presets": [{"key": p.key, "title": p.title, "expr": p.expr}
                             for p in PRESETS.values()],
            "functions": list(FUNCTIONS), "datasets": list(_experiment.DATASETS),
            "features": list(_experiment.FEATURES),
            "regression": list(_experiment.REGRESSION),
            "activations": list(ACTIVATIONS), "losses": list(LOSSES),
            "optimizers": list(OPTIMIZERS), "play_defaults": Experiment().to_dict(),
            "limits": limits.as_dict(), "play_limits": play_limits(),
            "play_fields": {k: v if isinstance(v, str) else list(v)
                            for k, v in PAGE_FIELDS.items()},
            "notebooks": notebook_links.spec()}

"""``GET /api/meta``: what the page offers (presets, data sets, options, defaults, caps)."""

from __future__ import annotations

from dataclasses import asdict

from ... import __version__
from .. import limits
from ..play_config import (ACTIVATIONS, DATASETS, FEATURES, LOSSES, OPTIMIZERS, PlayConfig,
                           play_limits)
from ..walkview import FUNCTIONS, PRESETS


def meta(request=None, sessions=None):
    """The page's menus and caps, read from the tables that define them."""
    return {"version": __version__,
            "walk_presets": [{"key": p.key, "title": p.title, "expr": p.source}
                             for p in PRESETS.values()],
            "functions": list(FUNCTIONS), "datasets": list(DATASETS),
            "features": list(FEATURES),
            "regression": [k for k, v in DATASETS.items() if v[1] == "regression"],
            "activations": ACTIVATIONS, "losses": list(LOSSES),
            "optimizers": OPTIMIZERS, "play_defaults": asdict(PlayConfig()),
            "limits": limits.as_dict(), "play_limits": play_limits()}

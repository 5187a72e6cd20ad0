"""The Playground's set-up: its fields, their checks, and the data it makes.

    >>> cfg = PlayConfig(dataset="circle", samples=100, hidden=[4])
    >>> check(cfg)                 # the number of parameters, or PlayError
    17
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .. import losses as _losses
from .. import nn as _nn
from . import limits

#: the page's data set name -> (micrograd.data's name, kind); kind is "classes" or
#: "regression"
DATASETS = {"circle": ("disk", "classes"), "moons": ("moons", "classes"),
            "xor": ("xor", "classes"), "spiral": ("spiral", "classes"),
            "blobs": ("blobs", "classes"), "plane": ("plane", "regression"),
            "gaussians": ("gaussians", "regression")}
#: data sets that can have more than two classes
MULTICLASS = ("spiral", "blobs")
MAX_CLASSES = 5
#: the spread of each blob: the page's noise adds to it (so noise 0 is still clusters)
BLOB_SPREAD = 0.5
ACTIVATIONS = list(_nn.ACTIVATIONS)  # the library's activations, linear included
#: loss -> the output activation it wants (each loss of the library names its own)
LOSSES = {name: spec.output_activation for name, spec in _losses.LOSSES.items()}
OPTIMIZERS = ["sgd", "momentum", "adam"]
MOMENTUM = 0.9

#: input features, each a function of the point's two coordinates as Values
FEATURES = {
    "x1": lambda a, b: a,
    "x2": lambda a, b: b,
    "x1^2": lambda a, b: a * a,
    "x2^2": lambda a, b: b * b,
    "x1*x2": lambda a, b: a * b,
    "sin x1": lambda a, b: a.sin(),
    "sin x2": lambda a, b: b.sin(),
}

#: the playground's own caps (beside micrograd.web.limits')
MAX_LAYERS = 6             # hidden layers
MAX_EDITS = 200            # points added by hand, and points removed
MAX_POINT_GRAPH_NODES = 2000  # one point's graph is drawn up to this many nodes
THUMB = 20                 # each neuron's picture is THUMB x THUMB (every other grid cell)


def play_limits():
    """The playground's own caps, for ``GET /api/meta``."""
    return {"max_layers": MAX_LAYERS, "max_classes": MAX_CLASSES, "max_edits": MAX_EDITS,
            "max_graph_nodes": MAX_POINT_GRAPH_NODES, "thumb": THUMB}


class PlayError(ValueError):
    """A set-up the playground refuses (over a cap, or not a valid combination)."""


@dataclass
class PlayConfig:
    dataset: str = "circle"
    classes: int = 2
    noise: float = 0.0
    samples: int = 200
    train_ratio: float = 0.5
    seed: int = 1
    features: list = field(default_factory=lambda: ["x1", "x2"])
    hidden: list = field(default_factory=lambda: [4, 2])
    activation: str = "tanh"
    loss: str = "mse"
    optimizer: str = "sgd"
    lr: float = 0.1
    batch_size: int = 0          # 0: the whole training set each step
    l1: float = 0.0
    l2: float = 0.0
    init_seed: int = 0
    added: list = field(default_factory=list)    # [x1, x2, label] put in by hand
    removed: list = field(default_factory=list)  # indices into the generated points


def task(cfg):
    """``"regression"`` or ``"classes"``: what the data set asks of the network."""
    return DATASETS[cfg.dataset][1] if cfg.dataset in DATASETS else "classes"


def n_outputs(cfg):
    return cfg.classes if cfg.loss == "ce" else 1


def check(cfg):
    """Refuse what the schema cannot express (combinations, sizes); raise PlayError.
    Returns the number of parameters."""
    if cfg.dataset not in DATASETS:
        raise PlayError(f"unknown data set {cfg.dataset!r}; choose one of "
                              f"{', '.join(DATASETS)}")
    if task(cfg) == "regression":
        if cfg.loss != "mse":
            raise PlayError(f"the regression set {cfg.dataset!r} is trained with the "
                                  f"squared error: loss must be 'mse', got {cfg.loss!r}")
        if cfg.classes != 2:
            raise PlayError(f"the regression set {cfg.dataset!r} has no classes; "
                                  "leave classes at 2")
    if not 2 <= cfg.classes <= MAX_CLASSES:
        raise PlayError(f"classes must be 2 to {MAX_CLASSES}, got {cfg.classes}")
    if cfg.classes > 2 and cfg.dataset not in MULTICLASS:
        raise PlayError(f"{cfg.dataset!r} has two classes; {cfg.classes} classes "
                              f"need {' or '.join(MULTICLASS)}")
    if cfg.classes > 2 and cfg.loss != "ce":
        raise PlayError(f"{cfg.classes} classes need the softmax cross-entropy "
                              f"loss 'ce', got {cfg.loss!r}")
    if not cfg.features:
        raise PlayError("choose at least one input feature")
    for f in cfg.features:
        if f not in FEATURES:
            raise PlayError(f"unknown feature {f!r}; features: {', '.join(FEATURES)}")
    if len(set(cfg.features)) != len(cfg.features):
        raise PlayError("a feature is listed twice")
    if not cfg.hidden or len(cfg.hidden) > MAX_LAYERS:
        raise PlayError(f"give 1 to {MAX_LAYERS} hidden layers, got {len(cfg.hidden)}")
    for n in cfg.hidden:
        if not 1 <= n <= limits.MAX_NEURONS:
            raise PlayError(f"a hidden layer has 1 to {limits.MAX_NEURONS} neurons, "
                                  f"got {n}")
    sizes = [len(cfg.features)] + list(cfg.hidden) + [n_outputs(cfg)]
    nparams = sum((a + 1) * b for a, b in zip(sizes, sizes[1:]))
    if nparams > limits.MAX_PARAMETERS:
        raise PlayError(f"this network has {nparams} parameters; the cap is "
                              f"{limits.MAX_PARAMETERS}")
    if len(cfg.added) > MAX_EDITS or len(cfg.removed) > MAX_EDITS:
        raise PlayError(f"at most {MAX_EDITS} points added and {MAX_EDITS} removed")
    for p in cfg.added:
        _check_added(cfg, p)
    for i in cfg.removed:
        if not 0 <= i < cfg.samples:
            raise PlayError(f"removed point {i} is not one of the {cfg.samples} "
                                  "generated points")
    total = cfg.samples - len(set(cfg.removed)) + len(cfg.added)
    ntest = round(cfg.samples * (1 - cfg.train_ratio))
    if ntest < 1 or total - ntest < 2:
        raise PlayError(f"{total} points at train ratio {cfg.train_ratio} leave "
                              "no test or too few train points")
    if cfg.batch_size > total - ntest:
        raise PlayError(f"batch size {cfg.batch_size} is larger than the training set "
                              f"({total - ntest} points); 0 means all of it")
    return nparams


def _check_added(cfg, p):
    if len(p) != 3 or not all(isinstance(v, (int, float)) and math.isfinite(v) for v in p):
        raise PlayError(f"an added point is [x1, x2, label] with finite numbers, got {p}")
    if max(abs(p[0]), abs(p[1])) > 10:
        raise PlayError(f"an added point lies within [-10, 10]^2, got {p[:2]}")
    if task(cfg) == "regression":
        if not -1 <= p[2] <= 1:
            raise PlayError(f"a regression target lies in [-1, 1], got {p[2]}")
    elif cfg.loss == "ce":  # class indices, as the points of a K-logit network carry
        if p[2] != int(p[2]) or not 0 <= p[2] < cfg.classes:
            raise PlayError(f"an added point's class is 0 to {cfg.classes - 1}, "
                                  f"got {p[2]}")
    elif p[2] not in (-1, 1):
        raise PlayError(f"an added point's class is -1 or +1, got {p[2]}")


def make_points(cfg, labels):
    """The generated data (before the split) as ``(X, y)``, page labels converted to the
    loss's convention; hand edits applied (removed points dropped, added ones appended)."""
    from .. import data as _data

    name, kind = DATASETS[cfg.dataset]
    if kind == "regression":
        X, y = _data.REGRESSION[name](n_samples=cfg.samples, noise=cfg.noise, seed=cfg.seed)
    else:
        extra = {"n_classes": cfg.classes} if cfg.dataset in MULTICLASS else {}
        noise = math.hypot(BLOB_SPREAD, cfg.noise) if cfg.dataset == "blobs" else cfg.noise
        X, y = _data.make_dataset(name, n_samples=cfg.samples, noise=noise, seed=cfg.seed,
                                  labels=labels, **extra)
    gone = set(cfg.removed)
    keep = [i for i in range(len(X)) if i not in gone]
    X, y = [X[i] for i in keep], [y[i] for i in keep]
    for x1, x2, lab in cfg.added:
        X.append([float(x1), float(x2)])
        if kind == "regression":
            y.append(float(lab))
        elif labels == "index":
            y.append(int(lab))
        else:
            y.append((1 if lab > 0 else 0) if labels == "01" else (1 if lab > 0 else -1))
    return X, y, keep




"""The experiment's fields, each declared once with its metadata; the caps and the names
they take (read from the library's registries); what a set-up implies (task, outputs,
parameters, test points)."""

from __future__ import annotations

import inspect
from dataclasses import dataclass, field, fields, replace
from typing import NamedTuple

from .. import data as _data
from .. import losses as _losses
from .. import nn as _nn
from .. import optim as _optim

# ---------------------------------------------------------------------------------------
# the caps: each keeps one experiment small enough to train live on a shared server
# ---------------------------------------------------------------------------------------

MAX_SAMPLES = 2000         # points in a data set (train + test)
MAX_LAYERS = 6             # hidden layers
MAX_NEURONS = 32           # per hidden layer
MAX_PARAMETERS = 1500      # weights + biases of one network
MAX_EDITS = 200            # points added by hand, and points removed
MAX_CLASSES = 5
MAX_SEED = 2**31 - 1
MAX_COORD = 10.0           # an added point lies in [-10, 10]^2

# ---------------------------------------------------------------------------------------
# the names, read from the library's registries
# ---------------------------------------------------------------------------------------

#: the data sets of your own points (the field ``points``: imported from a CSV file or
#: drawn), for classification and for regression
OWN = ("own", "own_regression")
#: every data set: the classification sets, then the regression sets, then your own
DATASETS = (*_data.DATASETS, *_data.REGRESSION, *OWN)
REGRESSION = (*_data.REGRESSION, "own_regression")
#: the sets whose generator takes ``n_classes`` (so they can have more than two), and
#: your own points
MULTICLASS = (*(name for name, (fn, _) in _data.DATASETS.items()
                if "n_classes" in inspect.signature(fn).parameters), "own")
#: sets whose generator's noise is their clusters' spread: an experiment's noise widens
#: it (in quadrature), so noise 0 is still clusters
OWN_SPREAD = ("blobs",)
#: how the page names each set (a set missing here shows its name)
DATASET_TITLES = {"disk": "circle", "moons": "two moons", "circles": "two rings",
                  "xor": "XOR", "plane": "plane (regression)",
                  "gaussians": "gaussians (regression)", "own": "your points",
                  "own_regression": "your points (regression)"}

#: the loss every regression set trains with (a tanh output on the float targets)
REGRESSION_LOSS = "mse"

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

#: the page's older names, read when a set-up is read (never written)
ALIASES = {"dataset": {"circle": "disk"},
           "optimizer": {"momentum": {"optimizer": "sgd", "momentum": 0.9}}}


class ExperimentError(ValueError):
    """A set-up refused: the message names the field and what it allows; ``field`` is
    the field's name (None when a combination of fields is refused)."""

    def __init__(self, message, field=None):
        super().__init__(message)
        self.field = field


class Group(NamedTuple):
    """A group of fields: one box of the page's controls, hidden together by a lesson
    link. ``text`` names it there ("hide ..."); ``place`` is where the page puts its
    controls: ``"data"`` (the data set's panel), ``"network"`` (above the network),
    ``"bar"`` (the bar of training settings), or None (no control in the form: the
    features are toggled in the network view)."""

    text: str
    place: str | None


#: the page's groups of fields, in the order it shows them (in the bar, and in a lesson
#: link's list)
GROUPS = {
    "data": Group("data set and its settings", "data"),
    "network": Group("layers and neurons", "network"),
    "features": Group("input features", None),
    "lr": Group("learning rate", "bar"),
    "act": Group("activation", "bar"),
    "reg": Group("L1 / L2", "bar"),
    "loss": Group("loss", "bar"),
    "opt": Group("optimizer", "bar"),
}
PLACES = ("data", "network", "bar", None)


def _f(url, kind, default, label, help, group, *, keeps_weights=False, place=None, **meta):
    """One field of Experiment with its metadata (read by spec(), checks and links).
    ``group``: a key of GROUPS; ``place``: where its control goes when that is not its
    group's place."""
    if group not in GROUPS:
        raise ValueError(f"field {url!r}: no group {group!r}; groups: {', '.join(GROUPS)}")
    place = GROUPS[group].place if place is None else place
    if place not in PLACES:
        raise ValueError(f"field {url!r}: no place {place!r}; places: {PLACES}")
    meta.update(url=url, kind=kind, label=label, help=help, group=group, place=place,
                keeps_weights=keeps_weights)
    if isinstance(default, list):
        return field(default_factory=lambda: list(default), metadata=meta)
    return field(default=default, metadata=meta)


@dataclass
class Experiment:
    """One experiment's set-up: data, features, network, loss, optimizer, penalties.

    Every field has a default (the Playground's first set-up). ``from_dict`` and
    ``from_url`` read and check a set-up; ``check`` checks one made by hand."""

    dataset: str = _f(
        "ds", "choice", "disk", "data set", "the points to learn; regression sets have "
        "a float target", "data", choices=DATASETS, choice_labels=DATASET_TITLES)
    classes: int = _f(
        "k", "int", 2, "classes", "3 or more: " + " or ".join(MULTICLASS) + ", trained "
        "with the softmax cross-entropy", "data", min=2, max=MAX_CLASSES)
    noise: float = _f(
        "noise", "number", 0.0, "noise", "Gaussian jitter added to each point (blobs: "
        "widens the clusters)", "data", keeps_weights=True, min=0, max=2)
    samples: int = _f(
        "n", "int", 200, "samples", "points generated, train and test together", "data",
        min=10, max=MAX_SAMPLES)
    train_ratio: float = _f(
        "ratio", "number", 0.5, "train ratio", "the share of the points trained on; "
        "the rest is the test set", "data", keeps_weights=True, min=0.1, max=0.9)
    seed: int = _f(
        "seed", "int", 1, "data seed", "the seed of the points and of the split", "data",
        min=0, max=MAX_SEED)
    added: list = _f(
        "add", "points", [], "added points", "points put in by hand: [x1, x2, label]",
        "data", keeps_weights=True, max_len=MAX_EDITS, min=-MAX_COORD, max=MAX_COORD)
    points: list = _f(
        "pts", "points", [], "your points", "the points of the data sets 'own' and "
        "'own_regression' (imported from a CSV file, or drawn): [x1, x2, label or "
        "target]", "data", keeps_weights=True, max_len=MAX_SAMPLES, min=-MAX_COORD,
        max=MAX_COORD)
    removed: list = _f(
        "rm", "indices", [], "removed points", "generated points taken out, by index",
        "data", keeps_weights=True, max_len=MAX_EDITS, min=0, max=MAX_SAMPLES - 1)
    features: list = _f(
        "feat", "choices", ["x1", "x2"], "input features", "the network's inputs, each "
        "a function of the point (x1, x2)", "features", choices=tuple(FEATURES),
        max_len=len(FEATURES))
    hidden: list = _f(
        "hidden", "ints", [4, 2], "hidden layers", "neurons per hidden layer, comma "
        "separated, e.g. 4,2", "network", min=1, max=MAX_NEURONS, max_len=MAX_LAYERS)
    activation: str = _f(
        "act", "choice", "tanh", "activation", "the hidden layers' activation",
        "act", choices=tuple(_nn.ACTIVATIONS))
    bias_init: str = _f(
        "bias", "choice", "uniform", "initial biases", "uniform: random in [-1, 1] "
        "(the lecture's); zero: micrograd's", "network", choices=("uniform", "zero"))
    init_seed: int = _f(
        "iseed", "int", 0, "init seed", "the seed of the initial weights", "network",
        min=0, max=MAX_SEED)
    loss: str = _f(
        "loss", "choice", "mse", "loss", "the loss; it sets the output layer's "
        "activation and the labels", "loss", choices=tuple(_losses.LOSSES))
    optimizer: str = _f(
        "opt", "choice", "sgd", "optimizer", "how a step moves the weights", "opt",
        keeps_weights=True, choices=tuple(_optim.OPTIMIZERS))
    momentum: float = _f(
        "mom", "number", 0.0, "momentum", "SGD's momentum (0: none)", "opt",
        keeps_weights=True, min=0, max=1, max_exclusive=True)
    nesterov: bool = _f(
        "nesterov", "bool", False, "Nesterov", "SGD's Nesterov momentum (needs "
        "momentum > 0)", "opt", keeps_weights=True)
    weight_decay: float = _f(
        "wd", "number", 0.0, "weight decay", "the optimizer's weight decay (adamw: "
        "decoupled)", "opt", keeps_weights=True, min=0, max=1)
    lr: float = _f(
        "lr", "number", 0.1, "learning rate", "the step size", "lr", keeps_weights=True,
        min=0, min_exclusive=True, max=10)
    batch_size: int = _f(  # a control in the bar (after its groups), hidden with the data
        "batch", "int", 0, "batch (0 = all)", "training points per step; 0: all of "
        "them", "data", keeps_weights=True, place="bar", min=0, max=MAX_SAMPLES)
    l1: float = _f(
        "l1", "number", 0.0, "L1 rate", "the penalty l1 * sum |w|", "reg",
        keeps_weights=True, min=0, max=1)
    l2: float = _f(
        "l2", "number", 0.0, "L2 rate", "the penalty l2 * sum w^2", "reg",
        keeps_weights=True, min=0, max=1)

    # -- reading and writing -------------------------------------------------------------

    @classmethod
    def from_dict(cls, d):
        """A checked experiment from a dict of fields (the HTTP body); missing fields
        take their defaults, aliases are read, unknown fields are refused."""
        from .links import from_dict

        return from_dict(cls, d)

    @classmethod
    def from_url(cls, query):
        """A checked experiment from a link's query (``{"ds": "disk", "n": "100"}``,
        strings as ``URLSearchParams`` gives them); keys of other parts of the page
        are ignored, missing fields take their defaults, aliases are read."""
        from .links import from_url

        return from_url(cls, query)

    def to_dict(self):
        """Every field, JSON-ready, under the canonical names."""
        return {f.name: _copy(getattr(self, f.name)) for f in fields(self)}

    def to_url(self):
        """The link's query: ``{url key: text}`` for every field (so a link keeps its
        meaning if a default changes); hand edits only when there are some."""
        from .links import to_url

        return to_url(self)

    @classmethod
    def spec(cls):
        """The page's description of the fields, choices and caps (module docstring)."""
        from .links import spec

        return spec(cls)

    def check(self):
        """Refuse a set-up the experiment cannot run, with an ``ExperimentError`` that
        names the field; returns the network's number of parameters."""
        from .checks import check

        return check(self)

    def replace(self, **changes):
        """A copy with ``changes`` (not checked: call ``check``)."""
        return replace(self, **{k: _copy(v) for k, v in changes.items()})


def _copy(v):
    return [list(x) if isinstance(x, list) else x for x in v] if isinstance(v, list) else v


# ---------------------------------------------------------------------------------------
# what the set-up implies
# ---------------------------------------------------------------------------------------


def task(exp):
    """``"regression"`` or ``"classes"``: what the data set asks of the network."""
    return "regression" if exp.dataset in REGRESSION else "classes"


def n_outputs(exp):
    """The network's outputs: one per class for a loss on K logits, else one."""
    return exp.classes if _losses.LOSSES[exp.loss].outputs == "classes" else 1


def count_parameters(exp, nin=None):
    """Weights and biases of the experiment's network (``nin``: inputs, default one per
    feature)."""
    sizes = [len(exp.features) if nin is None else nin] + list(exp.hidden) + [n_outputs(exp)]
    return sum((a + 1) * b for a, b in zip(sizes, sizes[1:]))


def default_noise(dataset):
    """The data set's own noise as an experiment's ``noise``: the generator's default
    (a set with its own spread: 0, its spread is kept anyway)."""
    if dataset in OWN_SPREAD or dataset in REGRESSION or dataset in OWN:
        return 0.0
    return _data.DATASETS[dataset][1]


def n_points(exp):
    """The points the data set starts from before hand edits: ``samples`` generated,
    or your own points."""
    return len(exp.points) if exp.dataset in OWN else exp.samples


def n_test(exp):
    """Points held out for testing: ``round(n_points * (1 - train_ratio))`` (0 when the
    train ratio is 1); hand edits change the training set only."""
    if exp.train_ratio >= 1:
        return 0
    return round(n_points(exp) * (1 - exp.train_ratio))

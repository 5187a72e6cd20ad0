
"""What the experiment's fields are made of: the caps and the names they take (read from
the library's registries), the page's groups, how one field is declared (``declare``,
used by ``Experiment`` in ``experiment.py``: a set-up field of ``micrograd.setup_field``,
whose ``declared`` says how a surface reads it, with the page's group and place); what a
set-up implies (task, outputs, parameters, test points)."""

from __future__ import annotations

import inspect
from typing import Callable, NamedTuple

from .. import data as _data
from .. import losses as _losses
from .. import setup_field

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

# the command line's caps (``micrograd train``): one run on one's own machine, not a
# shared server, so larger; each keeps a run finite in time and memory on a laptop (the
# traced runner's set-up grows faster than linearly with the parameters)
CLI_MAX_SAMPLES = 100_000  # points generated (lists of floats: ~30 MB, made in < 1 s)
CLI_MAX_NEURONS = 4_096    # per hidden layer
CLI_MAX_LAYERS = 32
CLI_MAX_PARAMETERS = 100_000  # weights + biases (~14 MB of Values, < 1 min set-up)
CLI_MAX_LR = 100.0         # the demo uses 1.0 (sgd) or 0.01 (adam); at 100 runs blow up
CLI_MAX_PENALTY = 10.0     # l2 and weight decay: 1 already pulls every weight to about 0
CLI_MAX_NOISE = 10.0       # the sets live in about [-2, 2]^2: noise 10 is pure noise

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

#: the command line's data sets: the generated classification sets, and scikit-learn's
#: digits (loaded on demand: ``DIGITS_IMAGES`` images of ``DIGITS_PIXELS`` pixels, 10
#: classes), which the caller passes to ``build`` as its points
CLI_DATASETS = (*_data.DATASETS, "digits")
DIGITS_IMAGES, DIGITS_PIXELS, DIGITS_CLASSES = 1797, 64, 10
#: the command line's sets that take ``classes`` > 2
CLI_MULTICLASS = (*(name for name in MULTICLASS if name in _data.DATASETS), "digits")

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


class Depends(NamedTuple):
    """A default that follows another field: ``pick(the value of on)``; ``shown`` is
    how a help text writes it (``Depends("optimizer", lambda o: ..., "1.0 for sgd")``)."""

    on: str
    pick: Callable
    shown: str


def declare(url, kind, default, label, help, group, *, keeps_weights=False, place=None,
            cli=None, **meta):
    """One field of Experiment: a set-up's field (``micrograd.setup_field.declare``:
    its kind, default, bounds, help and the command line's overrides, ``cli=``) with
    what the page reads of an experiment's: its link key ``url``, its ``group`` (a key of
    GROUPS), its control's ``place`` when that is not its group's, and whether a change
    ``keeps_weights``."""
    if group not in GROUPS:
        raise ValueError(f"field {url!r}: no group {group!r}; groups: {', '.join(GROUPS)}")
    place = GROUPS[group].place if place is None else place
    if place not in PLACES:
        raise ValueError(f"field {url!r}: no place {place!r}; places: {PLACES}")
    return setup_field.declare(kind, default, label, help, url=url, cli=cli, group=group,
                               place=place, keeps_weights=keeps_weights, **meta)


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
    (a set with its own spread: 0, its spread is kept anyway; a set with no generator
    of ours: 0)."""
    if dataset in OWN_SPREAD or dataset not in _data.DATASETS:  # regression, your own
        return 0.0  # points, digits
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

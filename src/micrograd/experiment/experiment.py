"""``Experiment``: one training set-up, each field declared here once with its metadata
(what a declaration is made of: ``fields``). Reading and writing a set-up (``links``)
and checking it (``validation``) work from the declarations alone, never naming this class:
it imports them, and neither imports it."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

from .. import losses as _losses
from .. import nn as _nn
from .. import optim as _optim
from . import links, validation
from .fields import (CLI_DATASETS, CLI_MAX_LAYERS, CLI_MAX_LR, CLI_MAX_NEURONS,
                     CLI_MAX_NOISE, CLI_MAX_PARAMETERS, CLI_MAX_PENALTY, CLI_MAX_SAMPLES,
                     CLI_MULTICLASS, DATASET_TITLES, DATASETS, DIGITS_CLASSES,
                     DIGITS_IMAGES, FEATURES, MAX_CLASSES, MAX_COORD, MAX_EDITS, MAX_LAYERS,
                     MAX_NEURONS, MAX_PARAMETERS, MAX_SAMPLES, MAX_SEED, MULTICLASS,
                     Depends, declare, default_noise)


def _digits_or(value, digits):
    """A command-line default that differs for scikit-learn's digits."""
    return Depends("dataset", lambda name: digits if name == "digits" else value,
                   f"{value}; digits: {digits}")


@dataclass
class Experiment:
    """One experiment's set-up: data, features, network, loss, optimizer, penalties.

    Every field has a default (the Playground's first set-up). ``from_dict`` and
    ``from_url`` read and check a set-up; ``check`` checks one made by hand. A field
    with ``cli=`` is also an option of ``micrograd train``, with what the command line
    reads differently (``fields.declare``): its defaults are micrograd's demo (moons,
    relu, 16,16, hinge, L2 1e-4, SGD at lr 1.0), its caps a laptop's."""

    dataset: str = declare(
        "ds", "choice", "disk", "data set", "the points to learn; regression sets have "
        "a float target", "data", choices=DATASETS, choice_labels=DATASET_TITLES,
        cli=dict(default="moons", choices=CLI_DATASETS, help="the points to learn; "
                 "digits: scikit-learn's 8x8 images, loaded on demand"))
    classes: int = declare(
        "k", "int", 2, "classes", "3 or more: " + " or ".join(MULTICLASS) + ", trained "
        "with the softmax cross-entropy", "data", min=2, max=MAX_CLASSES,
        applies_to=MULTICLASS,
        cli=dict(default=_digits_or(2, DIGITS_CLASSES), max=None, metavar="K",
                 applies_to=CLI_MULTICLASS, help="more than 2 for " + ", ".join(
                     CLI_MULTICLASS) + ", with a loss over K outputs"))
    noise: float = declare(
        "noise", "number", 0.0, "noise", "Gaussian jitter added to each point (blobs: "
        "widens the clusters)", "data", keeps_weights=True, min=0, max=2,
        cli=dict(max=CLI_MAX_NOISE, help="Gaussian jitter of each point (std. dev.); "
                 "blobs: the clusters' spread", default=Depends(
                     "dataset", default_noise, "the data set's own")))
    samples: int = declare(
        "n", "int", 200, "samples", "points generated, train and test together", "data",
        min=10, max=MAX_SAMPLES,
        cli=dict(min=4, max=CLI_MAX_SAMPLES, default=_digits_or(100, DIGITS_IMAGES),
                 metavar="N", help="points generated, train and test together; digits: "
                 f"how many of its {DIGITS_IMAGES} images"))
    train_ratio: float = declare(
        "ratio", "number", 0.5, "train ratio", "the share of the points trained on; "
        "the rest is the test set", "data", keeps_weights=True, min=0.1, max=0.9)
    seed: int = declare(
        "seed", "int", 1, "data seed", "the seed of the points and of the split", "data",
        min=0, max=MAX_SEED,
        cli=dict(default=1337, label="seed", help="of the data, the split, the initial "
                 "weights and the batches"))
    added: list = declare(
        "add", "points", [], "added points", "points put in by hand: [x1, x2, label]",
        "data", keeps_weights=True, max_len=MAX_EDITS, min=-MAX_COORD, max=MAX_COORD)
    points: list = declare(
        "pts", "points", [], "your points", "the points of the data sets 'own' and "
        "'own_regression' (imported from a CSV file, or drawn): [x1, x2, label or "
        "target]", "data", keeps_weights=True, max_len=MAX_SAMPLES, min=-MAX_COORD,
        max=MAX_COORD)
    removed: list = declare(
        "rm", "indices", [], "removed points", "generated points taken out, by index",
        "data", keeps_weights=True, max_len=MAX_EDITS, min=0, max=MAX_SAMPLES - 1)
    features: list = declare(
        "feat", "choices", ["x1", "x2"], "input features", "the network's inputs, each "
        "a function of the point (x1, x2)", "features", choices=tuple(FEATURES),
        min_len=1, max_len=len(FEATURES))
    hidden: list = declare(
        "hidden", "ints", [4, 2], "hidden layers", "neurons per hidden layer, comma "
        "separated, e.g. 4,2", "network", min=1, max=MAX_NEURONS, min_len=1,
        max_len=MAX_LAYERS, max_parameters=MAX_PARAMETERS,
        cli=dict(default=[16, 16], max=CLI_MAX_NEURONS, max_len=CLI_MAX_LAYERS,
                 max_parameters=CLI_MAX_PARAMETERS, metavar="SIZES",
                 help="neurons per hidden layer, comma separated"))
    activation: str = declare(
        "act", "choice", "tanh", "activation", "the hidden layers' activation",
        "act", choices=tuple(_nn.ACTIVATIONS),
        cli=dict(default="relu", choices=tuple(a for a in _nn.ACTIVATIONS if a != "linear")))
    bias_init: str = declare(
        "bias", "choice", "uniform", "initial biases", "uniform: random in [-1, 1] "
        "(the lecture's); zero: micrograd's", "network", choices=("uniform", "zero"))
    init_seed: int = declare(
        "iseed", "int", 0, "init seed", "the seed of the initial weights", "network",
        min=0, max=MAX_SEED, cli=dict(same_as="seed"))
    loss: str = declare(
        "loss", "choice", "mse", "loss", "the loss; it sets the output layer's "
        "activation and the labels", "loss", choices=tuple(_losses.LOSSES),
        cli=dict(default="hinge"))
    optimizer: str = declare(
        "opt", "choice", "sgd", "optimizer", "how a step moves the weights", "opt",
        keeps_weights=True, choices=tuple(_optim.OPTIMIZERS), cli={})
    momentum: float = declare(
        "mom", "number", 0.0, "momentum", "SGD's momentum (0: none)", "opt",
        keeps_weights=True, min=0, max=1, max_exclusive=True, cli={})
    nesterov: bool = declare(
        "nesterov", "bool", False, "Nesterov", "SGD's Nesterov momentum (needs "
        "momentum > 0)", "opt", keeps_weights=True, cli={})
    weight_decay: float = declare(
        "wd", "number", 0.0, "weight decay", "the optimizer's weight decay (adamw: "
        "decoupled)", "opt", keeps_weights=True, min=0, max=1,
        cli=dict(max=CLI_MAX_PENALTY, metavar="WD"))
    lr: float = declare(
        "lr", "number", 0.1, "learning rate", "the step size", "lr", keeps_weights=True,
        min=0, min_exclusive=True, max=10,
        cli=dict(max=CLI_MAX_LR, default=Depends(
            "optimizer", lambda name: 1.0 if name == "sgd" else 0.01,
            "1.0 for sgd, 0.01 for the others")))
    batch_size: int = declare(  # a control in the bar (after its groups), hidden with the data
        "batch", "int", 0, "batch (0 = all)", "training points per step; 0: all of "
        "them", "data", keeps_weights=True, place="bar", min=0, max=MAX_SAMPLES,
        cli=dict(max=CLI_MAX_SAMPLES, label="batch size", metavar="B"))
    l1: float = declare(
        "l1", "number", 0.0, "L1 rate", "the penalty l1 * sum |w|", "reg",
        keeps_weights=True, min=0, max=1)
    l2: float = declare(
        "l2", "number", 0.0, "L2 rate", "the penalty l2 * sum w^2", "reg",
        keeps_weights=True, min=0, max=1,
        cli=dict(default=1e-4, max=CLI_MAX_PENALTY, metavar="ALPHA"))

    # -- reading and writing -------------------------------------------------------------

    @classmethod
    def from_dict(cls, d):
        """A checked experiment from a dict of fields (the HTTP body); missing fields
        take their defaults, aliases are read, unknown fields are refused."""
        return links.from_dict(cls, d)

    @classmethod
    def from_url(cls, query):
        """A checked experiment from a link's query (``{"ds": "disk", "n": "100"}``,
        strings as ``URLSearchParams`` gives them); keys of other parts of the page
        are ignored, missing fields take their defaults, aliases are read."""
        return links.from_url(cls, query)

    @classmethod
    def from_options(cls, values, surface="cli"):
        """An experiment (not checked) from the command line's options, ``{field name:
        value}``: None or absent takes the command line's declared default."""
        return links.from_options(cls, values, surface)

    def to_dict(self):
        """Every field, JSON-ready, under the canonical names."""
        return {f.name: _copy(getattr(self, f.name)) for f in fields(self)}

    def to_url(self):
        """The link's query: ``{url key: text}`` for every field (so a link keeps its
        meaning if a default changes); hand edits only when there are some."""
        return links.to_url(self)

    @classmethod
    def spec(cls):
        """The page's description of the fields, choices and caps (module docstring)."""
        return links.spec(cls)

    def check(self):
        """Refuse a set-up the experiment cannot run, with an ``ExperimentError`` that
        names the field; returns the network's number of parameters."""
        return validation.check(self)

    def replace(self, **changes):
        """A copy with ``changes`` (not checked: call ``check``)."""
        return replace(self, **{k: _copy(v) for k, v in changes.items()})


def _copy(v):
    return [list(x) if isinstance(x, list) else x for x in v] if isinstance(v, list) else v

"""``build()``: an experiment made real, as the data split, the network (``nn.MLP``), the
loss (``losses.LossSpec``), the optimizer (``micrograd.optim``) and the penalties. Each
piece is a function of its own, so a session can rebuild one (new weights: a model and
an optimizer) and keep the rest."""

from __future__ import annotations

import math
from dataclasses import dataclass

from .. import data as _data
from .. import losses as _losses
from .. import nn as _nn
from .. import optim as _optim
from .experiment import Experiment
from .fields import FEATURES, MULTICLASS, OWN, OWN_SPREAD, n_outputs, n_test, task


def make_points(exp, labels=None):
    """The generated points with the hand edits applied, as ``(X, y, ids)``: removed
    points dropped, added ones appended; ``ids[i]`` is the point's index among the
    generated points (-1: added by hand). ``labels``: the label convention
    (``micrograd.data``'s ``"pm1"``, ``"01"``, ``"index"``; default: the loss's)."""
    labels = _losses.LOSSES[exp.loss].labels if labels is None else labels
    regression = task(exp) == "regression"
    if exp.dataset in OWN:  # your own points, in the loss's convention already
        X = [[float(p[0]), float(p[1])] for p in exp.points]
        y = [float(p[2]) if regression else int(p[2]) for p in exp.points]
    elif regression:
        X, y = _data.REGRESSION[exp.dataset](n_samples=exp.samples, noise=exp.noise,
                                             seed=exp.seed)
    else:
        extra = {"n_classes": exp.classes} if exp.dataset in MULTICLASS else {}
        noise = exp.noise
        if exp.dataset in OWN_SPREAD:
            noise = math.hypot(_data.DATASETS[exp.dataset][1], exp.noise)
        X, y = _data.make_dataset(exp.dataset, n_samples=exp.samples, noise=noise,
                                  seed=exp.seed, labels=labels, **extra)
    gone = set(exp.removed)
    keep = [i for i in range(len(X)) if i not in gone]
    X, y = [X[i] for i in keep], [y[i] for i in keep]
    for x1, x2, lab in exp.added:
        X.append([float(x1), float(x2)])
        if regression:
            y.append(float(lab))
        elif labels == "index":
            y.append(int(lab))
        else:
            y.append((1 if lab > 0 else 0) if labels == "01" else (1 if lab > 0 else -1))
    return X, y, keep + [-1] * len(exp.added)


def split(exp, X, y, ids=None):
    """``(X_train, X_test, y_train, y_test, id_train, id_test)``: the test set is
    :func:`n_test` points drawn with the data seed, class by class for a
    classification set (``micrograd.data.train_test_split``)."""
    ids = list(range(len(X))) if ids is None else ids
    ntest = n_test(exp)
    if ntest == 0:
        return list(X), [], list(y), [], list(ids), []
    rows = [list(x) + [i] for x, i in zip(X, ids)]
    tr, te, y_train, y_test = _data.train_test_split(
        rows, y, test_size=ntest, seed=exp.seed, stratify=task(exp) == "classes")
    return ([r[:-1] for r in tr], [r[:-1] for r in te], y_train, y_test,
            [r[-1] for r in tr], [r[-1] for r in te])


def make_model(exp, nin=None):
    """The experiment's ``nn.MLP``: ``nin`` inputs (default: one per feature), the
    hidden layers, the loss's outputs and output activation, weights from
    ``init_seed``."""
    nin = len(exp.features) if nin is None else nin
    return _nn.MLP(nin, list(exp.hidden) + [n_outputs(exp)], activation=exp.activation,
                   output_activation=_losses.LOSSES[exp.loss].output_activation,
                   bias_init=exp.bias_init, seed=exp.init_seed)


def make_optimizer(exp, params):
    """The experiment's optimizer over ``params`` (``micrograd.optim``)."""
    settings = {"weight_decay": exp.weight_decay}
    if exp.optimizer == "sgd":
        settings.update(momentum=exp.momentum, nesterov=exp.nesterov)
    return _optim.make_optimizer(exp.optimizer, params, exp.lr, **settings)


def penalty(exp, params):
    """``l1 * sum |p| + l2 * sum p^2`` over ``params`` as one Value (``micrograd.losses``),
    or None when both rates are 0."""
    terms = []
    if exp.l1 > 0:
        terms.append(_losses.l1_penalty(params, exp.l1))
    if exp.l2 > 0:
        terms.append(_losses.l2_penalty(params, exp.l2))
    return sum(terms[1:], terms[0]) if terms else None


@dataclass
class Built:
    """An experiment made real: the split data, the network, the loss, the optimizer."""

    experiment: Experiment
    X_train: list
    X_test: list
    y_train: list
    y_test: list
    id_train: list  # each point's index among the generated points (-1: added by hand)
    id_test: list
    model: _nn.MLP
    loss: _losses.LossSpec
    optimizer: _optim.Optimizer

    @property
    def task(self):
        return task(self.experiment)

    @property
    def n_outputs(self):
        return n_outputs(self.experiment)

    def features(self, x):
        """The network's inputs for one point (a pair of Values)."""
        return [FEATURES[f](x[0], x[1]) for f in self.experiment.features]

    def penalty(self):
        """The L1 + L2 penalty on the model's parameters (a Value), or None."""
        return penalty(self.experiment, self.model.parameters())


def build(exp, points=None):
    """Data, network, loss and optimizer of a checked experiment (a :class:`Built`).

    ``points``: ``(X, y)`` to use instead of the generated points (labels in the
    loss's convention; the network then takes the points' coordinates as its inputs,
    e.g. the 64 pixels of ``data.load_digits``)."""
    if points is None:
        X, y, ids = make_points(exp)
        nin = None
    else:
        X, y = list(points[0]), list(points[1])
        ids, nin = list(range(len(X))), len(X[0])
    X_train, X_test, y_train, y_test, id_train, id_test = split(exp, X, y, ids)
    model = make_model(exp, nin)
    return Built(exp, X_train, X_test, y_train, y_test, id_train, id_test, model,
                 _losses.LOSSES[exp.loss], make_optimizer(exp, model.parameters()))

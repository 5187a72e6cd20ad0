"""What one change of a set-up implies: the Playground changes one field at a time, and
which other fields change with it is decided here; the page applies the answer.

    >>> from micrograd.experiment import Experiment
    >>> from micrograd.experiment.changes import implied
    >>> implied(Experiment(dataset="spiral"), "classes", 3)
    {'classes': 3, 'loss': 'ce'}
    >>> implied(Experiment(added=[[0.5, 0.5, 1]]), "seed", 2)
    {'seed': 2, 'added': [], 'removed': []}

The rules, each read from the registries (``fields.REGRESSION``, ``MULTICLASS``, ``OWN``,
``REGRESSION_LOSS``; a loss's ``labels`` and ``outputs`` in ``losses.LOSSES``) and from
the fields' declarations (their defaults):

* a new data set: no hand edits and none of your own points (they belonged to the set
  before); a set whose generator takes no ``n_classes`` has 2 classes (a regression set
  too), and a regression set trains with ``REGRESSION_LOSS``; leaving a regression set,
  the loss that was forced on it goes back to the loss field's default;
* a new number of points or a new data seed: new points, so no hand edits (an index
  removed would name another point);
* 3 or more classes: a loss on one output per class (the first such loss of ``LOSSES``)
  unless the loss has one already; back to 2 from such a loss: the loss field's default;
* a new loss: points keep their class in its labels. Two classes of points added by
  hand: class indices 0/1 for a loss on one output per class, else -1/+1 (as a generated
  set's points are); your own points carry the loss's own labels (-1/+1, 0/1, indices),
  and a class index above 1 stays (two classes then refuse it, and say so).

A value that is not the field's kind is passed on as it is: the set-up's check refuses it
and names the field.

``PAGE_FIELDS`` names the fields the page handles by themselves (a button of its own, the
rate set on the running session, the points of your own that travel in a link), so its
code names none.
"""

from __future__ import annotations

import math
from dataclasses import MISSING, fields

from .. import losses as _losses
from .fields import MULTICLASS, OWN, REGRESSION, REGRESSION_LOSS

__all__ = ["implied", "makes_own", "PAGE_FIELDS", "TWO_CLASSES"]

#: the two classes, (the other, the positive), in each labels convention of a loss
#: (``losses.LossSpec.labels``)
TWO_CLASSES = {"pm1": (-1, 1), "01": (0, 1), "index": (0, 1)}
#: the labels of a loss on one output per class: class indices
INDEX = "index"
#: the labels a point added by hand carries with a loss on one output, whichever the
#: loss's own (the check holds a generated set's added points to -1/+1)
ADDED = "pm1"
#: a loss's ``outputs`` when it has one output per class
PER_CLASS = "classes"

#: the fields the page handles by themselves, under the part each plays there
PAGE_FIELDS = {
    "live": "lr",                  # set on the running session: no new session
    "layers": "hidden",            # the + and - of the layers and of their neurons
    "inputs": "features",          # toggled in the network view
    "data_seed": "seed",           # "new data": the next seed
    "weights_seed": "init_seed",   # "new weights": the next seed (back to the first)
    "dataset": "dataset",          # a data set drawn by hand shows its own name
    "own_points": "points",        # in the link up to a cap, else in a file
    "generated": ["samples", "noise"],  # what only generated points have
}


def _default(exp, name):
    f = next(f for f in fields(exp) if f.name == name)
    return f.default_factory() if f.default is MISSING else f.default


def _number(v):
    """``v`` if it is a finite number, else None."""
    return v if isinstance(v, (int, float)) and math.isfinite(v) else None


def _per_class(loss):
    return _losses.LOSSES[loss].outputs == PER_CLASS


def makes_own(name, value):
    """Whether the change makes the data set one of your own points (the page then
    takes the points it shows, or a plane to draw on)."""
    return name == "dataset" and value in OWN


def implied(exp, name, value):
    """The patch that setting field ``name`` of the accepted set-up ``exp`` (an
    Experiment) to ``value`` implies: ``{name: value}`` and every other field that
    changes with it (module docstring). Nothing is checked here."""
    patch = {name: value}
    if name == "dataset":
        patch.update(_new_dataset(exp, value))
    if name in ("samples", "seed"):
        patch.update(added=[], removed=[])
    if name == "classes":
        patch.update(_new_classes(exp, _number(value)))
    patch.update(_relabelled(exp, patch))
    return patch


def _new_dataset(exp, dataset):
    out = {"added": [], "removed": [], "points": []}
    if dataset in REGRESSION:
        out["loss"] = REGRESSION_LOSS
    elif exp.dataset in REGRESSION:
        out["loss"] = _default(exp, "loss")
    if dataset not in MULTICLASS:
        out["classes"] = 2
    return out


def _new_classes(exp, k):
    if k is None:
        return {}
    if k > 2 and not _per_class(exp.loss):
        return {"loss": next(n for n in _losses.LOSSES if _per_class(n))}
    if k == 2 and _per_class(exp.loss):
        return {"loss": _default(exp, "loss")}
    return {}


def _relabelled(exp, patch):
    """The points that carry labels, in the labels of the patch's new loss."""
    loss = patch.get("loss", exp.loss)
    if loss == exp.loss or loss not in _losses.LOSSES:
        return {}
    old, new = _losses.LOSSES[exp.loss].labels, _losses.LOSSES[loss].labels
    two = patch.get("classes", exp.classes) == 2
    out = {}
    if exp.added and two and "added" not in patch:
        other, positive = TWO_CLASSES[INDEX if new == INDEX else ADDED]
        out["added"] = [[x, y, positive if v > 0 else other] for x, y, v in exp.added]
    mine = exp.points and "points" not in patch and exp.dataset not in REGRESSION
    if mine and (two or old != INDEX):
        other, positive = TWO_CLASSES[new]
        out["points"] = [[x, y, v if old == INDEX and v > 1 else positive if v > 0 else other]
                         for x, y, v in exp.points]
    return out

"""The one validation of an experiment, in plain Python: each field's type and range
(read from its declaration), then the combinations. Every refusal is an
``ExperimentError`` whose message names the field and what it allows.

The command line (``micrograd train``) asks the same checks: each option's value while
it is parsed (``value_problem``, ``item_problem``, against the field's declaration as
the command line reads it), the combinations once parsed (``check_combinations`` with
``surface="cli"``, whose messages name the options: ``--loss``, not ``loss``)."""

from __future__ import annotations

import math
from dataclasses import fields
from numbers import Real

from .. import losses as _losses
from .. import optim as _optim
from ..setup_field import declared
from .fields import (MAX_COORD, MAX_EDITS, OWN, REGRESSION_LOSS, ExperimentError,
                     count_parameters, n_points, n_test, task)


def check(exp):
    """Refuse what the experiment cannot run on the page; returns the number of
    parameters."""
    for f in fields(exp):
        _check_field(f.name, declared(f), getattr(exp, f.name))
    nparams = check_combinations(exp)
    _check_edits(exp)
    _check_split(exp)
    return nparams


def check_combinations(exp, surface=None, nin=None):
    """Refuse fields that do not go together: the data set, classes and loss; the
    optimizer's settings (``optim.momentum_rule``); the network's size against the
    surface's cap. ``surface``: whose declarations and names (None: the page's;
    ``"cli"``: the command line's); ``nin``: the network's inputs when they are not
    the features (the digits' pixels). Returns the number of parameters."""
    metas = {f.name: declared(f, surface) or declared(f) for f in fields(exp)}
    say = (lambda name: name) if surface is None else (
        lambda name: metas[name].get("flag", name) if name in metas else name)
    _check_task(exp, metas["classes"], say)
    broken = _optim.momentum_rule(exp.momentum, exp.nesterov, optimizer=exp.optimizer,
                                  name=say)
    if broken:
        raise ExperimentError(broken[1], broken[0])
    nparams = count_parameters(exp, nin)
    cap = metas["hidden"]["max_parameters"]
    if nparams > cap:
        raise ExperimentError(f"{say('hidden')} {','.join(map(str, exp.hidden))} makes a "
                              f"network of {nparams:,} parameters; the cap is {cap:,}",
                              "hidden")
    return nparams


# ---------------------------------------------------------------------------------------
# one field: its kind and range
# ---------------------------------------------------------------------------------------


def _is_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


def _is_number(x):
    return isinstance(x, Real) and not isinstance(x, bool)


def _num(x):
    """A bound as a sentence writes it: 100,000 and 2,147,483,647; 0.5 and 100."""
    return f"{x:,}" if _is_int(x) else f"{x:g}"


def range_text(meta):
    """The declared range in words: ``"4 to 100,000"``, ``"more than 0 and at most
    10"``, ``"at least 2"`` (no upper cap: ``max`` None)."""
    lo, hi = meta["min"], meta.get("max")
    if hi is None:
        return f"{'more than' if meta.get('min_exclusive') else 'at least'} {_num(lo)}"
    if meta.get("min_exclusive"):
        return f"more than {_num(lo)} and at most {_num(hi)}"
    if meta.get("max_exclusive"):
        return f"at least {_num(lo)} and less than {_num(hi)}"
    return f"{_num(lo)} to {_num(hi)}"


def _in_range(x, meta):
    lo, hi = meta["min"], meta.get("max")
    above_lo = x > lo if meta.get("min_exclusive") else x >= lo
    if hi is None:
        return above_lo and x == x  # nan is in no range
    below_hi = x < hi if meta.get("max_exclusive") else x <= hi
    return above_lo and below_hi


def value_problem(meta, x, text=None):
    """What is wrong with the number ``x`` (an int or number field's value, read from
    ``text`` if given) against its declared range: a sentence without the field's name
    (``"must be 0 to 2, got 3"``), or None."""
    if _in_range(x, meta):  # nan and inf are in no range
        return None
    return f"must be {range_text(meta)}, got {x if text is None else text.strip()}"


def item_problem(meta, n):
    """What is wrong with one hidden layer's size ``n`` (an item of an ``ints``
    field), or None."""
    if not _is_int(n):
        return f"{meta['name']} holds whole numbers, got {type(n).__name__} {n!r:.40}"
    if not _in_range(n, meta):
        return f"a hidden layer has {range_text(meta)} neurons, got {_num(n)}"
    return None


def length_problem(meta, x):
    """What is wrong with the number of items of a list field (``ints``), or None."""
    if not meta["min_len"] <= len(x) <= meta["max_len"]:
        return f"give {meta['min_len']} to {meta['max_len']} {meta['label']}, got {len(x)}"
    return None


def _check_field(name, meta, x):
    kind = meta["kind"]
    if kind == "choice":
        if not isinstance(x, str) or x not in meta["choices"]:
            raise ExperimentError(f"unknown {meta['label']} {x!r}; choose one of "
                                  f"{', '.join(meta['choices'])}", name)
    elif kind == "bool":
        if not isinstance(x, bool):
            raise ExperimentError(f"{name} must be true or false, got "
                                  f"{type(x).__name__} {x!r:.40}", name)
    elif kind in ("int", "number"):
        if not (_is_int(x) if kind == "int" else _is_number(x)):
            what = "a whole number" if kind == "int" else "a number"
            raise ExperimentError(f"{name} must be {what}, got {type(x).__name__} "
                                  f"{x!r:.40}", name)
        problem = value_problem(meta, x)
        if problem:
            raise ExperimentError(f"{name} {problem}", name)
    elif not isinstance(x, list):
        raise ExperimentError(f"{name} must be a list, got {type(x).__name__} {x!r:.40}",
                              name)
    elif kind == "ints":
        _check_ints(name, meta, x)
    elif kind == "choices":
        _check_choices(name, meta, x)
    elif kind == "indices":
        for i in x:
            if not _is_int(i):
                raise ExperimentError(f"{name} holds indices (whole numbers), got "
                                      f"{type(i).__name__} {i!r:.40}", name)


def _check_ints(name, meta, x):
    """The hidden sizes: 1 to max_len layers of min..max neurons."""
    problem = length_problem(meta, x)
    for n in x:
        problem = problem or item_problem(meta, n)
    if problem:
        raise ExperimentError(problem, name)


def _check_choices(name, meta, x):
    """The features: at least one, each known, none twice."""
    if not x:
        raise ExperimentError("choose at least one input feature", name)
    for f in x:
        if not isinstance(f, str) or f not in meta["choices"]:
            raise ExperimentError(f"unknown feature {f!r}; features: "
                                  f"{', '.join(meta['choices'])}", name)
    if len(set(x)) != len(x):
        raise ExperimentError("a feature is listed twice", name)


# ---------------------------------------------------------------------------------------
# the combinations
# ---------------------------------------------------------------------------------------


def _check_task(exp, classes, say):
    """The data set, the classes and the loss go together (``classes``: the field's
    declaration: the sets it ``applies_to``)."""
    loss = _losses.LOSSES[exp.loss]
    if task(exp) == "regression":
        if exp.loss != REGRESSION_LOSS:
            raise ExperimentError(f"the regression set {exp.dataset!r} is trained with the "
                                  f"squared error: loss must be {REGRESSION_LOSS!r}, got "
                                  f"{exp.loss!r}", "loss")
        if exp.classes != 2:
            raise ExperimentError(f"the regression set {exp.dataset!r} has no classes; "
                                  "leave classes at 2", "classes")
    sets = classes["applies_to"]
    if exp.classes > 2 and exp.dataset not in sets:
        listed = f"{', '.join(sets[:-1])} and {sets[-1]}" if len(sets) > 1 else sets[0]
        raise ExperimentError(f"{say('classes')} applies to {listed}, not {exp.dataset}",
                              "classes")
    if exp.classes > 2 and loss.outputs != "classes":
        multi = [k for k, v in _losses.LOSSES.items() if v.outputs == "classes"]
        raise ExperimentError(f"{say('loss')} {exp.loss} is for two classes; with "
                              f"{exp.classes} classes use {say('loss')} "
                              f"{' or '.join(multi)}", "loss")
    if exp.classes > n_points(exp) and exp.dataset not in OWN:  # (yours: the split says)
        raise ExperimentError(f"{say('classes')} {exp.classes} is more than the "
                              f"{n_points(exp)} points of the data set", "classes")


def _check_edits(exp):
    """Points added by hand and generated points removed."""
    if len(exp.added) > MAX_EDITS or len(exp.removed) > MAX_EDITS:
        raise ExperimentError(f"at most {MAX_EDITS} points added and {MAX_EDITS} removed",
                              "added" if len(exp.added) > MAX_EDITS else "removed")
    for p in exp.added:
        _check_added(exp, p)
    if exp.points and exp.dataset not in OWN:
        raise ExperimentError(f"your points are the data of the data sets "
                              f"{' and '.join(map(repr, OWN))}; the data set "
                              f"{exp.dataset!r} makes its own", "points")
    for p in exp.points:
        _check_added(exp, p, "points", "a point")
    n = n_points(exp)
    for i in exp.removed:
        if not 0 <= i < n:
            whose = f"your {n}" if exp.dataset in OWN else f"the {n} generated"
            raise ExperimentError(f"removed point {i} is not one of {whose} points",
                                  "removed")


def _check_added(exp, p, name="added", what="an added point"):
    ok = isinstance(p, (list, tuple)) and len(p) == 3 and all(
        _is_number(v) and math.isfinite(v) for v in p)
    if not ok:
        raise ExperimentError(f"{what} is [x1, x2, label] with finite numbers, "
                              f"got {p!r:.60}", name)
    if max(abs(p[0]), abs(p[1])) > MAX_COORD:
        raise ExperimentError(f"{what} lies within [-{MAX_COORD:g}, "
                              f"{MAX_COORD:g}]^2, got {list(p[:2])}", name)
    labels = _losses.LOSSES[exp.loss].labels
    if task(exp) == "regression":
        if not -1 <= p[2] <= 1:
            raise ExperimentError(f"a regression target lies in [-1, 1], got {p[2]}",
                                  name)
    elif labels == "index":  # class indices, as the points of a K-logit network carry
        if p[2] != int(p[2]) or not 0 <= p[2] < exp.classes:
            raise ExperimentError(f"{what}'s class is 0 to {exp.classes - 1}, "
                                  f"got {p[2]}", name)
    elif labels == "01" and exp.dataset in OWN:  # your points carry the loss's labels
        if p[2] not in (0, 1):
            raise ExperimentError(f"{what}'s class is 0 or 1 (the loss {exp.loss!r}), "
                                  f"got {p[2]}", name)
    elif p[2] not in (-1, 1):
        raise ExperimentError(f"{what}'s class is -1 or +1, got {p[2]}", name)


def _check_split(exp):
    total = n_points(exp) - len(set(exp.removed)) + len(exp.added)
    ntest = n_test(exp)
    if ntest < 1 or total - ntest < 2:
        if exp.dataset in OWN:
            raise ExperimentError(f"your data has {total} point{'s' if total != 1 else ''}"
                                  f": at train ratio {exp.train_ratio:g} it needs at least "
                                  "2 to train and 1 to test", "points")
        raise ExperimentError(f"{total} points at train ratio {exp.train_ratio} leave "
                              "no test or too few train points", "train_ratio")
    if exp.batch_size > total - ntest:
        raise ExperimentError(f"batch size {exp.batch_size} is larger than the training "
                              f"set ({total - ntest} points); 0 means all of it",
                              "batch_size")

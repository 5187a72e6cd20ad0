"""Loss functions built from ``Value`` operations, plus L1 and L2 penalties and accuracy.

    >>> from micrograd.engine import Value
    >>> from micrograd.losses import mse, hinge
    >>> scores = [Value(0.5), Value(-2.0)]
    >>> mse(scores, [1, -1]).data          # ((0.5-1)^2 + (-2+1)^2) / 2
    0.625
    >>> hinge(scores, [1, -1]).data        # (relu(1-0.5) + relu(1-2)) / 2
    0.25

Every loss takes the model's outputs (``Value``s or plain numbers) and the targets and
returns one ``Value`` (the mean over all samples, or the sum with ``reduction="sum"``),
so ``loss.backward()`` fills the gradients. The logits versions are stable for any input
(+-1000 and +-1e308 included): binary cross-entropy is ``y softplus(-z) + (1-y)
softplus(z)`` with the engine's stable softplus, and softmax cross-entropy is
``log(sum(exp(z - m))) - (z[y] - m)`` with the maximum ``m`` subtracted (a shift: it
changes neither the value nor the gradient, which is ``softmax(z) - onehot(y)``).

Each formula is written once, as a term (``_mse_term``, ``_bce_term``, ``_ce_term``...);
the batch functions and the per-sample forms that ``micrograd.trace`` runs share it.

Labels: ``hinge`` takes -1 or +1, ``bce_with_logits`` 0 or 1 (or a probability in
[0, 1]), ``cross_entropy`` class indices 0..K-1, ``mse`` any finite number (-1/+1 for
classes, with a tanh output). Each loss refuses any other target, nan included, naming
the target by its position and value and saying what it wants: a hinge loss on 0/1
labels would otherwise train on without a word (a 0 label has no gradient).
``LOSSES[name].labels`` records the convention, for code that picks a loss by name, and
``LOSSES[name].check_labels(y)`` checks a whole set of labels before training.
"""

from __future__ import annotations

import math
from itertools import chain
from numbers import Real

from . import checks
from .engine import Value

__all__ = ["mse", "hinge", "bce_with_logits", "cross_entropy", "logsumexp", "l1_penalty",
           "l2_penalty", "accuracy", "plain_accuracy", "LossSpec", "LOSSES", "get_loss"]


# ---------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------


def _is_num(x):
    return isinstance(x, (Value, Real)) and not isinstance(x, bool)


def _flatten_pairs(preds, targets, what, wants=None):
    """Pair up predictions and targets; each may be a scalar or a list (multi-output).
    Every target is checked against ``wants`` (see ``_target``)."""
    if _is_num(preds):
        preds, targets = [preds], [targets]
    preds = list(preds)
    targets = list(targets)
    if len(preds) != len(targets):
        raise ValueError(f"{what}: {len(preds)} predictions but {len(targets)} targets")
    if not preds:
        raise ValueError(f"{what}: no predictions (empty batch)")
    pairs = []
    for i, (p, t) in enumerate(zip(preds, targets)):
        if _is_num(p):
            pairs.append((p, _target(t, what, wants, "target {}", i)))
            continue
        if isinstance(p, (str, bytes)) or not hasattr(p, "__len__"):
            raise TypeError(f"{what}: prediction {i} must be a Value, a number or a list "
                            f"of them, got {type(p).__name__}")
        if _is_num(t) or len(p) != len(t):
            raise ValueError(f"{what}: prediction {i} has {len(p)} outputs but its target "
                             f"is {t!r}")
        pairs.extend((pj, _target(tj, what, wants, "target {}[{}]", i, j))
                     for j, (pj, tj) in enumerate(zip(p, t)))
    return pairs


#: what a loss wants of each target: (what it says, the test); finite comes first
FINITE = ("a finite number", None)
PLUS_MINUS_ONE = ("the label -1 or +1 (for labels 0/1 use bce)", lambda y: y in (-1.0, 1.0))
ZERO_ONE = ("the label 0 or 1 (or a probability in [0, 1]), not -1/+1",
            lambda y: 0.0 <= y <= 1.0)


def _target(t, what, wants, where, *at):
    """One target as a float, refused unless it is a finite number that ``wants``
    (``FINITE``, ``PLUS_MINUS_ONE``, ``ZERO_ONE``; None: FINITE) allows; the error names
    the loss ``what``, the target (``where.format(*at)``: ``"target 3"``, ``"y[3]"``)
    and its value."""
    if type(t) is float:
        y = t
    elif isinstance(t, bool) or not isinstance(t, Real):
        raise TypeError(f"{what}: {where.format(*at)} must be a number, got "
                        f"{type(t).__name__}: {checks.show(t)}")
    else:
        try:
            y = float(t)
        except OverflowError:  # an int past the largest float
            y = math.inf
    text, ok = wants or FINITE
    if not math.isfinite(y) or (ok is not None and not ok(y)):
        raise ValueError(f"{what}: {where.format(*at)} is {checks.show(t)}; {what} wants "
                         f"{text}")
    return y


def _reduce(terms, reduction, what):
    total = sum(terms[1:], terms[0]) if isinstance(terms[0], Value) else sum(terms)
    if reduction == "mean":
        return total * (1.0 / len(terms))
    if reduction == "sum":
        return total
    raise ValueError(f"{what}: reduction must be 'mean' or 'sum', got {reduction!r}")


def _value(x):
    return x if isinstance(x, Value) else Value(x)


def _class_index(y, k, what):
    """A class index in 0..k-1 (a Python or NumPy integer; any int >= 0 when ``k`` is
    None); anything else refused."""
    if not isinstance(y, bool) and not isinstance(y, int) and hasattr(y, "__index__"):
        y = y.__index__()  # numpy.int64 and friends
    if isinstance(y, bool) or not isinstance(y, int) or not 0 <= y < (k or math.inf):
        want = "(an int >= 0)" if k is None else f"in 0..{k - 1}"
        raise ValueError(f"{what} must be a class index {want}, got {checks.show(y)}")
    return y


# ---------------------------------------------------------------------------------------
# the terms: each loss's formula, written once (the batch and per-sample forms use them)
# ---------------------------------------------------------------------------------------


def _mse_term(p, t):  # (p - t)^2
    return (p - t) ** 2


def _hinge_term(s, y):  # relu(1 - y s)
    return (1.0 + s * -y).relu()


def _bce_term(z, y):
    # -y log sigmoid(z) - (1-y) log(1 - sigmoid(z)) = y softplus(-z) + (1-y) softplus(z):
    # both softplus terms are stable, keep full precision when the prediction is right
    # with confidence (z = 40, y = 1 gives 4.25e-18, not 0), and the gradient is
    # sigmoid(z) - y everywhere (no kink)
    return (-z).softplus() * y + z.softplus() * (1.0 - y)


def _ce_term(zs, target, m):
    """softmax cross-entropy of logits ``zs`` with the shift ``m`` (their max):
    ``log(sum exp(z - m)) - (z[y] - m)``; written with the shift on both sides, so huge
    logits (1e308) do not cancel to 0. ``target`` is a class index, or one-hot Values."""
    exps = [(z - m).exp() for z in zs]
    lse = sum(exps[1:], exps[0]).log()
    if isinstance(target, int):
        return lse - (zs[target] - m)
    picked = sum((z * t for z, t in zip(zs[1:], target[1:])), zs[0] * target[0])  # z[y]
    return lse - (picked - m)


# ---------------------------------------------------------------------------------------
# regression / margin losses
# ---------------------------------------------------------------------------------------


def mse(preds, targets, reduction="mean"):
    """Mean squared error: mean of ``(pred - target)**2`` over every output.

    ``preds`` is one Value, a list of Values (one output each), or a list of lists
    (several outputs each); ``targets`` has the same shape. Matches
    ``torch.nn.functional.mse_loss``.
    """
    pairs = _flatten_pairs(preds, targets, "mse", FINITE)
    return _reduce([_mse_term(_value(p), t) for p, t in pairs], reduction, "mse")


def hinge(scores, labels, reduction="mean"):
    """Max-margin (hinge) loss of micrograd's demo: mean of ``relu(1 - y * score)``.

    ``labels`` in {-1, +1} (any other is refused: a 0 label would give a constant loss
    and no gradient); ``scores`` are raw (linear) outputs. A sample on the margin
    (``y * score == 1``) gets gradient 0 (relu'(0) = 0).
    """
    pairs = _flatten_pairs(scores, labels, "hinge", PLUS_MINUS_ONE)
    return _reduce([_hinge_term(_value(s), y) for s, y in pairs], reduction, "hinge")


def bce_with_logits(logits, targets, reduction="mean"):
    """Binary cross-entropy on logits, per output ``y softplus(-z) + (1-y) softplus(z)``,
    y in [0, 1].

    Equal to ``-y log sigmoid(z) - (1-y) log(1 - sigmoid(z))`` but never takes the log
    of a rounded-to-zero probability; gradient ``sigmoid(z) - y``. Matches
    ``torch.nn.functional.binary_cross_entropy_with_logits``.
    """
    pairs = _flatten_pairs(logits, targets, "bce_with_logits", ZERO_ONE)
    return _reduce([_bce_term(_value(z), y) for z, y in pairs], reduction,
                   "bce_with_logits")


# ---------------------------------------------------------------------------------------
# softmax cross-entropy
# ---------------------------------------------------------------------------------------


def _shift(zs):
    """The largest logit as a plain number (a constant shift), 0 when none is finite."""
    m = max(z.data for z in zs)
    if m != m or m in (float("inf"), float("-inf")):
        return 0.0  # nan / inf logits: no finite shift helps; let IEEE propagate
    return m


def logsumexp(logits):
    """``log(sum(exp(z)))`` of a list of Values, stable: ``m + log(sum(exp(z - m)))``.

    ``m`` is the largest logit, taken as a plain number (a constant): every ``exp`` then
    sees a number <= 0 and the sum is >= 1, so nothing overflows or underflows to
    log(0). The gradient is ``softmax(z)``.
    """
    zs = [_value(z) for z in logits]
    if not zs:
        raise ValueError("logsumexp: empty list of logits")
    m = _shift(zs)
    exps = [(z - m).exp() for z in zs]
    return sum(exps[1:], exps[0]).log() + m


def cross_entropy(logits, targets, reduction="mean"):
    """Softmax cross-entropy on logits: ``logsumexp(z) - z[y]`` per sample.

    ``logits`` is a list of samples, each a list of K Values (one per class); ``targets``
    the class indices (ints 0..K-1). A single sample may be given as one list of logits
    and one int. The gradient with respect to the logits is ``softmax(z) - onehot(y)``.
    Matches ``torch.nn.functional.cross_entropy``.
    """
    if isinstance(targets, Real):  # one sample: its logits and one class (1.5 refused)
        logits, targets = [logits], [targets]
    logits, targets = list(logits), list(targets)
    if len(logits) != len(targets):
        raise ValueError(f"cross_entropy: {len(logits)} samples but {len(targets)} targets")
    if not logits:
        raise ValueError("cross_entropy: no samples (empty batch)")
    terms = []
    for i, (z, y) in enumerate(zip(logits, targets)):
        if _is_num(z):
            raise TypeError(f"cross_entropy: sample {i} must be a list of class logits "
                            f"(a model with K >= 2 outputs), got one number")
        y = _class_index(y, len(z), f"cross_entropy: target {i}")
        zs = [_value(v) for v in z]
        terms.append(_ce_term(zs, y, _shift(zs)))
    return _reduce(terms, reduction, "cross_entropy")


# ---------------------------------------------------------------------------------------
# penalty and metric
# ---------------------------------------------------------------------------------------


def _rate(alpha, penalty):
    """A penalty's rate: a finite number >= 0, as ``fit(l2=...)`` wants."""
    return checks.number(alpha, f"{penalty}'s alpha", low=0.0)


def l1_penalty(parameters, alpha=1e-4):
    """``alpha * sum(|p|)``: the L1 (lasso) penalty, which pushes weights to exactly 0.
    Its kink at 0 gets the derivative 0 there (``abs``'s rule, as PyTorch's). ``alpha``
    is a finite number >= 0 (a negative one would reward large weights)."""
    alpha = _rate(alpha, "l1_penalty")
    params = list(parameters)
    if not params:
        return Value(0.0)
    return alpha * sum((p.abs() for p in params[1:]), params[0].abs())


def l2_penalty(parameters, alpha=1e-4):
    """``alpha * sum(p*p)``: micrograd's demo regulariser (``alpha = 1e-4`` there).
    ``alpha`` is a finite number >= 0, as ``fit(l2=...)``'s."""
    alpha = _rate(alpha, "l2_penalty")
    params = list(parameters)
    if not params:
        return Value(0.0)
    return alpha * sum((p * p for p in params[1:]), params[0] * params[0])


def _data(x):
    return x.data if isinstance(x, Value) else float(x)


def accuracy(scores, labels, threshold=0.0):
    """Fraction of correct predictions, a float in [0, 1].

    Binary (one score per sample): a sample is predicted positive when its score is
    above ``threshold`` (0 for tanh / linear / logit outputs; use 0.5 for probabilities)
    and is positive when its label is > 0, so labels may be {-1, +1} or {0, 1}.
    Multi-class (a list of scores per sample): the prediction is the argmax, compared
    with the class index.

    Accuracy means something for class labels only: with any other label (regression
    targets such as 5 and 7, or a class index out of range) the result is ``nan``,
    never a made-up percentage.
    """
    scores, labels = list(scores), list(labels)
    if len(scores) != len(labels):
        raise ValueError(f"accuracy: {len(scores)} predictions but {len(labels)} labels")
    if not scores:
        raise ValueError("accuracy: no predictions")
    binary = [_is_num(s) for s in scores]
    if any(binary) and not all(binary):
        raise ValueError("accuracy: mixed single scores and lists of class scores")
    if binary[0]:
        if not all(y in (-1, 1) for y in labels) and not all(y in (0, 1) for y in labels):
            return float("nan")  # not class labels: accuracy is not defined
    elif not all(_is_class(y, len(s)) for s, y in zip(scores, labels)):
        return float("nan")
    correct = 0
    for s, y in zip(scores, labels):
        if _is_num(s):
            correct += (_data(s) > threshold) == (y > 0)
        else:
            row = [_data(v) for v in s]
            correct += max(range(len(row)), key=row.__getitem__) == y
    return correct / len(scores)


def plain_accuracy(scores, labels, threshold=0.0):
    """``accuracy(scores, labels, threshold)`` in one pass when the scores are plain
    numbers (a float per sample, or a list of floats per sample: a traced or lowered
    program's outputs), the same result; anything else (Values, bools, mixed) goes
    through ``accuracy``'s checks. The numbers' types are asked once, at C speed, not
    per element in Python: the Playground computes its metrics after every step."""
    scores, labels, plain = list(scores), list(labels), {float, int}
    kinds = set(map(type, scores))
    if kinds == {list}:
        kinds = set(map(type, chain.from_iterable(scores)))
        if not kinds <= plain or len(scores) != len(labels) or not scores:
            return accuracy(scores, labels, threshold)
        if not all(_is_class(y, len(s)) for s, y in zip(scores, labels)):
            return float("nan")
        correct = 0
        for s, y in zip(scores, labels):
            correct += max(range(len(s)), key=s.__getitem__) == y
        return correct / len(scores)
    if not kinds <= plain or len(scores) != len(labels) or not scores:
        return accuracy(scores, labels, threshold)
    if not all(y in (-1, 1) for y in labels) and not all(y in (0, 1) for y in labels):
        return float("nan")  # not class labels: accuracy is not defined
    correct = 0
    for s, y in zip(scores, labels):
        correct += (s > threshold) == (y > 0)
    return correct / len(scores)


def _is_class(y, k):
    """A class index 0..k-1 (an int, a NumPy integer, or an integral float)."""
    if isinstance(y, bool) or not isinstance(y, Real):
        return False
    return float(y).is_integer() and 0 <= y < k


# ---------------------------------------------------------------------------------------
# registry: pick a loss by name (the CLI, the trainer, other engines)
# ---------------------------------------------------------------------------------------


# ---------------------------------------------------------------------------------------
# per-sample forms, for the traced batched path (micrograd.trace)
# ---------------------------------------------------------------------------------------
# Each takes ONE sample's output (a Value or a list of Values) and its target as Values
# (a traced input), and reads no ``.data``, so it traces. The mean over samples of
# ``sample(out_i, t_i)`` equals the batch loss with ``reduction="mean"``.


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _mean_terms(terms):
    total = sum(terms[1:], terms[0])
    return total if len(terms) == 1 else total * (1.0 / len(terms))


def _vmax(zs):
    """The largest of some Values, with Value ops only:
    max(a, b) = 2 (a/2 + relu(b/2 - a/2)); halved first, so that b - a cannot overflow
    (logits of -1e308 and 1e308). Exact: halving and doubling are exact in binary."""
    m = zs[0]
    for z in zs[1:]:
        h = m * 0.5
        m = (h + (z * 0.5 - h).relu()) * 2.0
    return m


def _sample_mse(out, target):
    return _mean_terms([_mse_term(o, t) for o, t in zip(_as_list(out), _as_list(target))])


def _sample_hinge(out, target):
    return _mean_terms([_hinge_term(o, t) for o, t in zip(_as_list(out), _as_list(target))])


def _sample_bce(out, target):
    return _mean_terms([_bce_term(o, t) for o, t in zip(_as_list(out), _as_list(target))])


def _sample_ce(out, onehot):
    # the shift m = max(z) is made of Value ops here (reading .data would not trace);
    # its gradient cancels: d/dz [log sum exp(z - m) - (z - m) . onehot] = softmax - onehot
    zs = _as_list(out)
    return _ce_term(zs, _as_list(onehot), _vmax(zs))


class LossSpec:
    """A named loss: its function, the label convention it wants, what the model outputs.

    ``labels`` is ``"pm1"`` ({-1, +1}), ``"01"`` ({0, 1}) or ``"index"`` (class indices);
    ``outputs`` is ``"one"`` (a single score per sample) or ``"classes"`` (K logits);
    ``output_activation`` is what the model's last layer applies for it (``"tanh"`` for
    mse on -1/+1 labels, ``"linear"`` for losses that take logits or margins).
    ``sample(out, target)`` is one sample's loss with the target given as Values (for
    tracing); ``target(label, k)`` turns a label into that target (a float, or a one-hot
    list of ``k`` floats for class indices). ``wants`` is what it takes of a target
    (``FINITE``, ``PLUS_MINUS_ONE``, ``ZERO_ONE``; class indices for ``"index"``), which
    ``check_labels`` holds a whole set of labels to. A custom loss has no ``sample`` and
    checks no labels.
    """

    __slots__ = ("name", "fn", "labels", "outputs", "doc", "sample", "output_activation",
                 "wants")

    def __init__(self, name, fn, labels, outputs, doc, sample=None,
                 output_activation="linear", wants=None):
        self.name, self.fn, self.labels, self.outputs, self.doc = (name, fn, labels,
                                                                   outputs, doc)
        self.sample = sample
        self.output_activation = output_activation  # what the model's last layer applies
        self.wants = wants

    def check_labels(self, labels, k=None, name="y"):
        """Refuse, before any training, the first label this loss cannot use: by its
        position in ``labels`` (``y[3]``), its value and what the loss wants. ``k``: the
        number of classes, where known. A custom loss checks nothing."""
        if self.wants is None and self.labels != "index":
            return
        where = name + "[{}]"
        for i, label in enumerate(labels):
            if self.labels == "index":
                _class_index(label, k, f"{self.name}: {where.format(i)}")
            elif isinstance(label, Real):
                _target(label, self.name, self.wants, where, i)
            elif isinstance(label, (str, bytes)) or not hasattr(label, "__len__"):
                _target(label, self.name, self.wants, where, i)  # refused: not a number
            else:  # several outputs: a row of targets
                for j, t in enumerate(label):
                    _target(t, self.name, self.wants, where + "[{}]", i, j)

    def __call__(self, preds, targets, reduction="mean"):
        return self.fn(preds, targets, reduction)

    def target(self, label, k=1):
        """The traced target of one sample: a float (or list), or a one-hot list."""
        if self.labels == "index":
            label = _class_index(label, k, f"{self.name}: target")
            return [1.0 if j == label else 0.0 for j in range(k)]
        if isinstance(label, (list, tuple)):
            return [_target(t, self.name, self.wants, "target[{}]", j)
                    for j, t in enumerate(label)]
        return _target(label, self.name, self.wants, "the target")

    def __repr__(self):
        return f"LossSpec({self.name!r}, labels={self.labels!r})"


LOSSES = {
    "mse": LossSpec("mse", mse, "pm1", "one", "mean squared error (tanh output, -1/+1)",
                    _sample_mse, output_activation="tanh", wants=FINITE),
    "hinge": LossSpec("hinge", hinge, "pm1", "one", "max-margin hinge (linear output)",
                      _sample_hinge, wants=PLUS_MINUS_ONE),
    "bce": LossSpec("bce", bce_with_logits, "01", "one",
                    "binary cross-entropy on a logit (linear output, 0/1 labels)",
                    _sample_bce, wants=ZERO_ONE),
    "ce": LossSpec("ce", cross_entropy, "index", "classes",
                   "softmax cross-entropy on K logits (class indices)", _sample_ce),
}


def get_loss(loss):
    """A ``LossSpec`` from a name in ``LOSSES``, or wrap a plain callable as is."""
    if isinstance(loss, LossSpec):
        return loss
    if isinstance(loss, str):
        if loss not in LOSSES:
            raise ValueError(f"unknown loss {loss!r}; choose one of {', '.join(LOSSES)}")
        return LOSSES[loss]
    if callable(loss):
        return LossSpec(getattr(loss, "__name__", "custom"),
                        lambda p, t, reduction="mean": loss(p, t), "pm1", "one",
                        "custom loss")
    raise TypeError(f"loss must be a name or a callable, got {type(loss).__name__}")

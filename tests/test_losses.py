"""Losses against torch.nn.functional in float64: values and gradients, extremes included."""

import math
import random

import pytest
import torch
import torch.nn.functional as F
from hypothesis import given
from hypothesis import strategies as st

from micrograd.engine import Value
from micrograd.losses import (LOSSES, accuracy, bce_with_logits, cross_entropy, get_loss,
                              hinge, l1_penalty, l2_penalty, logsumexp,
                              mse)

UPSTREAM = 3.0  # a non-unit upstream gradient: backpropagate 3 * loss


def close(a, b, rel=1e-12, abs_=1e-12):
    return math.isclose(a, b, rel_tol=rel, abs_tol=abs_)


def values(xs):
    return [Value(x) for x in xs]


def torch_leaf(xs):
    return torch.tensor(xs, dtype=torch.float64, requires_grad=True)


def check(loss_v, leaves, loss_t, t_leaf):
    """Same value, same gradient (of UPSTREAM * loss) in micrograd and torch."""
    loss_v.backward(UPSTREAM)
    (UPSTREAM * loss_t).backward()
    assert close(loss_v.data, loss_t.item()), (loss_v.data, loss_t.item())
    g_t = t_leaf.grad.reshape(-1).tolist()
    g_v = [v.grad for v in leaves]
    for a, b in zip(g_v, g_t):
        assert close(a, b), (g_v, g_t)


@pytest.fixture
def rng():
    return random.Random(1234)


# ---- mse ------------------------------------------------------------------------------


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_mse_matches_torch(rng, reduction):
    preds = [rng.uniform(-3, 3) for _ in range(9)]
    targets = [rng.choice([-1.0, 1.0]) for _ in range(9)]
    pv, pt = values(preds), torch_leaf(preds)
    check(mse(pv, targets, reduction), pv,
          F.mse_loss(pt, torch.tensor(targets, dtype=torch.float64), reduction=reduction),
          pt)


def test_mse_multi_output_and_single_value(rng):
    preds = [[rng.gauss(0, 1) for _ in range(3)] for _ in range(4)]
    targets = [[rng.gauss(0, 1) for _ in range(3)] for _ in range(4)]
    pv = [values(row) for row in preds]
    pt = torch_leaf(preds)
    check(mse(pv, targets), [v for row in pv for v in row],
          F.mse_loss(pt, torch.tensor(targets, dtype=torch.float64)), pt)
    a = Value(0.25)
    assert mse(a, 1.0).data == 0.5625


def test_mse_accepts_plain_numbers_and_checks_shapes():
    assert mse([0.5, 2.0], [1, 1]).data == (0.25 + 1.0) / 2
    with pytest.raises(ValueError, match="2 predictions but 3 targets"):
        mse([Value(1.0), Value(2.0)], [1, 1, 1])
    with pytest.raises(ValueError, match="empty"):
        mse([], [])
    with pytest.raises(TypeError, match="target 0 must be a number, got str"):
        mse([Value(1.0)], ["1"])
    with pytest.raises(ValueError, match="reduction"):
        mse([Value(1.0)], [1.0], reduction="max")


# ---- hinge ----------------------------------------------------------------------------


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_hinge_matches_torch(rng, reduction):
    scores = [rng.uniform(-3, 3) for _ in range(10)] + [1.0, -1.0, 1000.0, -1000.0]
    labels = [rng.choice([-1, 1]) for _ in range(10)] + [1, -1, -1, -1]
    sv, st_ = values(scores), torch_leaf(scores)
    y = torch.tensor(labels, dtype=torch.float64)
    ref = torch.relu(1 - y * st_)
    check(hinge(sv, labels, reduction), sv, ref.mean() if reduction == "mean" else ref.sum(),
          st_)


def test_hinge_kink_exact():
    # on the margin, y*s == 1: relu'(0) = 0, so no gradient; just inside it: -y / n
    s = [Value(1.0), Value(-1.0), Value(0.5)]
    loss = hinge(s, [1, -1, 1])
    loss.backward()
    assert loss.data == 0.5 / 3
    assert [v.grad for v in s] == [0.0, 0.0, -1.0 / 3]


# ---- binary cross-entropy from logits -------------------------------------------------


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_bce_matches_torch_including_extremes(rng, reduction):
    logits = [rng.uniform(-6, 6) for _ in range(8)] + [1000.0, -1000.0, 1000.0, -1000.0,
                                                        40.0, -40.0, 0.0, 710.0]
    targets = [rng.choice([0.0, 1.0]) for _ in range(8)] + [1.0, 0.0, 0.0, 1.0,
                                                             0.0, 1.0, 0.5, 0.3]
    lv, lt = values(logits), torch_leaf(logits)
    ref = F.binary_cross_entropy_with_logits(lt, torch.tensor(targets, dtype=torch.float64),
                                             reduction=reduction)
    loss = bce_with_logits(lv, targets, reduction)
    assert math.isfinite(loss.data)
    check(loss, lv, ref, lt)


def test_bce_gradient_is_sigmoid_minus_target():
    z = [Value(-2.0), Value(0.0), Value(3.0)]
    y = [1.0, 0.0, 1.0]
    bce_with_logits(z, y, reduction="sum").backward()
    for v, t in zip(z, y):
        # sigmoid(z) - t, in the form that keeps full precision: -sigmoid(-z) for t = 1
        expected = 1 / (1 + math.exp(-v.data)) if t == 0 else -1 / (1 + math.exp(v.data))
        assert close(v.grad, expected, 1e-15, 1e-16)


def test_bce_refuses_pm1_labels():
    with pytest.raises(ValueError, match=r"target 0 is -1; bce_with_logits wants the label "
                                         r"0 or 1 \(or a probability in \[0, 1\]\)"):
        bce_with_logits([Value(0.0)], [-1])


# ---- softmax cross-entropy ------------------------------------------------------------


@pytest.mark.parametrize("reduction", ["mean", "sum"])
def test_cross_entropy_matches_torch(rng, reduction):
    logits = [[rng.uniform(-5, 5) for _ in range(4)] for _ in range(6)]
    logits += [[1000.0, -1000.0, 0.0, 999.0], [-1000.0, -1000.0, -1000.0, -1000.0],
               [1000.0, 1000.0, 1000.0, 1000.0], [-1000.0, 1000.0, 0.0, 5.0]]
    targets = [rng.randrange(4) for _ in range(6)] + [1, 2, 0, 0]
    lv = [values(row) for row in logits]
    lt = torch_leaf(logits)
    ref = F.cross_entropy(lt, torch.tensor(targets), reduction=reduction)
    loss = cross_entropy(lv, targets, reduction)
    assert math.isfinite(loss.data)
    check(loss, [v for row in lv for v in row], ref, lt)


def test_cross_entropy_gradient_is_softmax_minus_onehot():
    z = values([2.0, -1.0, 0.5])
    cross_entropy(z, 2).backward()  # a single sample: list of logits and an int
    zt = torch.tensor([2.0, -1.0, 0.5], dtype=torch.float64)
    expect = (torch.softmax(zt, 0) - F.one_hot(torch.tensor(2), 3)).tolist()
    for v, e in zip(z, expect):
        assert close(v.grad, e, 1e-15, 1e-16)


def test_logsumexp_is_stable():
    z = values([1000.0, 1000.0])
    out = logsumexp(z)
    out.backward()
    assert close(out.data, 1000.0 + math.log(2.0), 1e-15)
    assert [v.grad for v in z] == [0.5, 0.5]
    assert logsumexp(values([-1000.0, -1000.0])).data == pytest.approx(-1000 + math.log(2))
    with pytest.raises(ValueError):
        logsumexp([])


def same_float(a, b):
    """The same float, infinities and signs included; or both nan."""
    return (math.isnan(a) and math.isnan(b)) or repr(a) == repr(b)


INF = math.inf


@pytest.mark.parametrize("zs", [
    [-INF], [-INF, -INF], [-INF] * 4,  # no finite logit: log(0) = -inf
    [-INF, 1.0], [-INF, -INF, -2.0], [INF, -INF], [INF, INF], [math.nan, -INF],
])
def test_logsumexp_at_infinite_logits_is_torchs(zs):
    """Every logit -inf: torch gives -inf (the log of an empty sum), and nan gradients
    (softmax there is 0/0); an infinite largest logit shifts nothing either."""
    z = values(zs)
    out = logsumexp(z)
    out.backward(UPSTREAM)
    zt = torch_leaf(zs)
    ref = torch.logsumexp(zt, 0)
    (UPSTREAM * ref).backward()
    assert same_float(out.data, ref.item()), (zs, out.data, ref.item())
    assert all(map(same_float, [v.grad for v in z], zt.grad.tolist())), \
        (zs, [v.grad for v in z], zt.grad.tolist())


def test_cross_entropy_errors():
    with pytest.raises(ValueError, match="class index in 0..2, got 3"):
        cross_entropy([values([0.0, 1.0, 2.0])], [3])
    with pytest.raises(ValueError, match="1 samples but 2 targets"):
        cross_entropy([values([0.0, 1.0])], [0, 1])
    with pytest.raises(TypeError, match="list of class logits"):
        cross_entropy([Value(1.0)], [0])


@given(st.lists(st.floats(-1e3, 1e3), min_size=2, max_size=6), st.data())
def test_cross_entropy_property_vs_torch(zs, data):
    y = data.draw(st.integers(0, len(zs) - 1))
    zv = values(zs)
    zt = torch_leaf([zs])
    ref = F.cross_entropy(zt, torch.tensor([y]))
    loss = cross_entropy([zv], [y])
    loss.backward()
    ref.backward()
    assert math.isclose(loss.data, ref.item(), rel_tol=1e-10, abs_tol=1e-10)
    for v, g in zip(zv, zt.grad[0].tolist()):
        assert math.isclose(v.grad, g, rel_tol=1e-9, abs_tol=1e-12)


# ---- penalty and accuracy -------------------------------------------------------------


def test_l2_penalty_matches_torch(rng):
    ps = [rng.gauss(0, 1) for _ in range(12)]
    pv, pt = values(ps), torch_leaf(ps)
    check(l2_penalty(pv, 1e-4), pv, 1e-4 * (pt * pt).sum(), pt)
    assert l2_penalty([], 0.1).data == 0.0


def test_l1_penalty_matches_torch_kink_included(rng):
    # exact zeros among the parameters: |p|'s derivative there is 0, as torch's abs
    ps = [rng.gauss(0, 1) for _ in range(10)] + [0.0, -0.0]
    pv, pt = values(ps), torch_leaf(ps)
    check(l1_penalty(pv, 1e-3), pv, 1e-3 * pt.abs().sum(), pt)
    assert pv[-1].grad == 0.0 and pv[-2].grad == 0.0
    assert pv[0].grad == UPSTREAM * 1e-3 * math.copysign(1.0, ps[0])
    assert l1_penalty([], 0.1).data == 0.0
    # a parameter used once, even when it leads the sum
    one = Value(-2.0)
    l1_penalty([one], 0.5).backward()
    assert one.grad == -0.5


def test_accuracy_binary_both_label_conventions():
    scores = [Value(0.3), Value(-0.2), Value(2.0), Value(-5.0)]
    assert accuracy(scores, [1, -1, -1, -1]) == 0.75
    assert accuracy(scores, [1, 0, 0, 0]) == 0.75
    assert accuracy([0.7, 0.4], [1, 0], threshold=0.5) == 1.0


def test_accuracy_only_for_class_labels():
    # mse on regression targets 5 and 7: every score is > 0 and every label > 0, which
    # once read as 100% accuracy
    scores = [Value(5.1), Value(6.8)]
    assert math.isnan(accuracy(scores, [5.0, 7.0]))
    assert math.isnan(accuracy(scores, [1, 2]))  # not a {0,1} or {-1,+1} pair
    assert math.isnan(accuracy(scores, [-1, 0]))  # mixes the two conventions
    assert accuracy(scores, [1.0, -1.0]) == 0.5  # class labels as floats are fine
    logits = [[Value(0.1), Value(2.0)], [Value(3.0), Value(0.0)]]
    assert accuracy(logits, [1, 0]) == 1.0
    assert math.isnan(accuracy(logits, [1, 2]))  # class 2 of 2 outputs
    assert math.isnan(accuracy(logits, [0.5, 0]))
    with pytest.raises(ValueError, match="mixed"):
        accuracy([Value(1.0), [Value(1.0), Value(2.0)]], [1, 0])


def test_accuracy_multiclass_matches_torch_argmax(rng):
    logits = [[rng.gauss(0, 1) for _ in range(5)] for _ in range(50)]
    labels = [rng.randrange(5) for _ in range(50)]
    ref = (torch.tensor(logits).argmax(1) == torch.tensor(labels)).double().mean().item()
    assert accuracy([values(r) for r in logits], labels) == ref
    with pytest.raises(ValueError):
        accuracy([], [])


def test_registry():
    # the four the lecture, the demo and the page name (a loss added is welcome)
    assert {"mse", "hinge", "bce", "ce"} <= set(LOSSES)
    assert get_loss("hinge").fn is hinge
    assert get_loss("bce").labels == "01"
    with pytest.raises(ValueError, match="unknown loss 'foo'"):
        get_loss("foo")
    custom = get_loss(lambda p, t: mse(p, t))
    assert custom([Value(0.0)], [1.0]).data == 1.0
    with pytest.raises(TypeError):
        get_loss(3)


def test_losses_keep_precision_at_huge_logits():
    # cross-entropy with the shift on both sides: logits 1e308 do not cancel to 0
    z = [Value(1e308), Value(1e308)]
    loss = cross_entropy([z], [0])
    loss.backward()
    assert math.isclose(loss.data, math.log(2.0), rel_tol=1e-15)
    assert math.isclose(z[0].grad, -0.5, rel_tol=1e-15) and math.isclose(z[1].grad, 0.5,
                                                                         rel_tol=1e-15)
    # the traced per-sample form agrees (its max is made of Value ops and must not
    # overflow)
    from micrograd.losses import LOSSES

    zt = [Value(1e308), Value(-1e308)]
    per = LOSSES["ce"].sample(zt, [Value(1.0), Value(0.0)])
    assert per.data == 0.0
    # bce of a confident right prediction keeps its tiny value: torch gives 4.25e-18
    zt = torch.tensor([40.0], dtype=torch.double)
    ref = F.binary_cross_entropy_with_logits(zt, torch.ones(1, dtype=torch.double)).item()
    assert ref > 0 and math.isclose(bce_with_logits([Value(40.0)], [1.0]).data, ref,
                                    rel_tol=1e-12)


def test_cross_entropy_takes_numpy_integer_targets():
    import numpy as np

    z = [[Value(1.0), Value(2.0), Value(0.5)]]
    a = cross_entropy(z, [np.int64(1)]).data
    b = cross_entropy(z, [1]).data
    assert a == b
    with pytest.raises(ValueError, match=r"class index in 0..2, got 3"):
        cross_entropy(z, [np.int64(3)])


@pytest.mark.parametrize("z", [(1e308, -1e308), (-1e308, 1e308), (-1e308, 1e308, 5.0)])
def test_traced_cross_entropy_form_is_exact_at_extreme_logits_in_any_order(z):
    # its max is built from Value ops: halved first, so z - m cannot overflow
    spec = LOSSES["ce"]
    k = len(z)
    y = max(range(k), key=lambda i: z[i])
    zs = [Value(v) for v in z]
    loss = spec.sample(zs, [Value(1.0 if i == y else 0.0) for i in range(k)])
    loss.backward()
    zt = torch.tensor(z, dtype=torch.double, requires_grad=True)
    ref = F.cross_entropy(zt[None], torch.tensor([y]))
    ref.backward()
    assert loss.data == ref.item() == 0.0
    assert [v.grad for v in zs] == zt.grad.tolist()


# ---- labels checked against the loss ---------------------------------------------------


@pytest.mark.parametrize("loss, preds, targets, message", [
    (hinge, [0.5, -0.5, 2.0], [1, 0, -1],
     r"hinge: target 1 is 0; hinge wants the label -1 or \+1 \(for labels 0/1 use bce\)"),
    (hinge, [0.5, 1.0], [1, 2.0], r"hinge: target 1 is 2.0; hinge wants the label -1 or \+1"),
    (hinge, [[0.5, 1.0], [1.0, 2.0]], [[1, -1], [1, 0.5]], r"hinge: target 1\[1\] is 0.5"),
    (hinge, [0.5], [math.nan], r"hinge: target 0 is nan; hinge wants the label -1 or \+1"),
    (mse, [0.5, 1.0, 2.0], [1.0, 3.0, math.nan], r"mse: target 2 is nan; mse wants a finite"),
    (mse, [0.5], [-math.inf], r"mse: target 0 is -inf; mse wants a finite number"),
    (mse, [0.5], [10**5000], r"mse: target 0 is 1e5000; mse wants a finite number"),
    (bce_with_logits, [0.5, 1.0], [1, math.nan], r"bce_with_logits: target 1 is nan"),
    (bce_with_logits, [0.5, 1.0], [1, 2], r"target 1 is 2; bce_with_logits wants the label 0 or"),
])
def test_a_label_the_loss_cannot_use_is_named_and_refused(loss, preds, targets, message):
    with pytest.raises(ValueError, match=message):
        loss(values(preds) if not isinstance(preds[0], list) else
             [values(r) for r in preds], targets)


def test_cross_entropy_names_a_label_that_is_no_class_index():
    z = values([0.0, 1.0, 2.0])
    with pytest.raises(ValueError, match=r"target 0 must be a class index in 0..2, got 1.5"):
        cross_entropy(z, 1.5)  # one sample and a float class: refused by what it is
    with pytest.raises(ValueError, match=r"target 1 must be a class index in 0..2, got nan"):
        cross_entropy([z, z], [0, math.nan])
    assert cross_entropy(z, 2).data == cross_entropy([z], [2]).data


def test_regression_targets_stay_welcome_in_mse():
    assert mse([Value(5.0), Value(7.5)], [5.0, 7.0]).data == 0.125


@pytest.mark.parametrize("name, labels, message", [
    ("hinge", [1, -1, 0, 1], r"hinge: y\[2\] is 0; hinge wants the label -1 or \+1"),
    ("mse", [0.5, math.nan], r"mse: y\[1\] is nan; mse wants a finite number"),
    ("mse", [[1.0, 2.0], [1.0, math.nan]], r"mse: y\[1\]\[1\] is nan"),
    ("bce", [0, 1, -1], r"bce: y\[2\] is -1; bce wants the label 0 or 1"),
    ("ce", [0, 2, 1.5], r"ce: y\[2\] must be a class index \(an int >= 0\), got 1.5"),
    ("ce", [0, True], r"ce: y\[1\] must be a class index \(an int >= 0\), got True"),
    ("hinge", [1, "1"], r"hinge: y\[1\] must be a number, got str"),
])
def test_check_labels_names_the_first_label_the_loss_cannot_use(name, labels, message):
    with pytest.raises((ValueError, TypeError), match=message):
        LOSSES[name].check_labels(labels)


def test_check_labels_passes_what_each_loss_takes():
    LOSSES["hinge"].check_labels([1, -1, 1.0, -1.0])
    LOSSES["bce"].check_labels([0, 1, 0.25])
    LOSSES["mse"].check_labels([5.0, -7.0, [1.0, 2.0]])
    LOSSES["ce"].check_labels([0, 3, 1], k=4)
    with pytest.raises(ValueError, match=r"ce: y\[1\] must be a class index in 0..3, got 4"):
        LOSSES["ce"].check_labels([0, 4], k=4)
    get_loss(lambda p, t: mse(p, t)).check_labels([5.0, math.nan])  # a custom loss: its own


def test_the_traced_target_refuses_what_the_loss_refuses():
    with pytest.raises(ValueError, match=r"hinge: the target is 0; hinge wants the label"):
        LOSSES["hinge"].target(0)
    with pytest.raises(ValueError, match=r"mse: the target is nan"):
        LOSSES["mse"].target(math.nan)
    with pytest.raises(ValueError, match=r"bce: target\[1\] is -1"):
        LOSSES["bce"].target([0, -1])


@pytest.mark.parametrize("penalty", [l1_penalty, l2_penalty])
@pytest.mark.parametrize("alpha", [-1, -1e-9, math.nan, math.inf])
def test_a_penalty_refuses_a_rate_that_fit_refuses(penalty, alpha):
    with pytest.raises(ValueError, match=rf"{penalty.__name__}'s alpha must be"):
        penalty([Value(1.0)], alpha)


def test_a_penalty_names_a_rate_of_the_wrong_type():
    with pytest.raises(TypeError, match=r"l2_penalty's alpha must be a number, got str"):
        l2_penalty([Value(1.0)], "0.1")
    assert l2_penalty([Value(2.0)], 0).data == 0.0


# ---- several outputs per sample: the mean over every output -------------------------------


TORCH_MEAN = {
    "mse": lambda z, t: F.mse_loss(z, t),
    "hinge": lambda z, t: torch.relu(1 - t * z).mean(),
    "bce": lambda z, t: F.binary_cross_entropy_with_logits(z, t),
}


@pytest.mark.parametrize("name", ["mse", "hinge", "bce"])
def test_several_outputs_per_sample_are_averaged_over_every_output(rng, name):
    # 4 samples of 3 outputs: the batch loss, the mean of the per-sample forms (what the
    # tracer runs) and torch's mean over the (4, 3) tensor are one number
    spec = LOSSES[name]
    preds = [[rng.uniform(-2, 2) for _ in range(3)] for _ in range(4)]
    labels = {"mse": lambda: rng.uniform(-1, 1), "hinge": lambda: rng.choice([-1.0, 1.0]),
              "bce": lambda: rng.choice([0.0, 1.0])}[name]
    targets = [[labels() for _ in range(3)] for _ in range(4)]
    zt = torch_leaf(preds)
    ref = TORCH_MEAN[name](zt, torch.tensor(targets, dtype=torch.float64))
    ref.backward()
    want = zt.grad.reshape(-1).tolist()

    batch = [values(row) for row in preds]
    loss = spec(batch, targets)
    loss.backward()
    assert close(loss.data, ref.item())
    assert all(close(v.grad, g) for v, g in zip(sum(batch, []), want))

    per = [values(row) for row in preds]
    terms = [spec.sample(row, [Value(t) for t in spec.target(ts)])
             for row, ts in zip(per, targets)]
    mean = sum(terms[1:], terms[0]) * (1.0 / len(terms))
    mean.backward()
    assert close(mean.data, ref.item())
    assert all(close(v.grad, g) for v, g in zip(sum(per, []), want))
    # one sample's form is the mean over its own outputs, not their sum
    one = spec.sample(values(preds[0]), [Value(t) for t in targets[0]])
    assert close(one.data, TORCH_MEAN[name](torch.tensor(preds[0], dtype=torch.float64),
                                            torch.tensor(targets[0],
                                                         dtype=torch.float64)).item())

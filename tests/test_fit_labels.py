"""``fit`` and ``evaluate`` check the labels against the loss before any training.

A hinge loss on 0/1 labels used to train on at 50% accuracy without a word (a 0 label
gives a constant loss and no gradient); a nan target went into mse and hinge. Each is
refused before the first step, by the label's position and value, and the model keeps
its weights.
"""

import math

import pytest

from micrograd.nn import MLP
from micrograd.train import evaluate, fit

X = [[0.5, 1.0], [-1.0, 0.25], [2.0, -0.5], [0.0, 1.5]]


def weights(model):
    return [p.data for p in model.parameters()]


@pytest.mark.parametrize("runner", ["eager", "traced", "auto"])
@pytest.mark.parametrize("loss, y, message", [
    ("hinge", [0, 1, 1, 0], r"hinge: y\[0\] is 0; hinge wants the label -1 or \+1 "
                            r"\(for labels 0/1 use bce\)"),
    ("hinge", [1, -1, math.nan, 1], r"hinge: y\[2\] is nan"),
    ("mse", [1, -1, 1, math.nan], r"mse: y\[3\] is nan; mse wants a finite number"),
    ("bce", [1, 0, -1, 1], r"bce: y\[2\] is -1; bce wants the label 0 or 1"),
])
def test_fit_refuses_labels_the_loss_cannot_use(runner, loss, y, message):
    model = MLP(2, [4, 1], seed=0)
    before = weights(model)
    with pytest.raises(ValueError, match=message):
        fit(model, X, y, loss=loss, epochs=3, progress=False, runner=runner)
    assert weights(model) == before


def test_fit_refuses_a_minibatch_run_by_the_label_in_the_whole_set():
    model = MLP(2, [4, 1], seed=0)
    y = [1, -1, 1, -1] * 3 + [0]
    with pytest.raises(ValueError, match=r"hinge: y\[12\] is 0"):
        fit(model, X * 3 + [X[0]], y, loss="hinge", batch_size=2, progress=False)


def test_fit_checks_the_test_labels_too():
    model = MLP(2, [4, 1], seed=0)
    with pytest.raises(ValueError, match=r"hinge: y_test\[1\] is 0"):
        fit(model, X, [1, -1, 1, -1], X_test=X[:2], y_test=[1, 0], loss="hinge",
            epochs=1, progress=False)


def test_cross_entropy_labels_must_be_class_indices():
    model = MLP(2, [4, 3], seed=0)
    with pytest.raises(ValueError, match=r"ce: y\[1\] must be a class index .*got 1.5"):
        fit(model, X, [0, 1.5, 2, 1], loss="ce", epochs=1, progress=False)


def test_evaluate_refuses_them_too():
    model = MLP(2, [4, 1], seed=0)
    with pytest.raises(ValueError, match=r"hinge: y\[3\] is 0"):
        evaluate(model, X, [1, -1, 1, 0], loss="hinge")


def test_the_right_labels_still_train():
    model = MLP(2, [4, 1], seed=0)
    hist = fit(model, X, [1, -1, 1, -1], loss="hinge", epochs=2, progress=False)
    assert hist.epochs == 2
    model = MLP(2, [4, 1], seed=0)
    hist = fit(model, X, [0.5, -3.0, 7.0, 2.0], loss="mse", epochs=2, progress=False)
    assert hist.epochs == 2  # regression targets: any finite number

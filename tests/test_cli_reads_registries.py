"""``micrograd train``'s cross-option checks read the registries (a loss's outputs, the
data sets whose generator takes a class count) instead of lists of names of their own:
a loss or data set added to its registry is checked the same way with no line more."""

import argparse

import pytest

from micrograd import losses
from micrograd.commands import train


def args(**over):
    base = dict(dataset="spiral", classes=None, loss="mse", noise=None, nesterov=False,
                optimizer="sgd", momentum=0.0, samples=100, hidden=[8], test_fraction=0.25)
    base.update(over)
    return argparse.Namespace(**base)


@pytest.fixture
def one_more_loss(monkeypatch):
    """A second loss over K logits, registered as a user's code would."""
    ce = losses.LOSSES["ce"]
    extra = losses.LossSpec("ce_twin", ce.fn, ce.labels, ce.outputs, "ce again",
                            ce.sample, ce.output_activation, ce.wants)
    monkeypatch.setitem(losses.LOSSES, "ce_twin", extra)
    return extra


def test_a_one_output_loss_with_many_classes_names_every_multi_output_loss(one_more_loss):
    message = train.check_args(args(classes=3, loss="hinge"))
    assert message == "--loss hinge is for two classes; with 3 classes use --loss ce or ce_twin"


def test_a_registered_multi_output_loss_gets_k_outputs(one_more_loss):
    assert train._shape(args(classes=5, loss="ce_twin"))[1] == 5
    assert train._shape(args(classes=5, loss="mse"))[1] == 1
    assert train.check_args(args(classes=3, loss="ce_twin")) is None


def test_classes_apply_to_the_sets_whose_generator_takes_a_count():
    for name in ("spiral", "blobs", "digits"):
        assert train.check_args(args(dataset=name, classes=3, loss="ce",
                                     samples=200)) is None, name
    message = train.check_args(args(dataset="moons", classes=3, loss="ce"))
    assert message == "--classes applies to spiral, blobs and digits, not moons"

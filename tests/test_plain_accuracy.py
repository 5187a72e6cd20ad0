"""plain_accuracy: accuracy() in one pass for plain numbers, the same results."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from micrograd.engine import Value
from micrograd.losses import accuracy, plain_accuracy

#: scores as a network gives them, ties, zeros of both signs and non-finite ones too
SCORE = st.one_of(st.floats(allow_nan=True, allow_infinity=True),
                  st.sampled_from([0.0, -0.0, 0.5, -0.5, 1.0]))
LABEL = st.one_of(st.sampled_from([-1, 1, 0, 2, 0.5, 1.0, -1.0, True]), st.integers(-3, 3))


def same(a, b):
    return (math.isnan(a) and math.isnan(b)) or a == b


@given(st.lists(st.tuples(SCORE, LABEL), min_size=1, max_size=30),
       st.sampled_from([0.0, 0.5, -1.0]))
def test_binary_scores_give_what_accuracy_gives(pairs, threshold):
    scores, labels = [s for s, _ in pairs], [y for _, y in pairs]
    assert same(plain_accuracy(scores, labels, threshold),
                accuracy(scores, labels, threshold))


@given(st.integers(1, 4).flatmap(lambda k: st.lists(
    st.tuples(st.lists(SCORE, min_size=k, max_size=k), LABEL), min_size=1, max_size=20)))
def test_class_scores_give_what_accuracy_gives(rows):
    scores, labels = [s for s, _ in rows], [y for _, y in rows]
    assert same(plain_accuracy(scores, labels), accuracy(scores, labels))


def test_the_lectures_conventions_and_ties():
    assert plain_accuracy([0.3, -0.2, 2.0, -5.0], [1, -1, -1, -1]) == 0.75
    assert plain_accuracy([0.3, -0.2, 2.0, -5.0], [1, 0, 0, 0]) == 0.75
    assert math.isnan(plain_accuracy([5.1, 6.8], [5.0, 7.0]))  # regression targets
    assert math.isnan(plain_accuracy([5.1, 6.8], [-1, 0]))  # two conventions mixed
    # equal maxima: the first is the prediction, as accuracy's argmax
    assert plain_accuracy([[1.0, 1.0], [2.0, 2.0]], [0, 1]) == 0.5
    assert math.isnan(plain_accuracy([[0.1, 2.0]], [2]))  # class 2 of 2 outputs


def test_anything_else_goes_through_accuracys_checks():
    assert plain_accuracy([Value(0.3), Value(-0.2)], [1, 1]) == 0.5
    assert plain_accuracy([[Value(0.1), Value(2.0)]], [1]) == 1.0
    with pytest.raises(ValueError, match="mixed"):
        plain_accuracy([1.0, [1.0, 2.0]], [1, 0])
    with pytest.raises(ValueError, match="2 predictions but 1 labels"):
        plain_accuracy([1.0, 2.0], [1])
    with pytest.raises(ValueError, match="no predictions"):
        plain_accuracy([], [])
    # strings and bools are no scores: refused as accuracy refuses them
    for scores in (["0.5"], [True, 0.2]):
        with pytest.raises(ValueError) as theirs:
            accuracy(scores, [1] * len(scores))
        with pytest.raises(ValueError, match=str(theirs.value)):
            plain_accuracy(scores, [1] * len(scores))

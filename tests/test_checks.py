"""The one home of the argument checks: each names the argument, its type and range."""

import doctest
import math

import pytest

from micrograd import checks


def test_the_module_examples_run():
    assert doctest.testmod(checks).failed == 0


@pytest.mark.parametrize("bad,err,msg", [
    (True, TypeError, "must be an int, got bool"), (2.0, TypeError, "got float"),
    ("3", TypeError, "got str"), (-1, ValueError, "at least 0, got -1")])
def test_integer_refuses_with_the_name(bad, err, msg):
    with pytest.raises(err, match=f"epochs {msg}" if "int," in msg else msg):
        checks.integer(bad, "epochs", low=0)
    assert checks.integer(0, "epochs", low=0) == 0


def test_number_ranges_open_and_closed():
    assert checks.number(0, "x", low=0.0) == 0.0
    with pytest.raises(ValueError, match=r"eps must be in \(0.0, inf\), got 0.0"):
        checks.number(0.0, "eps", low=0.0, low_open=True)
    assert checks.number(0.999, "beta", low=0.0, high=1.0, high_open=True) == 0.999
    with pytest.raises(ValueError, match=r"beta must be in \[0.0, 1.0\), got 1.0"):
        checks.number(1.0, "beta", low=0.0, high=1.0, high_open=True)
    assert checks.number(1.0, "p", low=0.0, high=1.0) == 1.0
    with pytest.raises(ValueError, match=r"must be in \(-inf, 2\], got 3.0"):
        checks.number(3, "q", high=2)


@pytest.mark.parametrize("bad", [math.inf, -math.inf, math.nan, 10**400, -(10**400)])
def test_number_refuses_what_is_not_finite(bad):
    with pytest.raises(ValueError, match="lr must be a finite number"):
        checks.number(bad, "lr")


def test_traced_adam_refuses_eps_zero_like_adam():
    from micrograd.engine import Value
    from micrograd.trace import TracedAdam, trace_loss

    w = Value(0.5)
    loss = trace_loss(lambda x, y: (x[0] * w - y) ** 2, [[1.0], [2.0]], [1.0, 2.0])
    with pytest.raises(ValueError, match=r"eps must be in \(0.0, inf\)"):
        TracedAdam(loss, lr=0.1, eps=0.0)


def test_a_huge_int_is_named_short_never_written_out():
    # Python refuses to write an int of more than 4,300 digits: the message must not try
    with pytest.raises(ValueError, match=r"epochs must be at least 0, got -1e5000"):
        checks.integer(-(10**5000), "epochs", low=0)
    with pytest.raises(ValueError, match=r"lr must be a finite number, got inf"):
        checks.number(10**5000, "lr")
    assert checks.show(10**400) == "1e400" and checks.show(123) == "123"
    assert checks.show("x" * 99, 5) == "'xxxx"

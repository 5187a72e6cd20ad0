"""``Value ** n`` for an int n of any size: the exact value rounded once, forward and back.

The references are exact: IEEE's rules with the parity of n where the base is 0, 1, inf
or nan (or the power is out of range whatever n's last digits), and decimal arithmetic
carried to hundreds of digits past 2**53, where ``float(n)`` would round n itself (and
its parity). Labels and drawings abbreviate such an exponent instead of writing it out.
"""

import decimal
import math
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from micrograd import viz
from micrograd.engine import Value

inf, nan = math.inf, math.nan
N = 10**400  # even; far past the largest float (1.8e308), so float(N) overflows


def same(x, y):
    """The same float to the bit: nan as nan, and -0.0 apart from 0.0."""
    if y != y:
        return x != x
    return x == y and math.copysign(1.0, x) == math.copysign(1.0, y)


def pow_and_slope(x, n):
    """``(x**n).data`` and the grad ``backward()`` leaves on x (its slope n x**(n-1))."""
    v = Value(x)
    y = v**n
    y.backward()
    return y.data, v.grad


# ---- the bases where IEEE decides: the value with the parity of n ----

# (base, n, x**n, n*x**(n-1)), each worked out by hand from the parity and sign of n
EDGES = [
    (0.5, N, 0.0, 0.0), (0.5, -N, inf, -inf),
    (0.0, N, 0.0, 0.0), (0.0, -N, inf, -inf),
    (-0.0, N + 1, -0.0, 0.0), (-0.0, N, 0.0, -0.0), (-0.0, -N - 1, -inf, -inf),
    (-0.0, -N, inf, inf),
    (1.0, N, 1.0, inf), (1.0, -N, 1.0, -inf),
    (-1.0, N, 1.0, -inf), (-1.0, N + 1, -1.0, inf), (-1.0, -N, 1.0, inf),
    (-1.0, -N - 1, -1.0, -inf),
    (2.0, N, inf, inf), (2.0, -N, 0.0, -0.0), (-2.0, N + 1, -inf, inf),
    (-2.0, -N - 1, -0.0, -0.0), (-0.5, N + 1, -0.0, 0.0), (-0.5, -N - 1, -inf, -inf),
    (inf, N, inf, inf), (inf, -N, 0.0, -0.0), (-inf, N + 1, -inf, inf),
    (-inf, N, inf, -inf), (-inf, -N - 1, -0.0, -0.0),
    (nan, N, nan, nan), (nan, -N, nan, nan),
    # the largest float below 1 and the smallest above it, past 2**64
    (1 - 2**-53, 2**64 + 1, 0.0, 0.0), (1 + 2**-52, 2**64, inf, inf),
    (-(1 + 2**-52), -(2**64) - 1, -0.0, -0.0), (5e-324, -(2**70), inf, -inf),
    # powers of two (taken exactly): past 2**53 always out of range
    (-(2.0**-1074), 2**53 + 1, -0.0, 0.0), (0.5, 2**53 + 1, 0.0, 0.0),
    (-0.5, -(2**53) - 1, -inf, -inf),
]


def case_id(case):
    """A short test id: the base and n's sign, digit count and parity."""
    x, n = case[0], case[1]
    return f"{x!r}**{'-' if n < 0 else ''}{len(str(abs(n)))}digits{'odd' if n % 2 else 'even'}"


@pytest.mark.parametrize("x, n, value, slope", EDGES, ids=[case_id(c) for c in EDGES])
def test_huge_exponent_follows_ieee_with_the_parity_of_n(x, n, value, slope):
    y, g = pow_and_slope(x, n)
    assert same(y, value), (x, n, y)
    # the grad a leaf receives is 0.0 + slope: a -0.0 slope leaves +0.0
    assert same(g, 0.0 + slope), (x, n, g)


def test_the_issue_cases_give_ieee_results_not_inf_or_an_error():
    assert (Value(0.5) ** 10**400).data == 0.0
    assert (Value(0.0) ** 10**400).data == 0.0
    assert (Value(1.0) ** 10**400).data == 1.0
    assert (Value(2.0) ** -(10**400)).data == 0.0
    assert (Value(-1.0) ** 10**400).data == 1.0
    x = Value(1.0)
    (x**10**400).backward()
    assert x.grad == inf


def test_a_slope_of_one_is_n_rounded_once():
    # d/dx x**n at x = 1 is n itself: rounded to the nearest float, ties to even
    for n in [2**53 + 1, 2**53 + 3, 3**40 * 2**20 + 1, -(2**60 + 1), 2**1024 - 2**970]:
        assert pow_and_slope(1.0, n)[1] == (float(n) if n < 2**1023 else inf)
    assert pow_and_slope(-1.0, 2**53 + 1)[1] == float(2**53 + 1)


# ---- past 2**53: exact, against decimal arithmetic at hundreds of digits ----


def exact_round(x, n, scale=1):
    """``scale * x**n`` rounded to the nearest float, from decimal arithmetic at 400
    and at 800 digits (which must agree: then no rounding tie is near)."""
    answers = []
    for digits in (400, 800):
        ctx = decimal.Context(prec=digits, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN,
                              traps=[])
        r = ctx.multiply(ctx.power(decimal.Decimal(x), n), decimal.Decimal(scale))
        answers.append(to_float(r))
    assert same(*answers), (x, n, answers)
    return answers[0]


def to_float(r):
    """A Decimal rounded to the nearest float (Python's Fraction to float rounds
    correctly), signed zeros and infinities past the range."""
    sign = -1.0 if r.is_signed() else 1.0
    if r.is_zero() or r.adjusted() < -400:
        return sign * 0.0
    if r.adjusted() > 400:
        return sign * inf
    try:
        return float(Fraction(r))
    except OverflowError:
        return sign * inf


MIDDLE = [(1 + 2**-52, 2**53 + 1), (-(1 + 2**-52), 2**53 + 1), (1 - 2**-53, 2**60 + 3),
          (1.0000001, 2**53 + 5), (0.9999999, -(2**53) - 7), (-(1 - 2**-53), 2**56 + 1),
          (1.5, -(2**54) - 1), (0.999999999999, 2**53 + 2), (-1.0000000000001, -(2**55) - 1)]


@pytest.mark.parametrize("x, n", MIDDLE)
def test_exponents_past_2_53_are_exact_not_rounded(x, n):
    y, g = pow_and_slope(x, n)
    assert same(y, exact_round(x, n)), (x, n, y)
    assert same(g, 0.0 + exact_round(x, n - 1, n)), (x, n, g)


def test_float_n_would_have_given_other_numbers():
    # the cases above are ones where rounding n first changes the answer
    assert (Value(-(1 + 2**-52)) ** (2**53 + 1)).data < 0 < math.pow(-(1 + 2**-52), 2**53 + 1)
    assert (Value(-1.0) ** (2**53 + 1)).data == -1.0


@given(d=st.integers(-300, 300).filter(bool), n=st.integers(2**53 + 1, 2**56),
       negative=st.booleans(), minus=st.booleans())
def test_random_exponents_past_2_53_match_exact_arithmetic(d, n, negative, minus):
    # x = 1 + d 2**-52: near 1, so x**n for n past 2**53 is finite (or just past range)
    x = 1.0 + d * 2.0**-52
    x, n = (-x if negative else x), (-n if minus else n)
    y, g = pow_and_slope(x, n)
    assert same(y, exact_round(x, n))
    assert same(g, 0.0 + exact_round(x, n - 1, n))


def test_small_exponents_are_still_cs_pow_as_in_pytorch():
    # up to 2**53 the int is a float exactly and the kernel is C's pow (torch's too)
    assert (Value(1.0000001) ** 12345).data == math.pow(1.0000001, 12345)
    assert (Value(-1.5) ** 2**53).data == inf


# ---- labels and drawings: the exponent abbreviated, never written out ----


LABELS = [(10**5000, "**(1e5000)"), (-(10**400), "**(-1e400)"),
          (12341 * 10**396, "**(1.234e400)"), (10**16, "**(1e16)"),
          (10**16 - 1, "**9999999999999999"), (99996 * 10**3000, "**(1e3005)"),
          (1e300, "**(1e+300)")]


@pytest.mark.parametrize("n, label", LABELS, ids=[label for _, label in LABELS])
def test_labels_abbreviate_a_huge_exponent(n, label):
    assert (Value(0.5) ** n)._op == label


def test_drawings_of_a_huge_exponent_name_it_short():
    x = Value(0.5, label="x")
    y = (x**10**5000) * 2.0
    y.backward()
    assert "**(1e5000)" in viz.draw_dot(y).source
    assert "**(1e5000)" in viz.to_svg(y)
    text = viz.to_json(y)
    assert "**(1e5000)" in text and len(text) < 5000

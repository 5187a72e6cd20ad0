"""Powers of a float to an int exponent of any size, exact and then rounded once.

``float(n)`` rounds an int past 2**53 (10**400 does not fit at all), and with it the
parity that decides the sign of ``(-1.0) ** n``. Here the exponent stays an int: the
exact value of ``c * x**k`` is rounded to the nearest float, with IEEE's signed zeros and
infinities. The op table (``micrograd.ops``) uses it for ``x ** n`` and its slope
``n * x**(n-1)`` when ``n`` is such an int.

    >>> power(-1.0, 10**400 + 1), power(0.5, 10**400), power(2.0, -10**400)
    (-1.0, 0.0, 0.0)
    >>> power(1.0, 10**400 - 1, 10**400)  # the slope of x**n at 1: n, rounded
    inf
    >>> abbreviate(-10**5000)
    '-1e5000'

Standard library only, and nothing of micrograd: the bottom of the layers.
"""

from __future__ import annotations

import math

__all__ = ["power", "abbreviate"]

inf = math.inf


def power(x, k, c=1):
    """``c * x**k`` rounded to the nearest float, for a float ``x``, an int ``k`` and a
    nonzero int ``c``.

    IEEE's rules where x is 0, inf or nan (the sign of a zero or an infinity from the
    parity of k and the sign of c). Past |k| = 2**64 a finite |x| != 1 is decided at
    once: (1 + 2**-52) ** 2**64 and |c| (1 - 2**-53) ** |k| are far out of range."""
    if x != x:
        return math.nan
    negative = (math.copysign(1.0, x) < 0 and k % 2 == 1) != (c < 0)
    sign = -1.0 if negative else 1.0
    c = abs(c)
    a = abs(x)
    if a == 1.0:
        return sign * _ratio(c, 1, 0)
    if a == 0.0 or a == inf or abs(k) >= 2**64:
        return sign * (inf if (a > 1.0) == (k > 0) else 0.0)
    return sign * _exact(a, k, c)


def _exact(a, k, c):
    """``c * a**k`` for a finite a > 0, a != 1, |k| < 2**64, rounded to nearest: bounds
    below and above from powers taken on p-bit integers, p doubled until both round to
    the same float. They must, in the end: ``c * a**k`` is a tie between two floats only
    if a is a power of two (exact here) or |k| is small."""
    num, den = a.as_integer_ratio()
    zeros = (num & -num).bit_length() - 1
    mant, exp = num >> zeros, zeros - (den.bit_length() - 1)  # a = mant * 2**exp
    if mant == 1:
        return _ratio(c, 1, exp * k)
    p = abs(k).bit_length() + 64
    while True:
        (lo, elo), (hi, ehi) = _bounds(mant, abs(k), p)
        if k > 0:
            lo, hi = _ratio(c * lo, 1, elo + exp * k), _ratio(c * hi, 1, ehi + exp * k)
        else:
            lo, hi = _ratio(c, hi, exp * k - ehi), _ratio(c, lo, exp * k - elo)
        if lo == hi:
            return lo
        p *= 2


def _bounds(mant, k, p):
    """``mant ** k`` bounded: ``(lo, elo), (hi, ehi)`` with lo 2**elo <= mant**k <=
    hi 2**ehi, square and multiply, each step kept to p bits (cut down for the lower
    bound, up for the upper)."""
    lo = hi = 1
    elo = ehi = 0
    for bit in bin(k)[2:]:
        lo, elo = _cut(lo * lo, 2 * elo, p, up=False)
        hi, ehi = _cut(hi * hi, 2 * ehi, p, up=True)
        if bit == "1":
            lo, elo = _cut(lo * mant, elo, p, up=False)
            hi, ehi = _cut(hi * mant, ehi, p, up=True)
    return (lo, elo), (hi, ehi)


def _cut(m, e, p, up):
    """``m * 2**e`` kept to its top p bits, rounded down (or up)."""
    extra = m.bit_length() - p
    if extra <= 0:
        return m, e
    top = m >> extra
    if up and (top << extra) != m:
        top += 1
    return top, e + extra


def _ratio(num, den, e):
    """``num / den * 2**e`` (positive ints num, den) rounded to the nearest float:
    Python's int division rounds correctly, subnormals included; inf past the largest
    float, 0 below half the smallest."""
    b = num.bit_length() - den.bit_length() + e  # 2**(b-1) < value < 2**(b+1)
    if b > 1025:
        return inf
    if b < -1077:
        return 0.0
    if e >= 0:
        num <<= e
    else:
        den <<= -e
    try:
        return num / den
    except OverflowError:
        return inf


def abbreviate(n):
    """A huge int as ``1.235e400``, from its logarithm: an int of 5,000 digits is never
    written out (Python refuses past 4,300 digits, and it would make no label)."""
    e = math.floor(math.log10(abs(n)))
    lead = round(10 ** (math.log10(abs(n)) - e), 3)
    if lead >= 10:  # 9.9996 rounds up to the next power of ten
        lead, e = lead / 10, e + 1
    return f"{'-' if n < 0 else ''}{lead:g}e{e}"

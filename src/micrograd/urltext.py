"""Text in a page's link, as the page's JavaScript writes and reads it: numbers as
``String(x)`` writes them, names as ``encodeURIComponent`` escapes them, and the one
pattern a number must match to be read. Standard library only.

    >>> js_number(1e-7), js_number(200.0), js_number(0.1)
    ('1e-7', '200', '0.1')
    >>> js_component("b:1")
    'b%3A1'
"""

from __future__ import annotations

import re
from decimal import Decimal
from urllib.parse import quote

__all__ = ["js_number", "js_component", "NUMBER", "UNSIGNED_NUMBER", "WHOLE_NUMBER"]

# Numbers in ASCII only: [0-9], not \d, since a pattern's \d, str.isdigit(), float() and
# int() all take the digits of other scripts ('١', '１', '²'), which a page never writes
_UNSIGNED = r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
#: a decimal number as a link, a file or the expression language holds it (no "nan",
#: "inf", "0x..", "1_000"); the expression language's own has no sign
NUMBER = re.compile(r"[+-]?" + _UNSIGNED)
UNSIGNED_NUMBER = re.compile(_UNSIGNED)
#: a whole number: a step, a port
WHOLE_NUMBER = re.compile(r"[0-9]+")


def js_number(x):
    """A number as JavaScript's ``String(x)`` writes it (``0.1``, ``200``, ``1e-7``): the
    shortest digits that give the number back (Python's ``repr``), placed by
    ECMAScript's Number::toString rules. Finite numbers only."""
    if isinstance(x, int) and not isinstance(x, bool):
        return str(x)
    if x == 0:
        return "0"
    if x < 0:
        return "-" + js_number(-x)
    t = Decimal(repr(float(x))).normalize().as_tuple()
    digits = "".join(map(str, t.digits))
    k = len(digits)
    n = t.exponent + k  # x = 0.digits * 10^n
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return "0." + "0" * (-n) + digits
    e = n - 1
    return (digits[0] + ("." + digits[1:] if k > 1 else "")
            + ("e+" if e >= 0 else "e-") + str(abs(e)))


def js_component(text):
    """``text`` escaped as JavaScript's ``encodeURIComponent`` escapes it."""
    return quote(text, safe="-_.!~*'()")

"""Numbers on the wire: JSON has no inf or nan, so they travel as the strings
``"inf"``, ``"-inf"`` and ``"nan"`` (the page shows them as such)."""

import math


def num(x):
    """A float for JSON: finite floats as they are, inf/nan as strings."""
    x = float(x)
    if math.isfinite(x):
        return x
    if x != x:
        return "nan"
    return "inf" if x > 0 else "-inf"

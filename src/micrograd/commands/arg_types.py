"""The command line's argument types: each refuses nonsense while the arguments are
parsed, before any work, with a message that names the value (argparse shows it
beside the option)."""

import argparse
import math

from ..urltext import NUMBER, WHOLE_NUMBER


def number(text, what):
    """A finite number written as the page and the expression language write one: ASCII
    digits (``float()`` alone takes '１' and '1_000'), no "inf", "nan" or "0x.."."""
    try:
        x = float(text)
    except ValueError:
        x = None
    if x is not None and not math.isfinite(x):
        raise argparse.ArgumentTypeError(f"{what} must be finite, got {text!r}")
    if x is None or not NUMBER.fullmatch(text.strip()):
        raise argparse.ArgumentTypeError(f"{what} must be a number, got {text!r}")
    return x


def finite_float(text):
    return number(text, "value")


def positive_float(text):
    x = number(text, "value")
    if x <= 0:
        raise argparse.ArgumentTypeError(f"must be > 0, got {text}")
    return x


def nonneg_float(text):
    x = number(text, "value")
    if x < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text}")
    return x


def capped(kind, cap, why):
    """An argparse type: ``kind`` (a type above) that also refuses values over ``cap``."""
    def parse(text):
        x = kind(text)
        if x > cap:
            shown = f"{cap:,}" if isinstance(cap, int) else f"{cap:g}"
            raise argparse.ArgumentTypeError(f"must be at most {shown}, got {text} ({why})")
        return x

    parse.__name__ = kind.__name__  # argparse names the type in some messages
    return parse


def whole(text):
    t = text.strip()
    if not WHOLE_NUMBER.fullmatch(t[1:] if t[:1] in ("+", "-") else t):
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}")
    return int(t)


def positive_int(text):
    n = whole(text)
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {text}")
    return n


def fraction(text):
    x = number(text, "value")
    if not 0 <= x < 1:
        raise argparse.ArgumentTypeError(f"must be in [0, 1), got {text}")
    return x

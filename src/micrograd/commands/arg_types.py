"""The command line's argument types: each refuses nonsense while the arguments are
parsed, before any work, with a message that names the value (argparse shows it
beside the option)."""

import argparse
import math


def number(text, what):
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{what} must be a number, got {text!r}") from None
    if not math.isfinite(x):
        raise argparse.ArgumentTypeError(f"{what} must be finite, got {text!r}")
    return x


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
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a whole number, got {text!r}") from None


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

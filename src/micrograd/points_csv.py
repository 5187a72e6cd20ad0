"""A 2-D data set as CSV text: ``x1,x2,label`` (classification) or ``x1,x2,target``
(regression), one point a line, the header line optional. Standard library only.

    >>> text = write_points([[0.5, -1.25, 1], [0.1, 0.2, -1]], "label")
    >>> print(text, end="")
    x1,x2,label
    0.5,-1.25,1
    0.1,0.2,-1
    >>> read_points(text).points == [[0.5, -1.25, 1], [0.1, 0.2, -1]]
    True
    >>> read_points("x1,x2,label\\n0.5,abc,1\\n")
    Traceback (most recent call last):
      ...
    micrograd.points_csv.PointsError: line 2, field x2: 'abc' is not a number

Floats are written with ``repr`` (the shortest text that gives the float back), so a
file read and written again is the same file, and its points the same floats. A refusal
is a :class:`PointsError` that names the line and the field; nothing is read from a
file with any fault. What a point may be is what an experiment takes (``micrograd
.experiment``): coordinates within ``[-MAX_COORD, MAX_COORD]``, a target in [-1, 1], a
label its loss accepts (``micrograd.losses``: -1/+1, 0/1 or a class index), at most
``MAX_SAMPLES`` points.

A number is written as the expression language writes one (``micrograd.expr``), with a
sign: ASCII digits 0-9, a decimal point, an exponent (``-1.5``, ``.5``, ``2e-3``), ASCII
spaces or tabs around it. Anything else is refused, with the column of the first
character outside ASCII: Python's ``float`` also reads the digits of other scripts
(``'١'``, ``'１'``), which the expression language does not, and ``nan``, ``inf``,
``0x10`` and ``1_000``, which no point holds. A message quotes at most
``SHOWN_CHARS`` characters of a field and says when it cut one.
"""

from __future__ import annotations

import math
import unicodedata
from dataclasses import dataclass

from .experiment.fields import MAX_CLASSES, MAX_COORD, MAX_SAMPLES
from .checks import clip
from .losses import LOSSES
from .urltext import NUMBER

__all__ = ["PointsError", "PointsFile", "read_points", "write_points", "COLUMNS",
           "MAX_CSV_CHARS", "SHOWN_CHARS"]

#: what the third column holds: a class label, or a regression target
COLUMNS = ("label", "target")
#: the longest file read: a header and MAX_SAMPLES lines of three floats written with
#: repr (at most 24 characters each, e.g. -1.2345678901234567e-100), commas, a newline
MAX_CSV_CHARS = 80 * (MAX_SAMPLES + 1)


class PointsError(ValueError):
    """A file refused: the message names the line (from 1) and the field."""

    def __init__(self, message, line=None, field=None):
        super().__init__(message)
        self.line = line
        self.field = field


@dataclass
class PointsFile:
    """What a file holds: ``points`` ([x1, x2, label or target] lists), what the third
    column is (``column``), and for class indices the number of classes they need
    (``classes``: the largest index + 1, at least 2; None otherwise)."""

    points: list
    column: str
    classes: int | None = None


#: the white space around a field (the expression language's, line ends aside)
_SPACE = " \t"
#: the most characters of a field (or twice as many of a header) a message quotes
SHOWN_CHARS = 30


def _foreign(text, line, field, column):
    """The refusal of a field holding a character outside ASCII, pointing at the first
    one (``column``: the line's column, from 1, where ``text`` begins); None if none."""
    for i, ch in enumerate(text):
        if not ch.isascii():
            name = unicodedata.name(ch, "a character with no name")
            return PointsError(
                f"line {line}, field {field}: {clip(text, SHOWN_CHARS)} is not a number: column "
                f"{column + i} holds U+{ord(ch):04X} {name}, not ASCII (a number is "
                "written with the digits 0-9, a sign, a point and an exponent)",
                line, field)
    return None


def _number(text, line, field, column):
    """The float of a field (``column``: where it begins in its line, from 1)."""
    t = text.strip(_SPACE)
    if not NUMBER.fullmatch(t):  # the expression language's, with a sign: ASCII
        foreign = _foreign(t, line, field, column + len(text) - len(text.lstrip(_SPACE)))
        if foreign is not None:
            raise foreign
        if t.lower().lstrip("+-") in ("nan", "inf", "infinity"):
            raise PointsError(f"line {line}, field {field}: {clip(t, SHOWN_CHARS)} is not a finite "
                              "number", line, field)
        raise PointsError(f"line {line}, field {field}: {clip(t, SHOWN_CHARS)} is not a number",
                          line, field)
    x = float(t)
    if not math.isfinite(x):  # 1e999: a decimal too large for a float
        raise PointsError(f"line {line}, field {field}: {clip(t, SHOWN_CHARS)} is too large for a "
                          "float", line, field)
    return x


def _header(fields, line):
    """The header's column (label or target), or None when the line is a point (it
    begins with no letter)."""
    names = [f.strip().strip('"').lower() for f in fields]
    if not names[0][:1].isalpha():
        return None
    if len(names) == 3 and names[:2] == ["x1", "x2"] and names[2] in COLUMNS:
        return names[2]
    shown = clip(",".join(fields), 2 * SHOWN_CHARS)
    raise PointsError(f"line {line}: a header names the fields x1, x2 and label or "
                      f"target, got {shown}", line, None)


def _label(x, line, loss, column):
    """A class label as the loss's convention has it (an int), or a refusal."""
    if LOSSES[loss].labels == "index":
        if x != int(x) or not 0 <= x < MAX_CLASSES:
            raise PointsError(f"line {line}, field {column}: {x:g} is not a class index "
                              f"(0 to {MAX_CLASSES - 1})", line, column)
        return int(x)
    if LOSSES[loss].labels == "01":
        want, hint = (0, 1), "for labels -1 and +1 choose the loss 'mse' or 'hinge'"
    else:
        want, hint = (-1, 1), "for labels 0 and 1 choose the loss 'bce'"
    if x not in want:
        raise PointsError(f"line {line}, field {column}: {x:g} is not a label of the loss "
                          f"{loss!r} ({want[0]} or {want[1]}; {hint})", line, column)
    return int(x)


def read_points(text, *, column="label", loss="mse", max_points=MAX_SAMPLES):
    """The points of CSV ``text`` (a :class:`PointsFile`).

    ``column``: what the third column is when the file has no header (a header's
    ``label`` or ``target`` decides otherwise). ``loss``: the loss the labels are for
    (its convention: ``mse``/``hinge`` -1 and +1, ``bce`` 0 and 1, ``ce`` class
    indices); targets lie in [-1, 1] whatever the loss. Blank lines are skipped; the
    fields are separated by commas. Raises :class:`PointsError` naming the line and the
    field at fault."""
    if not isinstance(text, str):
        raise TypeError(f"text must be str, got {type(text).__name__}")
    if column not in COLUMNS:
        raise ValueError(f"column must be one of {', '.join(COLUMNS)}, got {column!r:.40}")
    if loss not in LOSSES:
        raise ValueError(f"unknown loss {loss!r:.40}; losses: {', '.join(LOSSES)}")
    if len(text) > MAX_CSV_CHARS:
        raise PointsError(f"the file has {len(text)} characters; at most {MAX_CSV_CHARS} "
                          f"are read ({max_points} points)")
    labels = LOSSES[loss].labels
    points = []
    first = True
    for n, raw in enumerate(text.lstrip("\ufeff").splitlines(), start=1):
        if not raw.strip():
            continue
        fields = raw.split(",")
        if first:  # the first line with text: a header, or already a point
            first = False
            named = _header(fields, n)
            if named is not None:
                column = named
                continue
        if len(fields) != 3:
            raise PointsError(f"line {n}: {len(fields)} field{'s' if len(fields) != 1 else ''}, "
                              f"expected 3 (x1, x2, {column}; separated by commas)", n, None)
        if len(points) >= max_points:
            raise PointsError(f"line {n}: more than {max_points} points (the data set's "
                              "limit)", n, None)
        x1 = _number(fields[0], n, "x1", 1)
        x2 = _number(fields[1], n, "x2", len(fields[0]) + 2)
        for name, v in (("x1", x1), ("x2", x2)):
            if abs(v) > MAX_COORD:
                raise PointsError(f"line {n}, field {name}: {v!r} lies outside "
                                  f"[-{MAX_COORD:g}, {MAX_COORD:g}]", n, name)
        v = _number(fields[2], n, column, len(fields[0]) + len(fields[1]) + 3)
        if column == "target":
            if not -1 <= v <= 1:
                raise PointsError(f"line {n}, field target: {v!r} lies outside [-1, 1]",
                                  n, "target")
        else:
            v = _label(v, n, loss, column)
        points.append([x1, x2, v])
    if not points:
        raise PointsError("the file has no points (a point is a line x1,x2,"
                          f"{column})")
    classes = None
    if column == "label" and labels == "index":
        classes = max(2, max(p[2] for p in points) + 1)
    return PointsFile(points, column, classes)


def _text(v):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"a point holds numbers, got {type(v).__name__} {v!r:.40}")
    if not math.isfinite(v):
        raise ValueError(f"a point holds finite numbers, got {v!r}")
    return repr(v)


def write_points(points, column="label"):
    """``points`` ([x1, x2, label or target] each) as CSV text with a header: floats
    written with ``repr``, a class label as an int, so :func:`read_points` gives the
    same numbers back."""
    if column not in COLUMNS:
        raise ValueError(f"column must be one of {', '.join(COLUMNS)}, got {column!r:.40}")
    lines = [f"x1,x2,{column}"]
    for i, p in enumerate(points):
        if not isinstance(p, (list, tuple)) or len(p) != 3:
            raise ValueError(f"points[{i}]: a point is [x1, x2, {column}], got {p!r:.60}")
        x1, x2, v = p
        if column == "label" and isinstance(v, float) and v.is_integer():
            v = int(v)
        if column == "target" and isinstance(v, int) and not isinstance(v, bool):
            v = float(v)
        lines.append(",".join(_text(t) for t in (_float(x1), _float(x2), v)))
    return "\n".join(lines) + "\n"


def _float(x):
    return float(x) if isinstance(x, int) and not isinstance(x, bool) else x

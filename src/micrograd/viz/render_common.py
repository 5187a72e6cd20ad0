"""Helpers shared by the renderers."""

from __future__ import annotations


def clean_text(s):
    """Drop characters XML 1.0 cannot hold (control characters, lone surrogates)."""
    out = []
    for ch in str(s):
        o = ord(ch)
        if o in (9, 10, 13) or 0x20 <= o <= 0xD7FF or 0xE000 <= o <= 0xFFFD or o >= 0x10000:
            out.append(ch)
        else:
            out.append("\ufffd")
    return "".join(out)


def bezier_segments(points, lr=True):
    """Cubic segments ``(p0, c1, c2, p1)`` through ``points``, tangent along the rank
    axis at every point, so edges leave and enter boxes straight."""
    segs = []
    for p0, p1 in zip(points, points[1:]):
        if lr:
            d = (p1[0] - p0[0]) / 2
            c1, c2 = (p0[0] + d, p0[1]), (p1[0] - d, p1[1])
        else:
            d = (p1[1] - p0[1]) / 2
            c1, c2 = (p0[0], p0[1] + d), (p1[0], p1[1] - d)
        segs.append((p0, c1, c2, p1))
    return segs

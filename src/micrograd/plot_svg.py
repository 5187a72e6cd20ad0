"""A decision boundary as SVG, in pure Python: no NumPy, no matplotlib. What notebook 06
draws where matplotlib is missing (the browser's Python, the static site's notebooks).

    >>> from micrograd.nn import MLP
    >>> from micrograd.data import make_moons
    >>> from micrograd.plot_svg import decision_boundary_svg
    >>> X, y = make_moons(50, seed=0)
    >>> picture = decision_boundary_svg(MLP(2, [8, 1], seed=0), X, y, title="moons")
    >>> picture.text.startswith("<svg")
    True

Jupyter shows the returned ``SvgPicture`` as its SVG (``_repr_svg_``); ``.text`` is the
SVG itself, ``.save(path)`` writes it.

The plane around the points is cut into square cells, ``grid`` along its longer side;
the model is called once at each cell's centre (under ``no_grad``), and the cell takes
the colour of the class it predicts: blue for a score at or above the threshold (class
+1 or 1), orange below it (class -1 or 0), lighter where the score is near the threshold
(four shades, as ``micrograd.plot``'s filled contours); grey where it is not a number.
A model with several outputs colours each cell by its largest output, one colour a
class. Cells of one colour side by side in a row are drawn as one rectangle. The black
line is the boundary (score 0, or 0.5 for a sigmoid output), followed between the cells'
centres by marching squares. Training points are filled circles, test points hollow
triangles, as in ``micrograd.plot``; the colours are the web page's.
"""

from __future__ import annotations

import math
from numbers import Real

from . import checks
from .engine import no_grad

__all__ = ["decision_boundary_svg", "SvgPicture"]

POS, NEG = (47, 111, 223), (224, 102, 47)  # class +1 / 1 and class -1 / 0: the page's
CLASS_COLOURS = ((224, 102, 47), (47, 111, 223), (27, 127, 59), (142, 68, 173),
                 (181, 137, 0))  # one colour a class, for a model with several outputs
NAN_GREY = "#bfbfbf"
INK = "#1d232b"
SHADES = 4  # levels of confidence of one class's background, lightest near the boundary
MAX_GRID = 200


class SvgPicture:
    """An SVG picture: ``text`` is the SVG; Jupyter shows it (``_repr_svg_``)."""

    def __init__(self, text, width, height, title):
        self.text, self.width, self.height, self.title = text, width, height, title

    def _repr_svg_(self):
        return self.text

    def __repr__(self):  # no address: the same text in every run
        return f"<SvgPicture {self.width}x{self.height}: {self.title}>"

    def save(self, path):
        """Write the SVG to ``path`` (atomically); returns ``path``."""
        from .files import write_text

        write_text(path, self.text, example="picture.svg")
        return path


# ---------------------------------------------------------------------------------------
# checking the input
# ---------------------------------------------------------------------------------------


def _points(X, name):
    """``X`` as a list of (x1, x2) float pairs, or a TypeError / ValueError naming it."""
    if isinstance(X, (str, bytes)) or not hasattr(X, "__iter__"):
        raise TypeError(f"{name} must be a list of points (x1, x2), got "
                        f"{type(X).__name__}: {checks.show(X)}")
    pts = []
    for i, p in enumerate(X):
        if isinstance(p, (str, bytes)) or not hasattr(p, "__len__"):
            raise TypeError(f"{name}[{i}] must be a point (x1, x2), got "
                            f"{type(p).__name__}: {checks.show(p)}")
        if len(p) != 2:
            raise ValueError(f"a decision boundary needs 2-D points: {name}[{i}] has "
                             f"{len(p)} coordinates")
        pts.append((checks.number(p[0], f"{name}[{i}][0]"),
                    checks.number(p[1], f"{name}[{i}][1]")))
    if not pts:
        raise ValueError(f"{name} is empty: give at least one point")
    return pts


def _labels(y, n, name):
    if isinstance(y, (str, bytes)) or not hasattr(y, "__iter__"):
        raise TypeError(f"{name} must be a list of labels, got {type(y).__name__}: "
                        f"{checks.show(y)}")
    labels = list(y)
    if len(labels) != n:
        raise ValueError(f"{n} points but {len(labels)} labels in {name}")
    out = []
    for i, c in enumerate(labels):
        c = checks.number(c, f"{name}[{i}]")
        if c != int(c):
            raise ValueError(f"{name}[{i}] must be a class label (an integer), got {c}")
        out.append(int(c))
    return out


def _score(v):
    """A model's output as a float, or a list of floats (one per class)."""
    if isinstance(v, (list, tuple)):
        if len(v) == 1:
            return _score(v[0])
        return [_score(u) for u in v]
    x = getattr(v, "data", v)
    if isinstance(x, bool) or not isinstance(x, Real):
        raise TypeError(f"the model must return a number (a Value) or a list of them, "
                        f"got {type(v).__name__}: {checks.show(v)}")
    return float(x)


# ---------------------------------------------------------------------------------------
# the picture
# ---------------------------------------------------------------------------------------


def _hex(rgb, f=1.0):
    """``rgb`` mixed with white: ``f`` of the colour, ``1 - f`` white, as #rrggbb."""
    return "#" + "".join(f"{round(255 + (c - 255) * f):02x}" for c in rgb)


def _n(x):
    return f"{x:.1f}".rstrip("0").rstrip(".")


def _escape(text):
    return (text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
            .replace('"', "&quot;"))


def _nice_step(span, ticks=5):
    raw = span / ticks
    mag = 10.0 ** math.floor(math.log10(raw))
    return next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)


def _ticks(lo, hi):
    step = _nice_step(hi - lo)
    k = math.ceil(lo / step - 1e-9)
    out = []
    while k * step <= hi + 1e-9:
        out.append(k * step)
        k += 1
    return out, step


def _tick_text(v, step):
    digits = max(0, -math.floor(math.log10(step) + 1e-9))
    text = f"{v:.{digits}f}"
    return "0" if float(text) == 0 else text


def _box(pts, grid):
    """The plane drawn: (x0, y1, cell, nx, ny), the top-left corner, the side of a square
    cell and the cells across and down, around ``pts`` as ``micrograd.plot`` pads them."""
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    (lx, hx), (ly, hy) = (min(xs), max(xs)), (min(ys), max(ys))
    px, py = 0.15 * (hx - lx) + 0.1, 0.15 * (hy - ly) + 0.1
    x0, x1, y0, y1 = lx - px, hx + px, ly - py, hy + py
    if x1 - x0 >= y1 - y0:
        cell = (x1 - x0) / grid
        nx, ny = grid, max(2, math.ceil((y1 - y0) / cell - 1e-9))
        y1 = (y0 + y1) / 2 + ny * cell / 2
    else:
        cell = (y1 - y0) / grid
        nx, ny = max(2, math.ceil((x1 - x0) / cell - 1e-9)), grid
        x0 = (x0 + x1) / 2 - nx * cell / 2
    return x0, y1, cell, nx, ny


def _scores(model, x0, y1, cell, nx, ny):
    """The model's output at every cell's centre: rows from the top."""
    with no_grad():
        return [[_score(model([x0 + (i + 0.5) * cell, y1 - (j + 0.5) * cell]))
                 for i in range(nx)] for j in range(ny)]


def _cell_colours(rows, threshold, scale):
    """Each cell's colour (#rrggbb); ``threshold`` None: one class per output."""
    out = []
    for row in rows:
        line = []
        for s in row:
            if threshold is None:
                if any(v != v for v in s):
                    line.append(NAN_GREY)
                else:
                    k = max(range(len(s)), key=s.__getitem__)
                    line.append(_hex(CLASS_COLOURS[k % len(CLASS_COLOURS)], 0.35))
            elif s != s:
                line.append(NAN_GREY)
            else:
                z = (s - threshold) * scale
                level = min(SHADES - 1, int(min(abs(z), 1.0) * SHADES))
                line.append(_hex(POS if z >= 0 else NEG, 0.15 * (level + 1)))
        out.append(line)
    return out


def _contour(z, at):
    """The zero line of ``z`` (rows of numbers at the cells' centres) by marching
    squares: a list of segments ((x, y), (x, y)) in pixels, ``at(i, j)`` a centre's."""
    segs = []
    for j in range(len(z) - 1):
        for i in range(len(z[0]) - 1):
            # corners clockwise from the top left; edge k runs from corner k to k + 1
            corners = ((i, j), (i + 1, j), (i + 1, j + 1), (i, j + 1))
            v = [z[b][a] for a, b in corners]
            if any(x != x for x in v):
                continue
            pos = [x >= 0 for x in v]
            cuts = {}
            for k in range(4):
                if pos[k] != pos[(k + 1) % 4]:
                    (a0, b0), (a1, b1) = corners[k], corners[(k + 1) % 4]
                    t = v[k] / (v[k] - v[(k + 1) % 4])
                    (p0, q0), (p1, q1) = at(a0, b0), at(a1, b1)
                    cuts[k] = (p0 + t * (p1 - p0), q0 + t * (q1 - q0))
            if len(cuts) == 2:
                segs.append(tuple(cuts.values()))
            elif len(cuts) == 4:  # a saddle: the centre's sign says which corners join
                if (sum(v) >= 0) == pos[0]:  # 0 and 2 joined: cut off corners 1 and 3
                    segs += [(cuts[0], cuts[1]), (cuts[2], cuts[3])]
                else:  # cut off corners 0 and 2
                    segs += [(cuts[3], cuts[0]), (cuts[1], cuts[2])]
    return segs


LEFT, RIGHT = 44, 12  # the margins beside the plane at least: the y ticks', the right's
MIN_CELL = 2  # pixels a cell at least


class _Frame:
    """Where the plane lands in the picture: square cells of ``px`` pixels, the plane's
    top-left corner (``x0``, ``y1``) at pixel (``left``, ``top``); the picture ``width``
    wide exactly, the pixels left over after whole cells split between the margins."""

    def __init__(self, box, width, title):
        self.x0, self.y1, self.cell, self.nx, self.ny = box
        self.px = (width - LEFT - RIGHT) // max(self.nx, self.ny)
        self.pw, self.ph = self.nx * self.px, self.ny * self.px
        self.left, self.top = LEFT + (width - LEFT - RIGHT - self.pw) // 2, (28 if title else 10)
        self.width = width

    def at(self, i, j):
        """The centre of cell (i, j) in pixels."""
        return self.left + (i + 0.5) * self.px, self.top + (j + 0.5) * self.px

    def to_px(self, x, y):
        return (self.left + (x - self.x0) / self.cell * self.px,
                self.top + (self.y1 - y) / self.cell * self.px)


def _check(model, X, y, X_test, y_test, title, grid, width):
    """The points and labels, train and test, checked; a clear error otherwise."""
    if not callable(model):
        raise TypeError(f"model must be callable on a point [x1, x2], got "
                        f"{type(model).__name__}")
    pts = _points(X, "X")
    labels = _labels(y, len(pts), "y")
    if (X_test is None) != (y_test is None):
        raise ValueError("give X_test and y_test together, or neither")
    test = [] if X_test is None else _points(X_test, "X_test")
    test_labels = [] if X_test is None else _labels(y_test, len(test), "y_test")
    checks.integer(grid, "grid", low=2)
    if grid > MAX_GRID:
        raise ValueError(f"grid must be at most {MAX_GRID} cells, got {grid}")
    checks.integer(width, "width", low=200)
    if width < LEFT + RIGHT + MIN_CELL * grid:
        raise ValueError(f"width {width} leaves {width - LEFT - RIGHT} pixels for {grid} "
                         f"cells of {MIN_CELL} pixels: give width at least "
                         f"{LEFT + RIGHT + MIN_CELL * grid} or a smaller grid")
    if title is not None and not isinstance(title, str):
        raise TypeError(f"title must be a string, got {type(title).__name__}")
    return pts, labels, test, test_labels


def _kind(model, rows, labels):
    """(binary, threshold, scale) of the model's outputs ``rows``: one score, or one per
    class (then the labels must be class indices)."""
    binary = not isinstance(rows[0][0], list)
    if binary:
        if any(isinstance(s, list) for row in rows for s in row):
            raise ValueError("the model returned a number at one point and a list at "
                             "another")
        sigmoid = getattr(model, "output_activation", None) == "sigmoid"
        return (True, 0.5, 2.0) if sigmoid else (True, 0.0, 1.0)
    k = len(rows[0][0])
    if any(not isinstance(s, list) or len(s) != k for row in rows for s in row):
        raise ValueError("the model returned lists of different lengths")
    bad = [c for c in labels if not 0 <= c < k]
    if bad:
        raise ValueError(f"a model with {k} outputs takes labels 0..{k - 1}, got {bad[0]}")
    return False, None, 1.0


def _cells(frame, colours):
    """The background: one rectangle a run of one colour in a row."""
    out = ['<g class="cells" shape-rendering="crispEdges">']
    for j, line in enumerate(colours):
        i = 0
        while i < frame.nx:
            e = i
            while e + 1 < frame.nx and line[e + 1] == line[i]:
                e += 1
            out.append(f'<rect x="{frame.left + i * frame.px}" y="{frame.top + j * frame.px}" '
                       f'width="{(e - i + 1) * frame.px}" height="{frame.px}" '
                       f'fill="{line[i]}"/>')
            i = e + 1
    out.append("</g>")
    return out


def _axes(frame):
    """The frame and its ticks, labelled in the plane's units."""
    f = frame
    out = [f'<rect class="frame" x="{f.left}" y="{f.top}" width="{f.pw}" height="{f.ph}" '
           f'fill="none" stroke="{INK}" stroke-width="1"/>',
           f'<g class="ticks" fill="{INK}" stroke="{INK}">']
    bottom = f.top + f.ph
    xt, xstep = _ticks(f.x0, f.x0 + f.nx * f.cell)
    for v in xt:
        p = _n(f.to_px(v, 0)[0])
        out.append(f'<line x1="{p}" y1="{bottom}" x2="{p}" y2="{bottom + 4}"/>'
                   f'<text x="{p}" y="{bottom + 15}" text-anchor="middle" stroke="none">'
                   f"{_tick_text(v, xstep)}</text>")
    yt, ystep = _ticks(f.y1 - f.ny * f.cell, f.y1)
    for v in yt:
        p = _n(f.to_px(0, v)[1])
        out.append(f'<line x1="{f.left - 4}" y1="{p}" x2="{f.left}" y2="{p}"/>'
                   f'<text x="{f.left - 6}" y="{p}" dy="0.35em" text-anchor="end" '
                   f'stroke="none">{_tick_text(v, ystep)}</text>')
    out.append("</g>")
    return out


class _Marks:
    """How a class's points are drawn: train filled circles, test hollow triangles, in
    the class's colour; named ``+1``/``-1`` when the labels are signed."""

    def __init__(self, binary, classes):
        self.binary, self.signed = binary, binary and min(classes) < 0

    def colour(self, c):
        if self.binary:
            return _hex(POS if c > 0 else NEG)
        return _hex(CLASS_COLOURS[c % len(CLASS_COLOURS)])

    def name(self, c):
        return f"{c:+d}" if self.signed else f"{c}"

    def circle(self, x, y, c, r=3.5):
        return (f'<circle cx="{_n(x)}" cy="{_n(y)}" r="{r}" fill="{self.colour(c)}" '
                f'stroke="{INK}" stroke-width="0.75"/>')

    def triangle(self, x, y, c, r=4.5):
        corners = ((x, y - r), (x + 0.87 * r, y + 0.5 * r), (x - 0.87 * r, y + 0.5 * r))
        return (f'<polygon points="{" ".join(f"{_n(a)},{_n(b)}" for a, b in corners)}" '
                f'fill="none" stroke="{self.colour(c)}" stroke-width="1.5"/>')

    def group(self, kind, frame, pts, labels):
        draw = self.circle if kind == "train" else self.triangle
        return ([f'<g class="points {kind}">']
                + [f'<g data-label="{self.name(c)}">' + draw(*frame.to_px(*p), c) + "</g>"
                   for p, c in zip(pts, labels)] + ["</g>"])


def _legend(frame, marks, classes, test, line):
    """The legend under the ticks, in rows as wide as the picture, "boundary" in it when
    ``line`` (a boundary is drawn); (its lines, the baseline of its last row)."""
    out = [f'<g class="legend" fill="{INK}">']
    lx, ly = frame.left, frame.top + frame.ph + 36
    entries = [("train", c) for c in classes] + [("test", c) for c in classes if test]
    entries += [("boundary", None)] if line else []
    for kind, c in entries:
        text = kind if c is None else f"{kind} {marks.name(c)}"
        if lx > frame.left and lx + 18 + 7 * len(text) > frame.width:
            lx, ly = frame.left, ly + 16
        if c is None:
            mark = (f'<line x1="{lx}" y1="{ly - 4}" x2="{lx + 10}" y2="{ly - 4}" '
                    f'stroke="black" stroke-width="1.2"/>')
        elif kind == "train":
            mark = marks.circle(lx + 4, ly - 4, c)
        else:
            mark = marks.triangle(lx + 4, ly - 3, c)
        out.append(mark + f'<text x="{lx + 14}" y="{ly}">{text}</text>')
        lx += 14 + 7 * len(text) + 14
    out.append("</g>")
    return out, ly


def decision_boundary_svg(model, X, y, X_test=None, y_test=None, title=None, grid=40,
                          width=480):
    """The model's decision regions over the plane, with the training points (filled
    circles) and the test points (hollow triangles), as an ``SvgPicture``.

    ``model`` is called on ``[x1, x2]`` and returns a number (a ``Value``: a score,
    class +1 at or above 0, or 0.5 for a sigmoid output) or a list of them (one per
    class: labels are class indices). ``grid`` cells along the longer side of the plane
    (square cells); ``width`` the picture's width in pixels, exactly (at least 56 + 2
    ``grid``: a cell is 2 pixels at least); "boundary" in the legend when a line is
    drawn (not where the model gives one class everywhere)."""
    pts, labels, test, test_labels = _check(model, X, y, X_test, y_test, title, grid,
                                            width)
    box = _box(pts + test, grid)
    rows = _scores(model, *box)
    binary, threshold, scale = _kind(model, rows, labels + test_labels)
    frame = _Frame(box, width, title)
    what = title or "decision boundary"
    out = []  # the picture under its header, written last (the legend sets the height)
    if title:
        out.append(f'<text x="{frame.width / 2:g}" y="18" text-anchor="middle" '
                   f'font-size="12" fill="{INK}">{_escape(title)}</text>')
    out += _cells(frame, _cell_colours(rows, threshold, scale))
    segs = _contour([[s - threshold for s in row] for row in rows], frame.at) if binary else []
    if segs:
        d = " ".join(f"M{_n(a[0])},{_n(a[1])}L{_n(b[0])},{_n(b[1])}" for a, b in segs)
        out.append(f'<path class="boundary" d="{d}" fill="none" stroke="black" '
                   f'stroke-width="1.2" stroke-linecap="round"/>')
    out += _axes(frame)
    classes = sorted(set(labels) | set(test_labels))
    marks = _Marks(binary, classes)
    out += marks.group("train", frame, pts, labels)
    if test:
        out += marks.group("test", frame, test, test_labels)
    legend, last = _legend(frame, marks, classes, test, bool(segs))
    W, H = frame.width, last + 10
    head = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
            f'viewBox="0 0 {W} {H}" font-family="monospace" font-size="11" '
            f'class="micrograd-boundary">',
            f"<title>{_escape(what)}: {frame.nx} x {frame.ny} cells, {len(pts)} training "
            f"points" + (f", {len(test)} test points" if test else "") + "</title>",
            f'<rect x="0" y="0" width="{W}" height="{H}" fill="white"/>']
    return SvgPicture("\n".join(head + out + legend + ["</svg>"]), W, H, what)

"""A PNG of a graph, drawn with matplotlib's Agg canvas (no Graphviz, no display).

The image is the layout at 1.5 image px per layout px, shrunk if needed to at most
``MAX_SIDE`` px on its longer side and ``MAX_PIXELS`` px in all (the Agg canvas holds 4
bytes per pixel while drawing). A graph that would have to shrink so far that its text
is smaller than ``MIN_TEXT_PX`` cannot be drawn legibly: ``to_png`` refuses it with
``GraphTooLargeError`` before drawing anything (an SVG has no such limit). The boxes,
ellipses and edges are drawn as a few collections, so the time grows with the number
of nodes and pixels and nothing else.
"""

from __future__ import annotations

import math

from ..files import atomic_path
from .layout import FONT_SIZE, layout
from .render_common import bezier_segments
from .svg import DATA_COLOR, EDGE_COLOR, GRAD_COLOR

MAX_SIDE = 12000  # px: the longer side of the image is at most this
MAX_PIXELS = 40_000_000  # px in all: 160 MB of canvas while drawing
MIN_TEXT_PX = 6.0  # text smaller than this (in image px) cannot be read


class GraphTooLargeError(ValueError):
    """The graph is too large for a legible PNG; the message says how large it is."""


def png_scale(lay, scale=1.5):
    """The image px per layout px ``render_png`` uses: ``scale``, shrunk to the caps;
    raises ``GraphTooLargeError`` when that makes the text illegible."""
    w, h = max(lay.width, 1.0), max(lay.height, 1.0)
    fit = min(scale, MAX_SIDE / max(w, h), math.sqrt(MAX_PIXELS / (w * h)))
    if FONT_SIZE * fit < MIN_TEXT_PX:
        raise GraphTooLargeError(
            f"the graph ({len(lay.nodes):,} boxes, {w:,.0f} x {h:,.0f} px at full size) is "
            f"too large for a legible PNG: at most {MAX_SIDE:,} px a side and "
            f"{MAX_PIXELS // 1_000_000} million px in all, its text would be "
            f"{FONT_SIZE * fit:.1f} px high (at least {MIN_TEXT_PX:g} needed); write an SVG "
            f"(.svg), which has no size limit, or draw a smaller expression")
    return fit


def render_png(lay, path, dpi=100, scale=1.5):
    """Draw a Layout into a PNG file at ``path`` (one layout px = ``scale`` image px,
    less if the caps require it), atomically."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    scale = png_scale(lay, scale)
    w, h = max(lay.width, 1.0), max(lay.height, 1.0)
    fig = Figure(figsize=(w * scale / dpi, h * scale / dpi), dpi=dpi)
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, w)
    ax.set_ylim(h, 0)
    ax.axis("off")
    text_kw = {"ha": "center", "va": "center", "family": "monospace",
               "fontsize": FONT_SIZE * scale * 72.0 / dpi}  # px -> points
    shapes = _Shapes()
    shapes.add_edges(lay)
    shapes.add_nodes(lay, ax, text_kw)
    shapes.draw(ax)
    with atomic_path(path, example="graph.png") as tmp:
        fig.savefig(tmp, dpi=dpi, facecolor="white", format="png")


class _Shapes:
    """The drawing's shapes, gathered kind by kind and drawn as a few collections: the
    edges' curves, the arrow heads, the op nodes' ellipses, the records' boxes and the
    lines between their cells (and from an op node to its record)."""

    HEAD = 6.0  # arrow head length, layout px

    def __init__(self):
        self.curves, self.heads, self.ellipses, self.rects, self.dividers = [], [], [], [], []

    def arrow_head(self, tip, back):
        from matplotlib.patches import Polygon

        head = self.HEAD
        (bx, by), (tx, ty) = back, tip
        dx, dy = tx - bx, ty - by
        norm = math.hypot(dx, dy) or 1.0
        ux, uy = dx / norm, dy / norm
        half = head * 0.45
        self.heads.append(Polygon([(tx, ty),
                                   (tx - head * ux - half * uy, ty - head * uy + half * ux),
                                   (tx - head * ux + half * uy, ty - head * uy - half * ux)],
                                  closed=True))

    def add_edges(self, lay):
        """Every edge: a chain of Bézier curves and its arrow head."""
        from matplotlib.patches import PathPatch
        from matplotlib.path import Path

        lr, head = lay.rankdir == "LR", self.HEAD
        for el in lay.edges:
            verts, codes = [], []
            for i, (p0, c1, c2, p1) in enumerate(bezier_segments(el.points, lr)):
                if i == 0:
                    verts.append(p0)
                    codes.append(Path.MOVETO)
                verts += [c1, c2, p1]
                codes += [Path.CURVE4] * 3
            if len(verts) > 1:
                self.curves.append(PathPatch(Path(verts, codes)))
            b = el.points[-1]
            self.arrow_head(b, (b[0] - head, b[1]) if lr else (b[0], b[1] - head))

    def add_nodes(self, lay, ax, text_kw):
        """Every value: its op node (an ellipse, an arrow to the record) and its record
        (a box of cells: label, data in its colour, grad in its colour). The texts go
        straight onto ``ax``."""
        from matplotlib.patches import Rectangle

        for nl in lay.nodes:
            nd = nl.node
            if nl.op_box is not None:
                (x0, y0), (x1, y1) = nl.op_edge
                self.dividers.append(((x0, y0), (x1, y1)))
                self.arrow_head((x1, y1), (x0, y0))
                b = nl.op_box
                self.ellipses.append((b.cx, b.cy, b.w, b.h))
                ax.text(b.cx, b.cy, nd.op, **text_kw)
            b = nl.box
            self.rects.append(Rectangle((b.x, b.y), b.w, b.h))
            x = b.x
            data_i = 1 if nd.label else 0
            for i, (cell, cw) in enumerate(zip(nl.cells, nl.cell_widths)):
                if i:
                    self.dividers.append(((x, b.y), (x, b.y + b.h)))
                color = (DATA_COLOR if i == data_i else GRAD_COLOR if i == data_i + 1
                         else "#111111")
                ax.text(x + cw / 2, b.cy, cell, color=color, **text_kw)
                x += cw

    def draw(self, ax):
        """The collections onto ``ax``, with autolim=False: the limits are fixed already
        (per-patch limit updates were most of the time of a large graph)."""
        from matplotlib.collections import EllipseCollection, LineCollection, PatchCollection

        ax.add_collection(PatchCollection(self.curves, facecolor="none",
                                          edgecolor=EDGE_COLOR, linewidth=1), autolim=False)
        ax.add_collection(PatchCollection(self.heads, facecolor=EDGE_COLOR, edgecolor="none"),
                          autolim=False)
        if self.ellipses:
            es = self.ellipses
            ax.add_collection(EllipseCollection(
                [e[2] for e in es], [e[3] for e in es], [0.0] * len(es), units="xy",
                offsets=[(e[0], e[1]) for e in es], offset_transform=ax.transData,
                facecolor="#f4f4f4", edgecolor="#333333", linewidth=1), autolim=False)
        ax.add_collection(PatchCollection(self.rects, facecolor="white", edgecolor="#333333",
                                          linewidth=1), autolim=False)
        ax.add_collection(LineCollection(self.dividers, colors="#333333", linewidths=1),
                          autolim=False)


def to_png(root, path, rankdir="LR", show_grad=True, dpi=100, scale=1.5):
    """Draw the graph of ``root`` into the PNG file ``path`` (matplotlib, Agg).

    Raises ``GraphTooLargeError`` (a ValueError) for a graph too large to draw legibly
    (see the module docstring), before writing anything."""
    render_png(layout(root, rankdir=rankdir, show_grad=show_grad), path, dpi=dpi, scale=scale)
    return path

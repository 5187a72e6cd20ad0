"""A PNG of a graph, drawn with matplotlib's Agg canvas (no Graphviz, no display)."""

from __future__ import annotations

from .layout import FONT_SIZE, layout
from .render_common import bezier_segments
from .svg import DATA_COLOR, EDGE_COLOR, GRAD_COLOR

MAX_PIXELS = 12000  # the longer side of the image is scaled down to at most this


def render_png(lay, path, dpi=100, scale=1.5):
    """Draw a Layout into a PNG file at ``path`` (one layout px = ``scale`` image px)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.patches import Ellipse, FancyArrowPatch, PathPatch, Rectangle
    from matplotlib.path import Path

    lr = lay.rankdir == "LR"
    w, h = max(lay.width, 1.0), max(lay.height, 1.0)
    scale = min(scale, MAX_PIXELS / max(w, h))
    fig = Figure(figsize=(w * scale / dpi, h * scale / dpi), dpi=dpi)
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, w)
    ax.set_ylim(h, 0)
    ax.axis("off")
    fs = FONT_SIZE * scale * 72.0 / dpi  # px -> points
    text_kw = dict(ha="center", va="center", fontsize=fs, family="monospace")
    for el in lay.edges:
        verts, codes = [], []
        for i, (p0, c1, c2, p1) in enumerate(bezier_segments(el.points, lr)):
            if i == 0:
                verts.append(p0)
                codes.append(Path.MOVETO)
            verts += [c1, c2, p1]
            codes += [Path.CURVE4] * 3
        ax.add_patch(PathPatch(Path(verts, codes), fill=False, edgecolor=EDGE_COLOR, lw=1))
        b = el.points[-1]
        tip = (b[0] - 6, b[1]) if lr else (b[0], b[1] - 6)
        ax.add_patch(FancyArrowPatch(tip, b, arrowstyle="-|>", mutation_scale=8 * scale,
                                     color=EDGE_COLOR, lw=0))
    for nl in lay.nodes:
        nd = nl.node
        if nl.op_box is not None:
            (x0, y0), (x1, y1) = nl.op_edge
            ax.add_patch(FancyArrowPatch((x0, y0), (x1, y1), arrowstyle="-|>",
                                         mutation_scale=8 * scale, color=EDGE_COLOR, lw=1))
            b = nl.op_box
            ax.add_patch(Ellipse((b.cx, b.cy), b.w, b.h, facecolor="#f4f4f4",
                                 edgecolor="#333333", lw=1))
            ax.text(b.cx, b.cy, nd.op, **text_kw)
        b = nl.box
        ax.add_patch(Rectangle((b.x, b.y), b.w, b.h, facecolor="white", edgecolor="#333333",
                               lw=1))
        x = b.x
        data_i = 1 if nd.label else 0
        for i, (cell, cw) in enumerate(zip(nl.cells, nl.cell_widths)):
            if i:
                ax.plot([x, x], [b.y, b.y + b.h], color="#333333", lw=1)
            color = DATA_COLOR if i == data_i else GRAD_COLOR if i == data_i + 1 else "#111111"
            ax.text(x + cw / 2, b.cy, cell, color=color, **text_kw)
            x += cw
    fig.savefig(path, dpi=dpi, facecolor="white")


def to_png(root, path, rankdir="LR", show_grad=True, dpi=100, scale=1.5):
    """Draw the graph of ``root`` into the PNG file ``path`` (matplotlib, Agg)."""
    render_png(layout(root, rankdir=rankdir, show_grad=show_grad), path, dpi=dpi, scale=scale)
    return path

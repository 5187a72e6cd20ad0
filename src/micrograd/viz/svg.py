"""A self-contained SVG of a graph: no external fonts, CSS or scripts; labels escaped."""

from __future__ import annotations

from ..graph import describe_op, fmt
from .layout import FONT_SIZE, layout
from .render_common import bezier_segments, clean_text

DATA_COLOR = "#1f5fbf"  # blue: data and the forward flow, as the lecture's drawings
GRAD_COLOR = "#c2185b"  # pink: grad and the backward flow
EDGE_COLOR = "#666666"


def _a(x):
    # imported at the first drawing: xml.sax brings urllib, http and email with it,
    # which the browser's Python would compile at every start of the page
    from xml.sax.saxutils import quoteattr

    return quoteattr(clean_text(x))


def _t(x):
    from xml.sax.saxutils import escape

    return escape(clean_text(x))


def _n(x):
    return f"{x:.2f}".rstrip("0").rstrip(".")


def render_svg(lay):
    """The SVG text of a :class:`~micrograd.viz.layout.Layout`."""
    lr = lay.rankdir == "LR"
    names = {nl.node.id: nl.node.name for nl in lay.nodes}
    w, h = _n(lay.width), _n(lay.height)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
        f'viewBox="0 0 {w} {h}" font-family="monospace" font-size="{_n(FONT_SIZE)}" '
        f'class="micrograd-graph">',
        f"<title>micrograd graph: {len(lay.nodes)} values, {len(lay.edges)} edges</title>",
        '<defs><marker id="mg-arrow" viewBox="0 0 10 10" refX="10" refY="5" '
        'markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
        f'<path d="M0,0 L10,5 L0,10 z" fill="{EDGE_COLOR}"/></marker></defs>',
        f'<rect x="0" y="0" width="{w}" height="{h}" fill="white"/>',
        '<g class="edges">',
    ]
    for el in lay.edges:
        e = el.edge
        d = "M" + " ".join(
            f"{_n(s[0][0])},{_n(s[0][1])} C{_n(s[1][0])},{_n(s[1][1])} "
            f"{_n(s[2][0])},{_n(s[2][1])} {_n(s[3][0])},{_n(s[3][1])}"
            for s in bezier_segments(el.points, lr)[:1])
        for s in bezier_segments(el.points, lr)[1:]:
            d += (f" C{_n(s[1][0])},{_n(s[1][1])} {_n(s[2][0])},{_n(s[2][1])} "
                  f"{_n(s[3][0])},{_n(s[3][1])}")
        title = (f"{names[e.src]} -> {names[e.dst]} (input {e.index}): "
                 f"local derivative {fmt(e.local)}")
        out.append(
            f'<path class="edge" data-id="{e.id}" data-src="{e.src}" data-dst="{e.dst}" '
            f'data-index="{e.index}" d="{d}" fill="none" stroke="{EDGE_COLOR}" '
            f'stroke-width="1.2" marker-end="url(#mg-arrow)"><title>{_t(title)}</title></path>')
    for nl in lay.nodes:
        if nl.op_box is not None:
            (x0, y0), (x1, y1) = nl.op_edge
            out.append(
                f'<line class="op-edge" data-id="{nl.node.id}" x1="{_n(x0)}" y1="{_n(y0)}" '
                f'x2="{_n(x1)}" y2="{_n(y1)}" stroke="{EDGE_COLOR}" stroke-width="1.2" '
                f'marker-end="url(#mg-arrow)"/>')
    out.append("</g>")
    out.append('<g class="nodes">')
    for nl in lay.nodes:
        nd = nl.node
        title = nd.name + ("" if nd.leaf else " = " + describe_op(nd, names))
        title += f"\ndata {fmt(nd.data)}" + (f"\ngrad {fmt(nd.grad)}" if lay.show_grad else "")
        if nl.op_box is not None:
            b = nl.op_box
            out.append(
                f'<g class="op" data-id="{nd.id}"><title>{_t(title)}</title>'
                f'<ellipse cx="{_n(b.cx)}" cy="{_n(b.cy)}" rx="{_n(b.w / 2)}" '
                f'ry="{_n(b.h / 2)}" fill="#f4f4f4" stroke="#333333"/>'
                f'<text x="{_n(b.cx)}" y="{_n(b.cy)}" text-anchor="middle" '
                f'dominant-baseline="central">{_t(nd.op)}</text></g>')
        b = nl.box
        parts = [f'<g class="node" data-id="{nd.id}" data-label={_a(nd.label)}>'
                 f"<title>{_t(title)}</title>",
                 f'<rect x="{_n(b.x)}" y="{_n(b.y)}" width="{_n(b.w)}" height="{_n(b.h)}" '
                 f'fill="white" stroke="#333333"/>']
        x = b.x
        for i, (cell, cw) in enumerate(zip(nl.cells, nl.cell_widths)):
            if i:
                parts.append(f'<line x1="{_n(x)}" y1="{_n(b.y)}" x2="{_n(x)}" '
                             f'y2="{_n(b.y + b.h)}" stroke="#333333"/>')
            data_i = 1 if nd.label else 0
            color = DATA_COLOR if i == data_i else GRAD_COLOR if i == data_i + 1 else "#111111"
            parts.append(f'<text x="{_n(x + cw / 2)}" y="{_n(b.cy)}" text-anchor="middle" '
                         f'dominant-baseline="central" fill="{color}">{_t(cell)}</text>')
            x += cw
        parts.append("</g>")
        out.append("".join(parts))
    out.append("</g></svg>")
    return "\n".join(out)


def to_svg(root, rankdir="LR", show_grad=True):
    """The graph of ``root`` as a self-contained SVG string.

        >>> from micrograd.engine import Value
        >>> from micrograd.viz import to_svg
        >>> a = Value(2.0, label="a"); L = a * a; L.backward()
        >>> to_svg(L).startswith("<svg")
        True
    """
    return render_svg(layout(root, rankdir=rankdir, show_grad=show_grad))

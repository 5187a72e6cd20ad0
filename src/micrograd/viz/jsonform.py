"""The JSON form of a laid-out graph, for the web page (shapes in docs/graphs.md)."""

from __future__ import annotations

import json

from .layout import layout

FORMAT = "micrograd.graph"
VERSION = 1


def layout_to_dict(lay):
    """A plain dict (JSON-ready: non-finite numbers as strings) of a Layout."""
    nodes = []
    for nl in lay.nodes:
        d = nl.node.to_dict()
        d["box"] = nl.box.to_dict()
        d["cells"] = list(nl.cells)
        d["cell_widths"] = [round(w, 2) for w in nl.cell_widths]
        d["op_box"] = nl.op_box.to_dict() if nl.op_box is not None else None
        d["op_edge"] = [list(p) for p in nl.op_edge]
        nodes.append(d)
    edges = []
    for el in lay.edges:
        d = el.edge.to_dict()
        d["points"] = [list(p) for p in el.points]
        edges.append(d)
    return {"format": FORMAT, "version": VERSION, "rankdir": lay.rankdir,
            "show_grad": lay.show_grad, "width": lay.width, "height": lay.height,
            "root": lay.root, "crossings": lay.crossings, "stack": lay.stack,
            "stagger": lay.stagger,
            "nodes": nodes, "edges": edges}


def to_dict(root, rankdir="LR", show_grad=True):
    """The graph of ``root`` with its layout, as a JSON-ready dict."""
    return layout_to_dict(layout(root, rankdir=rankdir, show_grad=show_grad))


def to_json(root, rankdir="LR", show_grad=True, indent=None):
    """The graph of ``root`` with its layout, as JSON text (strict: no NaN/Infinity)."""
    return json.dumps(to_dict(root, rankdir, show_grad), indent=indent, allow_nan=False)

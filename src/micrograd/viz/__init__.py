"""Drawing computational graphs: trace, layout and render, all in Python.

    >>> from micrograd.engine import Value
    >>> from micrograd import viz
    >>> a, b = Value(2.0, label="a"), Value(-3.0, label="b")
    >>> e = a * b; e.label = "e"; e.backward()
    >>> nodes, edges = viz.nodes_and_edges(e)
    >>> svg = viz.to_svg(e)                 # self-contained SVG text
    >>> dot = viz.to_dot(e)                 # Graphviz DOT text
    >>> data = viz.to_dict(e)               # JSON-ready dict with positions
    >>> viz.to_png(e, "graph.png")          # doctest: +SKIP  (matplotlib, Agg)
    'graph.png'

The lecture's ``draw_dot(root, format='svg', rankdir='LR')`` (also ``from micrograd
import draw_dot``) returns a :class:`Digraph` that Jupyter shows inline, with
``.render(filename)`` and ``.source`` as Graphviz's; the lecture's ``trace`` (sets of
Values) is ``micrograd.viz.digraph.value_sets`` (also ``digraph.trace``, its name there).
``viz.trace`` is the older name of ``nodes_and_edges`` (the numbered nodes and edges every
renderer draws), kept for code that calls ``trace(root)``; ``micrograd.trace`` is the
compiler.

Every renderer takes ``rankdir='LR'|'TB'`` and ``show_grad=True|False``. The JSON
shapes are documented in docs/graphs.md. Nothing here needs Graphviz.
"""

from .digraph import Digraph, draw_dot
from .dot import to_dot
from ..graph import Edge, Node, forward_order, nodes_and_edges, trace
from .jsonform import layout_to_dict, to_dict, to_json
from .layout import Box, Layout, layout, layout_in_turns
from .png import to_png
from .svg import render_svg, to_svg

__all__ = ["draw_dot", "Digraph", "nodes_and_edges", "trace", "Node", "Edge", "forward_order",
           "layout", "layout_in_turns", "Layout", "Box", "to_svg", "render_svg", "to_png", "to_dot",
           "to_dict", "to_json", "layout_to_dict"]

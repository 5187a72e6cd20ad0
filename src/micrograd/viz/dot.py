"""Graphviz DOT text, for those who have Graphviz (``dot -Tsvg graph.dot``)."""

from __future__ import annotations

from ..graph import fmt, nodes_and_edges
from .layout import record_cells

_RECORD_SPECIAL = set('{}|<>"\\')


def _rec(s):
    """Escape a record field: the record syntax characters and quotes get a backslash
    (inside a DOT string ``\\"`` is a quote and ``\\\\`` a backslash)."""
    s = "".join(ch if ch.isprintable() else "?" for ch in s)
    return "".join("\\" + ch if ch in _RECORD_SPECIAL else ch for ch in s)


def _quote(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_dot(root, rankdir="LR", show_grad=True):
    """DOT text of the graph of ``root``: a record per value, an ellipse per op.

    The ids match ``nodes_and_edges``: value ``n3`` is DOT node ``n3``, its op node ``n3_op``.
    A reused input (``a*a``) is two DOT edges.
    """
    if rankdir not in ("LR", "TB"):
        raise ValueError(f"rankdir must be 'LR' or 'TB', got {rankdir!r}")
    nodes, edges = nodes_and_edges(root)
    lines = ["digraph micrograd {", f"  rankdir={rankdir};",
             '  node [fontname="monospace", fontsize=10];']
    for nd in nodes:
        cells = " | ".join(_rec(c) for c in record_cells(nd, show_grad))
        label = "{ " + cells + " }" if rankdir == "LR" else cells
        lines.append(f'  {nd.id} [shape=record, label="{label}"];')  # already escaped
        if not nd.leaf:
            lines.append(f"  {nd.id}_op [shape=ellipse, label={_quote(nd.op)}];")
            lines.append(f"  {nd.id}_op -> {nd.id};")
    for e in edges:
        lines.append(f"  {e.src} -> {e.dst}_op [tooltip={_quote(f'input {e.index}, local derivative {fmt(e.local)}')}];")  # noqa: E501
    lines.append("}")
    return "\n".join(lines) + "\n"

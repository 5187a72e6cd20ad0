"""A layered (Sugiyama-style) layout of a traced graph, computed in pure Python.

The drawing has two kinds of boxes, as in the lecture's Graphviz pictures: a *record*
for every value (``label | data 2.0000 | grad 6.0000``) and a small *op* node
(``+``, ``*``, ``tanh``) that feeds the record of the value it made. The steps:

1. ranks: a leaf's record at rank 0, an op one rank after the last of its inputs, a
   record one rank after its op; then every value (leaf or op) is pulled right, next to
   its first consumer, so constants and the terms of a long sum do not trail long edges
   from the far left;
2. long edges get a chain of invisible "dummy" points, one per rank they cross (within a
   budget; beyond it an edge is drawn straight);
3. order within each rank: a few down/up sweeps that sort by the barycenter of the
   neighbours in the previous rank, keeping the order with the fewest crossings
   (crossings are counted exactly, by inversions, in O(E log E));
4. coordinates: every rank is a column (rows for ``rankdir='TB'``); inside a column each
   box is pulled towards the mean of its neighbours by isotonic regression (pool
   adjacent violators), which keeps the order and the minimum gaps, so boxes never overlap.

Everything is deterministic: the same graph gives the same layout every run.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .graph import Edge, Node, fmt, trace

FONT_SIZE = 12.0  # px, monospace
CHAR_W = 0.6 * FONT_SIZE  # advance of a monospace glyph (DejaVu Sans Mono: 0.602 em)
CELL_PAD = 6.0  # px either side of a record cell's text
RECORD_H = 26.0
OP_H = 24.0
OP_MIN_W = 30.0
RANK_GAP = 34.0  # px between two columns (LR) or rows (TB)
NODE_GAP = 12.0  # px between two boxes of one column
DUMMY_EXT = 2.0
DUMMY_GAP = 6.0
MARGIN = 10.0
MAX_LABEL = 32  # characters of a label shown before it is cut with an ellipsis
SWEEPS = 8
PLACE_PASSES = 6
DUMMY_BUDGET = 20000


def fmt4(x):
    """The lecture's ``%.4f``, switching to ``%.4e`` for very large or tiny numbers."""
    x = float(x)
    if x != x:
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0.0 or 1e-4 <= abs(x) < 1e7:
        return f"{x:.4f}"
    return f"{x:.4e}"


def short_label(label):
    label = "".join(ch if ch.isprintable() else "?" for ch in label)
    return label if len(label) <= MAX_LABEL else label[:MAX_LABEL - 1] + "\u2026"


def record_cells(node, show_grad=True):
    """The texts of a value's record: ``[label,] 'data 2.0000'[, 'grad 6.0000']``."""
    cells = [short_label(node.label)] if node.label else []
    cells.append(f"data {fmt4(node.data)}")
    if show_grad:
        cells.append(f"grad {fmt4(node.grad)}")
    return cells


def text_width(text):
    return len(text) * CHAR_W


@dataclass
class Box:
    """An axis-aligned box, ``x, y`` its top-left corner."""

    x: float
    y: float
    w: float
    h: float

    @property
    def cx(self):
        return self.x + self.w / 2

    @property
    def cy(self):
        return self.y + self.h / 2

    def overlaps(self, other):
        return (self.x < other.x + other.w and other.x < self.x + self.w
                and self.y < other.y + other.h and other.y < self.y + self.h)

    def to_dict(self):
        return {"x": round(self.x, 2), "y": round(self.y, 2), "w": round(self.w, 2),
                "h": round(self.h, 2)}


@dataclass
class NodeLayout:
    node: Node
    box: Box
    cells: list
    cell_widths: list
    op_box: Box | None = None
    op_edge: list = field(default_factory=list)  # op node -> record, two points


@dataclass
class EdgeLayout:
    edge: Edge
    points: list  # polyline from the input's record to the consumer's op node


@dataclass
class Layout:
    nodes: list
    edges: list
    width: float
    height: float
    rankdir: str
    show_grad: bool
    crossings: int = 0

    @property
    def root(self):
        return self.nodes[-1].node.id if self.nodes else None

    def boxes(self):
        """Every drawn box (records and op nodes)."""
        out = []
        for n in self.nodes:
            out.append(n.box)
            if n.op_box is not None:
                out.append(n.op_box)
        return out


# ---------------------------------------------------------------------------------------


def _count_inversions(seq):
    """Pairs i < j with seq[i] > seq[j] (Fenwick tree over ranks of the values)."""
    if len(seq) < 2:
        return 0
    ranks = {v: i + 1 for i, v in enumerate(sorted(set(seq)))}
    size = len(ranks)
    tree = [0] * (size + 1)
    inv = 0
    seen = 0
    for v in seq:
        r = ranks[v]
        # count earlier elements greater than v = seen - (earlier <= v)
        s, i = 0, r
        while i > 0:
            s += tree[i]
            i -= i & -i
        inv += seen - s
        i = r
        while i <= size:
            tree[i] += 1
            i += i & -i
        seen += 1
    return inv


def _isotonic_place(desired, seps):
    """Positions y (in order) closest to ``desired`` (least squares) with
    ``y[i+1] - y[i] >= seps[i]``: pool adjacent violators on the shifted targets."""
    n = len(desired)
    offs = [0.0] * n
    for i in range(1, n):
        offs[i] = offs[i - 1] + seps[i - 1]
    blocks = []  # [sum, count]
    for i in range(n):
        blocks.append([desired[i] - offs[i], 1])
        while len(blocks) > 1 and blocks[-2][0] / blocks[-2][1] > blocks[-1][0] / blocks[-1][1]:
            s, c = blocks.pop()
            blocks[-1][0] += s
            blocks[-1][1] += c
    out = []
    for s, c in blocks:
        out.extend([s / c] * c)
    return [out[i] + offs[i] for i in range(n)]


def layout(root, rankdir="LR", show_grad=True):
    """Lay out the graph of ``root`` (a ``Value``, or a ``(nodes, edges)`` trace).

    ``rankdir``: ``'LR'`` (left to right, the lecture's) or ``'TB'`` (top to bottom).
    ``show_grad``: include the ``grad`` cell in every record.
    Returns a :class:`Layout` with a box per record and op node and a polyline per edge.
    """
    if rankdir not in ("LR", "TB"):
        raise ValueError(f"rankdir must be 'LR' or 'TB', got {rankdir!r}")
    nodes, edges = root if isinstance(root, tuple) else trace(root)
    lr = rankdir == "LR"
    n = len(nodes)
    index = {nd.id: i for i, nd in enumerate(nodes)}

    # ---- vertices: records 0..n-1, op nodes, then dummies --------------------------
    kind, owner, ext_w, ext_h = [], [], [], []
    cells_of, widths_of = [], []
    for nd in nodes:
        cells = record_cells(nd, show_grad)
        widths = [text_width(c) + 2 * CELL_PAD for c in cells]
        cells_of.append(cells)
        widths_of.append(widths)
        kind.append("rec")
        owner.append(index[nd.id])
        ext_w.append(sum(widths))
        ext_h.append(RECORD_H)
    op_of = {}
    for i, nd in enumerate(nodes):
        if not nd.leaf:
            op_of[i] = len(kind)
            kind.append("op")
            owner.append(i)
            ext_w.append(max(OP_MIN_W, text_width(short_label(nd.op)) + 16.0))
            ext_h.append(OP_H)

    # ---- ranks ---------------------------------------------------------------------
    rank = [0] * len(kind)
    for i, nd in enumerate(nodes):  # forward order: inputs already ranked
        if not nd.leaf:
            r = max(rank[index[p]] for p in nd.inputs) + 1
            rank[op_of[i]] = r
            rank[i] = r + 1
    consumers = [[] for _ in range(n)]
    for e in edges:
        consumers[index[e.src]].append(index[e.dst])
    # then every value is pulled right, next to its first consumer (users before inputs,
    # so a pulled node makes room for its own inputs): a term added at the end of a long
    # sum sits beside that addition instead of trailing an edge across the whole drawing
    for i in range(n - 1, -1, -1):
        if consumers[i]:
            r = min(rank[op_of[u]] for u in consumers[i]) - 1
            if r > rank[i]:
                rank[i] = r
                if i in op_of:
                    rank[op_of[i]] = r - 1

    # ---- chains: every drawn edge as a list of vertices, dummies in between --------
    spans = sorted(range(len(edges)),
                   key=lambda k: (rank[op_of[index[edges[k].dst]]] - rank[index[edges[k].src]], k))
    budget = DUMMY_BUDGET
    chains = [None] * len(edges)
    for k in spans:
        e = edges[k]
        s, t = index[e.src], op_of[index[e.dst]]
        need = rank[t] - rank[s] - 1
        chain = [s]
        if need <= budget:
            budget -= need
            for r in range(rank[s] + 1, rank[t]):
                v = len(kind)
                kind.append("dummy")
                owner.append(s)
                ext_w.append(DUMMY_EXT)
                ext_h.append(DUMMY_EXT)
                rank.append(r)
                chain.append(v)
        chain.append(t)
        chains[k] = chain
    op_chains = [[op_of[i], i] for i in range(n) if i in op_of]

    nv = len(kind)
    preds = [[] for _ in range(nv)]
    succs = [[] for _ in range(nv)]
    for chain in chains + op_chains:
        for u, v in zip(chain, chain[1:]):
            if rank[v] == rank[u] + 1:
                succs[u].append(v)
                preds[v].append(u)

    # ---- order within ranks ----------------------------------------------------------
    nranks = max(rank) + 1 if rank else 0
    layers = [[] for _ in range(nranks)]
    for v in range(nv):  # records in forward order, then op nodes, then dummies
        layers[rank[v]].append(v)
    # initial order: by the forward index of the node the vertex belongs to
    for layer in layers:
        layer.sort(key=lambda v: (owner[v], v))
    pos = [0] * nv

    def set_pos():
        for layer in layers:
            for i, v in enumerate(layer):
                pos[v] = i

    def crossings():
        total = 0
        for layer in layers[:-1]:
            pairs = sorted((pos[u], pos[w]) for u in layer for w in succs[u])
            total += _count_inversions([p[1] for p in pairs])
        return total

    set_pos()
    best = crossings()
    best_layers = [list(layer) for layer in layers]
    for sweep in range(SWEEPS):
        if best == 0:
            break
        down = sweep % 2 == 0
        rng = range(1, nranks) if down else range(nranks - 2, -1, -1)
        for r in rng:
            nb = preds if down else succs

            def key(v, nb=nb):
                ns = nb[v]
                if not ns:
                    return (pos[v], pos[v])
                return (sum(pos[u] for u in ns) / len(ns), pos[v])

            layers[r].sort(key=key)
            for i, v in enumerate(layers[r]):
                pos[v] = i
        c = crossings()
        if c < best:
            best = c
            best_layers = [list(layer) for layer in layers]
    layers = best_layers
    set_pos()

    # ---- coordinates -------------------------------------------------------------------
    along = ext_h if lr else ext_w  # extent along the order axis
    across = ext_w if lr else ext_h  # extent along the rank axis
    center = [0.0] * nv

    def seps_of(layer):
        out = []
        for u, v in zip(layer, layer[1:]):
            gap = NODE_GAP if kind[u] != "dummy" and kind[v] != "dummy" else DUMMY_GAP
            out.append((along[u] + along[v]) / 2 + gap)
        return out

    for layer in layers:
        c = 0.0
        for i, v in enumerate(layer):
            if i:
                u = layer[i - 1]
                gap = NODE_GAP if kind[u] != "dummy" and kind[v] != "dummy" else DUMMY_GAP
                c += (along[u] + along[v]) / 2 + gap
            center[v] = c
    # centre every layer on 0 before refining, so that short layers start in the middle
    for layer in layers:
        if layer:
            mid = (center[layer[0]] + center[layer[-1]]) / 2
            for v in layer:
                center[v] -= mid
    for p in range(PLACE_PASSES):
        down = p % 2 == 0
        rng = range(1, nranks) if down else range(nranks - 2, -1, -1)
        nb = preds if down else succs
        for r in rng:
            layer = layers[r]
            if not layer:
                continue
            desired = [sum(center[u] for u in nb[v]) / len(nb[v]) if nb[v] else center[v]
                       for v in layer]
            for v, c in zip(layer, _isotonic_place(desired, seps_of(layer))):
                center[v] = c
    lo = min((center[v] - along[v] / 2 for v in range(nv)), default=0.0)
    for v in range(nv):
        center[v] += MARGIN - lo
    extent_along = max((center[v] + along[v] / 2 for v in range(nv)), default=0.0) + MARGIN

    rank_size = [0.0] * nranks
    for v in range(nv):
        rank_size[rank[v]] = max(rank_size[rank[v]], across[v])
    rank_start = [0.0] * nranks
    acc = MARGIN
    for r in range(nranks):
        rank_start[r] = acc
        acc += rank_size[r] + RANK_GAP
    extent_across = acc - RANK_GAP + MARGIN if nranks else 2 * MARGIN

    def box(v):
        ca = rank_start[rank[v]] + rank_size[rank[v]] / 2
        if lr:
            return Box(ca - ext_w[v] / 2, center[v] - ext_h[v] / 2, ext_w[v], ext_h[v])
        return Box(center[v] - ext_w[v] / 2, ca - ext_h[v] / 2, ext_w[v], ext_h[v])

    boxes = [box(v) for v in range(nv)]

    def exit_pt(b):
        return (b.x + b.w, b.cy) if lr else (b.cx, b.y + b.h)

    def entry_pt(b, i=0, k=1):
        off = (i - (k - 1) / 2) * ((b.h if lr else b.w) / (k + 1)) if k > 1 else 0.0
        return (b.x, b.cy + off) if lr else (b.cx + off, b.y)

    out_nodes = []
    for i, nd in enumerate(nodes):
        nl = NodeLayout(nd, boxes[i], cells_of[i], widths_of[i])
        if i in op_of:
            ob = boxes[op_of[i]]
            nl.op_box = ob
            nl.op_edge = [_rp(exit_pt(ob)), _rp(entry_pt(boxes[i]))]
        out_nodes.append(nl)
    out_edges = []
    for e, chain in zip(edges, chains):
        dst = nodes[index[e.dst]]
        pts = [exit_pt(boxes[chain[0]])]
        pts += [(boxes[v].cx, boxes[v].cy) for v in chain[1:-1]]
        pts.append(entry_pt(boxes[chain[-1]], e.index, len(dst.inputs)))
        out_edges.append(EdgeLayout(e, [_rp(p) for p in pts]))
    width, height = (extent_across, extent_along) if lr else (extent_along, extent_across)
    return Layout(out_nodes, out_edges, round(width, 2), round(height, 2), rankdir,
                  show_grad, crossings=best)


def _rp(p):
    return (round(p[0], 2), round(p[1], 2))


__all__ = ["layout", "Layout", "NodeLayout", "EdgeLayout", "Box", "record_cells", "fmt4",
           "fmt"]

"""A layered (Sugiyama-style) layout of a traced graph, computed in pure Python.

The drawing has two kinds of boxes, as in the lecture's Graphviz pictures: a *record*
for every value (``label | data 2.0000 | grad 6.0000``) and a small *op* node
(``+``, ``*``, ``tanh``) that feeds the record of the value it made. The steps:

1. ranks: a leaf's record at rank 0, an op one rank after the last of its inputs, a
   record one rank after its op; then every value (leaf or op) is pulled right, next to
   its first consumer, so constants and the terms of a long sum do not trail long edges
   from the far left; with ``stagger``, of the leaves beside one another before an op,
   every other one (counted from the last) moves one rank earlier;
2. long edges get a chain of invisible "dummy" points, one per rank they cross (within a
   budget; beyond it an edge is drawn straight);
3. order within each rank: a few down/up sweeps that sort by the barycenter of the
   neighbours in the previous rank, keeping the order with the fewest crossings
   (crossings are counted exactly, by inversions, in O(E log E));
4. coordinates: every rank is a column (rows for ``rankdir='TB'``); inside a column each
   box is pulled towards the mean of its neighbours by isotonic regression (pool
   adjacent violators), which keeps the order and the minimum gaps, so boxes never overlap.

``stack=True`` stacks a record's cells one above another (label, data, grad) instead of
side by side: a record a third as wide, for a narrow screen (the Walk on a phone draws
top to bottom with stacked records). ``stagger=True`` spreads the leaves that feed one op
over two ranks (step 1, last), so a row of four leaves (the tanh neuron's x1, w1, x2, w2)
becomes two rows of two: half as wide, one rank longer.

Everything is deterministic: the same graph gives the same layout every run.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..graph import Edge, Node, fmt, fmt4, nodes_and_edges

FONT_SIZE = 12.0  # px, monospace
CHAR_W = 0.6 * FONT_SIZE  # advance of a monospace glyph (DejaVu Sans Mono: 0.602 em)
CELL_PAD = 6.0  # px either side of a record cell's text
RECORD_H = 26.0
ROW_H = 18.0  # px, one cell of a stacked record
OP_H = 24.0
OP_MIN_W = 30.0
RANK_GAP = 34.0  # px between two columns (LR) or rows (TB)
STACK_RANK_GAP = 22.0  # the same, between the ranks of stacked records (narrow screens)
NODE_GAP = 12.0  # px between two boxes of one column
DUMMY_EXT = 2.0
DUMMY_GAP = 6.0
MARGIN = 10.0
MAX_LABEL = 32  # characters of a label shown before it is cut with an ellipsis
SWEEPS = 8
PLACE_PASSES = 6
DUMMY_BUDGET = 20000




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
    stack: bool = False
    stagger: bool = False

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


def layout(root, rankdir="LR", show_grad=True, stack=False, stagger=False):
    """Lay out the graph of ``root`` (a ``Value``, or its ``nodes_and_edges``).

    ``rankdir``: ``'LR'`` (left to right, the lecture's) or ``'TB'`` (top to bottom).
    ``show_grad``: include the ``grad`` cell in every record.
    ``stack``: a record's cells one above another (each ``ROW_H`` high, as wide as the
    widest) instead of side by side.
    ``stagger``: the leaves that feed one op from the rank before it alternate between
    that rank and the one before (a narrow screen's: a wide row of leaves halved).
    Returns a :class:`Layout` with a box per record and op node and a polyline per edge.
    """
    job = layout_in_turns(root, rankdir, show_grad, stack, stagger)
    while True:
        try:
            next(job)
        except StopIteration as stop:
            return stop.value


def layout_in_turns(root, rankdir="LR", show_grad=True, stack=False, stagger=False):
    """``layout`` as a job: a generator that yields after the ranks and chains and after
    every sweep of the ordering and of the placement (a server runs other work in
    between), and returns the Layout."""
    if rankdir not in ("LR", "TB"):
        raise ValueError(f"rankdir must be 'LR' or 'TB', got {rankdir!r}")
    nodes, edges = root if isinstance(root, tuple) else nodes_and_edges(root)
    lr = rankdir == "LR"
    g = _Vertices(nodes, show_grad, stack)
    _rank(g, edges)                                        # step 1
    if stagger:
        _stagger(g)
    chains = _chains(g, edges)                             # step 2
    yield
    layers, crossings = yield from _order(g, chains)       # step 3
    gap = STACK_RANK_GAP if stack else RANK_GAP
    boxes, width, height = yield from _coordinates(g, layers, lr, gap)  # step 4
    lay = _assemble(g, edges, chains, boxes, width, height, rankdir, show_grad, crossings)
    lay.stack = bool(stack)
    lay.stagger = bool(stagger)
    return lay


class _Vertices:
    """The vertices of the layered drawing: records ``0..n-1`` (one per value, in forward
    order), then op nodes, then the dummies of long edges. Per vertex: its ``kind``
    (``"rec"``, ``"op"``, ``"dummy"``), its ``owner`` (the index of the value it belongs
    to), its extent ``w`` x ``h`` and its ``rank``; ``preds`` / ``succs``: its
    neighbours one rank before / after (filled by ``_chains``)."""

    def __init__(self, nodes, show_grad, stack=False):
        self.nodes = nodes
        self.index = {nd.id: i for i, nd in enumerate(nodes)}
        self.kind, self.owner, self.w, self.h, self.rank = [], [], [], [], []
        self.cells = [record_cells(nd, show_grad) for nd in nodes]
        self.cell_widths = [[text_width(c) + 2 * CELL_PAD for c in cells]
                            for cells in self.cells]
        for i, widths in enumerate(self.cell_widths):
            if stack:
                self.add("rec", i, max(widths), ROW_H * len(widths))
            else:
                self.add("rec", i, sum(widths), RECORD_H)
        self.op_of = {}  # the index of a value -> its op node's vertex
        for i, nd in enumerate(nodes):
            if not nd.leaf:
                width = max(OP_MIN_W, text_width(short_label(nd.op)) + 16.0)
                self.op_of[i] = self.add("op", i, width, OP_H)
        self.preds, self.succs = [], []

    def add(self, kind, owner, w, h, rank=0):
        self.kind.append(kind)
        self.owner.append(owner)
        self.w.append(w)
        self.h.append(h)
        self.rank.append(rank)
        return len(self.kind) - 1

    def __len__(self):
        return len(self.kind)


def _rank(g, edges):
    """Step 1: a leaf at rank 0, an op one rank after its last input (at rank 0 when none
    is drawn), a record one after its op; then every value pulled right, next to its
    first consumer."""
    rank, op_of, index = g.rank, g.op_of, g.index
    for i, nd in enumerate(g.nodes):  # forward order: inputs already ranked
        if not nd.leaf:
            # (an op whose inputs are not drawn, in a part of a graph: at rank 0)
            r = max((rank[index[p]] for p in nd.inputs), default=-1) + 1
            rank[op_of[i]] = r
            rank[i] = r + 1
    n = len(g.nodes)
    consumers = [[] for _ in range(n)]
    for e in edges:
        consumers[index[e.src]].append(index[e.dst])
    # users before inputs, so a pulled node makes room for its own inputs: a term added
    # at the end of a long sum sits beside that addition instead of trailing an edge
    # across the whole drawing
    for i in range(n - 1, -1, -1):
        if consumers[i]:
            r = min(rank[op_of[u]] for u in consumers[i]) - 1
            if r > rank[i]:
                rank[i] = r
                if i in op_of:
                    rank[op_of[i]] = r - 1


def _stagger(g):
    """Step 1, last (``stagger``): of the leaves that sit beside one another in the rank
    just before an op they feed, every other one counted from the last moves one rank
    earlier (the first of two, the first and third of four...), and the whole drawing
    moves down a rank if one goes before rank 0. The edge of a moved leaf crosses the
    rank it left with a dummy point: a row of leaves is halved, at the cost of a rank."""
    rank, index, op_of = g.rank, g.index, g.op_of
    for i, nd in enumerate(g.nodes):
        if nd.leaf:
            continue
        before = rank[op_of[i]] - 1
        beside = list(dict.fromkeys(  # a leaf used twice (a * a) counts once
            index[p] for p in nd.inputs
            if g.nodes[index[p]].leaf and rank[index[p]] == before))
        for j in beside[-2::-2]:
            rank[j] = before - 1
    if min(rank, default=0) < 0:
        for v in range(len(rank)):
            rank[v] += 1


def _chains(g, edges):
    """Step 2: every drawn edge as a chain of vertices, one dummy per rank it crosses
    (shortest edges first, within ``DUMMY_BUDGET`` dummies; beyond it an edge is drawn
    straight). Fills ``g.preds`` and ``g.succs``; returns the chains, one per edge."""
    rank, index = g.rank, g.index
    spans = sorted(range(len(edges)),
                   key=lambda k: (rank[g.op_of[index[edges[k].dst]]]
                                  - rank[index[edges[k].src]], k))
    budget = DUMMY_BUDGET
    chains = [None] * len(edges)
    for k in spans:
        e = edges[k]
        s, t = index[e.src], g.op_of[index[e.dst]]
        need = rank[t] - rank[s] - 1
        chain = [s]
        if need <= budget:
            budget -= need
            chain += [g.add("dummy", s, DUMMY_EXT, DUMMY_EXT, r)
                      for r in range(rank[s] + 1, rank[t])]
        chain.append(t)
        chains[k] = chain
    op_chains = [[g.op_of[i], i] for i in range(len(g.nodes)) if i in g.op_of]
    g.preds = [[] for _ in range(len(g))]
    g.succs = [[] for _ in range(len(g))]
    for chain in chains + op_chains:
        for u, v in zip(chain, chain[1:]):
            if rank[v] == rank[u] + 1:
                g.succs[u].append(v)
                g.preds[v].append(u)
    return chains


def _order(g, chains):
    """Step 3: the order within each rank. Start from the forward order of the values;
    sweep down and up sorting by the barycentre of the neighbours in the previous rank;
    keep the order with the fewest crossings. Returns ``(layers, crossings)`` (a
    generator: it yields after every sweep)."""
    rank, nv = g.rank, len(g)
    nranks = max(rank) + 1 if rank else 0
    layers = [[] for _ in range(nranks)]
    for v in range(nv):  # records in forward order, then op nodes, then dummies
        layers[rank[v]].append(v)
    for layer in layers:  # by the forward index of the value the vertex belongs to
        layer.sort(key=lambda v: (g.owner[v], v))
    pos = [0] * nv

    def set_pos(layers):
        for layer in layers:
            for i, v in enumerate(layer):
                pos[v] = i

    def crossings():
        total = 0
        for layer in layers[:-1]:
            pairs = sorted((pos[u], pos[w]) for u in layer for w in g.succs[u])
            total += _count_inversions([p[1] for p in pairs])
        return total

    def barycentre(v, nb):
        ns = nb[v]
        if not ns:
            return (pos[v], pos[v])
        return (sum(pos[u] for u in ns) / len(ns), pos[v])

    set_pos(layers)
    best = crossings()
    best_layers = [list(layer) for layer in layers]
    for sweep in range(SWEEPS):
        if best == 0:
            break
        down = sweep % 2 == 0
        nb = g.preds if down else g.succs
        for r in range(1, nranks) if down else range(nranks - 2, -1, -1):
            layers[r].sort(key=lambda v: barycentre(v, nb))
            set_pos([layers[r]])
        c = crossings()
        if c < best:
            best = c
            best_layers = [list(layer) for layer in layers]
        yield
    return best_layers, best


def _coordinates(g, layers, lr, rank_gap=RANK_GAP):
    """Step 4: a box per vertex. Ranks are columns (``lr``) or rows, as wide as their
    widest box; inside one, each box is pulled towards the mean of its neighbours by
    isotonic regression, which keeps the order and the gaps. Returns ``(boxes, width,
    height)`` (a generator: it yields after every pass)."""
    nv, rank, kind = len(g), g.rank, g.kind
    nranks = len(layers)
    along = g.h if lr else g.w  # extent along the order axis
    across = g.w if lr else g.h  # extent along the rank axis

    def seps_of(layer):
        out = []
        for u, v in zip(layer, layer[1:]):
            gap = NODE_GAP if kind[u] != "dummy" and kind[v] != "dummy" else DUMMY_GAP
            out.append((along[u] + along[v]) / 2 + gap)
        return out

    center = [0.0] * nv
    for layer in layers:  # packed, then centred on 0, so short layers start in the middle
        c = 0.0
        for v, sep in zip(layer, [0.0] + seps_of(layer)):
            c += sep
            center[v] = c
        if layer:
            mid = (center[layer[0]] + center[layer[-1]]) / 2
            for v in layer:
                center[v] -= mid
    for p in range(PLACE_PASSES):
        down = p % 2 == 0
        nb = g.preds if down else g.succs
        for r in range(1, nranks) if down else range(nranks - 2, -1, -1):
            layer = layers[r]
            desired = [sum(center[u] for u in nb[v]) / len(nb[v]) if nb[v] else center[v]
                       for v in layer]
            for v, c in zip(layer, _isotonic_place(desired, seps_of(layer))):
                center[v] = c
        yield
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
        acc += rank_size[r] + rank_gap
    extent_across = acc - rank_gap + MARGIN if nranks else 2 * MARGIN

    boxes = []
    for v in range(nv):
        ca = rank_start[rank[v]] + rank_size[rank[v]] / 2
        w, h = g.w[v], g.h[v]
        boxes.append(Box(ca - w / 2, center[v] - h / 2, w, h) if lr
                     else Box(center[v] - w / 2, ca - h / 2, w, h))
    if lr:
        return boxes, extent_across, extent_along
    return boxes, extent_along, extent_across


def _assemble(g, edges, chains, boxes, width, height, rankdir, show_grad, crossings):
    """The ``Layout``: a record (and its op node) per value, a polyline per edge."""
    lr = rankdir == "LR"

    def exit_pt(b):
        return (b.x + b.w, b.cy) if lr else (b.cx, b.y + b.h)

    def entry_pt(b, i=0, k=1):
        off = (i - (k - 1) / 2) * ((b.h if lr else b.w) / (k + 1)) if k > 1 else 0.0
        return (b.x, b.cy + off) if lr else (b.cx + off, b.y)

    out_nodes = []
    for i, nd in enumerate(g.nodes):
        nl = NodeLayout(nd, boxes[i], g.cells[i], g.cell_widths[i])
        if i in g.op_of:
            ob = boxes[g.op_of[i]]
            nl.op_box = ob
            nl.op_edge = [_rp(exit_pt(ob)), _rp(entry_pt(boxes[i]))]
        out_nodes.append(nl)
    out_edges = []
    for e, chain in zip(edges, chains):
        dst = g.nodes[g.index[e.dst]]
        pts = [exit_pt(boxes[chain[0]])]
        pts += [(boxes[v].cx, boxes[v].cy) for v in chain[1:-1]]
        pts.append(entry_pt(boxes[chain[-1]], e.index, len(dst.inputs)))
        out_edges.append(EdgeLayout(e, [_rp(p) for p in pts]))
    return Layout(out_nodes, out_edges, round(width, 2), round(height, 2), rankdir,
                  show_grad, crossings=crossings)


def _rp(p):
    return (round(p[0], 2), round(p[1], 2))


__all__ = ["layout", "Layout", "NodeLayout", "EdgeLayout", "Box", "record_cells", "fmt4",
           "fmt"]

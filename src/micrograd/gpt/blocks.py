"""One position's graph of the GPT, built eagerly and folded into the model's blocks.

    >>> from micrograd.gpt.train import Run
    >>> run = Run.start(seed=42, steps=10)
    >>> pg = build(run.model, run.tokenizer.encode("emma"), 2)   # reads "m", predicts "m"
    >>> [b.name for b in pg.blocks][:4]
    ['embeddings', 'rmsnorm', 'layer0.attn.rmsnorm', 'layer0.attn.q']
    >>> pg.blocks[-1].name, len(pg.order) > 10_000
    ('loss', True)
    >>> view = folded(pg, cap=300)
    >>> len(view["boxes"]) <= 300
    True

:func:`build` feeds a name's tokens up to a position (the earlier positions under
``no_grad``: their keys and values, the cache, arrive as plain numbers), then that
position's token with ``GPT.forward(mark=...)``, takes the loss
``-log softmax(logits)[target]`` and calls ``backward()``: every node of the position's
graph has its data and its grad, as the engine computed them. It works on a copy of
the model's weights (new leaves, the same floats), so the model's own grads are never
touched.

Each node belongs to exactly one *group*: a block of the model (the nodes reachable
from the block's outputs that no earlier block holds, in the order ``GPT.forward``
marks them, then the loss) or an input from outside (the weights, a group per matrix;
the earlier positions' keys and values, a group per layer), which is summarized, never
drawn node by node. :func:`folded` is the graph as one box a group; :func:`unfolded` a
block's own nodes, or, when they are more than the cap, the block folded one level down
(a box per output, per neuron: each node that more than one node reads, or that the
block gives out, with the nodes that feed only it), and so on down a path of boxes, so
no answer holds more than ``cap`` boxes or nodes. Standard library only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..engine import no_grad, topological_order
from ..graph import Edge, Node, local_derivatives, num
from .model import GPT, softmax

__all__ = ["build", "folded", "unfolded", "Group", "PositionGraph", "BlockError",
           "positions", "LOSS", "SHOWN"]

#: the last block: the position's loss, -log softmax(logits)[target]
LOSS = "loss"
#: how many of a box's outputs are shown by their numbers (the rest by their norms)
SHOWN = 4


class BlockError(ValueError):
    """A position or a path of boxes that the graph does not have."""


@dataclass(eq=False)
class Group:
    """A block (``kind`` ``"block"``) or an input from outside (``"weights"``,
    ``"cache"``): its nodes in forward order and its outputs (an input's: its nodes)."""

    id: str
    name: str
    kind: str
    outputs: list
    nodes: list = field(default_factory=list)

    def __repr__(self):  # short: a group holds up to thousands of nodes
        return f"Group({self.id!r}, {self.name!r}, {self.kind}, {len(self.nodes)} nodes)"


@dataclass(eq=False)
class PositionGraph:
    """The graph of one position's loss, after ``backward()``, its nodes grouped."""

    tokens: list
    position: int
    loss: object
    order: list           # every node, inputs before users (the loss last)
    blocks: list          # Groups of kind "block", in the model's order, the loss last
    inputs: list          # Groups of the weights and the cache
    owner: dict           # node -> its Group
    index: dict           # node -> its place in ``order`` (its id: "n<index>")

    def __repr__(self):
        return (f"PositionGraph(position {self.position}, {len(self.order)} nodes, "
                f"{len(self.blocks)} blocks, {len(self.inputs)} inputs)")

    @property
    def groups(self):
        return self.blocks + self.inputs

    def group(self, gid):
        for g in self.groups:
            if g.id == gid:
                return g
        raise BlockError(f"no block {gid!r}; the blocks: "
                         + ", ".join(b.id for b in self.blocks))


def positions(tokens, block_size):
    """How many positions a name's ``tokens`` (BOS, letters, BOS) give: one a token
    whose next token is predicted, at most ``block_size``."""
    return min(block_size, len(tokens) - 1)


def build(model, tokens, position):
    """The graph of position ``position``'s loss for ``tokens`` (``[BOS] + letters +
    [BOS]``), on a copy of ``model``'s weights, after ``backward()``."""
    n = positions(tokens, model.config.block_size)
    if not (isinstance(position, int) and 0 <= position < n):
        raise BlockError(f"position {position!r} is outside 0..{n - 1}: the name gives "
                         f"{n} position{'s' if n != 1 else ''}")
    copy = GPT(model.config, weights=model.weights())
    keys, values = copy.empty_cache()
    with no_grad():  # the earlier positions: their keys and values as plain numbers
        for pos in range(position):
            copy.gpt(tokens[pos], pos, keys, values)
    inputs = _input_groups(copy, keys, values)
    marks = []
    logits = copy.forward(copy.state_dict["wte"][tokens[position]], position, keys,
                          values, mark=lambda block, outs: marks.append((block, list(outs))))
    loss = -softmax(logits)[tokens[position + 1]].log()
    marks.append((LOSS, [loss]))
    loss.backward()
    order = topological_order(loss)
    blocks, owner = assign(order, marks, inputs)
    return PositionGraph(tokens=list(tokens), position=position, loss=loss, order=order,
                         blocks=blocks, inputs=[g for g in inputs if g.nodes], owner=owner,
                         index={v: i for i, v in enumerate(order)})


def _input_groups(model, keys, values):
    """A group per weight matrix and per layer's cache (their nodes filled by assign)."""
    groups = [Group(f"w:{name}", name, "weights", [p for row in mat for p in row])
              for name, mat in model.state_dict.items()]
    for li, (ks, vs) in enumerate(zip(keys, values)):
        cached = [x for pos in range(len(ks)) for x in ks[pos] + vs[pos]]
        groups.append(Group(f"c:{li}", f"layer{li} cache", "cache", cached))
    return groups


def assign(order, marks, inputs):
    """``(blocks, owner)``: each node of ``order`` given to one group: an input's when
    it is one, else the first marked block that reaches it (a block's search stops at
    nodes held already). Refuses a graph with a node left over."""
    owner = {}
    members = {}
    for g in inputs:
        for v in g.outputs:
            members[v] = g
    for v in order:
        if v in members:
            owner[v] = members[v]
    blocks = []
    for i, (name, outs) in enumerate(marks):
        block = Group(f"b{i}", name, "block", outs)
        _claim(block, owner)
        blocks.append(block)
    for g in blocks + list(inputs):
        g.nodes = []
    for v in order:  # each group's nodes in forward order
        if v in owner:
            owner[v].nodes.append(v)
    left = [v for v in order if v not in owner]
    if left:
        raise BlockError(f"{len(left)} nodes of the graph are in no block")
    return blocks, owner


def _claim(block, owner):
    """Give ``block`` every node its outputs reach that no group holds yet."""
    stack = [v for v in block.outputs if v not in owner]
    for v in stack:
        owner[v] = block
    while stack:
        v = stack.pop()
        block.nodes.append(v)
        for p in v._prev:
            if p not in owner:
                owner[p] = block
                stack.append(p)


# ---------------------------------------------------------------------------------------
# boxes: a group (or a part of one) as one box, and the edges between boxes
# ---------------------------------------------------------------------------------------

def _norm(xs):
    total = math.fsum(x * x for x in xs)
    return math.sqrt(total) if math.isfinite(total) else total


def summary(outputs):
    """What a box shows of its outputs: the first ``SHOWN`` of their data and grads,
    and the norms of all of them (JSON-ready numbers)."""
    data = [v.data for v in outputs]
    grad = [v.grad for v in outputs]
    return {"outputs": len(outputs), "data": [num(x) for x in data[:SHOWN]],
            "grad": [num(x) for x in grad[:SHOWN]], "data_norm": num(_norm(data)),
            "grad_norm": num(_norm(grad))}


def _connect(boxes, where):
    """The edges between ``boxes`` (``[(box, nodes)]``, each box a dict with an ``id``)
    as ``[{src, dst, count}]`` (how many node edges), and each box's inputs from
    outside them in its ``inputs``: ``[{from, count}]`` (how many nodes of what holds
    them). ``where(node)``: ``(box id, None)`` inside, ``(None, name)`` outside."""
    count = {}
    for box, nodes in boxes:
        seen = {}
        for v in nodes:
            for p in v._prev:
                bid, name = where(p)
                if bid is None:
                    seen.setdefault(name, set()).add(p)
                elif bid != box["id"]:
                    count[(bid, box["id"])] = count.get((bid, box["id"]), 0) + 1
        box["inputs"] = [{"from": name, "count": len(ps)} for name, ps in seen.items()]
    return [{"src": s, "dst": d, "count": c} for (s, d), c in count.items()]


def _ranks(boxes, edges):
    """Each box's ``rank``: the longest path of edges that reaches it (sources 0)."""
    rank = {b["id"]: 0 for b in boxes}
    for _ in range(len(boxes)):  # a DAG: at most as many sweeps as boxes
        changed = False
        for e in edges:
            if rank[e["dst"]] < rank[e["src"]] + 1:
                rank[e["dst"]] = rank[e["src"]] + 1
                changed = True
        if not changed:
            break
    for b in boxes:
        b["rank"] = rank[b["id"]]


def _box(bid, name, kind, nodes, outputs, opens):
    return {"id": bid, "name": name, "kind": kind, "nodes": len(nodes), "opens": opens,
            **summary(outputs)}


def folded(pg, cap):
    """The position's graph as one box a group (``boxes``: the blocks, then the inputs
    from outside), the ``edges`` between them, each box's ``rank`` and ``inputs``;
    never more than ``cap`` boxes."""
    groups = pg.groups
    if len(groups) > cap:
        raise BlockError(f"{len(groups)} blocks and inputs, over the cap of {cap}")
    boxes = [(_box(g.id, g.name, g.kind, g.nodes,
                   g.outputs if g.kind == "block" else g.nodes, g.kind == "block"), g.nodes)
             for g in groups]
    edges = _connect(boxes, lambda v: (pg.owner[v].id, None))
    _ranks([b for b, _ in boxes], edges)
    rank = {b["id"]: b["rank"] for b, _ in boxes}
    for b, _ in boxes:  # an input drawn a rank before the first block it feeds
        if b["kind"] != "block":
            b["rank"] = max(0, min(rank[e["dst"]] for e in edges if e["src"] == b["id"]) - 1)
    return {"boxes": [b for b, _ in boxes], "edges": edges, "nodes": len(pg.order)}


# ---------------------------------------------------------------------------------------
# a block unfolded: its nodes, or (over the cap) its parts, a level at a time
# ---------------------------------------------------------------------------------------

def parts(nodes, outputs, cap):
    """``nodes`` (forward order) split into at most ``cap`` parts, each a list of nodes
    in forward order, its *anchor* last. An anchor is a node that more than one node of
    ``nodes`` reads, or none (what the group gives out), or one of ``outputs``; every
    other node (read by exactly one) joins its reader's part: a part is an output, or a
    neuron (a row's sum and what feeds only it). Where that makes one part, the nodes
    are cut in runs of ``cap``; where more than ``cap``, neighbouring parts are
    joined."""
    inside = set(nodes)
    readers = dict.fromkeys(nodes, 0)
    for v in nodes:
        for p in v._prev:
            if p in inside:
                readers[p] += 1
    outs = set(outputs)
    part_of, split = {}, []
    for v in reversed(nodes):  # a node's readers before it
        if v not in part_of:  # an anchor
            part_of[v] = len(split)
            split.append([])
        split[part_of[v]].append(v)
        for p in v._prev:
            if p in inside and p not in part_of and readers[p] == 1 and p not in outs:
                part_of[p] = part_of[v]
    place = {v: i for i, v in enumerate(nodes)}
    split = sorted((sorted(s, key=place.get) for s in split), key=lambda s: place[s[-1]])
    if len(split) == 1:
        split = [nodes[i:i + cap] for i in range(0, len(nodes), cap)]
    if len(split) > cap:
        per = -(-len(split) // cap)
        split = [sorted((v for s in split[i:i + per] for v in s), key=place.get)
                 for i in range(0, len(split), per)]
    return split


def _short(block):
    """How a block's output is named in a drawing: ``q[3]``, ``head0[1]``, ``logit[5]``."""
    tail = block.name.rsplit(".", 1)[-1]
    return {"lm_head": "logit", "rmsnorm": "norm"}.get(tail, tail)


def _labels(pg, block):
    """``{node: label}``: the block's outputs by name (``q[3]``; the loss: ``loss``)."""
    if block.name == LOSS:
        return {block.outputs[0]: "loss"}
    short = _short(block)
    return {v: f"{short}[{i}]" for i, v in enumerate(block.outputs)}


def _where(pg, block, inside):
    """``where`` for :func:`_connect` inside ``block``: a node of this view's boxes, or
    outside them: another group (by its name) or another part of this block."""
    def where(v):
        if v in inside:
            return inside[v], None
        g = pg.owner[v]
        return None, (f"{g.name} (weights)" if g.kind == "weights"
                      else g.name if g is not block else f"elsewhere in {block.name}")
    return where


def descend(pg, gid, path, cap):
    """``(block, nodes, outputs)``: the nodes of block ``gid`` down ``path`` (the part's
    index at each level: the first level is the block's parts, when it is over the cap)."""
    block = pg.group(gid)
    if block.kind != "block":
        raise BlockError(f"{block.name} is an input from outside the position's blocks: "
                         "it is summarized, not unfolded")
    nodes, outputs = block.nodes, block.outputs
    for depth, i in enumerate(path):
        if len(nodes) <= cap:
            raise BlockError(f"{block.name} holds {len(nodes)} nodes at level {depth}, "
                             f"within the cap of {cap}: it is not folded there")
        split = parts(nodes, outputs, cap)
        if not (isinstance(i, int) and 0 <= i < len(split)):
            raise BlockError(f"part {i!r} is outside 0..{len(split) - 1} of {block.name}")
        nodes, outputs = split[i], ()
    return block, nodes, outputs


def unfolded(pg, gid, path, cap):
    """Block ``gid`` (down ``path``) unfolded: ``{"kind": "nodes", "nodes": [Node],
    "edges": [Edge], "inputs"}`` (each node with its data and grad, the edges between
    them, what feeds them from outside) when it holds at most ``cap`` nodes; else
    ``{"kind": "parts", "boxes", "edges"}``: at most ``cap`` boxes, each a part."""
    block, nodes, outputs = descend(pg, gid, path, cap)
    labels = _labels(pg, block)
    if len(nodes) <= cap:
        return _node_view(pg, block, nodes, labels)
    split = parts(nodes, outputs, cap)
    boxes, inside = [], {}
    for i, part in enumerate(split):
        anchor = part[-1]
        name = labels.get(anchor) or f"{anchor._op or 'node'} n{pg.index[anchor]}"
        boxes.append((_box(f"p{i}", name, "part", part, [anchor], True), part))
        for v in part:
            inside[v] = f"p{i}"
    edges = _connect(boxes, _where(pg, block, inside))
    _ranks([b for b, _ in boxes], edges)
    return {"kind": "parts", "block": block.name, "nodes": len(nodes),
            "boxes": [b for b, _ in boxes], "edges": edges}


def _node_view(pg, block, nodes, labels):
    """The nodes as graph Nodes (ids ``n<place in the position's order>``) with the
    edges between them, and what feeds them from outside."""
    ids = {v: f"n{pg.index[v]}" for v in nodes}
    out, edges = [], []
    for v in nodes:
        fn = v._fn
        out.append(Node(id=ids[v], label=labels.get(v) or ("" if fn is None else ids[v]),
                        data=v.data, grad=v.grad,
                        op=(v._op or fn.label(v._arg)) if fn is not None else None,
                        op_key=fn.key if fn is not None else None, arg=v._arg,
                        inputs=tuple(ids[p] for p in v._prev if p in ids), value=v))
        for i, (p, d) in enumerate(zip(v._prev, local_derivatives(v))):
            if p in ids:
                edges.append(Edge(f"e{len(edges)}", ids[p], ids[v], i, d))
    holder = {"id": "all"}
    _connect([(holder, nodes)], _where(pg, block, dict.fromkeys(nodes, "all")))
    return {"kind": "nodes", "block": block.name, "nodes": out, "edges": edges,
            "inputs": holder["inputs"]}

"""Compiler passes: from a recorded graph to batched groups of rows.

    graph -> fuse_sums -> find_dense -> analyse -> group -> (dense_param_order)
          -> assign_rows

Each pass reads and rewrites a list of IR nodes (``micrograd.trace.ir``) indexed by
position; a node fused into another becomes ``None``. The two fusions are the batched
forms of the ``+`` and ``*`` rules of the op table: a chain of ``+`` is one ``SumNode``
(every term gets the sum's gradient, as ``+`` passes its gradient to both inputs), and a
sum of parameter-times-node products plus a parameter bias is one ``DenseNode`` row (the
``*`` rule, d(w x) = x dw + w dx, summed over a batch as matrix products).
"""

from __future__ import annotations

import math
from typing import NamedTuple

from ..engine import topological_order
from .ir import ConstNode, DenseNode, InputNode, LeafNode, OpNode, ParamNode, SumNode


def build_graph(rec, param_at, params):
    """The recording's nodes with each leaf made a ``ParamNode`` (an index into ``params``)
    or a ``ConstNode``. ``param_at``: position -> parameter Value."""
    index = {id(p): j for j, p in enumerate(params)}
    nodes = []
    for i, nd in enumerate(rec.nodes):
        if isinstance(nd, LeafNode):
            nd = (ParamNode(index[id(param_at[i])]) if i in param_at
                  else ConstNode(rec.leaves[i].data))
        nodes.append(nd)
    return nodes


def append_graph(nodes, more):
    """Append the nodes of a second graph (positions shifted past ``nodes``); returns
    the shift. The regularizer of a loss joins the per-sample graph this way: the two
    share no node, so no pass mixes them."""
    shift = len(nodes)
    for nd in more:
        nodes.append(OpNode(nd.key, nd.arg, tuple(p + shift for p in nd.inputs))
                     if isinstance(nd, OpNode) else nd)
    return shift


def reachable(nodes, outputs):
    """Per node: is it reachable from ``outputs``?"""
    live = [False] * len(nodes)
    stack = list(outputs)
    while stack:
        i = stack.pop()
        if not live[i]:
            live[i] = True
            stack.extend(nodes[i].inputs)
    return live


def count_users(nodes):
    """How many nodes read each node (an input used twice counts twice)."""
    users = [0] * len(nodes)
    for nd in nodes:
        if nd is not None:
            for p in nd.inputs:
                users[p] += 1
    return users


def _exact_factor(c):
    """Is scaling by ``c`` exact (a power of two, such as -1 and 0.5)? Then moving the
    factor onto each term of a sum gives the same numbers: ``(a - b) * 0.5`` is
    ``0.5 a + (-0.5) b`` to the last bit (barring overflow)."""
    return math.isfinite(c) and c != 0.0 and abs(math.frexp(c)[0]) == 0.5


def _scaled(nodes, i):
    """(x, c) when node ``i`` is ``x * c`` with an exact constant factor c, else None."""
    nd = nodes[i]
    if not (isinstance(nd, OpNode) and nd.key == "mul"):
        return None
    for x, k in (nd.inputs, nd.inputs[::-1]):
        if isinstance(nodes[k], ConstNode) and _exact_factor(nodes[k].value) \
                and not isinstance(nodes[x], ConstNode):
            return x, nodes[k].value
    return None


def _is_zero(nd):
    return isinstance(nd, ConstNode) and nd.value == 0.0


def fuse_sums(nodes, users, outputs):
    """Chains of ``+`` and exact constant factors -> one weighted ``SumNode`` each:
    ``(a + b + |a - b|) * 0.5`` is one sum of four terms. A node read elsewhere stays a
    node. Returns the positions of the sums."""
    terms = {}  # a sum's position -> [(term, coefficient)]

    def absorbable(p):
        return users[p] == 1 and p not in outputs

    def expand(p, c):
        """The terms that node ``p``, read with coefficient ``c``, contributes."""
        if p in terms and absorbable(p):
            nodes[p] = None
            return [(q, c * k) for q, k in terms.pop(p)]
        xc = _scaled(nodes, p) if absorbable(p) else None
        if xc is not None:
            nodes[p] = None
            return expand(xc[0], c * xc[1])
        return [(p, c)]

    for i, nd in enumerate(nodes):
        if isinstance(nd, OpNode) and nd.key == "add":
            terms[i] = expand(nd.inputs[0], 1.0) + expand(nd.inputs[1], 1.0)
        else:
            xc = _scaled(nodes, i)
            if xc is not None and xc[0] in terms and absorbable(xc[0]):
                terms[i] = expand(*xc)
    for i, t in terms.items():
        # NOTE: a zero constant term (the 0 that Python's sum() starts from) is dropped:
        # x + 0 is x, but for the sign of a zero result (-0.0 + 0 is +0.0)
        t = [(q, c) for q, c in t if not _is_zero(nodes[q])] or t[:1]
        coefs = tuple(c for _, c in t)
        nodes[i] = SumNode(tuple(q for q, _ in t), None if set(coefs) == {1.0} else coefs)
    return list(terms)


def _weight_times_node(nodes, users, outputs, t):
    """(parameter index, node) when node ``t`` is ``param * node`` read only by its sum.
    The node may be a parameter too: the L2 term's ``p * p`` is then one dense row
    (weights p, inputs p), whose backward gives p both of its shares, ``2 p g``."""
    nd = nodes[t]
    if not (isinstance(nd, OpNode) and nd.key == "mul") or users[t] != 1 or t in outputs:
        return None
    a, b = nd.inputs
    if isinstance(nodes[a], ParamNode):
        return nodes[a].index, b
    if isinstance(nodes[b], ParamNode):
        return nodes[b].index, a
    return None


def find_dense(nodes, users, outputs, sums):
    """Sums of parameter-times-node products (plus a parameter bias) -> ``DenseNode`` rows;
    the other terms of such a sum stay in a ``SumNode`` over the dense row."""
    for i in sums:
        s = nodes[i]
        coefs = s.coefs or (1.0,) * len(s.inputs)
        lin, rest, bias = [], [], None
        for t, c in zip(s.inputs, coefs):
            wx = _weight_times_node(nodes, users, outputs, t) if c == 1.0 else None
            if wx is not None:
                lin.append((wx, t))
            elif bias is None and c == 1.0 and isinstance(nodes[t], ParamNode):
                bias = nodes[t].index
            else:
                rest.append((t, c))
        if not lin:
            continue
        for _, t in lin:
            nodes[t] = None
        dense = DenseNode(tuple(x for (_, x), _ in lin), tuple(w for (w, _), _ in lin), bias)
        if rest:
            nodes.append(dense)
            rc = tuple(c for _, c in rest)
            nodes[i] = SumNode((len(nodes) - 1,) + tuple(t for t, _ in rest),
                           None if set(rc) == {1.0} else (1.0,) + rc)
        else:
            nodes[i] = dense


class Analysis(NamedTuple):
    order: list     # a topological order of the nodes in use
    level: list     # per node: 0 for a leaf, else 1 + the highest level of its inputs
    need: list      # per node: does a gradient have to flow into it?


def _topological(nodes, outputs):
    """The nodes the outputs depend on, each after its inputs, otherwise in the order
    they were recorded: the engine's one topological sort, over node indices."""
    live = reachable(nodes, outputs)
    roots = [r for r in range(len(nodes)) if live[r]]
    return topological_order(*roots, inputs_of=lambda i: nodes[i].inputs)


def analyse(nodes, outputs):
    """Order, levels, and which nodes a gradient must reach (those on a path from a
    parameter: the inputs and constants need none)."""
    order = _topological(nodes, outputs)
    level = [0] * len(nodes)
    need = [False] * len(nodes)
    for i in order:
        nd = nodes[i]
        if nd.inputs:
            level[i] = 1 + max(level[p] for p in nd.inputs)
        need[i] = isinstance(nd, (ParamNode, DenseNode)) or any(need[p] for p in nd.inputs)
    return Analysis(order, level, need)


class Group(NamedTuple):
    """Nodes of one level doing the same thing: one batched step."""

    level: int
    kind: type      # OpNode, SumNode or DenseNode
    members: list   # node positions
    once: bool      # computed once per batch (the regularizer), not once per sample


def group(nodes, an, once):
    """Group the computed nodes by (level, what they do); groups sorted by level.
    ``once``: per node, is it part of the once-per-batch graph?"""
    groups = {}
    for i in an.order:
        nd = nodes[i]
        if isinstance(nd, OpNode):
            key = (an.level[i], once[i], OpNode, nd.key, repr(nd.arg))
        elif isinstance(nd, SumNode):
            key = (an.level[i], once[i], SumNode, len(nd.inputs), nd.coefs is not None)
        elif isinstance(nd, DenseNode):
            key = (an.level[i], once[i], DenseNode, nd.inputs, nd.bias is not None)
        else:
            continue  # inputs, parameters and constants are not computed
        groups.setdefault(key, []).append(i)
    return [Group(k[0], k[2], m, k[1])
            for k, m in sorted(groups.items(), key=lambda kv: kv[0][0])]


def align_rows(nodes, groups):
    """Order groups so that a step reads its inputs in the order they are stored (a
    layer reads the previous layer's activations in neuron order, an activation its
    layer's rows): the rows then form a slice, read and written as a view. Consumers
    decide, the last first; a group is reordered at most once."""
    where = {}
    for k, g in enumerate(groups):
        for i in g.members:
            where[i] = k
    fixed = set()
    for g in reversed(groups):
        if g.kind is DenseNode:
            wanted = [nodes[g.members[0]].inputs]
        elif g.kind is OpNode:
            wanted = [[nodes[i].inputs[j] for i in g.members]
                      for j in range(len(nodes[g.members[0]].inputs))]
        else:
            continue
        for order in wanted:
            k = where.get(order[0])
            if k is None or k in fixed or len(set(order)) != len(order) \
                    or set(order) != set(groups[k].members):
                continue
            groups[k].members[:] = list(order)
            fixed.add(k)


def dense_param_order(nodes, groups, n_params):
    """A parameter order in which every dense step reads its weights row by row (bias
    last), so that its block is a strided view of the parameter buffer; None when a
    weight is shared between dense rows (no such order)."""
    order = []
    for g in groups:
        if g.kind is DenseNode:
            for i in g.members:
                order.extend(nodes[i].weights)
                if nodes[i].bias is not None:
                    order.append(nodes[i].bias)
    placed = set(order)
    if len(placed) != len(order):
        return None
    return order + [j for j in range(n_params) if j not in placed]


def renumber_params(nodes, new_order):
    """Rewrite parameter indices after the parameter list was put in ``new_order``."""
    new = {old: k for k, old in enumerate(new_order)}
    for i, nd in enumerate(nodes):
        if isinstance(nd, ParamNode):
            nodes[i] = ParamNode(new[nd.index])
        elif isinstance(nd, DenseNode):
            nodes[i] = DenseNode(nd.inputs, tuple(new[j] for j in nd.weights),
                             None if nd.bias is None else new[nd.bias])


def params_read_by_dense_only(nodes, order):
    """Parameter nodes read only by dense rows whose inputs are all parameters (the L2
    term's p * p): such a row reads them straight from the parameter buffer, so they
    need no row of the value array."""
    found = set()
    for i in order:
        nd = nodes[i]
        if isinstance(nd, DenseNode) and all(isinstance(nodes[p], ParamNode) for p in nd.inputs):
            found.update(nd.inputs)
    for i in order:
        nd = nodes[i]
        if not (isinstance(nd, DenseNode) and all(isinstance(nodes[p], ParamNode)
                                              for p in nd.inputs)):
            found.difference_update(nd.inputs)
    return found


class RowLayout(NamedTuple):
    """Where each node lives in the value array (one row per node, one column per
    sample): inputs first; then for the per-sample graph, and after it (from row
    ``once_start``) for the once-per-batch graph, which uses column 0 only: the
    parameters read as rows, the constants, each group's rows."""

    row: dict           # node position -> row
    n_rows: int
    once_start: int     # the first row of the once-per-batch graph
    param_rows: slice   # the rows of the parameters read directly, per sample
    param_index: list   # ... and which parameter each of them holds
    once_param_rows: slice  # the same for the once-per-batch graph
    once_param_index: list
    const_rows: list
    const_values: list
    group_rows: list    # per group: (first row, end row)


def assign_rows(nodes, an, groups, n_inputs, once):
    row, nrow = {}, n_inputs
    rowless = params_read_by_dense_only(nodes, an.order)
    for i in an.order:
        if isinstance(nodes[i], InputNode):
            row[i] = nodes[i].index
    blocks, const_rows, const_values, group_rows = [], [], [], {}
    once_start = nrow
    for in_once in (False, True):
        once_start = nrow if in_once else once_start
        direct = sorted((nodes[i].index, i) for i in an.order
                        if isinstance(nodes[i], ParamNode) and once[i] == in_once
                        and i not in rowless)
        start = nrow
        for _, i in direct:
            row[i] = nrow
            nrow += 1
        blocks += [slice(start, nrow), [j for j, _ in direct]]
        for i in an.order:
            if isinstance(nodes[i], ConstNode) and once[i] == in_once:
                row[i] = nrow
                const_rows.append(nrow)
                const_values.append(nodes[i].value)
                nrow += 1
        for k, g in enumerate(groups):
            if g.once == in_once:
                group_rows[k] = (nrow, nrow + len(g.members))
                for i in g.members:
                    row[i] = nrow
                    nrow += 1
    return RowLayout(row, nrow, once_start, *blocks, const_rows, const_values,
                  [group_rows[k] for k in range(len(groups))])

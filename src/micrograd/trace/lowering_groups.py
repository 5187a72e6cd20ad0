"""The grouped lowering: a traced program's batched GROUPS as primitive instructions.

``lowering.lower`` writes every node of a program as its own instructions, each over
arrays of B numbers (one per sample): a GPT of 160,000 nodes is then hundreds of
thousands of instructions, each over one number when B is 1. ``lower_groups`` lowers
instead the compiler's groups, the very steps and row layout that the NumPy executor
runs (``runtime.NumpyExecutor``): one value array ``V`` holds a row of B numbers per node
(the once-per-batch graph, a loss's regularizer, its own array ``U`` of rows of one
number), and each group is a few instructions over its block of k rows at once:

* an op's group: its forward (``LOWERED_FORWARD``) and its ONE derivative rule
  (``micrograd.ops``), written by ``PrimMath`` as in the per-node lowering; those
  primitives are elementwise, so they apply unchanged to k x B numbers. Inputs whose
  rows are not a run of the array are gathered first (``gather``) and their gradients
  added back row by row (``scatter_add``);
* a group of fused sums: ``sum_rows`` (``wsum_rows`` with the terms' constant factors),
  and backward ``scatter_add`` (``wscatter_add``): the ``+`` rule, every term gets the
  sum's gradient;
* a group of dense rows: ``dense`` (the parameter matrix times the rows it reads, plus
  the bias rows), backward ``dense_dw`` and ``dense_dx``: the ``*`` rule summed over
  the batch.

The wire is the per-node lowering's (``lowering``'s docs) at ``"version": 2``, with:

* buffer sizes ``"kB"`` (k rows of B numbers: ``"V"``, a group's block) besides 1,
  ``"B"`` and counts; an operand ``[name, r0, r1]`` is rows r0..r1 of a buffer (of B
  numbers each when its size is written with ``B``, else of one);
* ``"indices"``: {name: [int, ...]}, the row lists of the gathers and scatters (and
  the parameters of dense rows) and ``"coefs"``: {name: [float, ...]}, the constant
  factors of weighted sums and the values of the constant rows; operands by name;
* ``"inputs_at": "V"``: the inputs are the first rows of ``V``.

Standard library only, as the rest of the compiler.
"""

from __future__ import annotations

from .batch_loss import BatchLoss
from .ir import DenseNode, LoweringError, OpNode, ParamNode, SumNode
from .lowering import lower_functions, write_update
from .prim_math import BATCH, PrimMath, Sym, encode_number, lower_forward, lower_rule
from .program import compile_source

VERSION = 2

__all__ = ["lower_groups", "VERSION"]


def lower_groups(functions, optimizer=None):
    """Lower traced programs group by group (see the module's docs); the arguments and
    the result are ``lowering.lower``'s, the wire at version 2.

        >>> from micrograd.nn import MLP
        >>> from micrograd.trace import trace_loss, SGDUpdate
        >>> model = MLP(2, [3, 1], seed=0)
        >>> loss = trace_loss(lambda x, y: (model(x) - y) ** 2, [[0.0, 1.0]], [1.0])
        >>> lower_groups(loss, SGDUpdate(lr=0.1)).wire["version"]
        2
    """
    return lower_functions(
        functions, optimizer,
        lambda f, params, update, state: _GroupLowering(f, params).function(update, state),
        version=VERSION, caller="lower_groups")


def _rows_size(k, once):
    """The size of k rows: k numbers in the once-per-batch array, else k x B."""
    if once:
        return k
    return BATCH if k == 1 else f"{k}{BATCH}"


def _run(rows):
    """(first, end) when ``rows`` are consecutive and ascending, else None."""
    first = rows[0]
    if list(rows) == list(range(first, first + len(rows))):
        return first, first + len(rows)
    return None


class _GroupLowering:
    """One function's groups written as instructions (``function`` builds its wire)."""

    def __init__(self, f, params):
        self.is_loss = isinstance(f, BatchLoss)
        self.reduction = f.reduction if self.is_loss else None
        src = f.source
        c, _ = compile_source(src.recording, src.param_at, params, reorder=False, once=src.once)
        self.c = c
        self.n_params = len(params)
        self.start = c.layout.once_start
        self.m = PrimMath()
        self.indices, self.coefs = {}, {}
        self._index_names, self._coef_names = {}, {}

    # ---- rows, tables ------------------------------------------------------------

    def where(self, row):
        """(in the once-per-batch graph?, the row in its array)."""
        return (True, row - self.start) if row >= self.start else (False, row)

    def rows(self, a, b, once, grad=False):
        """Rows a..b of the value array (``grad``: of its gradient) as a Sym."""
        name = ("GU" if grad else "U") if once else ("GV" if grad else "V")
        return Sym(self.m, [name, a, b], _rows_size(b - a, once))

    def array(self, once, grad=False):
        name = ("GU" if grad else "U") if once else ("GV" if grad else "V")
        return Sym(self.m, name, self.m.buffers[name])

    def index(self, ints):
        """An index list of the wire, shared by every instruction that reads it."""
        key = tuple(ints)
        name = self._index_names.get(key)
        if name is None:
            name = self._index_names[key] = f"i{len(self.indices)}"
            self.indices[name] = list(key)
        return Sym(self.m, name, len(key))

    def coef(self, numbers):
        key = tuple(float(x) for x in numbers)
        name = self._coef_names.get(key)
        if name is None:
            name = self._coef_names[key] = f"k{len(self.coefs)}"
            self.coefs[name] = [encode_number(x) for x in key]
        return Sym(self.m, name, len(key))

    def local(self, nodes):
        """The nodes' rows in their array, and whether that is the once array."""
        places = [self.where(self.c.layout.row[i]) for i in nodes]
        once = {o for o, _ in places}
        if len(once) != 1:  # pragma: no cover - the two graphs share no node
            raise LoweringError("a group reads rows of both graphs")
        return [r for _, r in places], once.pop()

    def read(self, nodes):
        """The rows of ``nodes``, in order: a view when they are a run, else gathered."""
        rows, once = self.local(nodes)
        run = _run(rows)
        if run is not None:
            return self.rows(*run, once)
        return self.m.emit("gather", self.array(once), self.index(rows),
                           size=_rows_size(len(rows), once))

    def push(self, nodes, contrib):
        """Add ``contrib`` (a row per node) into the gradient rows of ``nodes``."""
        rows, once = self.local(nodes)
        run = _run(rows)
        if run is not None:
            g = self.rows(*run, once, grad=True)
            self.m.write(g, "add", g, contrib)
        else:
            self.m.write(self.array(once, grad=True), "scatter_add", contrib,
                         self.index(rows))

    def params(self):
        return self.m.buffer("P", self.n_params)

    def grads(self):
        return self.m.buffer("G", self.n_params)

    # ---- the function ------------------------------------------------------------

    def function(self, update, state):
        c, m = self.c, self.m
        n_v, n_u = self.start, c.layout.n_rows - self.start
        m.buffers["V"] = _rows_size(n_v, False)
        m.buffers["U"] = n_u
        if self.is_loss:
            m.buffers["GV"], m.buffers["GU"] = m.buffers["V"], n_u
        forward, wire = [], {"inputs": c.n_inputs, "inputs_at": "V"}
        m.section(forward)
        saved = self.forward()
        wire["outputs"] = [self.output(o).ref for o in c.outputs]
        if self.is_loss:
            wire["value"] = self.value().ref
            wire["backward"] = []
            m.section(wire["backward"])
            self.backward(saved)
            if update is not None:
                wire["update"] = []
                m.section(wire["update"])
                write_update(m, update, state, self.n_params)
        wire["forward"] = m.consts + forward
        wire["buffers"] = m.buffers
        wire["indices"], wire["coefs"] = self.indices, self.coefs
        _share_temps(wire)
        return {k: wire[k] for k in ("inputs", "inputs_at", "buffers", "indices", "coefs",
                                     "forward", "outputs", "value", "backward", "update")
                if k in wire}

    def output(self, node):
        once, r = self.where(self.c.layout.row[node])
        if once:  # pragma: no cover - a per-sample output lives in V
            raise LoweringError("an output of the once-per-batch graph")
        return self.rows(r, r + 1, False)

    def value(self):
        """The batch's loss: the outputs' total (over B for a mean), plus the
        once-per-batch outputs."""
        m = self.m
        total = m.total(self.output(self.c.outputs[0]))
        value = m.div(total, m.buffer("B", 1)) if self.reduction == "mean" else total
        for o in self.c.once_outputs:
            _, r = self.where(self.c.layout.row[o])
            value = value + self.rows(r, r + 1, True)
        return value

    def forward(self):
        """The parameters' and constants' rows, then every group in order; returns
        what each group's backward reads (its inputs' Syms)."""
        lay, m = self.c.layout, self.m
        for rows, index in ((lay.param_rows, lay.param_index),
                            (lay.once_param_rows, lay.once_param_index)):
            if rows.stop > rows.start:
                once, a = self.where(rows.start)
                m.write(self.rows(a, a + rows.stop - rows.start, once), "gather",
                        self.params(), self.index(index))
        for once in (False, True):
            rows = [self.where(r)[1] for r in lay.const_rows if self.where(r)[0] == once]
            values = [v for r, v in zip(lay.const_rows, lay.const_values)
                      if self.where(r)[0] == once]
            if rows:
                first, end = _run(rows) or (None, None)
                if first is None:  # pragma: no cover - assign_rows lays them in a run
                    raise LoweringError("constant rows not in a run")
                m.write(self.rows(first, end, once), "gather", self.coef(values),
                        self.index(range(len(values))))
        return [self.group_forward(g, se) for g, se in zip(c_groups(self.c), lay.group_rows)]

    def group_forward(self, g, se):
        nodes = self.c.nodes
        members = [nodes[i] for i in g.members]
        once, s = self.where(se[0])
        out = self.rows(s, s + len(members), once)
        if g.kind is OpNode:
            first = members[0]
            xs = [self.read([nd.inputs[j] for nd in members]) for j in range(len(first.inputs))]
            self.land(lower_forward(self.m, first.key, xs, first.arg), out)
            return xs
        if g.kind is SumNode:
            terms = [t for nd in members for t in nd.inputs]
            rows, t_once = self.local(terms)
            idx = self.index(rows)
            if members[0].coefs is None:
                self.m.write(out, "sum_rows", self.array(t_once), idx)
                return idx, None
            k = self.coef([c for nd in members for c in nd.coefs])
            self.m.write(out, "wsum_rows", self.array(t_once), idx, k)
            return idx, k
        return self.dense_forward(members, out, once)

    def dense_forward(self, members, out, once):
        nodes, first, m = self.c.nodes, members[0], self.m
        x_params = all(isinstance(nodes[p], ParamNode) for p in first.inputs)
        if x_params:  # the L2 term's p * p: x read from the parameters, one column
            x = m.emit("gather", self.params(),
                       self.index([nodes[p].index for p in first.inputs]),
                       size=len(first.inputs))
        else:
            x = self.read(list(first.inputs))
        widx = self.index([j for nd in members for j in nd.weights])
        m.write(out, "dense", x, self.params(), widx)
        if first.bias is not None:
            b = m.emit("gather", self.params(), self.index([nd.bias for nd in members]),
                       size=out.size)
            m.write(out, "add", out, b)
        return x, x_params, widx

    def land(self, result, out):
        """Put an op's forward result in its group's rows: the last instruction writes
        there directly when it made the result, else a copy."""
        m = self.m
        result = m.operand(result)
        last = m.code[-1] if m.code else None
        if (last is not None and last[1] == result.ref and isinstance(result.ref, str)
                and result.ref.startswith("v") and result.size == out.size):
            last[1] = out.ref
            del m.buffers[result.ref]
        else:
            m.write(out, "copy", result)

    # ---- backward ----------------------------------------------------------------

    def backward(self, saved):
        """Zero the gradients, seed the outputs, every group in reverse order, then the
        parameters' rows into ``G``."""
        c, m, lay = self.c, self.m, self.c.layout
        m.fill(self.grads(), 0.0)
        for once in (False, True):
            if m.buffers["U" if once else "V"]:
                m.fill(self.array(once, grad=True), 0.0)
        seed = m.div(1.0, m.buffer("B", 1)) if self.reduction == "mean" else 1.0
        self.push([c.outputs[0]], seed if isinstance(seed, Sym) else m.const(seed))
        for o in c.once_outputs:
            self.push([o], m.const(1.0))
        for g, se, sv in reversed(list(zip(c_groups(c), lay.group_rows, saved))):
            self.group_backward(g, se, sv)
        for rows, index in ((lay.param_rows, lay.param_index),
                            (lay.once_param_rows, lay.once_param_index)):
            if rows.stop > rows.start:
                once, a = self.where(rows.start)
                m.write(self.grads(), "scatter_add",
                        self.rows(a, a + rows.stop - rows.start, once, grad=True),
                        self.index(index))

    def group_backward(self, g, se, saved):
        nodes, need, m = self.c.nodes, self.c.need, self.m
        members = [nodes[i] for i in g.members]
        once, s = self.where(se[0])
        gout = self.rows(s, s + len(members), once, grad=True)
        if g.kind is OpNode:
            first = members[0]
            wants = [any(need[nd.inputs[j]] for nd in members)
                     for j in range(len(first.inputs))]
            if not any(wants):
                return
            out = self.rows(s, s + len(members), once)
            cs = lower_rule(m, first.key, gout, saved, out, first.arg)
            for j, (want, contrib) in enumerate(zip(wants, cs)):
                if want:
                    contrib = m.operand(contrib)
                    if contrib.size != gout.size:
                        contrib = m.emit("copy", contrib, size=gout.size)
                    self.push([nd.inputs[j] for nd in members], contrib)
        elif g.kind is SumNode:
            if any(need[t] for nd in members for t in nd.inputs):
                idx, k = saved
                rows_once = self.local([members[0].inputs[0]])[1]
                arr = self.array(rows_once, grad=True)
                if k is None:
                    m.write(arr, "scatter_add", gout, idx)
                else:
                    m.write(arr, "wscatter_add", gout, idx, k)
        else:
            self.dense_backward(members, gout, saved)

    def dense_backward(self, members, gout, saved):
        nodes, need, m = self.c.nodes, self.c.need, self.m
        x, x_params, widx = saved
        first = members[0]
        m.write(self.grads(), "dense_dw", gout, x, widx)
        if first.bias is not None:
            m.write(self.grads(), "scatter_add", gout,
                    self.index([nd.bias for nd in members]))
        if not any(need[p] for p in first.inputs):
            return
        once = not isinstance(gout.size, str)  # (k rows of one number each)
        dx = m.emit("dense_dx", gout, self.params(), widx,
                    size=_rows_size(len(first.inputs), once))
        if x_params:
            m.write(self.grads(), "scatter_add", dx,
                    self.index([nodes[p].index for p in first.inputs]))
        else:
            self.push(list(first.inputs), dx)


def c_groups(c):
    """The compiled program's groups, each checked to be a kind this lowering knows."""
    for g in c.groups:
        if g.kind not in (OpNode, SumNode, DenseNode):  # pragma: no cover
            raise LoweringError(f"a group of {g.kind.__name__} cannot be lowered")
    return c.groups


def _share_temps(fn):
    """A temporary (``v...``) lends its buffer, once no longer read, to a later result of
    its size, in the order the sections run (as ``lowering.share_buffers``, for operands
    that may be rows of a buffer); the outputs and the value are kept to the end."""
    code = [ins for k in ("forward", "backward", "update") for ins in fn.get(k, ())]
    temps = {b for b in fn["buffers"] if b.startswith("v")}
    last = {}
    for k, ins in enumerate(code):
        for r in ins[2:]:
            if isinstance(r, str) and r in temps:
                last[r] = k
    for r in fn["outputs"] + [fn.get("value")]:
        if isinstance(r, str):
            last[r] = len(code)
    free, home = {}, {}
    for k, ins in enumerate(code):
        reads = [r for r in ins[2:] if isinstance(r, str) and r in temps]
        ins[2:] = [home.get(r, r) if isinstance(r, str) else r for r in ins[2:]]
        out = ins[1]
        if isinstance(out, str) and out in temps:
            if out not in home:
                pool = free.get(fn["buffers"][out])
                home[out] = pool.pop() if pool else out
            ins[1] = home[out]
            reads.append(out)
        for r in dict.fromkeys(reads):
            if last.get(r, k) == k:
                free.setdefault(fn["buffers"][r], []).append(home[r])
    rename = lambda r: home.get(r, r) if isinstance(r, str) else r
    fn["outputs"] = [rename(r) for r in fn["outputs"]]
    if "value" in fn:
        fn["value"] = rename(fn["value"])
    used = set(home.values())
    fn["buffers"] = {b: size for b, size in fn["buffers"].items()
                     if b not in temps or b in used}

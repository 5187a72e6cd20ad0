"""Lowering: a traced program as a flat list of primitive instructions, for any executor.

``lower(functions, optimizer=...)`` takes traced programs (``Program``, ``BatchLoss``)
that share parameters and writes each as instructions of the one primitive table
(``micrograd.trace.prims``) over named float64 buffers: its forward pass, and for a
loss the backward pass into the parameter gradients and, with an optimizer, the
parameter update. Nothing is computed here and nothing needs NumPy; the result is
plain data (``Lowered.wire``, JSON-ready), which an executor outside Python runs (the
JavaScript one of the web page, ``web/static/lowered/executor.js``).

Each op is lowered from the op table: its forward from ``LOWERED_FORWARD`` and its one
derivative rule by running it in the recording namespace (``prim_math.PrimMath``); a
fused chain of ``+`` is one ``sum``, and its backward passes the gradient on unchanged.
An op with no lowering raises ``LoweringError`` naming it: run that program in Python.

The wire form (all numbers float64; "inf", "-inf", "nan" written as strings)::

    {"format": "micrograd-lowered", "version": 1,
     "params": {"size": n, "init": [...]},          # the vector P (and G, its gradient)
     "state": {name: {"size": k, "init": [...]}},   # the optimizer's: t, lr, buf / m, v
     "optimizer": {"name": "adam", ...} | null,
     "functions": {name: {
         "inputs": k,                  # numbers per sample: buffers in0 .. in{k-1}
         "buffers": {name: size},      # every other buffer: size 1, "B" (one per
                                       # sample) or a count
         "forward": [[prim, out, operand, ...], ...],
         "outputs": [name, ...],       # per-sample outputs, each of size "B"
         "value": name,                # a loss: the batch's loss (size 1)
         "backward": [...],            # a loss: fills G with d value / d P
         "update": [...]}}}            # a loss with an optimizer: P and state updated

An operand is a buffer's name or ``[name, index]``, one element of a vector (``["P",
3]``). ``B`` (the batch size, as a number) is provided by the executor.
"""

from __future__ import annotations

import json
from typing import NamedTuple

from .. import ops as _ops
from . import passes
from .batch_loss import BatchLoss
from .ir import ConstNode, InputNode, LoweringError, OpNode, ParamNode, SumNode
from .prim_math import BATCH, PrimMath, encode_number, lower_forward, lower_rule
from .program import Program

FORMAT = "micrograd-lowered"
VERSION = 1


class Lowered(NamedTuple):
    """A lowered set of functions: ``wire`` (plain data, see the module's docs) and the
    parameter Values in the order of the vector ``P``."""

    wire: dict
    params: list

    def to_json(self):
        """The wire form as compact JSON text (strict: no NaN or Infinity literals)."""
        return json.dumps(self.wire, separators=(",", ":"), allow_nan=False)


def lower(functions, optimizer=None):
    """Lower traced programs into primitive instructions (see the module's docs).

    ``functions``: a ``BatchLoss`` or ``Program``, or a dict ``{name: BatchLoss or
    Program}`` (a lone one is named ``"loss"`` or ``"forward"``) over shared
    parameters: a ``Program`` becomes its forward pass, a ``BatchLoss`` also its
    backward pass and, given ``optimizer`` (``SGDUpdate``, ``AdamUpdate``, or a traced
    optimizer, whose step count and state the program starts from), the update.
    Raises ``LoweringError`` naming an op that has no lowering.

        >>> from micrograd.nn import MLP
        >>> from micrograd.trace import trace_loss, lower, SGDUpdate
        >>> model = MLP(2, [3, 1], seed=0)
        >>> loss = trace_loss(lambda x, y: (model(x) - y) ** 2, [[0.0, 1.0]], [1.0])
        >>> sorted(lower(loss, SGDUpdate(lr=0.1)).wire["functions"]["loss"])
        ['backward', 'buffers', 'forward', 'inputs', 'outputs', 'update', 'value']
    """
    return lower_functions(functions, optimizer, _lower_function)


def lower_functions(functions, optimizer, lower_one, version=VERSION, caller="lower"):
    """What ``lower`` and the grouped lowering (``lowering_groups``) share: the
    ``functions`` checked and named (a lone one ``"loss"`` or ``"forward"``), their
    parameters in order of appearance, the optimizer's update and state, and each
    function written by ``lower_one(f, params, update, state)``; the wire marked
    ``version``. ``caller`` names the entry point in the errors."""
    if isinstance(functions, (BatchLoss, Program)):
        functions = {"loss" if isinstance(functions, BatchLoss) else "forward": functions}
    if not isinstance(functions, dict) or not functions:
        raise TypeError(f"{caller} needs a BatchLoss, a Program or a dict of them, got "
                        f"{type(functions).__name__}")
    params, seen = [], set()  # every function's parameters, in order of appearance
    for name, f in functions.items():
        if not isinstance(name, str) or not isinstance(f, (BatchLoss, Program)):
            raise TypeError(f"{caller}: {name!r} must name a BatchLoss or a Program, got "
                            f"{type(f).__name__}")
        for p in f.params:
            if id(p) not in seen:
                seen.add(id(p))
                params.append(p)
    update, state = optimizer_state(optimizer, len(params))
    wire = {
        "format": FORMAT, "version": version,
        "params": {"size": len(params), "init": [encode_number(p.data) for p in params]},
        "state": state,
        "optimizer": None if update is None else {"name": update.name, **update.options()},
        "functions": {name: lower_one(f, params, update, state)
                      for name, f in functions.items()},
    }
    return Lowered(wire, params)


def optimizer_state(optimizer, n):
    """(the update, the wire's state: step count t, learning rate lr, and the
    per-parameter vectors), a traced optimizer's current numbers when it is one."""
    if optimizer is None:
        return None, {}
    update = getattr(optimizer, "update", optimizer)
    if not callable(getattr(update, "apply", None)):
        raise TypeError(f"optimizer must be an SGDUpdate, an AdamUpdate or a traced "
                        f"optimizer, got {type(optimizer).__name__}")
    steps = getattr(optimizer, "steps", 0)
    arrays = getattr(optimizer, "state", {})
    state = {"t": {"size": 1, "init": [float(steps)]},
             "lr": {"size": 1, "init": [encode_number(update.lr)]}}
    for k in update.state_names:
        init = arrays[k].tolist() if k in arrays else [0.0] * n
        state[k] = {"size": n, "init": [encode_number(x) for x in init]}
    return update, state


class _Graph(NamedTuple):
    """A program's graph as the lowering reads it (sums fused, nothing batched)."""

    nodes: list
    order: list        # topological order of the nodes in use
    need: list         # per node: does a gradient flow into it?
    per_sample: list   # per node: does it depend on the sample (size "B", else 1)?
    outputs: list
    once_outputs: list
    n_inputs: int


def _graph(src, params):
    rec = src.recording
    nodes = passes.build_graph(rec, src.param_at, params)
    outputs, once_outputs = list(rec.outputs), []
    if src.once is not None:
        shift = passes.append_graph(nodes, passes.build_graph(*src.once, params))
        once_outputs = [o + shift for o in src.once[0].outputs]
    passes.fuse_sums(nodes, passes.count_users(nodes), set(outputs) | set(once_outputs))
    an = passes.analyse(nodes, outputs + once_outputs)
    per_sample = [False] * len(nodes)
    for i in an.order:
        nd = nodes[i]
        per_sample[i] = isinstance(nd, InputNode) or any(per_sample[p] for p in nd.inputs)
    return _Graph(nodes, an.order, an.need, per_sample, outputs, once_outputs,
                  sum(rec.widths))


def _lower_function(f, params, update, state):
    is_loss = isinstance(f, BatchLoss)
    g = _graph(f.source, params)
    m = PrimMath()
    forward, wire = [], {"inputs": g.n_inputs}
    m.section(forward)
    val = _forward(m, g)
    outs = []
    for o in g.outputs:  # every output one number per sample
        s = val[o]
        outs.append(s if s.size == BATCH else m.emit("copy", s, size=BATCH))
    wire["outputs"] = [s.ref for s in outs]
    if is_loss:
        B = m.buffer("B", 1)
        total = m.total(outs[0])  # as BatchLoss: the sum, over B for a mean, + once
        value = m.div(total, B) if f.reduction == "mean" else total
        for o in g.once_outputs:
            value = value + val[o]
        wire["value"] = value.ref
        backward = []
        m.section(backward)
        _backward(m, g, val, len(params), f.reduction)
        wire["backward"] = backward
        if update is not None:
            wire["update"] = []
            m.section(wire["update"])
            write_update(m, update, state, len(params))
    wire["forward"] = m.consts + forward
    wire["buffers"] = m.buffers
    share_buffers(wire)
    return {k: wire[k] for k in ("inputs", "buffers", "forward", "outputs", "value",
                                 "backward", "update") if k in wire}


def share_buffers(fn):
    """Let a later result take the buffer of a temporary no longer read (of the same
    size), in the order the sections run: a few warm buffers instead of one per node.
    A result never shares with an operand of its own instruction; the outputs and the
    value are kept to the end. Rewrites the function (the wire form) in place."""
    code = [ins for k in ("forward", "backward", "update") for ins in fn.get(k, ())]
    temps = {b for b in fn["buffers"] if b.startswith("v")}
    last = {}
    for k, ins in enumerate(code):
        for r in ins[2:]:
            if isinstance(r, str) and r in temps:
                last[r] = k
    for r in fn["outputs"] + [fn.get("value")]:
        last[r] = len(code)
    free, home = {}, {}  # size -> free buffers; temp -> the buffer it lives in
    for k, ins in enumerate(code):
        reads = [r for r in ins[2:] if isinstance(r, str) and r in temps]
        ins[2:] = [home.get(r, r) if isinstance(r, str) else r for r in ins[2:]]
        out = ins[1]
        if isinstance(out, str) and out in temps:
            pool = free.get(fn["buffers"][out])
            home[out] = pool.pop() if pool else out
            ins[1] = home[out]
            reads.append(out)  # (a result nobody reads is free at once)
        for r in dict.fromkeys(reads):  # (in order: the same program every run)
            if last.get(r, k) == k:
                free.setdefault(fn["buffers"][r], []).append(home[r])
    fn["outputs"] = [home.get(r, r) for r in fn["outputs"]]
    if "value" in fn:
        fn["value"] = home.get(fn["value"], fn["value"])
    used = set(home.values())
    fn["buffers"] = {b: size for b, size in fn["buffers"].items()
                     if b not in temps or b in used}


def _forward(m, g):
    """The forward pass: node -> its buffer."""
    val = {}
    for i in g.order:
        nd = g.nodes[i]
        if isinstance(nd, InputNode):
            val[i] = m.buffer(f"in{nd.index}", BATCH)
        elif isinstance(nd, ParamNode):
            val[i] = m.element("P", nd.index)
        elif isinstance(nd, ConstNode):
            val[i] = m.const(nd.value)
        elif isinstance(nd, OpNode):
            val[i] = m.operand(lower_forward(m, nd.key, [val[p] for p in nd.inputs], nd.arg))
        elif isinstance(nd, SumNode):
            coefs = nd.coefs or (1.0,) * len(nd.inputs)
            val[i] = m.sum([val[t] if c == 1.0 else m.mul(c, val[t])
                            for t, c in zip(nd.inputs, coefs)])
        else:  # pragma: no cover - the lowering's passes make no other node
            raise LoweringError(f"node {i} ({type(nd).__name__}) cannot be lowered")
    return val


def _backward(m, g, val, n_params, reduction):
    """The backward pass: the parameter gradients into ``G`` (zeroed first). A node's
    gradient is the sum of the contributions of its readers, in reverse order; one
    that does not depend on the sample sums its per-sample contributions (``total``)."""
    G = m.buffer("G", n_params)
    if n_params:
        m.fill(G, 0.0)
    grad = {}

    def add(i, c):
        c = m.operand(c)
        if not g.per_sample[i] and c.size == BATCH:
            c = m.total(c)
        grad[i] = c if i not in grad else grad[i] + c

    # d loss / d (each sample's output): 1/B for a mean, one per sample
    seed = m.div(1.0, m.buffer("B", 1)) if reduction == "mean" else m.const(1.0)
    add(g.outputs[0], m.emit("copy", seed, size=BATCH))
    for o in g.once_outputs:  # the regularizer: once per batch
        add(o, m.const(1.0))
    for i in reversed(g.order):
        nd, gi = g.nodes[i], grad.get(i)
        if gi is None or not g.need[i]:
            continue
        if isinstance(nd, OpNode):
            if any(g.need[p] for p in nd.inputs):
                xs = [val[p] for p in nd.inputs]
                cs = lower_rule(m, nd.key, gi, xs, val[i], nd.arg)
                for p, c in zip(nd.inputs, cs):
                    if g.need[p]:
                        add(p, c)
        elif isinstance(nd, SumNode):
            coefs = nd.coefs or (1.0,) * len(nd.inputs)
            for t, c in zip(nd.inputs, coefs):
                if g.need[t]:
                    add(t, gi if c == 1.0 else m.mul(c, gi))
        elif isinstance(nd, ParamNode):  # (its per-sample contributions were totalled)
            Gj = m.element("G", nd.index)
            m.write(Gj, "add", Gj, gi)


def write_update(m, update, state, n_params):
    """The optimizer's update, its one rule written in primitives: ``t`` counts the
    step, then P and the state are replaced by the rule's results."""
    t, lr = m.buffer("t", 1), m.buffer("lr", 1)
    m.write(t, "add", t, 1.0)
    P, G = m.buffer("P", n_params), m.buffer("G", n_params)
    old = {k: m.buffer(k, n_params) for k in update.state_names}
    p, new = update.apply(m, P, G, dict(old), t, lr)
    for k, s in new.items():
        if s is not old[k]:
            m.write(old[k], "copy", s)
    if p is not P:
        m.write(P, "copy", p)


def lower_op(key, arg=None):
    """One op of the table as a lowered function ``"op"`` of one sample ``(x[, y], g)``
    (its inputs and an upstream gradient) with outputs ``(out, d0[, d1])``: its forward
    and its one rule's contributions. Raises ``LoweringError`` naming an op with no
    lowering."""
    op = _ops.OPS.get(key)
    if op is None:
        raise LoweringError(f"no op {key!r} in the op table")
    m = PrimMath()
    code = []
    m.section(code)
    xs = [m.buffer(f"in{i}", BATCH) for i in range(op.arity)]
    out = m.operand(lower_forward(m, key, xs, arg))
    cs = lower_rule(m, key, m.buffer(f"in{op.arity}", BATCH), xs, out, arg)
    outs = []
    for s in [out, *map(m.operand, cs)]:
        outs.append(s if s.size == BATCH else m.emit("copy", s, size=BATCH))
    fn = {"inputs": op.arity + 1, "buffers": m.buffers, "forward": m.consts + code,
          "outputs": [s.ref for s in outs]}
    wire = {"format": FORMAT, "version": VERSION, "params": {"size": 0, "init": []},
            "state": {}, "optimizer": None, "functions": {"op": fn}}
    return Lowered(wire, [])

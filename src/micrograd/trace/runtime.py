"""The runtime: batched steps over one value array (a row per node, a column per sample).

``NumpyExecutor`` turns the compiler's groups and layout into steps (``OpStep``,
``SumStep``, ``DenseStep``); ``NumpyExecutor.run`` executes them forward, and backward
when given the gradient of the outputs. Every step reads its inputs as rows of the value
array ``V`` and writes its own block of rows; backward accumulates into the gradient
array ``G`` with the same row indices.
"""

from __future__ import annotations

import numpy as np

from .. import ops as _ops
from .batch import Batch
from .ir import OpNode, ParamNode, SumNode
from .numpy_backend import NUMPY, kernel


def _as_slice(flat):
    """``flat`` (indices) as a slice when they step evenly upwards, else None."""
    n = flat.size
    if n == 0:
        return None
    start = int(flat[0])
    step = int(flat[1] - flat[0]) if n > 1 else 1
    if step <= 0 or not np.array_equal(flat, start + step * np.arange(n)):
        return None
    return slice(start, start + step * (n - 1) + 1, step)


class Rows:
    """Rows of the value array that a step reads, and accumulates gradients into: a
    view (a slice) when the rows step evenly, else a gather and a scatter-add."""

    __slots__ = ("idx", "sl", "shape", "unique", "need")

    def __init__(self, idx, need=True):
        self.idx = np.asarray(idx, dtype=np.intp)
        self.shape = self.idx.shape
        self.sl = _as_slice(self.idx.ravel())
        self.unique = len(np.unique(self.idx)) == self.idx.size
        self.need = need  # does a gradient have to flow back into these rows?

    def get(self, V):
        if self.sl is None:
            return V[self.idx]
        v = V[self.sl]
        return v if len(self.shape) == 1 else v.reshape(self.shape + V.shape[1:])

    def add(self, G, contrib):
        if self.sl is not None:
            view = self.get(G)
            view += contrib
        elif self.unique:
            G[self.idx] += contrib
        else:
            np.add.at(G, self.idx, np.broadcast_to(contrib, self.shape + G.shape[1:]))

    def reader(self, V):
        """A function of no arguments that returns these rows of ``V`` (a fixed view,
        made once, when they form a slice)."""
        if self.sl is not None:
            view = self.get(V)
            return lambda: view
        idx = self.idx
        return lambda: V[idx]

    def adder(self, G):
        """A function that accumulates a contribution into these rows of ``G``, or None
        when no gradient has to flow into them."""
        if not self.need:
            return None
        if self.sl is not None:
            return self.get(G).__iadd__
        return lambda contrib: self.add(G, contrib)


# ---- a dense step's weights: a block of the parameter buffer ---------------------------


def param_block(P, gP, idx):
    """Parameters laid out like the index array ``idx`` (n, m): a strided view of the
    buffers when the indices form a regular grid without repeats (a layer's weights,
    which Layer.parameters() lists neuron by neuron), else a gather and a scatter-add."""
    idx = np.asarray(idx, dtype=np.intp)
    n, m = idx.shape
    r = int(idx[1, 0] - idx[0, 0]) if n > 1 else 1
    c = int(idx[0, 1] - idx[0, 0]) if m > 1 else 1
    grid = idx[0, 0] + r * np.arange(n)[:, None] + c * np.arange(m)[None, :]
    if r > 0 and c > 0 and np.array_equal(grid, idx) and len(np.unique(idx)) == idx.size:
        return _GridBlock(P, gP, int(idx[0, 0]), n, m, r, c)
    return _GatheredBlock(P, gP, idx)


class _GridBlock:
    """Parameters at base + i*r + j*c: strided views, no copy either way."""

    __slots__ = ("view", "gview", "flat")

    def __init__(self, P, gP, base, n, m, r, c):
        s = P.itemsize
        strided = np.lib.stride_tricks.as_strided
        self.view = strided(P[base:], (n, m), (r * s, c * s), writeable=False)
        self.gview = strided(gP[base:], (n, m), (r * s, c * s))
        self.flat = (base + r * np.arange(n)[:, None] + c * np.arange(m)[None, :]).ravel()

    def sole(self, param_uses):
        """Is this block the only use of each of its parameters?"""
        return all(param_uses[j] == 1 for j in self.flat.tolist())

    def read(self):
        return self.view

    def accumulate(self, g):
        self.gview += g


class _GatheredBlock:
    __slots__ = ("P", "gP", "idx", "flat")

    def __init__(self, P, gP, idx):
        self.P, self.gP, self.idx = P, gP, idx
        self.flat = idx.ravel()

    def sole(self, param_uses):
        return False  # a gather is always accumulated

    def read(self):
        return self.P[self.idx]

    def accumulate(self, g):
        self.gP += np.bincount(self.flat, weights=np.ravel(g), minlength=len(self.gP))


# ---- the three kinds of step -------------------------------------------------------------


class OpStep:
    """One primitive of the op table over a block of rows: its NumPy forward kernel,
    and backward its one derivative rule (``micrograd.ops``) run on arrays."""

    __slots__ = ("op", "kernel", "ufunc", "arg", "s", "e", "ins", "out", "gout", "read",
                 "push")
    label = property(lambda self: self.op.key)

    def __init__(self, key, arg, s, e, ins):
        self.op, self.kernel = _ops.OPS[key], kernel(key)
        self.ufunc = isinstance(self.kernel, np.ufunc) and not self.op.has_arg
        self.arg, self.s, self.e, self.ins = arg, s, e, ins

    def bind(self, V, G):
        self.out, self.gout = V[self.s:self.e], G[self.s:self.e]
        self.read = [ix.reader(V) for ix in self.ins]
        self.push = [ix.adder(G) for ix in self.ins]

    def forward(self):
        xs = [r() for r in self.read]
        if self.ufunc:  # a NumPy ufunc writes straight into the step's rows
            self.kernel(*xs, out=self.out)
        else:
            self.out[...] = self.kernel(*xs, self.arg) if self.op.has_arg else self.kernel(*xs)
        return xs

    def backward(self, xs):
        if not any(self.push):  # made from inputs and constants only: no gradient
            return
        contribs = _ops.contributions(self.op, NUMPY, self.gout, xs, self.out, self.arg)
        for push, c in zip(self.push, contribs):
            if push is not None:
                push(c)


class SumStep:
    """n-ary sums (fused chains of ``+``): the batched ``+`` rule passes the gradient of
    the sum unchanged to every term (times the term's constant factor, the ``*`` rule
    with a constant, when the sum is weighted)."""

    __slots__ = ("s", "e", "terms", "coefs", "row_coefs", "out", "gout", "read", "push")
    label = "sum"

    def __init__(self, s, e, terms, coefs=None):
        self.s, self.e, self.terms = s, e, terms
        self.coefs = None if coefs is None else np.asarray(coefs, dtype=np.float64)[:, :, None]
        self.row_coefs = None if coefs is None else self.coefs.transpose(0, 2, 1)

    def bind(self, V, G):
        self.out, self.gout = V[self.s:self.e], G[self.s:self.e]
        self.read, self.push = self.terms.reader(V), self.terms.adder(G)

    def forward(self):
        if self.coefs is None:
            np.sum(self.read(), axis=1, out=self.out)
        else:  # (n, 1, k) @ (n, k, B): each row its own weighted sum
            self.out[...] = np.matmul(self.row_coefs, self.read())[:, 0, :]

    def backward(self, saved):
        if self.push is not None:
            g = self.gout[:, None, :]
            self.push(g if self.coefs is None else self.coefs * g)


class DenseStep:
    """Dense rows ``W x (+ b)`` as one matrix product. Backward is the ``*`` rule
    (d(w x) = x dw + w dx) and the ``+`` rule, summed over the batch: ``dW = g x^T``,
    ``db = sum g``, ``dx = W^T g``. A gradient that has no other contribution (a
    layer's own weights, its input rows read by nothing else) is written straight
    into its place instead of added to it. When the inputs are parameters themselves
    (the L2 term's ``p * p``), x is a block of the parameter buffer: the same for every
    sample, and ``dx`` goes to the parameters."""

    __slots__ = ("s", "e", "x", "w", "b", "out", "gout", "read", "push", "only_w",
                 "only_b", "only_x", "gx", "x_params")
    label = "dense"

    def __init__(self, s, e, x, w, b):
        self.s, self.e, self.x, self.w, self.b = s, e, x, w, b
        self.x_params = not isinstance(x, Rows)
        self.only_w = self.only_b = self.only_x = False

    def sole_writer(self, param_uses, row_writers):
        """Note which gradients this step alone writes (counts over the program)."""
        self.only_w = self.w.sole(param_uses)
        self.only_b = self.b is not None and self.b.sole(param_uses)
        self.only_x = not self.x_params and self.x.need and self.x.sl is not None and all(
            row_writers[r] == 1 for r in self.x.idx.ravel().tolist())

    def bind(self, V, G):
        self.out, self.gout = V[self.s:self.e], G[self.s:self.e]
        if self.x_params:
            self.read, self.push, self.gx = self.x.read, self.x.accumulate, None
            return
        self.read, self.push = self.x.reader(V), self.x.adder(G)
        self.gx = self.x.get(G) if self.only_x else None

    def forward(self):
        xg = self.read()
        if self.x_params:  # (n, 1): one column, broadcast over the batch
            self.out[...] = self.w.read() @ xg
        else:
            np.matmul(self.w.read(), xg, out=self.out)
        if self.b is not None:
            self.out += self.b.read()
        return xg

    def backward(self, xg):
        g = self.gout
        if self.x_params:
            g = g.sum(axis=1, keepdims=True)
        if self.only_w:
            np.matmul(g, xg.T, out=self.w.gview)
        else:
            self.w.accumulate(g @ xg.T)
        if self.only_b:
            np.sum(g, axis=1, keepdims=True, out=self.b.gview)
        elif self.b is not None:
            self.b.accumulate(g.sum(axis=1, keepdims=True))
        if self.gx is not None:
            np.matmul(self.w.read().T, g, out=self.gx)
        elif self.push is not None:
            self.push(self.w.read().T @ g)


def _step(nodes, grp, s, e, row, need, P, gP):
    members = [nodes[i] for i in grp.members]
    first = members[0]
    if grp.kind is OpNode:
        ins = [Rows([row[nd.inputs[j]] for nd in members],
                    need=any(need[nd.inputs[j]] for nd in members))
               for j in range(len(first.inputs))]
        return OpStep(first.key, first.arg, s, e, ins)
    if grp.kind is SumNode:
        terms = Rows([[row[t] for t in nd.inputs] for nd in members],
                     need=any(need[t] for nd in members for t in nd.inputs))
        coefs = [nd.coefs for nd in members] if first.coefs is not None else None
        return SumStep(s, e, terms, coefs)
    # a DenseNode group
    if all(isinstance(nodes[p], ParamNode) for p in first.inputs):  # p * p: x read from P
        x = param_block(P, gP, [[nodes[p].index] for p in first.inputs])
    else:
        x = Rows([row[p] for p in first.inputs], need=any(need[p] for p in first.inputs))
    w = param_block(P, gP, [nd.weights for nd in members])
    b = param_block(P, gP, [[nd.bias] for nd in members]) if first.bias is not None else None
    return DenseStep(s, e, x, w, b)


class NumpyExecutor:
    """A compiled program's executor on NumPy: its steps and their buffers; ``run`` is one
    forward (and backward) pass over a batch with the parameters in ``P``, parameter
    gradients into ``gP``.

    A step of the once-per-batch graph (a loss's regularizer) works on column 0 of the
    buffers only: it is computed once, not once per sample."""

    def __init__(self, nodes, groups, layout, need, outputs, n_inputs, n_params,
                 once_outputs=()):
        self.n_inputs = n_inputs
        self.P = np.zeros(n_params)
        self.gP = np.zeros(n_params)
        self.steps = [_step(nodes, g, s, e, layout.row, need, self.P, self.gP)
                      for g, (s, e) in zip(groups, layout.group_rows)]
        self.once = [g.once for g in groups]
        self.n_rows, self.once_start = layout.n_rows, layout.once_start
        self.param_rows = (layout.param_rows, layout.once_param_rows)
        self.param_index = (Rows(layout.param_index), Rows(layout.once_param_index))
        self.const_rows = np.array(layout.const_rows, dtype=np.intp)
        self.const_values = np.array(layout.const_values, dtype=np.float64)[:, None]
        self.out = Rows([layout.row[o] for o in outputs])
        self.out_once = Rows([layout.row[o] for o in once_outputs])
        self.buffers = None
        self._note_sole_writers(n_params)

    def _note_sole_writers(self, n_params):
        """Count the uses of each parameter and the gradient writers of each row, so
        that a dense step can write a gradient it alone contributes to."""
        param_uses = np.bincount(np.concatenate(
            [np.asarray(r.idx, dtype=np.intp) for r in self.param_index]
            + [st.w.flat for st in self.steps if isinstance(st, DenseStep)]
            + [st.b.flat for st in self.steps if isinstance(st, DenseStep)
               and st.b is not None]
            + [st.x.flat for st in self.steps if isinstance(st, DenseStep)
               and st.x_params]), minlength=n_params).tolist()
        targets = [self.out.idx.ravel(), self.out_once.idx.ravel()]
        for st in self.steps:
            if isinstance(st, DenseStep) and st.x_params:
                continue
            rows = st.ins if isinstance(st, OpStep) else [st.terms if isinstance(
                st, SumStep) else st.x]
            targets += [r.idx.ravel() for r in rows if r.need]
        row_writers = np.bincount(np.concatenate(targets), minlength=self.n_rows).tolist()
        for st in self.steps:
            if isinstance(st, DenseStep):
                st.sole_writer(param_uses, row_writers)

    def _buffers(self, B):
        """The value and gradient arrays for a batch of B, reused from the last run (a
        fresh multi-megabyte array costs page faults on every step); each step's views
        into them are made once per batch size."""
        if self.buffers is None or self.buffers[0].shape[1] != B:
            V, G = np.empty((self.n_rows, B)), np.empty((self.n_rows, B))
            for st, once in zip(self.steps, self.once):
                st.bind(V[:, :1], G[:, :1]) if once else st.bind(V, G)
            self.buffers = (V, G)
        return self.buffers

    def forward(self, X, B):
        V = self._buffers(B)[0]
        if self.n_inputs:
            V[:self.n_inputs] = X.T
        (rows, rows_once), (index, index_once) = self.param_rows, self.param_index
        if rows.stop > rows.start:
            V[rows] = index.get(self.P)[:, None]
        if rows_once.stop > rows_once.start:
            V[rows_once, :1] = index_once.get(self.P)[:, None]
        if len(self.const_rows):
            V[self.const_rows] = self.const_values  # (the once graph's too: a few rows)
        return V, [st.forward() for st in self.steps]

    def backward(self, V, saved, seed):
        G = self.buffers[1]
        # the inputs' rows never receive a gradient; the once-per-batch graph uses column 0
        G[self.n_inputs:self.once_start].fill(0.0)
        G[self.once_start:, 0].fill(0.0)
        self.out.add(G, seed)
        if self.out_once.idx.size:
            self.out_once.add(G[:, :1], 1.0)
        self.gP.fill(0.0)
        for st, sv in zip(reversed(self.steps), reversed(saved)):
            st.backward(sv)
        for rows, index, cols in zip(self.param_rows, self.param_index,
                                     (slice(None), slice(0, 1))):
            if rows.stop > rows.start:
                index.add(self.gP, G[rows, cols].sum(axis=1))

    def run(self, X, B, seed=None):
        """Outputs, shape (n_outputs, B), and the once-per-batch outputs (n,); with
        ``seed`` (the gradient of the outputs) also the parameter gradients, in ``gP``
        (the once-per-batch outputs are seeded with 1)."""
        with np.errstate(all="ignore"):
            V, saved = self.forward(X, B)
            if seed is not None:
                self.backward(V, saved, seed)
            return self.out.get(V), self.out_once.get(V[:, 0])


# ---- a program's arrays at its edges ------------------------------------------------------


def zeros(n):
    return np.zeros(n)


def param_values(params):
    """The parameters' current ``.data``, in order, as an array."""
    return np.array([p.data for p in params], dtype=np.float64)


def add_grads(params, grads):
    """``p.grad += g`` for every parameter (``grads`` in the same order)."""
    for p, g in zip(params, np.asarray(grads, dtype=np.float64).tolist()):
        p.grad += g


def seed_array(grad_outputs, B, n_outputs):
    """``grad_outputs`` (B, n_outputs) as the seed of a run: (n_outputs, B)."""
    seed = np.asarray(grad_outputs, dtype=np.float64).reshape(B, -1).T
    if seed.shape != (n_outputs, B):
        raise ValueError(f"grad_outputs must have shape ({B}, {n_outputs})")
    return seed


def pack(batches, widths, scalars):
    """One array (or sequence) per argument, checked, side by side: a ``Batch``."""
    if len(batches) != len(widths):
        raise TypeError(f"this program takes {len(widths)} batch argument(s) "
                        f"(per-sample widths {list(widths)}), got {len(batches)}")
    if not batches:
        return Batch(np.zeros((1, 0)), 1)
    cols, B = [], None
    for k, (b, w) in enumerate(zip(batches, widths)):
        try:
            a = np.asarray(b, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise TypeError(f"batch argument {k}: expected numbers (an array of shape "
                            f"(B, {w}) or (B,)), could not convert: {exc}") from None
        if a.ndim == 1 and (w == 1 or scalars[k]):
            a = a[:, None]
        if a.ndim != 2 or a.shape[1] != w:
            raise ValueError(f"batch argument {k}: expected shape (B, {w}), got {a.shape}")
        if B is None:
            B = a.shape[0]
        elif a.shape[0] != B:
            raise ValueError(f"batch arguments have different lengths: {B} and "
                             f"{a.shape[0]} (argument {k})")
        cols.append(a)
    if B == 0:
        raise ValueError("the batch is empty")
    return Batch(cols[0] if len(cols) == 1 else np.concatenate(cols, axis=1), B)

"""The runtime: batched steps over one value array (a row per node, a column per sample).

``build_runner`` turns the compiler's groups and layout into steps; ``Runner.run``
executes them forward, and backward when given the gradient of the outputs. Every step
reads its inputs as rows of the value array ``V`` and writes its own block of rows;
backward accumulates into the gradient array ``G`` with the same row indices.
"""

from __future__ import annotations

import numpy as np

from .ir import Op, Sum
from .numpy_backend import np_forward, np_local


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

    __slots__ = ("view", "gview")

    def __init__(self, P, gP, base, n, m, r, c):
        s = P.itemsize
        strided = np.lib.stride_tricks.as_strided
        self.view = strided(P[base:], (n, m), (r * s, c * s), writeable=False)
        self.gview = strided(gP[base:], (n, m), (r * s, c * s))

    def read(self):
        return self.view

    def accumulate(self, g):
        self.gview += g


class _GatheredBlock:
    __slots__ = ("P", "gP", "idx", "flat")

    def __init__(self, P, gP, idx):
        self.P, self.gP, self.idx = P, gP, idx
        self.flat = idx.ravel()

    def read(self):
        return self.P[self.idx]

    def accumulate(self, g):
        self.gP += np.bincount(self.flat, weights=np.ravel(g), minlength=len(self.gP))


# ---- the three kinds of step -------------------------------------------------------------


class OpStep:
    """One primitive of the op table over a block of rows; backward applies its local
    derivatives (the table's rule, on arrays)."""

    __slots__ = ("key", "arg", "s", "e", "ins")
    label = property(lambda self: self.key)

    def __init__(self, key, arg, s, e, ins):
        self.key, self.arg, self.s, self.e, self.ins = key, arg, s, e, ins

    def forward(self, V):
        xs = tuple(ix.get(V) for ix in self.ins)
        V[self.s:self.e] = np_forward(self.key, xs, self.arg)
        return xs

    def backward(self, V, G, xs):
        g = G[self.s:self.e]
        for ix, loc in zip(self.ins, np_local(self.key, xs, V[self.s:self.e], self.arg)):
            if ix.need:
                ix.add(G, loc * g)


class SumStep:
    """n-ary sums (fused chains of ``+``): the batched ``+`` rule passes the gradient of
    the sum unchanged to every term (times the term's constant factor, the ``*`` rule
    with a constant, when the sum is weighted)."""

    __slots__ = ("s", "e", "terms", "coefs", "row_coefs")
    label = "sum"

    def __init__(self, s, e, terms, coefs=None):
        self.s, self.e, self.terms = s, e, terms
        self.coefs = None if coefs is None else np.asarray(coefs, dtype=np.float64)
        self.row_coefs = None if coefs is None else self.coefs[:, None, :]

    def forward(self, V):
        if self.coefs is None:
            np.sum(self.terms.get(V), axis=1, out=V[self.s:self.e])
        else:  # (n, 1, k) @ (n, k, B): each row its own weighted sum
            V[self.s:self.e] = np.matmul(self.row_coefs, self.terms.get(V))[:, 0, :]

    def backward(self, V, G, saved):
        if self.terms.need:
            g = G[self.s:self.e][:, None, :]
            self.terms.add(G, g if self.coefs is None else self.coefs[:, :, None] * g)


class DenseStep:
    """Dense rows ``W x (+ b)`` as one matrix product. Backward is the ``*`` rule
    (d(w x) = x dw + w dx) and the ``+`` rule, summed over the batch: ``dW = g x^T``,
    ``db = sum g``, ``dx = W^T g``."""

    __slots__ = ("s", "e", "x", "w", "b")
    label = "dense"

    def __init__(self, s, e, x, w, b):
        self.s, self.e, self.x, self.w, self.b = s, e, x, w, b

    def forward(self, V):
        xg = self.x.get(V)
        out = V[self.s:self.e]
        np.matmul(self.w.read(), xg, out=out)
        if self.b is not None:
            out += self.b.read()
        return xg

    def backward(self, V, G, xg):
        g = G[self.s:self.e]
        self.w.accumulate(g @ xg.T)
        if self.b is not None:
            self.b.accumulate(g.sum(axis=1, keepdims=True))
        if self.x.need:
            self.x.add(G, self.w.read().T @ g)


def _step(nodes, grp, s, e, row, need, P, gP):
    members = [nodes[i] for i in grp.members]
    first = members[0]
    if grp.kind is Op:
        ins = [Rows([row[nd.inputs[j]] for nd in members],
                    need=any(need[nd.inputs[j]] for nd in members))
               for j in range(len(first.inputs))]
        return OpStep(first.key, first.arg, s, e, ins)
    if grp.kind is Sum:
        terms = Rows([[row[t] for t in nd.inputs] for nd in members],
                     need=any(need[t] for nd in members for t in nd.inputs))
        coefs = [nd.coefs for nd in members] if first.coefs is not None else None
        return SumStep(s, e, terms, coefs)
    # a Dense group
    x = Rows([row[p] for p in first.inputs], need=any(need[p] for p in first.inputs))
    w = param_block(P, gP, [nd.weights for nd in members])
    b = param_block(P, gP, [[nd.bias] for nd in members]) if first.bias is not None else None
    return DenseStep(s, e, x, w, b)


class Runner:
    """The compiled steps and their buffers; ``run`` is one forward (and backward) pass
    over a batch with the parameters in ``P``, parameter gradients into ``gP``."""

    def __init__(self, nodes, groups, layout, need, outputs, n_inputs, n_params):
        self.n_inputs = n_inputs
        self.P = np.zeros(n_params)
        self.gP = np.zeros(n_params)
        self.steps = [_step(nodes, g, s, e, layout.row, need, self.P, self.gP)
                      for g, (s, e) in zip(groups, layout.group_rows)]
        self.n_rows = layout.n_rows
        self.param_rows = layout.param_rows
        self.param_index = Rows(layout.param_index)
        self.const_rows = np.array(layout.const_rows, dtype=np.intp)
        self.const_values = np.array(layout.const_values, dtype=np.float64)[:, None]
        self.out = Rows([layout.row[o] for o in outputs])
        self.buffers = None

    def _buffers(self, B):
        """The value and gradient arrays for a batch of B, reused from the last run (a
        fresh multi-megabyte array costs page faults on every step)."""
        if self.buffers is None or self.buffers[0].shape[1] != B:
            self.buffers = (np.empty((self.n_rows, B)), np.empty((self.n_rows, B)))
        return self.buffers

    def forward(self, X, B):
        V = self._buffers(B)[0]
        if self.n_inputs:
            V[:self.n_inputs] = X.T
        if self.param_rows.stop > self.param_rows.start:
            V[self.param_rows] = self.param_index.get(self.P)[:, None]
        if len(self.const_rows):
            V[self.const_rows] = self.const_values
        return V, [st.forward(V) for st in self.steps]

    def backward(self, V, saved, seed):
        G = self._buffers(V.shape[1])[1]
        G.fill(0.0)
        self.out.add(G, seed)
        self.gP.fill(0.0)
        for st, sv in zip(reversed(self.steps), reversed(saved)):
            st.backward(V, G, sv)
        if self.param_rows.stop > self.param_rows.start:
            self.param_index.add(self.gP, G[self.param_rows].sum(axis=1))

    def run(self, X, B, seed=None):
        """Outputs, shape (n_outputs, B); with ``seed`` (the gradient of the outputs)
        also the parameter gradients, in ``gP``."""
        with np.errstate(all="ignore"):
            V, saved = self.forward(X, B)
            if seed is not None:
                self.backward(V, saved, seed)
            return self.out.get(V)

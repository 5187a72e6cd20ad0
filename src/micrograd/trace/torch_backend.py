"""The PyTorch backend of the tracer: the same program run on torch tensors.

A compiled program's steps (``micrograd.trace.runtime.NumpyExecutor``) are read one by
one and run with torch instead of NumPy: on the CPU in float64 it gives the NumPy
backend's numbers (to rounding), and on a GPU it runs there (``trace(...,
backend="torch", device="cuda")``). As with NumPy, the calculus is the op table's: each
op's one rule runs with the math namespace ``TORCH``; only the forward kernels
(``TORCH_FORWARD``) are written here. Batches go in and outputs and gradients come out as
NumPy arrays, so ``BatchLoss`` and the traced optimizers work unchanged. PyTorch is
imported only when this backend is asked for.
"""

from __future__ import annotations

import numpy as np
import torch

from .. import ops as _ops
from .ir import TraceError
from .runtime import DenseStep, OpStep, SumStep


def _sign(x):
    return torch.where(x > 0.0, 1.0, torch.where(x < 0.0, -1.0, 0.0))  # as NUMPY.sign


def _sigmoid(x):
    # branch on sign as the float and NumPy kernels (exp only sees -|x|): sigmoid(-710)
    # is e^-710 (a subnormal), where torch.sigmoid flushes it to 0
    e = torch.exp(-torch.abs(x))
    return torch.where(x >= 0.0, 1.0 / (1.0 + e), e / (1.0 + e))


def _where(cond, a, b):
    if isinstance(cond, (bool, np.bool_)):  # a rule's test on a constant (powc's n == 0)
        return a if cond else b
    return torch.where(cond, a, b)


class TorchMath:
    """The op table's math namespace on torch tensors (the twin of ``NUMPY``)."""

    div = staticmethod(torch.div)
    log = staticmethod(torch.log)
    exp = staticmethod(torch.exp)
    sin = staticmethod(torch.sin)
    cos = staticmethod(torch.cos)
    sigmoid = staticmethod(_sigmoid)
    tanh = staticmethod(torch.tanh)
    sqrt = staticmethod(torch.sqrt)
    where = staticmethod(_where)
    le = staticmethod(torch.le)
    ge = staticmethod(torch.ge)
    eq = staticmethod(torch.eq)
    both = staticmethod(torch.logical_and)
    sign = staticmethod(_sign)

    @staticmethod
    def pow(x, n):
        return torch.pow(x, n)

    @staticmethod
    def powc(x, n):
        # torch's pow with a constant exponent is where ops._fpowc's special cases
        # (2, 3, 0.5, -0.5, -1, -2) come from
        return torch.pow(x, float(n))


TORCH = TorchMath()


def _softplus(x):
    # log(1 + e^x) = max(x, 0) + log1p(e^-|x|), as the float and NumPy kernels
    return torch.clamp_min(x, 0.0) + torch.log1p(torch.exp(-torch.abs(x)))


#: op key -> torch forward kernel (the NumPy kernels' twins)
TORCH_FORWARD = {
    "add": torch.add, "mul": torch.mul, "div": torch.div, "pow": torch.pow,
    "powc": lambda x, n: torch.pow(x, float(n)),
    "exp": torch.exp, "log": torch.log, "tanh": torch.tanh, "sigmoid": _sigmoid,
    "relu": lambda x: torch.where(x < 0.0, 0.0, x), "abs": torch.abs, "sqrt": torch.sqrt,
    "softplus": _softplus, "sin": torch.sin, "cos": torch.cos,
}


def _kernel(key):
    fn = TORCH_FORWARD.get(key)
    if fn is None:
        raise TraceError(f"op {key!r} has no torch forward kernel: run it on the NumPy "
                         f"backend (backend='numpy')")
    return fn


class _Rows:
    """Rows of the value tensor (the twin of ``runtime.Rows``)."""

    def __init__(self, rows, dev):
        self.sl, self.shape, self.need = rows.sl, rows.shape, rows.need
        self.flat = torch.as_tensor(rows.idx.ravel(), device=dev)

    def get(self, V):
        v = V[self.sl] if self.sl is not None else V.index_select(0, self.flat)
        return v if len(self.shape) == 1 else v.reshape(self.shape + V.shape[1:])

    def add(self, G, contrib):
        cols = G.shape[1:]
        if not torch.is_tensor(contrib):
            contrib = torch.tensor(contrib, dtype=G.dtype, device=G.device)
        contrib = contrib.expand(self.shape + cols)
        if self.sl is not None:
            G[self.sl] += contrib.reshape((-1,) + cols)
        else:
            G.index_add_(0, self.flat, contrib.reshape((-1,) + cols))


def _block(block, dev):
    """A dense step's parameter block as an index tensor (n, m)."""
    idx = block.idx if hasattr(block, "idx") else block.flat.reshape(block.view.shape)
    return torch.as_tensor(np.asarray(idx), device=dev)


class _Op:
    def __init__(self, st, dev):
        self.op, self.kernel, self.arg = st.op, _kernel(st.op.key), st.arg
        self.s, self.e = st.s, st.e
        self.ins = [_Rows(r, dev) for r in st.ins]

    def forward(self, V):
        xs = [r.get(V) for r in self.ins]
        y = self.kernel(*xs, self.arg) if self.op.has_arg else self.kernel(*xs)
        V[self.s:self.e] = y
        return xs

    def backward(self, V, G, xs):
        if not any(r.need for r in self.ins):
            return
        cs = _ops.contributions(self.op, TORCH, G[self.s:self.e], xs, V[self.s:self.e],
                                self.arg)
        for r, c in zip(self.ins, cs):
            if r.need:
                r.add(G, c)


class _Sum:
    def __init__(self, st, dev):
        self.s, self.e, self.terms = st.s, st.e, _Rows(st.terms, dev)
        self.coefs = None if st.coefs is None else torch.as_tensor(st.coefs, device=dev)

    def forward(self, V):
        T = self.terms.get(V)
        V[self.s:self.e] = (T if self.coefs is None else T * self.coefs).sum(dim=1)

    def backward(self, V, G, saved):
        if self.terms.need:
            g = G[self.s:self.e][:, None, :]
            self.terms.add(G, g if self.coefs is None else self.coefs * g)


class _Dense:
    def __init__(self, st, dev):
        self.s, self.e, self.x_params = st.s, st.e, st.x_params
        self.x = _block(st.x, dev) if st.x_params else _Rows(st.x, dev)
        self.w = _block(st.w, dev)
        self.b = _block(st.b, dev) if st.b is not None else None

    def forward(self, V, P):
        W = P[self.w]
        xg = P[self.x] if self.x_params else self.x.get(V)
        y = W @ xg
        if self.b is not None:
            y = y + P[self.b]
        V[self.s:self.e] = y  # (n, 1) broadcast over the batch when x is parameters
        return W, xg

    def backward(self, V, G, saved, gP):
        W, xg = saved
        g = G[self.s:self.e]
        if self.x_params:
            g = g.sum(dim=1, keepdim=True)
        gP.index_add_(0, self.w.reshape(-1), (g @ xg.T).reshape(-1))
        if self.b is not None:
            gP.index_add_(0, self.b.reshape(-1), g.sum(dim=1))
        if self.x_params:
            gP.index_add_(0, self.x.reshape(-1), (W.T @ g).reshape(-1))
        elif self.x.need:
            self.x.add(G, W.T @ g)


class TorchExecutor:
    """The steps compiled by ``base`` (a ``NumpyExecutor``) run with torch on ``device``;
    the same interface: ``P`` and ``gP`` (NumPy, on the host), ``run(X, B, seed)``
    returning NumPy outputs."""

    def __init__(self, base, device="cpu"):
        dev = self.device = torch.device(device)
        self.P, self.gP = base.P, base.gP
        self.steps = base.steps  # the compiled steps (Program.summary reads them)
        self.n_inputs, self.n_rows, self.once_start = (base.n_inputs, base.n_rows,
                                                       base.once_start)
        kinds = {OpStep: _Op, SumStep: _Sum, DenseStep: _Dense}
        self._steps = [kinds[type(st)](st, dev) for st in base.steps]
        self._once = list(base.once)
        self._param_rows = base.param_rows
        self._param_index = [torch.as_tensor(np.asarray(r.idx), device=dev)
                             for r in base.param_index]
        self._const_rows = torch.as_tensor(base.const_rows, device=dev)
        self._const_values = torch.as_tensor(base.const_values, device=dev)
        self._out, self._out_once = _Rows(base.out, dev), _Rows(base.out_once, dev)

    def _views(self, V, once):
        return V[:, :1] if once else V

    def run(self, X, B, seed=None):
        dev, f64 = self.device, torch.float64
        P = torch.as_tensor(self.P, dtype=f64, device=dev)
        V = torch.zeros((self.n_rows, B), dtype=f64, device=dev)
        if self.n_inputs:
            V[:self.n_inputs] = torch.as_tensor(X.T, dtype=f64, device=dev)
        for rows, index, cols in zip(self._param_rows, self._param_index,
                                     (slice(None), slice(0, 1))):
            if rows.stop > rows.start:
                V[rows, cols] = P[index][:, None]
        if len(self._const_rows):
            V[self._const_rows] = self._const_values
        saved = []
        for st, once in zip(self._steps, self._once):
            Vs = self._views(V, once)
            saved.append(st.forward(Vs, P) if isinstance(st, _Dense) else st.forward(Vs))
        if seed is not None:
            self._backward(V, P, saved, seed)
        out = self._out.get(V).cpu().numpy()
        return out, self._out_once.get(V[:, 0]).cpu().numpy()

    def _backward(self, V, P, saved, seed):
        dev, f64 = self.device, torch.float64
        G = torch.zeros_like(V)
        gP = torch.zeros(len(self.P), dtype=f64, device=dev)
        self._out.add(G, torch.as_tensor(seed, dtype=f64, device=dev))
        if self._out_once.flat.numel():
            self._out_once.add(G[:, :1], 1.0)
        for st, once, sv in zip(reversed(self._steps), reversed(self._once),
                                reversed(saved)):
            Vs, Gs = self._views(V, once), self._views(G, once)
            if isinstance(st, _Dense):
                st.backward(Vs, Gs, sv, gP)
            else:
                st.backward(Vs, Gs, sv)
        for rows, index, cols in zip(self._param_rows, self._param_index,
                                     (slice(None), slice(0, 1))):
            if rows.stop > rows.start:
                gP.index_add_(0, index, G[rows, cols].sum(dim=1))
        self.gP[:] = gP.cpu().numpy()

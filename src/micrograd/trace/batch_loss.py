"""``BatchLoss``: a traced per-sample loss, reduced over the batch, plus a regularizer."""

from __future__ import annotations

import numpy as np

from .program import reduction_seed


class BatchLoss:
    """``loss = reduction_i f(sample_i) + regularizer()`` over a batch, traced.

    ``backward(*batches)`` accumulates d loss / d p into every parameter's ``.grad`` and
    returns the loss as a float; ``value(*batches)`` only evaluates it. ``per_sample``
    is a traced ``Program`` with one output; ``regularizer`` a traced program with no
    inputs (or None); ``params`` every parameter of either. Build one with
    ``trace_loss``. ``loss_and_grads`` is the form that reads and writes no Value.
    """

    def __init__(self, per_sample, reduction="mean", regularizer=None):
        reduction_seed(reduction, 1)  # refuses anything but "mean" and "sum"
        if per_sample.n_outputs != 1:
            raise ValueError("the per-sample function must return one Value (the loss)")
        if regularizer is not None and (regularizer.n_inputs or regularizer.n_outputs != 1
                                        or regularizer.widths):
            raise ValueError("the regularizer must take no arguments and return one Value")
        self.per_sample = per_sample
        self.reduction = reduction
        self.regularizer = regularizer
        # one parameter list for both programs: read .data once, write .grad once
        params = list(per_sample.params)
        index = {id(p): j for j, p in enumerate(params)}
        if regularizer is not None:
            for p in regularizer.params:
                if id(p) not in index:
                    index[id(p)] = len(params)
                    params.append(p)
        self.params = params
        # one program for the backward pass: the per-sample graph over the batch and the
        # regularizer's once, in one run
        self._program = per_sample if regularizer is None else \
            per_sample.with_once(per_sample, regularizer, params)

    def param_values(self):
        """The parameters' current ``.data``, in ``params`` order, as an array."""
        return np.array([p.data for p in self.params], dtype=np.float64)

    def loss_and_grads(self, P, *batches, grads=True):
        """The loss at parameter values ``P`` (in ``params`` order) and, with ``grads``,
        its gradient as an array: no Value is read or written."""
        prog = self._program
        batch = prog.as_batch(*batches)
        seed = reduction_seed(self.reduction, batch.size) if grads else None
        out, g, once = prog.run(batch, P, seed)
        total = float(out.sum())  # the same pairwise sum that mean() divides
        loss = total / batch.size if self.reduction == "mean" else total
        if once.size:
            loss += float(once[0])
        return loss, g

    def backward(self, *batches):
        """Accumulate d loss / d p into every parameter's ``.grad``; return the loss."""
        loss, g = self.loss_and_grads(self.param_values(), *batches)
        for p, d in zip(self.params, g.tolist()):
            p.grad += d
        return loss

    def value(self, *batches):
        """The loss on a batch (no gradients)."""
        return self.loss_and_grads(self.param_values(), *batches, grads=False)[0]

    __call__ = value

    def __repr__(self):
        reg = f", regularizer={self.regularizer!r}" if self.regularizer is not None else ""
        return f"BatchLoss({self.per_sample!r}, reduction={self.reduction!r}{reg})"

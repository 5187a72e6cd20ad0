"""``BatchLoss``: a traced per-sample loss, reduced over the batch, plus a regularizer."""

from __future__ import annotations

from .program import Program, Source, numpy_runtime, reduction_seed


class BatchLoss:
    """``loss = reduction_i f(sample_i) + regularizer()`` over a batch, traced.

    ``backward(*batches)`` accumulates d loss / d p into every parameter's ``.grad`` and
    returns the loss as a float; ``value(*batches)`` only evaluates it. ``per_sample``
    is a traced ``Program`` with one output; ``regularizer`` a traced program with no
    inputs (or None); ``params`` every parameter of either. Build one with
    ``trace_loss``: it also passes the ``recordings`` the two programs were compiled
    from, so that one program runs both in a single pass (the regularizer once per
    batch), instead of two. ``loss_and_grads`` is the form that reads and writes no
    Value.
    """

    def __init__(self, per_sample, reduction="mean", regularizer=None, *, recordings=None):
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
        # one program for both, when the recordings are at hand; else one run of each
        self._program = per_sample if regularizer is None else None
        if recordings is not None and regularizer is not None:
            ps, rg = recordings
            self._program = Program(ps.recording, ps.param_at, params=params,
                                    once=(rg.recording, rg.param_at),
                                    backend=per_sample.backend,
                                    device=per_sample.device)
        self._parts = [(prog, [index[id(p)] for p in prog.params])
                       for prog in (per_sample, regularizer) if prog is not None]

    @property
    def source(self):
        """What the loss is compiled from (``program.Source``): the per-sample
        recording, with the regularizer's as the graph run once per batch."""
        if self._program is not None:
            return self._program.source
        ps, reg = self.per_sample.source, self.regularizer.source
        return Source(ps.recording, ps.param_at, (reg.recording, reg.param_at))

    def param_values(self):
        """The parameters' current ``.data``, in ``params`` order, as an array."""
        return numpy_runtime().param_values(self.params)

    def loss_and_grads(self, P, *batches, grads=True):
        """The loss at parameter values ``P`` (in ``params`` order) and, with ``grads``,
        its gradient as an array: no Value is read or written."""
        if self._program is None:
            return self._two_runs(P, batches, grads)
        prog = self._program
        batch = prog.as_batch(*batches)
        seed = reduction_seed(self.reduction, batch.size) if grads else None
        out, g, once = prog.run(batch, P, seed)
        loss = self._reduce(out, batch.size)
        if once.size:
            loss += float(once[0])
        return loss, g

    def _reduce(self, out, B):
        total = float(out.sum())  # the same pairwise sum that mean() divides
        return total / B if self.reduction == "mean" else total

    def _two_runs(self, P, batches, grads):
        ps, reg = self.per_sample, self.regularizer
        batch = ps.as_batch(*batches)
        g = numpy_runtime().zeros(len(self.params)) if grads else None
        loss = 0.0
        for prog, idx in self._parts:
            if prog is ps:
                seed = reduction_seed(self.reduction, batch.size) if grads else None
                out, gp, _ = prog.run(batch, P[idx], seed)
                loss += self._reduce(out, batch.size)
            else:
                out, gp, _ = reg.run(reg.as_batch(), P[idx], 1.0 if grads else None)
                loss += float(out[0, 0])
            if grads:
                g[idx] += gp
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

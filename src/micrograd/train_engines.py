"""The traced engine of ``fit``: model and loss run over the whole batch with NumPy.

``micrograd.train`` chooses the engine (``get_engine``); this module adapts the tracer
(``micrograd.trace``) to the engine interface ``fit`` uses: ``loss_and_grad`` and
``evaluate``, each returning ``(loss, accuracy)``.
"""

from __future__ import annotations

from typing import NamedTuple

# the traced engine runs on NumPy: without it this import fails, and fit's "auto" takes
# the eager engine (the tracer itself imports NumPy only when a program first runs)
import numpy  # noqa: F401

from .engine import no_grad
from .losses import accuracy, l2_penalty
from .trace import TraceError, trace, trace_loss


class TracedModel(NamedTuple):
    """The programs traced for one (model, loss, l2), and what they were traced for."""

    model: object
    params: list          # the model's parameters when traced (checked by identity)
    loss: object          # the LossSpec
    l2: float
    n_classes: int        # the width of a one-hot target (1 for a single score)
    batch_loss: object    # BatchLoss: mean per-sample loss + the L2 term
    predict: object       # Program: the model's outputs

    def fits(self, model, params, loss, l2):
        """Still valid for this call? (A new architecture has new parameter objects.)"""
        return (self.model is model and self.loss is loss and self.l2 == l2
                and len(self.params) == len(params)
                and all(a is b for a, b in zip(self.params, params)))


def _n_outputs(model, x):
    with no_grad():
        out = model(x)
    return len(out) if isinstance(out, (list, tuple)) else 1


def _trace_model(model, params, X, y, loss, l2):
    if loss.sample is None:
        raise TraceError(f"the loss {loss.name!r} has no per-sample form to trace; "
                         f"use the eager engine")
    k = _n_outputs(model, X[0]) if loss.labels == "index" else 1
    targets = [loss.target(t, k) for t in y]

    def sample(x, t):
        return loss.sample(model(x), t)

    reg = (lambda: l2_penalty(params, l2)) if l2 else None
    batch_loss = trace_loss(sample, X, targets, reduction="mean", regularizer=reg,
                            params=params, cache=False)
    predict = trace(model, X, params=params, cache=False)
    return TracedModel(model, params, loss, l2, k, batch_loss, predict)


class TracedEngine:
    """``fit``'s engine that runs model and loss over the whole batch with NumPy.

    It traces ``loss.sample(model(x), target)`` (one sample, the lecture's Value API) and
    the L2 term once per (model, loss, l2), then every ``loss_and_grad`` is one batched
    forward and backward pass that writes ``p.grad``: the same numbers as
    ``train.EagerEngine`` to about 1e-12 (only the order of summation differs).
    A loss without a per-sample form (a custom function) cannot be traced: use the eager
    engine for it (``fit(engine="auto")`` does so by itself).
    """

    name = "traced"

    def __init__(self):
        self._traced = None  # a TracedModel

    def _prepare(self, model, X, y, loss, l2):
        params = model.parameters()
        t = self._traced
        if t is None or not t.fits(model, params, loss, l2):
            t = self._traced = _trace_model(model, params, X, y, loss, l2)
        return t, [loss.target(label, t.n_classes) for label in y]

    def loss_and_grad(self, model, X, y, loss, l2=0.0):
        t, targets = self._prepare(model, X, y, loss, l2)
        acc = accuracy(t.predict(X).tolist(), y)  # before the update, as the eager engine
        return t.batch_loss.backward(X, targets), acc

    def evaluate(self, model, X, y, loss, l2=0.0):
        t, targets = self._prepare(model, X, y, loss, l2)
        return t.batch_loss.value(X, targets), accuracy(t.predict(X).tolist(), y)

    def __repr__(self):
        return "TracedEngine()"

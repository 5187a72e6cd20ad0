"""The runners of ``fit``: how one batch's loss and gradients are computed.

A runner is any object with

* ``loss_and_grad(model, X, y, loss, l2) -> (loss: float, accuracy: float)``: run the
  model on the batch, compute ``loss(outputs, y) + l2 * sum(p*p)`` and ADD its gradient
  into every ``p.grad`` of ``model.parameters()`` (they are zeroed before the call);
* ``evaluate(model, X, y, loss, l2) -> (loss, accuracy)``: the same numbers, no gradients.

``loss`` is a ``micrograd.losses.LossSpec`` (``loss.name`` is ``"mse"``, ``"hinge"``,
``"bce"``, ``"ce"`` or a custom name; ``loss(outputs, y)`` gives a ``Value``). Two come
with micrograd, chosen by ``get_runner`` (``fit(runner=...)``):

* ``EagerRunner`` (``"eager"``) builds the ``Value`` graph of the batch and calls
  ``backward()``: the lecture's way, and the reference every faster runner must agree
  with;
* ``TracedRunner`` (``"traced"``) runs the same scalar code over the whole batch with
  NumPy (``micrograd.trace``): the same numbers to about 1e-12.

This module imports NumPy only when the traced runner is asked for.
"""

from __future__ import annotations

from typing import NamedTuple

from .engine import no_grad
from .losses import accuracy, get_loss, l2_penalty

__all__ = ["RUNNERS", "EagerRunner", "TracedRunner", "get_runner"]

RUNNERS = ("auto", "eager", "traced")


class EagerRunner:
    """Loss and gradients through the ``Value`` graph: the reference runner."""

    name = "eager"

    @staticmethod
    def _objective(model, X, y, loss, l2):
        outs = [model(x) for x in X]
        total = loss(outs, y)
        if l2:
            total = total + l2_penalty(model.parameters(), l2)
        return total, outs

    def loss_and_grad(self, model, X, y, loss, l2=0.0):
        total, outs = self._objective(model, X, y, loss, l2)
        total.backward()
        return total.data, accuracy(outs, y)

    def evaluate(self, model, X, y, loss, l2=0.0):
        with no_grad():
            total, outs = self._objective(model, X, y, loss, l2)
        return total.data, accuracy(outs, y)

    def __repr__(self):
        return "EagerRunner()"


def get_runner(runner="auto", loss=None):
    """The runner object for ``fit``: ``"eager"`` (the Value graph, the reference),
    ``"traced"`` (``micrograd.trace``: the same scalar code run batched with NumPy),
    ``"auto"`` (traced when NumPy is installed and the loss has a per-sample form, else
    eager), or a runner object as is."""
    if runner is None or runner == "eager":
        return EagerRunner()
    if hasattr(runner, "loss_and_grad") and hasattr(runner, "evaluate"):
        return runner
    if runner not in RUNNERS:
        raise ValueError(f"runner must be one of {', '.join(RUNNERS)} or a runner object, "
                         f"got {runner!r}")
    spec = get_loss(loss) if loss is not None else None
    try:
        # the traced runner runs on NumPy (the tracer itself imports without it)
        import numpy  # noqa: F401
    except ImportError as err:  # numpy is missing
        if runner == "traced":
            raise ModuleNotFoundError("the traced runner needs NumPy: pip install -e "
                                      "'.[demo]' in the project's folder",
                                      name="numpy") from err
        return EagerRunner()
    if spec is not None and spec.sample is None:
        if runner == "traced":
            raise ValueError(f"the loss {spec.name!r} has no per-sample form, so it cannot "
                             f"be traced; use runner='eager'")
        return EagerRunner()
    return TracedRunner()


# ---------------------------------------------------------------------------------------
# the traced runner: model and loss over the whole batch with NumPy
# ---------------------------------------------------------------------------------------


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
    from .trace import TraceError, trace, trace_loss

    if loss.sample is None:
        raise TraceError(f"the loss {loss.name!r} has no per-sample form to trace; "
                         f"use the eager runner")
    k = _n_outputs(model, X[0]) if loss.labels == "index" else 1
    targets = [loss.target(t, k) for t in y]

    def sample(x, t):
        return loss.sample(model(x), t)

    reg = (lambda: l2_penalty(params, l2)) if l2 else None
    batch_loss = trace_loss(sample, X, targets, reduction="mean", regularizer=reg,
                            params=params, cache=False)
    predict = trace(model, X, params=params, cache=False)
    return TracedModel(model, params, loss, l2, k, batch_loss, predict)


class TracedRunner:
    """``fit``'s runner that runs model and loss over the whole batch with NumPy.

    It traces ``loss.sample(model(x), target)`` (one sample, the lecture's Value API) and
    the L2 term once per (model, loss, l2), then every ``loss_and_grad`` is one batched
    forward and backward pass that writes ``p.grad``: the same numbers as
    ``EagerRunner`` to about 1e-12 (only the order of summation differs).
    A loss without a per-sample form (a custom function) cannot be traced: use the eager
    runner for it (``fit(runner="auto")`` does so by itself).
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
        acc = accuracy(t.predict(X).tolist(), y)  # before the update, as the eager runner
        return t.batch_loss.backward(X, targets), acc

    def evaluate(self, model, X, y, loss, l2=0.0):
        t, targets = self._prepare(model, X, y, loss, l2)
        return t.batch_loss.value(X, targets), accuracy(t.predict(X).tolist(), y)

    def __repr__(self):
        return "TracedRunner()"

"""Optimizers that work on the traced parameters directly: one call per training step.

``micrograd.optim`` updates Values one by one in Python, which is most of a traced
step's time on a network of a few thousand parameters. These run the same update rules
(``torch.optim``'s, as ``micrograd.optim`` does) on the flat parameter array of a
``BatchLoss``, then write every Value back::

    loss = trace_loss(sample_loss, X, T)
    opt = TracedAdam(loss, lr=5e-3)
    for idx in batches:
        L = opt.step(X[idx], T[idx])     # forward, backward and update, over the batch

While the optimizer is open, its parameters are *bound* (``micrograd.trace.bound``):
their ``.data`` and ``.grad`` read and write the optimizer's arrays, so they are true
whenever read (``.data`` the updated value, ``.grad`` the last batch's gradient, as
after ``zero_grad()`` and ``backward()``), and a change made by hand is seen by the next
step, with no copying per step. ``close()`` (or ``with``, or dropping the optimizer)
gives the Values their numbers back as plain Values. The numbers equal
``micrograd.optim``'s after ``loss.backward`` bit for bit.

Each update is written once (``micrograd.trace.updates``), in a math namespace ``m`` as
the op table's rules are: run here on NumPy arrays, and written as primitive
instructions when a loss is lowered with its optimizer (``micrograd.trace.lower(loss,
optimizer=...)``), so that an executor outside Python trains with the same numbers. NumPy
is imported when an optimizer is made.
"""

from __future__ import annotations

import math
import weakref

from .batch_loss import BatchLoss
from .updates import AdamUpdate, SGDUpdate


class NonFiniteLoss(FloatingPointError):
    """A traced optimizer asked for a finite loss got ``loss`` (inf or nan): nothing
    was changed."""

    def __init__(self, loss):
        super().__init__(f"the loss is {loss}: no grad was written and no update made")
        self.loss = loss


class TracedOptimizer:
    """Base class: the ``BatchLoss``, the update, and the step that reads the Values,
    runs the batch, updates, and writes the Values back."""

    def __init__(self, loss, update):
        if not isinstance(loss, BatchLoss):
            raise TypeError(f"a traced optimizer needs a BatchLoss (from trace_loss), got "
                            f"{type(loss).__name__}")
        if not loss.params:
            raise ValueError("the traced loss has no parameters to optimize")
        self.loss = loss
        self.params = loss.params
        self.update = update()  # the hyperparameters are checked before anything is bound
        self.steps = 0  # number of step() calls so far
        self._store = None
        self.state = {}

    def __getattr__(self, name):
        # the update's hyperparameters (momentum, betas, eps, ...) and the state vectors
        # (buf, m, v) read as the optimizer's own attributes, as before the update had a
        # class of its own
        d = self.__dict__
        if not name.startswith("_") and "update" in d:
            if name in d.get("state", {}):
                return d["state"][name]
            if hasattr(d["update"], name):
                return getattr(d["update"], name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def _open(self):
        """Bind the parameters (last in __init__: nothing is bound if a check fails)."""
        from . import bound
        from .numpy_backend import UPDATE_MATH

        self._math = UPDATE_MATH
        self.state = {k: UPDATE_MATH.zeros(len(self.params))
                      for k in self.update.state_names}
        self._store = bound.bind(self.params)
        self._close = weakref.finalize(self, bound.unbind, self._store)

    @property
    def lr(self):
        """The learning rate; assign to it at any time (schedules)."""
        return self.update.lr

    @lr.setter
    def lr(self, value):
        self.update.lr = value

    def step(self, *batches, require_finite=False):
        """One training step on a batch: returns the loss before the update. With
        ``require_finite``, a loss that is inf or nan raises ``NonFiniteLoss`` before
        anything changes (no grad written, no update, the step not counted)."""
        value = self.backward(*batches, require_finite=require_finite)
        self.apply_grads()
        return value

    def backward(self, *batches, require_finite=False):
        """The first half of ``step``: the loss on a batch (returned) and its gradient,
        written into every parameter's ``.grad``; no update. ``require_finite``: as
        ``step``'s (the grads are left as they were)."""
        store = self._opened()
        value, g = self.loss.loss_and_grads(store.P, *batches)
        if require_finite and not math.isfinite(value):
            raise NonFiniteLoss(value)
        store.G[:] = g
        return value

    def apply_grads(self):
        """The second half of ``step``: the update from the parameters' grads as they
        are (``backward``'s, or any set by hand); one more step counted."""
        store = self._opened()
        self.steps += 1
        P, new = self.update.apply(self._math, store.P, store.G.copy(), self.state,
                                   self.steps, self.lr)
        if P is not store.P:  # (the update works in place; the bound Values read store.P)
            store.P[:] = P
        self.state.update(new)

    def _opened(self):
        if self._store is None:
            raise ValueError(f"this {type(self).__name__} is closed")
        return self._store

    def zero_grad(self):
        """Set every parameter's grad to 0 (``step`` sets them to the batch's gradient)."""
        if self._store is not None:
            self._store.G.fill(0.0)

    def close(self):
        """Give the parameters their numbers back as plain Values (idempotent)."""
        if self._store is not None:
            self._close()
            self._store = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        return f"{type(self).__name__}({len(self.params)} parameters, lr={self.lr})"


class TracedSGD(TracedOptimizer):
    """``SGDUpdate`` on the traced parameter array (see ``SGDUpdate`` for the rule)."""

    def __init__(self, loss, lr=0.01, momentum=0.0, dampening=0.0, nesterov=False,
                 weight_decay=0.0):
        super().__init__(loss, lambda: SGDUpdate(lr, momentum, dampening, nesterov,
                                                 weight_decay))
        self._open()


class TracedAdam(TracedOptimizer):
    """``AdamUpdate`` on the traced parameter array (see ``AdamUpdate`` for the rule)."""

    def __init__(self, loss, lr=0.001, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0):
        super().__init__(loss, lambda: AdamUpdate(lr, betas, eps, weight_decay))
        self._open()

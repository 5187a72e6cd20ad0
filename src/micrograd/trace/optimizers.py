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
"""

from __future__ import annotations

import math
import weakref

import numpy as np

from .. import checks
from . import bound
from .batch_loss import BatchLoss


class TracedOptimizer:
    """Base class: the ``BatchLoss``, the learning rate, and the step that reads the
    Values, runs the batch, updates, and writes the Values back."""

    def __init__(self, loss, lr):
        if not isinstance(loss, BatchLoss):
            raise TypeError(f"a traced optimizer needs a BatchLoss (from trace_loss), got "
                            f"{type(loss).__name__}")
        if not loss.params:
            raise ValueError("the traced loss has no parameters to optimize")
        self.loss = loss
        self.params = loss.params
        self.lr = lr
        self.steps = 0  # number of step() calls so far
        self._store = None

    def _open(self):
        """Bind the parameters (last in __init__: nothing is bound if a check fails)."""
        self._store = bound.bind(self.params)
        self._close = weakref.finalize(self, bound.unbind, self._store)

    @property
    def lr(self):
        """The learning rate; assign to it at any time (schedules)."""
        return self._lr

    @lr.setter
    def lr(self, value):
        self._lr = checks.number(value, "lr", low=0.0)

    def step(self, *batches):
        """One training step on a batch: returns the loss before the update."""
        store = self._store
        if store is None:
            raise ValueError(f"this {type(self).__name__} is closed")
        value, g = self.loss.loss_and_grads(store.P, *batches)
        store.G[:] = g
        self.steps += 1
        self._update(store.P, g)
        return value

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

    def _update(self, P, g):  # pragma: no cover - abstract
        raise NotImplementedError

    def __repr__(self):
        return f"{type(self).__name__}({len(self.params)} parameters, lr={self.lr})"


class TracedSGD(TracedOptimizer):
    """SGD with momentum and weight decay, as ``torch.optim.SGD`` (and
    ``micrograd.optim.SGD``): ``g += wd p; b = g (first step) else mu b + (1 - damp)
    g; p -= lr * (g + mu b if nesterov else b)``."""

    def __init__(self, loss, lr=0.01, momentum=0.0, dampening=0.0, nesterov=False,
                 weight_decay=0.0):
        super().__init__(loss, lr)
        self.momentum = checks.number(momentum, "momentum", low=0.0)
        self.dampening = checks.number(dampening, "dampening", low=0.0)
        self.weight_decay = checks.number(weight_decay, "weight_decay", low=0.0)
        if nesterov and (self.momentum <= 0 or self.dampening != 0):
            raise ValueError("nesterov needs momentum > 0 and dampening = 0")
        self.nesterov = bool(nesterov)
        self.buf = None
        self._open()

    def _update(self, P, g):
        if self.weight_decay:
            g = g + self.weight_decay * P
        if self.momentum:
            if self.buf is None:
                self.buf = g.copy()
            else:
                self.buf *= self.momentum
                self.buf += (1.0 - self.dampening) * g
            g = g + self.momentum * self.buf if self.nesterov else self.buf
        P -= self.lr * g


class TracedAdam(TracedOptimizer):
    """Adam (Kingma & Ba, ICLR 2015) in the form of ``torch.optim.Adam`` and
    ``micrograd.optim.Adam``: eps outside the square root, ``weight_decay`` an L2 term
    added to the gradient::

        m = b1 m + (1 - b1) g ;  v = b2 v + (1 - b2) g^2
        p = p - lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)
    """

    def __init__(self, loss, lr=0.001, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0):
        super().__init__(loss, lr)
        if not isinstance(betas, (tuple, list)) or len(betas) != 2:
            raise TypeError(f"betas must be a pair (b1, b2), got {betas!r}")
        self.betas = (checks.number(betas[0], "beta1", low=0.0, high=1.0, high_open=True),
                      checks.number(betas[1], "beta2", low=0.0, high=1.0, high_open=True))
        self.eps = checks.number(eps, "eps", low=0.0, low_open=True)
        if self.eps == 0.0:
            raise ValueError("eps must be > 0 (it keeps a zero gradient's step finite)")
        self.weight_decay = checks.number(weight_decay, "weight_decay", low=0.0)
        self.m = np.zeros(len(self.params))
        self.v = np.zeros(len(self.params))
        self._open()

    def _update(self, P, g):
        b1, b2 = self.betas
        t = self.steps
        if self.weight_decay:
            g = g + self.weight_decay * P
        m, v = self.m, self.v
        m *= b1
        m += (1.0 - b1) * g
        v *= b2
        v += (1.0 - b2) * g * g  # the order of micrograd.optim: bitwise the same
        denom = np.sqrt(v)
        denom /= math.sqrt(1.0 - b2 ** t)
        denom += self.eps
        P -= (self.lr / (1.0 - b1 ** t)) * m / denom

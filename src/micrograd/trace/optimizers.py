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

Each update is written once (``SGDUpdate``, ``AdamUpdate``), in a math namespace ``m``
as the op table's rules are: on NumPy arrays here, and as primitive instructions when a
loss is lowered with its optimizer (``micrograd.trace.lower(loss, optimizer=...)``), so
that a runner outside Python trains with the same numbers.
"""

from __future__ import annotations

import weakref

from .. import checks
from . import bound
from .batch_loss import BatchLoss


class SGDUpdate:
    """SGD with momentum and weight decay, as ``torch.optim.SGD`` (and
    ``micrograd.optim.SGD``): ``g += wd p; b = g (first step) else mu b + (1 - damp)
    g; p -= lr * (g + mu b if nesterov else b)``."""

    name = "sgd"

    def __init__(self, lr=0.01, momentum=0.0, dampening=0.0, nesterov=False,
                 weight_decay=0.0):
        self.lr = lr
        self.momentum = checks.number(momentum, "momentum", low=0.0)
        self.dampening = checks.number(dampening, "dampening", low=0.0)
        self.weight_decay = checks.number(weight_decay, "weight_decay", low=0.0)
        if nesterov and (self.momentum <= 0 or self.dampening != 0):
            raise ValueError("nesterov needs momentum > 0 and dampening = 0")
        self.nesterov = bool(nesterov)

    lr = property(lambda self: self._lr, lambda self, value: setattr(
        self, "_lr", checks.number(value, "lr", low=0.0)), doc="the learning rate")

    @property
    def state_names(self):
        """The per-parameter state: the momentum buffer, if any."""
        return ("buf",) if self.momentum else ()

    def apply(self, m, p, g, state, t, lr):
        """The update at step ``t`` (1 on the first): returns (new p, new state).
        Written so that on arrays it updates ``p`` and the state in place."""
        if self.weight_decay:
            g = g + self.weight_decay * p
        new = {}
        if self.momentum:
            b = state["buf"]
            b *= self.momentum
            b += (1.0 - self.dampening) * g
            b = m.where(m.eq(t, 1.0), g, b)  # the first step's buffer is g itself
            new["buf"] = b
            g = g + self.momentum * b if self.nesterov else b
        p -= lr * g
        return p, new

    def options(self):
        return {"lr": self.lr, "momentum": self.momentum, "dampening": self.dampening,
                "nesterov": self.nesterov, "weight_decay": self.weight_decay}


class AdamUpdate:
    """Adam (Kingma & Ba, ICLR 2015) in the form of ``torch.optim.Adam`` and
    ``micrograd.optim.Adam``: eps outside the square root, ``weight_decay`` an L2 term
    added to the gradient::

        m = b1 m + (1 - b1) g ;  v = b2 v + (1 - b2) g^2
        p = p - lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)
    """

    name = "adam"
    state_names = ("m", "v")

    def __init__(self, lr=0.001, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0):
        self.lr = lr
        if not isinstance(betas, (tuple, list)) or len(betas) != 2:
            raise TypeError(f"betas must be a pair (b1, b2), got {betas!r}")
        self.betas = (checks.number(betas[0], "beta1", low=0.0, high=1.0, high_open=True),
                      checks.number(betas[1], "beta2", low=0.0, high=1.0, high_open=True))
        self.eps = checks.number(eps, "eps", low=0.0, low_open=True)
        if self.eps == 0.0:
            raise ValueError("eps must be > 0 (it keeps a zero gradient's step finite)")
        self.weight_decay = checks.number(weight_decay, "weight_decay", low=0.0)

    lr = SGDUpdate.lr

    def apply(self, m, p, g, state, t, lr):
        """The update at step ``t`` (1 on the first), in the operation order of
        ``micrograd.optim.Adam`` (so bitwise the same); returns (new p, new state)."""
        b1, b2 = self.betas
        if self.weight_decay:
            g = g + self.weight_decay * p
        mom, vel = state["m"], state["v"]
        mom *= b1
        mom += (1.0 - b1) * g
        vel *= b2
        vel += (1.0 - b2) * g * g
        denom = m.sqrt(vel)
        denom /= m.sqrt(1.0 - m.pow(b2, t))
        denom += self.eps
        p -= (lr / (1.0 - m.pow(b1, t))) * mom / denom
        return p, {"m": mom, "v": vel}

    def options(self):
        return {"lr": self.lr, "betas": list(self.betas), "eps": self.eps,
                "weight_decay": self.weight_decay}


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

    def _open(self):
        """Bind the parameters (last in __init__: nothing is bound if a check fails)."""
        import numpy as np

        from .numpy_backend import UPDATE_MATH

        self._math = UPDATE_MATH
        self.state = {k: np.zeros(len(self.params)) for k in self.update.state_names}
        self._store = bound.bind(self.params)
        self._close = weakref.finalize(self, bound.unbind, self._store)

    @property
    def lr(self):
        """The learning rate; assign to it at any time (schedules)."""
        return self.update.lr

    @lr.setter
    def lr(self, value):
        self.update.lr = value

    def step(self, *batches):
        """One training step on a batch: returns the loss before the update."""
        store = self._store
        if store is None:
            raise ValueError(f"this {type(self).__name__} is closed")
        value, g = self.loss.loss_and_grads(store.P, *batches)
        store.G[:] = g
        self.steps += 1
        P, new = self.update.apply(self._math, store.P, g, self.state, self.steps, self.lr)
        if P is not store.P:  # (the update works in place; the bound Values read store.P)
            store.P[:] = P
        self.state.update(new)
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

"""The optimizers' updates, each written once in a math namespace ``m``.

``SGDUpdate`` and ``AdamUpdate`` are ``torch.optim``'s rules in the operation order of
``micrograd.optim`` (so the numbers are the same, bit for bit). ``apply(m, p, g, state,
t, lr)`` is written with ``+ - * /`` and ``m.sqrt``, ``m.pow``, ``m.where``, ``m.eq``, as
an op's derivative rule is: the traced optimizers (``micrograd.trace.optimizers``) run
it on NumPy arrays, updating them in place, and the lowering (``micrograd.trace.lower``)
runs it in its recording namespace, which writes it as primitive instructions. Standard
library only.
"""

from __future__ import annotations

from .. import checks


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
        broken = checks.nesterov_rule(self.momentum, nesterov, self.dampening)
        if broken:
            raise ValueError(broken[1])
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

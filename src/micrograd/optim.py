"""Optimizers with PyTorch's shape, sorted in order of increasing complexity, and schedules.

    >>> from micrograd.nn import MLP
    >>> from micrograd.optim import SGD, linear_schedule
    >>> model = MLP(2, [4, 1], seed=0)
    >>> opt = SGD(model.parameters(), lr=0.1, momentum=0.9)
    >>> loss = sum(p * p for p in model.parameters())
    >>> opt.zero_grad(); loss.backward(); opt.step()
    >>> opt.lr = 0.05                       # change the learning rate at any time
    >>> lr_at = linear_schedule(1.0, 0.1, 100)
    >>> lr_at(0), lr_at(50), lr_at(100)     # micrograd's demo: 1.0 - 0.9*k/100
    (1.0, 0.55, 0.1)

An optimizer holds the list of parameters (``Value`` leaves) and per-parameter state
(plain floats). ``step()`` reads each ``p.grad`` and updates ``p.data`` in place; it
builds no graph. The update rules follow ``torch.optim`` line for line (same
defaults, same order of operations), and the tests check them step for step against it.

A step applies whole or not at all: it reads every grad, computes every new value and
state, and only then writes them, so an error (a grad that is not a number) leaves
every parameter and every state as it was. A grad that is a ``Value`` (left by
``backward(create_graph=True)``) is read as its number, as ``torch.optim`` reads a
gradient that has a graph; ``p.data`` always stays a float.

A schedule is a plain function ``k -> lr`` of the step number; the training loop sets
``opt.lr = schedule(k)`` before step ``k``.
"""

from __future__ import annotations

import math
from numbers import Real

from . import checks
from .engine import Value

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "OPTIMIZERS", "make_optimizer",
           "momentum_rule", "constant_schedule", "linear_schedule", "step_schedule",
           "cosine_schedule", "SCHEDULES"]


def _data_float(p):
    """``p.data`` as a float (a parameter's data is a float; anything else is refused)."""
    x = p.data
    if type(x) is float:
        return x
    if isinstance(x, bool) or not isinstance(x, Real):
        raise TypeError(f"a parameter's data must be a number, got {type(x).__name__}")
    return checks.as_float(x)


class Optimizer:
    """Base class: keeps the parameters and the learning rate; ``zero_grad()``.

    Every hyperparameter is checked whenever it is set, in the constructor or later
    (``opt.lr = 0.05`` between steps is fine; ``opt.eps = 0`` or ``opt.momentum = -5``
    is refused with the constructor's message and leaves the old value)."""

    #: the learning rate; assign to it at any time (schedules, the web playground)
    lr = checks.Number(low=0.0)

    def __init__(self, params, lr):
        params = list(params)
        if not params:
            raise ValueError("optimizer got an empty parameter list")
        for i, p in enumerate(params):
            if not hasattr(p, "data") or not hasattr(p, "grad"):
                raise TypeError(f"parameter {i} is a {type(p).__name__}, not a Value")
        if len({id(p) for p in params}) != len(params):
            raise ValueError("optimizer got the same parameter twice")
        self.params = params
        self.lr = lr
        self.steps = 0  # number of step() calls so far

    def zero_grad(self):
        """Set every parameter's grad to 0 (grads accumulate across backward calls)."""
        for p in self.params:
            p.grad = 0.0

    def _grads(self):
        """Every parameter's grad as a float, read before anything is written; a Value
        grad (from ``backward(create_graph=True)``) gives its number; anything else is
        refused with a TypeError naming the parameter and the type."""
        out = []
        for i, p in enumerate(self.params):
            g = p.grad
            if type(g) is not float:
                if isinstance(g, Value):  # a Value: its number
                    g = g.data
                if isinstance(g, bool) or not isinstance(g, Real):
                    raise TypeError(f"parameter {i} has a grad of type {type(g).__name__} "
                                    f"({g!r:.40}); an optimizer needs a number")
                g = checks.as_float(g)
            out.append(g)
        return out

    def _write(self, values):
        """Assign the new ``p.data`` of every parameter (after all were computed)."""
        for p, v in zip(self.params, values):
            p.data = v

    def step(self):  # pragma: no cover - abstract
        raise NotImplementedError

    def __repr__(self):
        opts = ", ".join(f"{k}={v}" for k, v in self._options().items())
        return f"{type(self).__name__}({len(self.params)} parameters, {opts})"

    def _options(self):
        return {"lr": self.lr}


def _nesterov_rule(opt, name, value):
    """SGD's settings checked by :func:`momentum_rule` with ``value`` in place of the
    setting ``name`` (the message says what the change would leave)."""
    now = {"momentum": opt.__dict__.get("_momentum", 0.0),
           "dampening": opt.__dict__.get("_dampening", 0.0),
           "nesterov": opt.__dict__.get("_nesterov", False), name: value}
    broken = momentum_rule(now["momentum"], now["nesterov"], now["dampening"])
    if broken:
        raise ValueError(f"{broken[1]} (setting {name} to {value!r} would leave "
                         f"momentum={now['momentum']!r}, dampening={now['dampening']!r})")


class SGD(Optimizer):
    """Stochastic gradient descent with optional momentum, Nesterov and weight decay.

    Reference: ``torch.optim.SGD`` (Sutskever et al., "On the importance of
    initialization and momentum in deep learning", ICML 2013, for the momentum form):

        g = grad + weight_decay * p
        b = g (first step), else momentum * b + (1 - dampening) * g
        g = g + momentum * b  (nesterov)   or   g = b
        p = p - lr * g

    With the defaults it is micrograd's ``p.data -= lr * p.grad``.
    """

    momentum = checks.Number(low=0.0, rule=_nesterov_rule)
    dampening = checks.Number(low=0.0, rule=_nesterov_rule)
    weight_decay = checks.Number(low=0.0)

    def __init__(self, params, lr=0.01, momentum=0.0, dampening=0.0, nesterov=False,
                 weight_decay=0.0):
        super().__init__(params, lr)
        self._nesterov = False
        self.momentum = momentum
        self.dampening = dampening
        self.weight_decay = weight_decay
        self.nesterov = nesterov
        self.buf = [None] * len(self.params)

    @property
    def nesterov(self):
        """Nesterov momentum: needs momentum > 0 and dampening = 0 (checked when set)."""
        return self._nesterov

    @nesterov.setter
    def nesterov(self, value):
        _nesterov_rule(self, "nesterov", bool(value))
        self._nesterov = bool(value)

    def step(self):
        lr, mom, damp, wd = self.lr, self.momentum, self.dampening, self.weight_decay
        grads = self._grads()
        buf = list(self.buf)
        new = []
        for i, (p, g) in enumerate(zip(self.params, grads)):
            x = _data_float(p)
            if wd != 0.0:
                g = g + wd * x
            if mom != 0.0:
                b = buf[i]
                b = g if b is None else mom * b + (1.0 - damp) * g
                buf[i] = b
                g = g + mom * b if self.nesterov else b
            new.append(x - lr * g)
        self._write(new)  # all computed: now write, so a step never half-applies
        self.buf = buf
        self.steps += 1

    def _options(self):
        return {"lr": self.lr, "momentum": self.momentum, "nesterov": self.nesterov,
                "weight_decay": self.weight_decay}


class Adam(Optimizer):
    """Adam: per-parameter step sizes from running moments of the gradient.

    Reference: Kingma & Ba, "Adam: A Method for Stochastic Optimization", ICLR 2015,
    in the form of ``torch.optim.Adam`` (eps outside the square root; ``weight_decay``
    is an L2 term added to the gradient; ``amsgrad`` from Reddi et al., ICLR 2018):

        g = grad + weight_decay * p
        m = b1 m + (1 - b1) g ;  v = b2 v + (1 - b2) g^2
        p = p - lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)
    """

    _decoupled = False
    # eps > 0: with eps = 0 a zero gradient divides 0 by 0
    eps = checks.Number(low=0.0, low_open=True)
    weight_decay = checks.Number(low=0.0)

    def __init__(self, params, lr=0.001, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
                 amsgrad=False):
        super().__init__(params, lr)
        self.betas = betas
        self.eps = eps
        self.weight_decay = weight_decay
        self.amsgrad = bool(amsgrad)
        n = len(self.params)
        self.m = [0.0] * n
        self.v = [0.0] * n
        self.vmax = [0.0] * n

    @property
    def betas(self):
        """``(beta1, beta2)``, each in [0, 1) (at 1 the bias correction divides by 0),
        checked when set."""
        return self._betas

    @betas.setter
    def betas(self, betas):
        if not isinstance(betas, (tuple, list)) or len(betas) != 2:
            raise TypeError(f"betas must be a pair (b1, b2), got {checks.show(betas)}")
        self._betas = (checks.number(betas[0], "beta1", 0.0, False, 1.0, True),
                       checks.number(betas[1], "beta2", 0.0, False, 1.0, True))

    def step(self):
        t = self.steps + 1
        lr, eps, wd = self.lr, self.eps, self.weight_decay
        b1, b2 = self.betas
        bc1 = 1.0 - b1 ** t
        bc2_sqrt = math.sqrt(1.0 - b2 ** t)
        step_size = lr / bc1
        grads = self._grads()
        m, v, vmax = list(self.m), list(self.v), list(self.vmax)
        new = []
        for i, (p, g) in enumerate(zip(self.params, grads)):
            x = _data_float(p)
            if wd != 0.0:
                if self._decoupled:
                    x *= 1.0 - lr * wd
                else:
                    g = g + wd * x
            m[i] = b1 * m[i] + (1.0 - b1) * g
            v[i] = b2 * v[i] + (1.0 - b2) * g * g
            if self.amsgrad:
                vmax[i] = max(vmax[i], v[i])
                denom = math.sqrt(vmax[i]) / bc2_sqrt + eps
            else:
                denom = math.sqrt(v[i]) / bc2_sqrt + eps
            new.append(x - step_size * m[i] / denom)
        self._write(new)  # all computed: now write, so a step never half-applies
        self.m, self.v, self.vmax = m, v, vmax
        self.steps = t

    def _options(self):
        return {"lr": self.lr, "betas": self.betas, "eps": self.eps,
                "weight_decay": self.weight_decay, "amsgrad": self.amsgrad}


class AdamW(Adam):
    """Adam with decoupled weight decay: ``p = p * (1 - lr * weight_decay)`` before the
    Adam update, instead of an L2 term in the gradient.

    Reference: Loshchilov & Hutter, "Decoupled Weight Decay Regularization", ICLR 2019,
    in the form of ``torch.optim.AdamW`` (default ``weight_decay=0.01``).
    """

    _decoupled = True

    def __init__(self, params, lr=0.001, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01,
                 amsgrad=False):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad)


#: name -> class, for the command line
OPTIMIZERS = {"sgd": SGD, "adam": Adam, "adamw": AdamW}


def momentum_rule(momentum=0.0, nesterov=False, dampening=0.0, optimizer="sgd",
                  name=None):
    """The rule of SGD's momentum settings, as ``torch.optim.SGD`` keeps it: momentum and
    Nesterov belong to SGD (the names in ``OPTIMIZERS`` of SGD and its subclasses), and
    Nesterov needs momentum > 0 and dampening = 0. Every surface asks this one rule: an
    ``SGD`` whenever a setting changes, the experiment's check (the Playground) and the
    command line.

    Returns None, or ``(setting, message)`` for the first setting that breaks it;
    ``name(setting)`` is how the message names a setting (default: its keyword here, as
    the experiment's fields name it; the command line gives its options, ``--momentum``).

        >>> momentum_rule(nesterov=True)
        ('nesterov', 'nesterov needs momentum > 0')
    """
    say = name or str
    sgd = [key for key, cls in OPTIMIZERS.items() if issubclass(cls, SGD)]
    if optimizer not in sgd:
        for setting, on in (("momentum", momentum != 0), ("nesterov", bool(nesterov))):
            if on:
                return setting, (f"{say(setting)} applies to {say('optimizer')} "
                                 f"{' or '.join(sgd)} only, not {optimizer}")
    return checks.nesterov_rule(momentum, nesterov, dampening, say)


def make_optimizer(name, params, lr, **kwargs):
    """``make_optimizer("adam", model.parameters(), lr=0.01)``: an optimizer by name."""
    if name not in OPTIMIZERS:
        raise ValueError(f"unknown optimizer {name!r}; choose one of "
                         f"{', '.join(OPTIMIZERS)}")
    return OPTIMIZERS[name](params, lr=lr, **kwargs)


# ---------------------------------------------------------------------------------------
# Learning-rate schedules: functions of the step number k = 0, 1, 2, ...
# ---------------------------------------------------------------------------------------


def _check_steps(steps, name="steps"):
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
        raise ValueError(f"{name} must be a positive int, got {steps!r}")
    return steps


def constant_schedule(lr):
    """``k -> lr`` for every k."""
    lr = checks.number(lr, "lr", low=0.0)
    return lambda k: lr


def linear_schedule(start, end, steps):
    """Linear from ``start`` at k = 0 to ``end`` at k = ``steps``, then ``end``.

    ``linear_schedule(1.0, 0.1, 100)`` is micrograd's demo, ``lr = 1.0 - 0.9*k/100``
    (``torch.optim.lr_scheduler.LinearLR`` with factors start/base and end/base).
    """
    start, end = checks.number(start, "start", low=0.0), checks.number(end, "end", low=0.0)
    steps = _check_steps(steps)

    def lr_at(k):
        if k >= steps:
            return end
        return start - (start - end) * k / steps

    return lr_at


def step_schedule(lr, step_size, gamma=0.1):
    """``lr * gamma ** (k // step_size)`` (``torch.optim.lr_scheduler.StepLR``)."""
    lr = checks.number(lr, "lr", low=0.0)
    step_size = _check_steps(step_size, "step_size")
    gamma = checks.number(gamma, "gamma", low=0.0)
    return lambda k: lr * gamma ** (k // step_size)


def cosine_schedule(lr, steps, min_lr=0.0):
    """Half a cosine from ``lr`` at k = 0 to ``min_lr`` at k = ``steps``, then ``min_lr``
    (Loshchilov & Hutter, SGDR, ICLR 2017, without restarts;
    ``torch.optim.lr_scheduler.CosineAnnealingLR`` with ``T_max=steps``)."""
    lr, min_lr = checks.number(lr, "lr", low=0.0), checks.number(min_lr, "min_lr", low=0.0)
    steps = _check_steps(steps)

    def lr_at(k):
        k = min(k, steps)
        return min_lr + (lr - min_lr) * (1.0 + math.cos(math.pi * k / steps)) / 2.0

    return lr_at


#: name -> factory(lr, steps) used by the command line: "linear" decays to lr/10 as in
#: micrograd's demo, "step" divides by 10 at each third, "cosine" anneals to 0
SCHEDULES = {
    "constant": lambda lr, steps: constant_schedule(lr),
    "linear": lambda lr, steps: linear_schedule(lr, lr * 0.1, steps),
    "step": lambda lr, steps: step_schedule(lr, max(1, steps // 3), 0.1),
    "cosine": lambda lr, steps: cosine_schedule(lr, steps),
}

"""A small neural-network library on top of the engine: Neuron, Layer, MLP.

    >>> from micrograd.nn import MLP
    >>> model = MLP(3, [4, 4, 1], seed=0)          # tanh everywhere, as in the lecture
    >>> out = model([2.0, 3.0, -1.0])               # a single Value for one output
    >>> len(model.parameters())
    41

Activations: ``"tanh"`` (the lecture: every layer), ``"relu"`` (micrograd's repository,
usually with ``output_activation="linear"``), ``"sigmoid"``, ``"softplus"``, ``"linear"``.

Initialisation follows the lecture: weights and biases drawn from uniform(-1, 1)
(``bias_init="zero"`` for micrograd's repository). Randomness comes from ``seed`` (an int)
or ``rng`` (a ``random.Random``); with neither, from Python's global ``random`` module, so
``random.seed(1337)`` before building a model reproduces it too.
"""

from __future__ import annotations

import random as _random
from numbers import Real

from .engine import Value, _affine

__all__ = ["Module", "Neuron", "Layer", "MLP", "ACTIVATIONS"]

#: name -> function of one Value
ACTIVATIONS = {
    "tanh": Value.tanh,
    "relu": Value.relu,
    "sigmoid": Value.sigmoid,
    "softplus": Value.softplus,
    "linear": None,
}

_BIAS_INITS = ("uniform", "zero")


def _check_activation(name):
    if not isinstance(name, str) or name not in ACTIVATIONS:
        raise ValueError(f"unknown activation {name!r}; choose one of "
                         f"{', '.join(ACTIVATIONS)}")
    return name


def _check_size(n, what):
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"{what} must be an int, got {type(n).__name__}: {n!r}")
    if n < 1:
        raise ValueError(f"{what} must be at least 1, got {n}")
    return n


def _make_rng(seed, rng):
    if rng is not None and seed is not None:
        raise ValueError("give seed or rng, not both")
    if rng is not None:
        if not hasattr(rng, "uniform"):
            raise TypeError(f"rng must be a random.Random, got {type(rng).__name__}")
        return rng
    if seed is not None:
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise TypeError(f"seed must be an int, got {type(seed).__name__}: {seed!r}")
        return _random.Random(seed)
    return _random  # the global generator, as the lecture uses


class Module:
    """Base class: anything with parameters. ``zero_grad()`` clears their grads."""

    def parameters(self):
        return []

    def zero_grad(self):
        for p in self.parameters():
            p.grad = 0.0

    def num_parameters(self):
        return len(self.parameters())


class Neuron(Module):
    """act(w . x + b) for one output."""

    def __init__(self, nin, activation="tanh", *, nonlin=None, seed=None, rng=None,
                 bias_init="uniform"):
        _check_size(nin, "nin")
        if nonlin is not None:  # micrograd's repository: Neuron(nin, nonlin=False)
            activation = "relu" if nonlin else "linear"
        self.activation = _check_activation(activation)
        if bias_init not in _BIAS_INITS:
            raise ValueError(f"bias_init must be one of {_BIAS_INITS}, got {bias_init!r}")
        rng = _make_rng(seed, rng)
        self.w = [Value(rng.uniform(-1, 1)) for _ in range(nin)]
        self.b = Value(rng.uniform(-1, 1) if bias_init == "uniform" else 0.0)
        self._act = ACTIVATIONS[activation]

    @property
    def nonlin(self):
        return self.activation != "linear"

    def __call__(self, x):
        if len(x) != len(self.w):
            raise ValueError(f"Neuron expects {len(self.w)} inputs, got {len(x)}")
        # the lecture's sum((wi*xi for wi, xi in zip(self.w, x)), self.b): the same graph
        # b + w0*x0 + w1*x1 + ..., node for node, built by the engine in one call
        act = _affine(self.b, self.w, x)
        return act if self._act is None else self._act(act)

    def parameters(self):
        return self.w + [self.b]

    def __repr__(self):
        return f"{self.activation.capitalize()}Neuron({len(self.w)})"


class Layer(Module):
    """``nout`` neurons that each see the same ``nin`` inputs."""

    def __init__(self, nin, nout, activation="tanh", **kwargs):
        _check_size(nout, "nout")
        rng = _make_rng(kwargs.pop("seed", None), kwargs.pop("rng", None))
        self.neurons = [Neuron(nin, activation, rng=rng, **kwargs) for _ in range(nout)]

    def __call__(self, x):
        outs = [n(x) for n in self.neurons]
        return outs[0] if len(outs) == 1 else outs

    def parameters(self):
        return [p for n in self.neurons for p in n.parameters()]

    def __repr__(self):
        return f"Layer of [{', '.join(str(n) for n in self.neurons)}]"


class MLP(Module):
    """A multi-layer perceptron: ``MLP(3, [4, 4, 1])`` is 3 inputs, two hidden layers of
    4, one output. Hidden layers use ``activation``; the last layer uses
    ``output_activation`` (default: the same as ``activation``, as in the lecture)."""

    def __init__(self, nin, nouts, activation="tanh", output_activation=None, *,
                 seed=None, rng=None, bias_init="uniform", nonlin=None):
        _check_size(nin, "nin")
        if isinstance(nouts, int) or not hasattr(nouts, "__iter__"):
            raise TypeError(f"nouts must be a list of layer sizes such as [4, 4, 1], "
                            f"got {type(nouts).__name__}: {nouts!r}")
        nouts = [_check_size(n, "layer size") for n in nouts]
        if not nouts:
            raise ValueError("nouts must name at least one layer")
        if nonlin is not None:  # micrograd's repository style: relu hidden, linear last
            activation, output_activation = ("relu", "linear") if nonlin else ("linear",
                                                                               "linear")
        _check_activation(activation)
        output_activation = _check_activation(output_activation or activation)
        rng = _make_rng(seed, rng)
        sizes = [nin] + nouts
        self.nin = nin
        self.nouts = nouts
        self.activation = activation
        self.output_activation = output_activation
        self.bias_init = bias_init
        self.layers = [
            Layer(sizes[i], sizes[i + 1],
                  output_activation if i == len(nouts) - 1 else activation,
                  rng=rng, bias_init=bias_init)
            for i in range(len(nouts))
        ]

    def __call__(self, x):
        for layer in self.layers:
            # a one-neuron layer returns a bare Value (the lecture's behaviour); the next
            # layer still takes a sequence (a list, a tuple, a NumPy row...)
            x = layer([x] if isinstance(x, (Value, Real)) else x)
        return x

    def parameters(self):
        return [p for layer in self.layers for p in layer.parameters()]

    def config(self):
        """The constructor arguments that rebuild this architecture (for saving)."""
        return {"nin": self.nin, "nouts": list(self.nouts), "activation": self.activation,
                "output_activation": self.output_activation, "bias_init": self.bias_init}

    def __repr__(self):
        return f"MLP of [{', '.join(str(layer) for layer in self.layers)}]"

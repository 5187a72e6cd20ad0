"""A small neural-network library on top of the engine: Neuron, Layer, MLP.

By default these behave as micrograd's published ``micrograd.nn``, so code written for it
runs here with the same numbers: relu in every layer but the last, a linear last layer,
weights drawn by ``random.uniform(-1, 1)`` from Python's global ``random`` (weight after
weight, neuron after neuron, layer after layer), and biases that start at 0.

    >>> import random
    >>> from micrograd.nn import MLP
    >>> random.seed(1337)
    >>> model = MLP(2, [16, 16, 1])                # micrograd's demo network
    >>> len(model.parameters())
    337
    >>> MLP(2, [2, 1])
    MLP of [Layer of [ReLUNeuron(2), ReLUNeuron(2)], Layer of [LinearNeuron(2)]]

The lecture's network is one keyword away: ``style="lecture"`` gives tanh in every layer
and biases drawn from uniform(-1, 1) too (after each neuron's weights).

    >>> MLP(3, [2, 1], style="lecture", seed=0)
    MLP of [Layer of [TanhNeuron(3), TanhNeuron(3)], Layer of [TanhNeuron(2)]]

Any part can be set on its own: ``activation`` (hidden layers), ``output_activation``
(last layer), ``bias_init`` (``"zero"`` or ``"uniform"``); a keyword given wins over the
style. Activations: ``"tanh"``, ``"relu"``, ``"sigmoid"``, ``"softplus"``, ``"linear"``.
Randomness comes from ``seed`` (an int) or ``rng`` (a ``random.Random``); with neither,
from Python's global ``random`` module, so ``random.seed(1337)`` before building a model
reproduces it, as in micrograd's demo.
"""

from __future__ import annotations

import random as _random
from numbers import Real

from . import checks
from .engine import Value, affine

__all__ = ["Module", "Neuron", "Layer", "MLP", "ACTIVATIONS", "STYLES"]

#: name -> function of one Value
ACTIVATIONS = {
    "tanh": Value.tanh,
    "relu": Value.relu,
    "sigmoid": Value.sigmoid,
    "softplus": Value.softplus,
    "linear": None,
}

#: how a neuron names itself in reprs: micrograd's ReLUNeuron and LinearNeuron
_REPR_NAMES = {"tanh": "Tanh", "relu": "ReLU", "sigmoid": "Sigmoid", "softplus": "Softplus",
               "linear": "Linear"}

#: style -> (hidden activation, output activation or None for "the same", bias init)
STYLES = {
    "micrograd": ("relu", "linear", "zero"),  # micrograd's published nn.py
    "lecture": ("tanh", None, "uniform"),     # the network built in the lecture
}

_BIAS_INITS = ("uniform", "zero")


def _check_activation(name):
    if not isinstance(name, str) or name not in ACTIVATIONS:
        raise ValueError(f"unknown activation {name!r}; choose one of "
                         f"{', '.join(ACTIVATIONS)}")
    return name


def _check_style(style):
    if not isinstance(style, str) or style not in STYLES:
        raise ValueError(f"unknown style {style!r}; choose one of {', '.join(STYLES)}")
    return STYLES[style]


def _check_bias_init(bias_init):
    if not isinstance(bias_init, str) or bias_init not in _BIAS_INITS:
        raise ValueError(f"bias_init must be one of {_BIAS_INITS}, got {bias_init!r}")
    return bias_init


def _check_nonlin(nonlin, who):
    # micrograd passes a bool (nonlin=i != len(nouts) - 1); 0 and 1 work there too
    if isinstance(nonlin, str):
        raise TypeError(f"{who}'s nonlin is True or False as in micrograd (relu or linear), "
                        f"got the string {nonlin!r}; name an activation with "
                        f"activation={nonlin!r}")
    if not isinstance(nonlin, int) and type(nonlin).__name__ != "bool_":
        raise TypeError(f"{who}'s nonlin must be True or False, got "
                        f"{type(nonlin).__name__}: {nonlin!r}")
    return bool(nonlin)


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
    return _random  # the global generator, as micrograd and the lecture use


class Module:
    """Base class: anything with parameters. ``zero_grad()`` clears their grads."""

    def parameters(self):
        return []

    def zero_grad(self):
        for p in self.parameters():
            p.grad = 0.0  # micrograd writes the int 0: equal, and grads stay floats here

    def num_parameters(self):
        return len(self.parameters())


class Neuron(Module):
    """act(w . x + b) for one output.

    ``Neuron(nin)`` is micrograd's: relu, weights from uniform(-1, 1), bias 0;
    ``Neuron(nin, nonlin=False)`` is linear. ``activation=`` names any other activation;
    ``style="lecture"`` gives the lecture's tanh neuron with a random bias.
    """

    def __init__(self, nin, nonlin=True, *, activation=None, style="micrograd",
                 bias_init=None, seed=None, rng=None):
        checks.integer(nin, "nin", low=1)
        nonlin = _check_nonlin(nonlin, "Neuron")
        hidden, _, style_bias = _check_style(style)
        if activation is None:
            activation = hidden if nonlin else "linear"
        elif not nonlin and activation != "linear":
            raise ValueError(f"nonlin=False means a linear neuron, but activation="
                             f"{activation!r} was given too")
        self.activation = _check_activation(activation)
        bias_init = _check_bias_init(style_bias if bias_init is None else bias_init)
        rng = _make_rng(seed, rng)
        # the draws in micrograd's order: every weight, then (lecture) the bias
        self.w = [Value(rng.uniform(-1, 1)) for _ in range(nin)]
        self.b = Value(rng.uniform(-1, 1) if bias_init == "uniform" else 0.0)
        self._act = ACTIVATIONS[activation]

    @property
    def nonlin(self):
        """micrograd's flag: True unless the neuron is linear."""
        return self.activation != "linear"

    @nonlin.setter
    def nonlin(self, value):
        value = _check_nonlin(value, "Neuron")
        if value != self.nonlin:
            self.activation = "relu" if value else "linear"
            self._act = ACTIVATIONS[self.activation]

    def __call__(self, x):
        if len(x) != len(self.w):
            raise ValueError(f"Neuron expects {len(self.w)} inputs, got {len(x)}")
        # the lecture's sum((wi*xi for wi, xi in zip(self.w, x)), self.b): the same graph
        # b + w0*x0 + w1*x1 + ..., node for node, built by the engine in one call
        act = affine(self.b, self.w, x)
        return act if self._act is None else self._act(act)

    def parameters(self):
        return self.w + [self.b]

    def __repr__(self):
        return f"{_REPR_NAMES[self.activation]}Neuron({len(self.w)})"


class Layer(Module):
    """``nout`` neurons that each see the same ``nin`` inputs; ``kwargs`` go to every
    ``Neuron`` (``nonlin``, ``activation``, ``style``, ``bias_init``), and ``seed`` or
    ``rng`` to the one generator they share."""

    def __init__(self, nin, nout, **kwargs):
        checks.integer(nout, "nout", low=1)
        rng = _make_rng(kwargs.pop("seed", None), kwargs.pop("rng", None))
        self.neurons = [Neuron(nin, rng=rng, **kwargs) for _ in range(nout)]

    def __call__(self, x):
        outs = [n(x) for n in self.neurons]
        return outs[0] if len(outs) == 1 else outs

    def parameters(self):
        return [p for n in self.neurons for p in n.parameters()]

    def __repr__(self):
        return f"Layer of [{', '.join(str(n) for n in self.neurons)}]"


class MLP(Module):
    """A multi-layer perceptron: ``MLP(2, [16, 16, 1])`` is 2 inputs, two hidden layers
    of 16, one output.

    The default ``style="micrograd"`` is micrograd's published network: ``activation``
    (relu) in every layer but the last, a linear last layer, zero biases.
    ``style="lecture"`` is the lecture's: ``activation`` (tanh) in every layer, the last
    one included, and random biases. ``output_activation`` and ``bias_init`` override the
    style's choice; ``nonlin=True`` (relu, then linear) and ``nonlin=False`` (all linear)
    are micrograd's flag.
    """

    def __init__(self, nin, nouts, activation=None, output_activation=None, *,
                 style="micrograd", bias_init=None, seed=None, rng=None, nonlin=None):
        checks.integer(nin, "nin", low=1)
        if isinstance(nouts, (int, str)) or not hasattr(nouts, "__iter__"):
            raise TypeError(f"nouts must be a list of layer sizes such as [16, 16, 1], "
                            f"got {type(nouts).__name__}: {nouts!r}")
        nouts = [checks.integer(n, "layer size", low=1) for n in nouts]
        if not nouts:
            raise ValueError("nouts must name at least one layer")
        hidden, last, style_bias = _check_style(style)
        if nonlin is not None:
            if activation is not None or output_activation is not None:
                raise ValueError("give nonlin or activation/output_activation, not both")
            activation, output_activation = (("relu", "linear")
                                             if _check_nonlin(nonlin, "MLP")
                                             else ("linear", "linear"))
        activation = _check_activation(hidden if activation is None else activation)
        if output_activation is None:
            output_activation = activation if last is None else last
        output_activation = _check_activation(output_activation)
        bias_init = _check_bias_init(style_bias if bias_init is None else bias_init)
        rng = _make_rng(seed, rng)
        sizes = [nin] + nouts
        self.nin = nin
        self.nouts = nouts
        self.activation = activation
        self.output_activation = output_activation
        self.bias_init = bias_init
        self.layers = [
            Layer(sizes[i], sizes[i + 1],
                  activation=output_activation if i == len(nouts) - 1 else activation,
                  rng=rng, bias_init=bias_init)
            for i in range(len(nouts))
        ]

    def __call__(self, x):
        for layer in self.layers:
            # a one-neuron layer returns a bare Value (micrograd's behaviour); the next
            # layer still takes a sequence (a list, a tuple, a NumPy row...)
            x = layer([x] if isinstance(x, (Value, Real)) else x)
        return x

    def parameters(self):
        return [p for layer in self.layers for p in layer.parameters()]

    def config(self):
        """The constructor arguments that rebuild this architecture (for saving); every
        choice is spelled out, so the default style does not matter."""
        return {"nin": self.nin, "nouts": list(self.nouts), "activation": self.activation,
                "output_activation": self.output_activation, "bias_init": self.bias_init}

    def __repr__(self):
        return f"MLP of [{', '.join(str(layer) for layer in self.layers)}]"

"""A bridge to PyTorch: the next step when a model outgrows scalars.

    >>> from micrograd.nn import MLP
    >>> from micrograd.torch_bridge import to_torch, from_torch
    >>> model = MLP(2, [16, 16, 1], seed=0)
    >>> net = to_torch(model)                  # a torch.nn.Sequential, float64
    >>> net
    Sequential(
      (0): Linear(in_features=2, out_features=16, bias=True)
      (1): ReLU()
      (2): Linear(in_features=16, out_features=16, bias=True)
      (3): ReLU()
      (4): Linear(in_features=16, out_features=1, bias=True)
    )
    >>> back = from_torch(net)                 # an MLP with the same weights
    >>> [p.data for p in back.parameters()] == [p.data for p in model.parameters()]
    True

``to_torch(model, dtype=..., device=...)`` copies an ``MLP`` into a ``torch.nn.Sequential``
of ``Linear`` layers and activation modules (float64 on the CPU unless asked otherwise):
neuron ``i`` of a layer is row ``i`` of its ``Linear.weight``. The network takes a batch
``(n, nin)`` and gives ``(n, nout)``, where the MLP gives one ``Value`` (or a list) per
sample. ``from_torch(module)`` goes back, from such a stack of ``Linear`` layers and
``ReLU``/``Tanh``/``Sigmoid``/``Softplus``/``Identity`` modules; anything else is refused
with the module's name. ``state_dict(model)`` gives the weights under the names that
``to_torch`` uses, and ``load_state_dict(model, sd)`` takes them back: with
``micrograd.io`` a model saved as JSON loads into PyTorch and returns.

PyTorch's ``Softplus`` switches to the identity above 20 (``threshold``), where
``Value.softplus`` keeps ``x + log1p(exp(-x))``: the two differ there by less than
``exp(-20)`` = 2.1e-9. Every other activation gives the same numbers (to the rounding of
the sums, which PyTorch adds in another order).

Needs PyTorch (``pip install -e '.[torch]'``); importing ``micrograd`` or its engine
never imports it.
"""

from __future__ import annotations

from collections import OrderedDict

try:
    import torch
except ImportError as err:  # pragma: no cover - the suite always has torch
    raise ImportError("micrograd.torch_bridge needs PyTorch, which is not installed; "
                      "install it with: pip install -e '.[torch]'") from err

from .nn import MLP

__all__ = ["to_torch", "from_torch", "state_dict", "load_state_dict"]

#: our activation -> the torch module that computes it (None: no module)
_TO_TORCH = {"relu": torch.nn.ReLU, "tanh": torch.nn.Tanh, "sigmoid": torch.nn.Sigmoid,
             "softplus": torch.nn.Softplus, "linear": None}
#: torch module type -> our activation
_FROM_TORCH = {torch.nn.ReLU: "relu", torch.nn.Tanh: "tanh", torch.nn.Sigmoid: "sigmoid",
               torch.nn.Softplus: "softplus", torch.nn.Identity: "linear"}


def _check_mlp(model):
    if not isinstance(model, MLP):
        raise TypeError(f"expected a micrograd.nn.MLP, got {type(model).__name__}")
    return model


def _layer_names(model):
    """The state-dict prefix of each layer's Linear in ``to_torch(model)``: '0', '2', ..."""
    names, index = [], 0
    for i in range(len(model.layers)):
        names.append(str(index))
        index += 1 if _activation_of(model, i) == "linear" else 2
    return names


def _activation_of(model, i):
    return model.output_activation if i == len(model.layers) - 1 else model.activation


def _weights(layer):
    """(rows of weights, biases) of one Layer, as floats."""
    return ([[w.data for w in n.w] for n in layer.neurons], [n.b.data for n in layer.neurons])


def to_torch(model, dtype=None, device=None):
    """A ``torch.nn.Sequential`` with the architecture and weights of ``model`` (an MLP):
    float64 on the CPU by default, or any floating ``dtype`` and ``device`` torch takes."""
    _check_mlp(model)
    dtype = torch.float64 if dtype is None else dtype
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        raise TypeError(f"dtype must be a floating torch.dtype such as torch.float32, "
                        f"got {dtype!r}")
    modules = []
    for i, layer in enumerate(model.layers):
        rows, biases = _weights(layer)
        linear = torch.nn.Linear(len(rows[0]), len(rows), dtype=torch.float64)
        with torch.no_grad():  # exact float64 copies first, one rounding to dtype after
            linear.weight.copy_(torch.tensor(rows, dtype=torch.float64))
            linear.bias.copy_(torch.tensor(biases, dtype=torch.float64))
        modules.append(linear)
        act = _TO_TORCH[_activation_of(model, i)]
        if act is not None:
            modules.append(act())
    return torch.nn.Sequential(*modules).to(device=device, dtype=dtype)


def _flatten(module):
    """The leaf modules of nested Sequentials, in order."""
    if isinstance(module, torch.nn.Sequential):
        return [m for child in module for m in _flatten(child)]
    return [module]


def _describe(module):
    return f"{type(module).__name__}({module.extra_repr()})" if module.extra_repr() else (
        type(module).__name__)


def from_torch(module):
    """An ``MLP`` with the architecture and weights of ``module``: a ``torch.nn.Linear``
    or a ``torch.nn.Sequential`` of ``Linear`` layers, each followed by at most one of
    ``ReLU``, ``Tanh``, ``Sigmoid``, ``Softplus`` (beta 1) or ``Identity``. The hidden
    layers share one activation (as an MLP's do); the last layer may have its own."""
    if not isinstance(module, torch.nn.Module):
        raise TypeError(f"expected a torch.nn.Module, got {type(module).__name__}")
    mods = _flatten(module)
    layers = []  # [linear, activation name]
    for k, m in enumerate(mods):
        where = f"module {k} ({_describe(m)})"
        if isinstance(m, torch.nn.Linear):
            if m.bias is None:
                raise ValueError(f"{where} has no bias; every micrograd neuron has one "
                                 f"(bias=True)")
            if layers and layers[-1][0].out_features != m.in_features:
                raise ValueError(f"{where} takes {m.in_features} inputs, but the layer "
                                 f"before it gives {layers[-1][0].out_features}")
            layers.append([m, "linear"])
            continue
        act = _FROM_TORCH.get(type(m))
        if act is None:
            raise TypeError(f"{where} is not supported: micrograd's MLP is a stack of "
                            f"Linear layers with ReLU, Tanh, Sigmoid, Softplus or Identity")
        if not layers:
            raise ValueError(f"{where} comes before any Linear layer")
        if act == "softplus" and m.beta != 1:
            raise ValueError(f"{where}: only beta=1 is supported (Value.softplus)")
        if act == "linear":
            continue
        if layers[-1][1] != "linear":
            raise ValueError(f"{where} follows another activation ({layers[-1][1]}); one "
                             f"activation per layer")
        layers[-1][1] = act
    if not layers:
        raise ValueError("the module holds no Linear layer")
    hidden = {act for _, act in layers[:-1]}
    if len(hidden) > 1:
        raise ValueError(f"the hidden layers use different activations "
                         f"({', '.join(act for _, act in layers[:-1])}); an MLP has one")
    out_act = layers[-1][1]
    act = hidden.pop() if hidden else out_act
    model = MLP(layers[0][0].in_features, [lin.out_features for lin, _ in layers],
                activation=act, output_activation=out_act, bias_init="zero", seed=0)
    _fill(model, [(lin.weight, lin.bias) for lin, _ in layers])
    return model


def _fill(model, tensors):
    """Copy (weight, bias) tensors, one pair a layer, into the model's Values."""
    for layer, (weight, bias) in zip(model.layers, tensors):
        rows = weight.detach().to(device="cpu", dtype=torch.float64).tolist()
        biases = bias.detach().to(device="cpu", dtype=torch.float64).tolist()
        for n, row, b in zip(layer.neurons, rows, biases):
            for w, v in zip(n.w, row):
                w.data = v
            n.b.data = b


def state_dict(model, dtype=None):
    """The weights of ``model`` as ``to_torch(model).state_dict()`` names them
    (``'0.weight'``, ``'0.bias'``, ``'2.weight'``...), float64 tensors unless ``dtype``."""
    _check_mlp(model)
    dtype = torch.float64 if dtype is None else dtype
    sd = OrderedDict()
    for name, layer in zip(_layer_names(model), model.layers):
        rows, biases = _weights(layer)
        sd[f"{name}.weight"] = torch.tensor(rows, dtype=torch.float64).to(dtype)
        sd[f"{name}.bias"] = torch.tensor(biases, dtype=torch.float64).to(dtype)
    return sd


def load_state_dict(model, sd):
    """Copy a state dict with the names and shapes of ``to_torch(model)`` into ``model``
    (its Values change in place); returns the model. Refuses a key or shape that does not
    fit, naming it, before changing anything."""
    _check_mlp(model)
    if not hasattr(sd, "keys"):
        raise TypeError(f"expected a state dict (a mapping of names to tensors), got "
                        f"{type(sd).__name__}")
    names = _layer_names(model)
    want = [f"{n}.{kind}" for n in names for kind in ("weight", "bias")]
    extra, missing = sorted(set(sd) - set(want)), [k for k in want if k not in sd]
    if extra or missing:
        raise KeyError(f"the state dict does not fit this MLP: missing {missing}, "
                       f"unexpected {extra}")
    tensors = []
    for name, layer in zip(names, model.layers):
        weight, bias = sd[f"{name}.weight"], sd[f"{name}.bias"]
        shape = (len(layer.neurons), len(layer.neurons[0].w))
        for key, t, need in ((f"{name}.weight", weight, shape),
                             (f"{name}.bias", bias, shape[:1])):
            if not isinstance(t, torch.Tensor):
                raise TypeError(f"{key} must be a tensor, got {type(t).__name__}")
            if tuple(t.shape) != need:
                raise ValueError(f"{key} has shape {tuple(t.shape)}, this MLP needs {need}")
            if not torch.isfinite(t).all():
                raise ValueError(f"{key} holds a value that is not finite")
        tensors.append((weight, bias))
    _fill(model, tensors)
    return model

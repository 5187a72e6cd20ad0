"""Save and load an ``MLP``'s architecture and weights as JSON (never pickle).

    >>> import os, tempfile
    >>> from micrograd.nn import MLP
    >>> from micrograd.io import save, load
    >>> model = MLP(2, [4, 1], seed=0)
    >>> path = os.path.join(tempfile.mkdtemp(), "model.json")
    >>> save(model, path, meta={"dataset": "moons"})
    >>> again = load(path)
    >>> [p.data for p in again.parameters()] == [p.data for p in model.parameters()]
    True

The file (format version 1) is plain JSON that a person can read::

    {
      "format": "micrograd-mlp",
      "version": 1,
      "config": {"nin": 2, "nouts": [4, 1], "activation": "tanh", ...},
      "layers": [
        [{"w": [0.52, -0.11], "b": 0.3}, ...],     <- layer 1: one object per neuron
        ...
      ],
      "meta": {...}                                <- anything JSON, e.g. the data set
    }

Floats are written with ``repr``, so they load back bit for bit. ``load`` builds a new
model from the file; ``load_into`` copies the weights into an existing model of the same
architecture. Both check the whole file before touching any model: a missing file
raises ``FileNotFoundError``; a path that is not a regular file (a folder, a named
pipe, a device: refused before it is opened, so a pipe never blocks), a file that is not
JSON, truncated, of another format or
version, of another architecture, with a wrong number of weights or a weight that is not
a finite number, JSON nested absurdly deep, or a file over the caps (``MAX_FILE_BYTES``
of JSON, ``MAX_PARAMETERS`` weights and biases) raises ``ModelFileError`` (a
``ValueError``) that says what is wrong, and the model is left as it was.

``save`` writes atomically through ``micrograd.files``: never a half-written file, the
usual permissions, through symlinks, and never onto a folder or a device node.
"""

from __future__ import annotations

import json
import math
import os
from itertools import pairwise

from .files import FileTooLargeError, NotRegularFileError, read_capped, write_text

__all__ = ["save", "load", "load_into", "to_dict", "ModelFileError", "FORMAT", "VERSION",
           "MAX_FILE_BYTES", "MAX_PARAMETERS"]

FORMAT = "micrograd-mlp"
VERSION = 1

# caps on what ``load`` reads, checked before the weights are parsed into Values (a
# Value of the engine costs about 200 bytes, so a small file of tiny weights can ask for
# a hundred times its size in memory); both can be raised per call
MAX_FILE_BYTES = 32 * 2**20  # a saved 1,000,000-parameter MLP is about 22 MB of JSON
MAX_PARAMETERS = 1_000_000  # about 200 MB of Values; ``micrograd train`` caps at 100,000
_CONFIG_KEYS = ("nin", "nouts", "activation", "output_activation", "bias_init")


class ModelFileError(ValueError):
    """A model file that cannot be loaded: the message says why (and names the file)."""


# ---------------------------------------------------------------------------------------
# saving
# ---------------------------------------------------------------------------------------


def _config_of(model):
    config = getattr(model, "config", None)
    if not callable(config) or not hasattr(model, "layers"):
        raise TypeError(f"can only save an MLP (a model with config() and layers), got "
                        f"{type(model).__name__}")
    return config()


def to_dict(model, meta=None):
    """The JSON-ready dict that ``save`` writes."""
    config = _config_of(model)
    layers = []
    for layer in model.layers:
        layers.append([{"w": [w.data for w in n.w], "b": n.b.data} for n in layer.neurons])
    for li, layer in enumerate(layers, 1):
        for ni, neuron in enumerate(layer, 1):
            if not all(math.isfinite(v) for v in neuron["w"] + [neuron["b"]]):
                raise ValueError(f"cannot save: layer {li} neuron {ni} has a weight that is "
                                 f"not a finite number (nan or inf); did training diverge?")
    return {"format": FORMAT, "version": VERSION, "config": config, "layers": layers,
            "meta": {} if meta is None else meta}


def _dumps(doc):
    """JSON with one line per neuron: readable, and diffs stay small."""
    head = {k: doc[k] for k in ("format", "version", "config")}
    lines = ["{"]
    for k, v in head.items():
        lines.append(f"  {json.dumps(k)}: {json.dumps(v, allow_nan=False)},")
    lines.append('  "layers": [')
    for li, layer in enumerate(doc["layers"]):
        lines.append("    [")
        for ni, neuron in enumerate(layer):
            comma = "," if ni < len(layer) - 1 else ""
            lines.append("      " + json.dumps(neuron, allow_nan=False) + comma)
        lines.append("    ]" + ("," if li < len(doc["layers"]) - 1 else ""))
    lines.append("  ],")
    lines.append(f'  "meta": {json.dumps(doc["meta"], allow_nan=False, sort_keys=True)}')
    lines.append("}")
    return "\n".join(lines) + "\n"


def save(model, path, meta=None):
    """Write ``model``'s architecture and weights to ``path`` as JSON.

    ``meta`` is any JSON-serialisable dict stored alongside (data set, accuracy, ...).
    The file is written atomically (``micrograd.files``): to a temporary name in the same
    folder, then renamed, so an interrupted save never leaves a half-written model
    behind. A new file gets the usual permissions (0666 minus the umask), an existing
    one keeps its own, and a symlink is written through to its target. A weight that is
    not finite raises ValueError before anything is written; a missing folder, a folder
    or a device node (``/dev/full``) given as the path, or a place that cannot be
    written raises an ``OSError`` (``FileNotFoundError``, ``IsADirectoryError``,
    ``PermissionError``...) whose ``filename`` is ``path``.
    """
    text = _dumps(to_dict(model, meta))
    write_text(path, text, example="model.json")


# ---------------------------------------------------------------------------------------
# loading: read and check everything, then build / assign
# ---------------------------------------------------------------------------------------


def _reject_constant(name):
    raise ValueError(f"{name} is not a JSON number (weights must be finite numbers)")


def _read(path, max_bytes=MAX_FILE_BYTES):
    path = os.fspath(path)
    try:  # a regular file only (a named pipe would block), never past the cap
        raw = read_capped(path, max_bytes)
    except FileNotFoundError:
        raise FileNotFoundError(f"no model file at {path!r}") from None
    except NotRegularFileError as err:
        raise ModelFileError(f"{path}: it is {err.kind}, not a model file (a model file "
                             f"is a regular file; nothing was read)") from None
    except FileTooLargeError:
        raise ModelFileError(f"{path}: the file is larger than the cap of {max_bytes:,} "
                             f"bytes for a model file (pass max_bytes= to load a bigger "
                             f"one)") from None
    except OSError as err:
        raise ModelFileError(f"{path}: cannot read the file "
                             f"({err.strerror or err})") from err
    if not raw.strip():
        raise ModelFileError(f"{path}: the file is empty, not a saved model")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ModelFileError(f"{path}: not a text (UTF-8) file, so not a saved model "
                             f"(byte {err.start})") from err
    try:
        doc = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as err:
        hint = ("the file ends early (truncated?)" if err.pos >= len(text.rstrip())
                else "not valid JSON")
        raise ModelFileError(f"{path}: {hint}: {err.msg} at line {err.lineno} column "
                             f"{err.colno}") from err
    except ValueError as err:  # NaN / Infinity
        raise ModelFileError(f"{path}: {err}") from err
    except RecursionError as err:  # [[[[...]]]]: json's C decoder recurses per level
        raise ModelFileError(f"{path}: not a saved model: the JSON is nested too deeply "
                             f"(a model file is nested 4 levels)") from err
    return path, doc


def _finite_float(v):
    """``float(v)`` for a finite JSON number, else None (bools, strings, 1e999...)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    try:
        v = float(v)
    except OverflowError:
        return None
    return v if math.isfinite(v) else None


def _check_doc(path, doc, max_parameters=MAX_PARAMETERS):
    """Validate a parsed file; return (config, flat list of float weights)."""
    def bad(msg):
        return ModelFileError(f"{path}: {msg}")

    if not isinstance(doc, dict):
        raise bad(f"expected a JSON object at the top, found a {type(doc).__name__}")
    if doc.get("format") != FORMAT:
        raise bad(f"not a micrograd model file (format is {doc.get('format')!r}, expected "
                  f"{FORMAT!r})")
    version = doc.get("version")
    if isinstance(version, bool) or not isinstance(version, int):
        raise bad(f"the format version must be an int, got {version!r}")
    if version > VERSION:
        raise bad(f"format version {version} is newer than this micrograd reads "
                  f"({VERSION}); upgrade micrograd")
    if version < 1:
        raise bad(f"unknown format version {version}")
    config = doc.get("config")
    if not isinstance(config, dict):
        raise bad("missing 'config' (the architecture)")
    extra = sorted(set(config) - set(_CONFIG_KEYS))
    missing = [k for k in ("nin", "nouts") if k not in config]
    if extra or missing:
        raise bad(f"config has unknown keys {extra} / missing keys {missing}")
    nin, nouts = config["nin"], config["nouts"]
    if isinstance(nin, bool) or not isinstance(nin, int) or nin < 1:
        raise bad(f"config nin must be a positive int, got {nin!r}")
    if (not isinstance(nouts, list) or not nouts
            or not all(isinstance(n, int) and not isinstance(n, bool) and n >= 1
                       for n in nouts)):
        raise bad(f"config nouts must be a list of positive ints, got {nouts!r}")
    sizes = [nin] + nouts
    count = sum((a + 1) * b for a, b in pairwise(sizes))
    if count > max_parameters:
        raise bad(f"the config describes an MLP of {count:,} parameters, over the cap of "
                  f"{max_parameters:,} (pass max_parameters= to load a bigger one)")
    layers = doc.get("layers")
    if not isinstance(layers, list):
        raise bad("missing 'layers' (the weights)")
    if len(layers) != len(nouts):
        raise bad(f"the config has {len(nouts)} layers but the file holds weights for "
                  f"{len(layers)}")
    flat = []
    for li, layer in enumerate(layers):
        if not isinstance(layer, list) or len(layer) != nouts[li]:
            got = len(layer) if isinstance(layer, list) else type(layer).__name__
            raise bad(f"layer {li + 1} should hold {nouts[li]} neurons, found {got}")
        for ni, neuron in enumerate(layer):
            where = f"layer {li + 1} neuron {ni + 1}"
            if not isinstance(neuron, dict) or set(neuron) != {"w", "b"}:
                raise bad(f"{where} should be an object with 'w' and 'b'")
            w, b = neuron["w"], neuron["b"]
            if not isinstance(w, list) or len(w) != sizes[li]:
                got = len(w) if isinstance(w, list) else type(w).__name__
                raise bad(f"{where} should have {sizes[li]} weights, found {got}")
            for k, v in enumerate(w + [b]):
                fv = _finite_float(v)
                if fv is None:
                    name = "b" if k == len(w) else f"w[{k}]"
                    raise bad(f"{where} {name} is not a finite number: {v!r:.40}")
                flat.append(fv)
    return config, flat


def _build(path, config):
    from .nn import MLP

    try:
        return MLP(**config, seed=0)  # seed: never draws from the global random
    except (TypeError, ValueError) as err:
        raise ModelFileError(f"{path}: the config does not describe a valid MLP: "
                             f"{err}") from err


def load(path, with_meta=False, max_bytes=MAX_FILE_BYTES, max_parameters=MAX_PARAMETERS):
    """A new ``MLP`` with the architecture and weights stored at ``path``.

    With ``with_meta=True`` returns ``(model, meta)``. A file over ``max_bytes`` or
    describing more than ``max_parameters`` weights and biases is refused
    (``ModelFileError``) before any model is built.
    """
    path, doc = _read(path, max_bytes)
    config, flat = _check_doc(path, doc, max_parameters)
    model = _build(path, config)
    for p, v in zip(model.parameters(), flat):
        p.data = v
        p.grad = 0.0
    return (model, doc.get("meta", {})) if with_meta else model


def load_into(model, path, max_bytes=MAX_FILE_BYTES, max_parameters=MAX_PARAMETERS):
    """Copy the weights stored at ``path`` into ``model`` (same architecture) and return
    the file's ``meta``. On any error (the caps of ``load`` included) the model is left
    unchanged."""
    mine = _config_of(model)
    path, doc = _read(path, max_bytes)
    config, flat = _check_doc(path, doc, max_parameters)
    full = _build(path, config).config()
    diffs = [f"{k}: file {full.get(k)!r}, model {mine.get(k)!r}"
             for k in _CONFIG_KEYS if full.get(k) != mine.get(k)]
    if diffs:
        raise ModelFileError(f"{path}: the file holds a different architecture ("
                             + "; ".join(diffs) + ")")
    params = model.parameters()
    if len(params) != len(flat):  # pragma: no cover - implied by equal configs
        raise ModelFileError(f"{path}: {len(flat)} weights for {len(params)} parameters")
    for p, v in zip(params, flat):
        p.data = v
    return doc.get("meta", {})

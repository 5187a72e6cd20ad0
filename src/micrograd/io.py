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
raises ``FileNotFoundError``; a file that is not JSON, truncated, of another format or
version, of another architecture, with a wrong number of weights or a weight that is not
a finite number, or JSON nested absurdly deep, raises ``ModelFileError`` (a
``ValueError``) that says what is wrong, and the model is left as it was.
"""

from __future__ import annotations

import errno
import json
import math
import os
import tempfile

__all__ = ["save", "load", "load_into", "to_dict", "ModelFileError", "FORMAT", "VERSION"]

FORMAT = "micrograd-mlp"
VERSION = 1
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
    The file is written to a temporary name and renamed, so an interrupted save never
    leaves a half-written model behind. A weight that is not finite raises ValueError
    before anything is written; a missing folder, a folder given as the path, or a
    place that cannot be written raises an ``OSError`` (``FileNotFoundError``,
    ``IsADirectoryError``, ``PermissionError``...) whose ``filename`` is ``path``.
    """
    text = _dumps(to_dict(model, meta))
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    # check the place first, so that errors name the user's path, not the temporary file
    if not os.path.isdir(folder):
        raise FileNotFoundError(errno.ENOENT, f"cannot save the model: the folder "
                                f"{folder!r} does not exist", path)
    if os.path.isdir(path):
        raise IsADirectoryError(errno.EISDIR, "cannot save the model: the path is a "
                                "folder; give a file name such as model.json", path)
    try:
        fd, tmp = tempfile.mkstemp(prefix=".micrograd-", suffix=".json.tmp", dir=folder)
    except OSError as err:
        raise OSError(err.errno, f"cannot save the model: cannot write in {folder!r} "
                      f"({err.strerror or err})", path) from err
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException as err:
        if os.path.exists(tmp):
            os.unlink(tmp)
        if isinstance(err, OSError):
            raise OSError(err.errno, f"cannot save the model ({err.strerror or err})",
                          path) from err
        raise


# ---------------------------------------------------------------------------------------
# loading: read and check everything, then build / assign
# ---------------------------------------------------------------------------------------


def _reject_constant(name):
    raise ValueError(f"{name} is not a JSON number (weights must be finite numbers)")


def _read(path):
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"no model file at {path!r}")
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as err:
        raise ModelFileError(f"{path}: cannot read the file ({err.strerror or err})") from err
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


def _check_doc(path, doc):
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
    layers = doc.get("layers")
    if not isinstance(layers, list):
        raise bad("missing 'layers' (the weights)")
    if len(layers) != len(nouts):
        raise bad(f"the config has {len(nouts)} layers but the file holds weights for "
                  f"{len(layers)}")
    flat = []
    sizes = [nin] + nouts
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


def load(path, with_meta=False):
    """A new ``MLP`` with the architecture and weights stored at ``path``.

    With ``with_meta=True`` returns ``(model, meta)``.
    """
    path, doc = _read(path)
    config, flat = _check_doc(path, doc)
    model = _build(path, config)
    for p, v in zip(model.parameters(), flat):
        p.data = v
        p.grad = 0.0
    return (model, doc.get("meta", {})) if with_meta else model


def load_into(model, path):
    """Copy the weights stored at ``path`` into ``model`` (same architecture) and return
    the file's ``meta``. On any error the model is left unchanged."""
    mine = _config_of(model)
    path, doc = _read(path)
    config, flat = _check_doc(path, doc)
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

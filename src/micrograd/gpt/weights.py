"""A trained GPT as a file: plain JSON in the house's model format, never pickle.

    >>> import os, random, tempfile
    >>> from micrograd.gpt.data import Tokenizer
    >>> from micrograd.gpt.model import GPT, GPTConfig
    >>> from micrograd.gpt.weights import save, load
    >>> tok = Tokenizer("abc")
    >>> model = GPT(GPTConfig(vocab_size=tok.vocab_size), random.Random(0))
    >>> path = os.path.join(tempfile.mkdtemp(), "gpt.json")
    >>> save(model, tok, path, meta={"steps": 0})
    >>> again, tok2, meta = load(path)
    >>> again.weights() == model.weights(), tok2.chars, meta
    (True, 'abc', {'steps': 0})

The file is what ``micrograd.io`` writes for an MLP, for a GPT (format
``micrograd-gpt``, version 1): its shape (``config``), its characters (the tokens in
order; BOS is the one after them), every weight matrix a row a line, floats written with
``repr`` (they load back bit for bit), and ``meta`` (anything JSON)::

    {
      "format": "micrograd-gpt",
      "version": 1,
      "config": {"n_embd": 16, "n_head": 4, "n_layer": 1, "block_size": 16},
      "chars": "abcdefghijklmnopqrstuvwxyz",
      "weights": {
        "wte": [
          [0.0213, -0.1181, ...],          <- one row of the matrix a line
          ...
        ],
        ...
      },
      "meta": {...}
    }

``save`` writes atomically (``micrograd.files``: a temporary file, then renamed). ``load``
reads and checks the whole file before it builds the model, and raises
``micrograd.io.ModelFileError`` (a ``ValueError``) saying what is wrong: not a regular
file, over ``MAX_FILE_BYTES``, not UTF-8 JSON, another format or version, a shape out of
range or over ``model.MAX_PARAMETERS``, characters not distinct and sorted, a matrix of
the wrong shape, a weight that is not a finite number. A missing file raises
``FileNotFoundError``. Nothing is changed by a failed load: it makes a new model.
"""

from __future__ import annotations

import json
import math

from ..files import NotRegularFileError, read_capped, write_text
from ..io import ModelFileError
from .data import MAX_CHARS, Tokenizer
from .model import GPT, GPTConfig

__all__ = ["save", "load", "parse", "to_dict", "ModelFileError", "FORMAT", "VERSION",
           "MAX_FILE_BYTES"]

FORMAT = "micrograd-gpt"
VERSION = 1
#: a file of MAX_PARAMETERS weights written with repr is about 45 MB
MAX_FILE_BYTES = 64 * 2**20
_SHAPE_KEYS = ("n_embd", "n_head", "n_layer", "block_size")
#: caps on each number of the shape (the parameters' cap comes on top)
_SHAPE_CAPS = {"n_embd": 1024, "n_head": 64, "n_layer": 64, "block_size": 1024}


def to_dict(model, tokenizer, meta=None):
    """The JSON-ready dict that ``save`` writes."""
    cfg = model.config
    if tokenizer.vocab_size != cfg.vocab_size:
        raise ValueError(f"the tokenizer has {tokenizer.vocab_size} tokens, the model "
                         f"{cfg.vocab_size}")
    weights = model.weights()
    for name, rows in weights.items():
        if not all(math.isfinite(x) for row in rows for x in row):
            raise ValueError(f"cannot save: {name} has a weight that is not a finite "
                             f"number (nan or inf); did training diverge?")
    return {"format": FORMAT, "version": VERSION,
            "config": {k: getattr(cfg, k) for k in _SHAPE_KEYS},
            "chars": tokenizer.chars, "weights": weights,
            "meta": {} if meta is None else meta}


def _dumps(doc):
    """JSON with one line per row of a matrix: readable, and diffs stay small."""
    lines = ["{"]
    for k in ("format", "version", "config", "chars"):
        lines.append(f"  {json.dumps(k)}: {json.dumps(doc[k], allow_nan=False)},")
    lines.append('  "weights": {')
    names = list(doc["weights"])
    for i, name in enumerate(names):
        rows = doc["weights"][name]
        lines.append(f"    {json.dumps(name)}: [")
        lines += [f"      {json.dumps(row, allow_nan=False)}"
                  + ("," if r < len(rows) - 1 else "") for r, row in enumerate(rows)]
        lines.append("    ]" + ("," if i < len(names) - 1 else ""))
    lines.append("  },")
    lines.append(f'  "meta": {json.dumps(doc["meta"], allow_nan=False, sort_keys=True)}')
    return "\n".join(lines) + "\n}\n"


def save(model, tokenizer, path, meta=None):
    """Write the model, its characters and ``meta`` (JSON-ready) to ``path``,
    atomically. A weight that is not finite raises ValueError before anything is
    written; a path that cannot be written raises an ``OSError`` naming it."""
    write_text(path, _dumps(to_dict(model, tokenizer, meta)), example="gpt.json")


def _read(path, max_bytes):
    try:
        raw = read_capped(path, max_bytes)
    except FileNotFoundError:
        raise FileNotFoundError(f"no model file at {str(path)!r}") from None
    except NotRegularFileError as err:
        raise ModelFileError(f"{err}, not a model file; nothing was read") from None
    except ValueError as err:
        raise ModelFileError(f"{err} for a model file") from None
    except OSError as err:
        raise ModelFileError(f"{path}: cannot read the file "
                             f"({err.strerror or err})") from None
    if not raw.strip():
        raise ModelFileError(f"{path}: the file is empty, not a saved model")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        raise ModelFileError(f"{path}: not a text (UTF-8) file, so not a saved model "
                             f"(byte {err.start})") from None
    return _json(path, text)


def _json(path, text):
    try:
        doc = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as err:
        raise ModelFileError(f"{path}: not valid JSON ({err.msg} at line {err.lineno} "
                             f"column {err.colno}); truncated?") from None
    except ValueError as err:  # NaN, Infinity
        raise ModelFileError(f"{path}: {err}") from None
    except RecursionError:
        raise ModelFileError(f"{path}: not a saved model: the JSON is nested too "
                             f"deeply") from None
    return doc


def _no_constant(name):
    raise ValueError(f"{name} is not a JSON number (weights are finite numbers)")


def _check_head(path, doc):
    """The shape and the tokenizer the file describes."""
    def bad(msg):
        return ModelFileError(f"{path}: {msg}")

    if not isinstance(doc, dict):
        raise bad(f"expected a JSON object at the top, found a {type(doc).__name__}")
    if doc.get("format") != FORMAT:
        raise bad(f"not a micrograd GPT file (format is {str(doc.get('format'))[:40]!r}, "
                  f"expected {FORMAT!r})")
    version = doc.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise bad(f"unknown format version {str(version)[:20]}")
    if version > VERSION:
        raise bad(f"format version {version} is newer than this micrograd reads "
                  f"({VERSION}); upgrade micrograd")
    config, chars = doc.get("config"), doc.get("chars")
    if not isinstance(config, dict) or sorted(config) != sorted(_SHAPE_KEYS):
        raise bad(f"'config' must hold exactly {', '.join(_SHAPE_KEYS)}")
    for k, cap in _SHAPE_CAPS.items():
        v = config[k]
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= cap:
            raise bad(f"config {k} must be an int from 1 to {cap}, got {str(v)[:20]}")
    if not isinstance(chars, str) or not 1 <= len(chars) <= MAX_CHARS:
        raise bad(f"'chars' must be a string of 1 to {MAX_CHARS} characters")
    try:
        tokenizer = Tokenizer(chars)
        cfg = GPTConfig(vocab_size=tokenizer.vocab_size, **config)
    except ValueError as err:
        raise bad(f"not a valid GPT: {err}") from None
    return cfg, tokenizer


def _check_weights(path, doc, cfg):
    weights = doc.get("weights")
    shapes = cfg.shapes()
    if not isinstance(weights, dict) or set(weights) != set(shapes):
        raise ModelFileError(f"{path}: 'weights' must hold exactly the matrices "
                             f"{', '.join(shapes)}")
    out = {}
    for name, (rows, cols) in shapes.items():
        mat = weights[name]
        if not isinstance(mat, list) or len(mat) != rows or not all(
                isinstance(row, list) and len(row) == cols for row in mat):
            raise ModelFileError(f"{path}: {name} must be {rows} rows of {cols} numbers")
        for r, row in enumerate(mat):
            for c, x in enumerate(row):
                if isinstance(x, bool) or not isinstance(x, (int, float)) or not (
                        math.isfinite(x) if isinstance(x, float) else abs(x) < 2**1000):
                    raise ModelFileError(f"{path}: {name}[{r}][{c}] is not a finite "
                                         f"number: {str(x)[:40]}")
        out[name] = mat
    return out


def parse(text, name="the file"):
    """``(model, tokenizer, meta)`` from a file's text (``name`` says it in the
    messages), checked as ``load`` checks a file: what a page sends (the GPT tab)."""
    if not isinstance(text, str) or not text.strip():
        raise ModelFileError(f"{name}: the file is empty, not a saved model")
    doc = _json(name, text)
    cfg, tokenizer = _check_head(name, doc)
    weights = _check_weights(name, doc, cfg)
    meta = doc.get("meta", {})
    return GPT(cfg, weights=weights), tokenizer, meta if isinstance(meta, dict) else {}


def load(path, max_bytes=MAX_FILE_BYTES):
    """``(model, tokenizer, meta)`` from the file at ``path``, every part checked first."""
    doc = _read(path, max_bytes)
    cfg, tokenizer = _check_head(path, doc)
    weights = _check_weights(path, doc, cfg)
    meta = doc.get("meta", {})
    return GPT(cfg, weights=weights), tokenizer, meta if isinstance(meta, dict) else {}

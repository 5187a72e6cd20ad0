"""The entry points ``trace`` and ``trace_loss``, and the cache of traces."""

from __future__ import annotations

from collections import OrderedDict
from typing import NamedTuple

from ..engine import Value
from .batch_loss import BatchLoss
from .program import Program, check_backend
from .recording import compare, record


class CacheKey(NamedTuple):
    """What a cached trace stands for: the function, the shapes of one sample's
    arguments, and the identities of the parameters (a new model has new ones)."""

    fn: object
    shapes: tuple
    param_ids: tuple
    backend: tuple      # (backend, device)


class CacheEntry(NamedTuple):
    """A cached trace: the program, and the recording it was compiled from (with its
    parameters by position), from which trace_loss compiles a loss with a regularizer."""

    program: Program
    recording: object
    param_at: dict


_CACHE: OrderedDict[CacheKey, CacheEntry] = OrderedDict()
_CACHE_SIZE = 16


def clear_cache():
    """Forget every cached trace (see "When to trace again" in the package docs)."""
    _CACHE.clear()


def _pick_samples(batches):
    """The first and the last sample of the batch (the two traces), and their numbers."""
    if not batches:
        return [()], ""
    n = None
    for k, b in enumerate(batches):
        try:
            m = len(b)
        except TypeError:
            raise TypeError(f"batch argument {k} must be a sequence of samples (a list or "
                            f"an array with one row per sample), got "
                            f"{type(b).__name__}") from None
        if n is None:
            n = m
        elif m != n:
            raise ValueError(f"batch arguments have different lengths: {n} and {m} "
                             f"(argument {k})")
    if n == 0:
        raise ValueError("cannot trace on an empty batch: give at least one sample")
    idx = [0, n - 1] if n > 1 else [0, 0]
    return [tuple(b[i] for b in batches) for i in idx], f"{idx[0]} and {idx[1]}"


def _check_params(fn, params):
    if params is None and hasattr(fn, "parameters") and callable(fn.parameters):
        params = fn.parameters()
    if params is None:
        return None
    params = list(params)
    for p in params:
        if not isinstance(p, Value):
            raise TypeError(f"params must be Values, got {type(p).__name__}")
    return params


def trace(fn, *batches, params=None, cache=True, backend="numpy", device=None):
    """Trace ``fn`` (a function of one sample's Values) into a batched ``Program``.

    ``batches``: one per argument of ``fn``, each a sequence of per-sample items (a
    number per sample, or a flat sequence of numbers per sample; numpy arrays of shape
    (B,) or (B, k) work). ``fn`` gets, per argument, a Value (number) or a list of
    Values, and returns a Value or a list of Values. With no batches ``fn`` takes no
    arguments (a regulariser over the parameters): the program runs on one "sample".

    ``params``: the parameters in the order you want (default: every leaf that is the
    same object in two traces, in order of appearance; a ``Module`` passed as ``fn``
    gives its ``parameters()``). Raises ``TraceError`` when fn cannot be traced.
    ``backend="torch"`` runs the program on PyTorch tensors (on ``device``: "cpu",
    "cuda", ...), with the same numbers as the NumPy backend on the CPU in float64.

        >>> from micrograd.nn import MLP
        >>> model = MLP(2, [4, 1], seed=0)
        >>> prog = trace(model, [[0.5, -1.0], [2.0, 3.0]])
        >>> prog([[0.5, -1.0]]).shape
        (1,)
    """
    return _trace(fn, batches, params, cache, (backend, device)).program


def _trace(fn, batches, params, cache, backend=("numpy", None)):
    """``trace`` returning the whole CacheEntry."""
    check_backend(*backend)
    if not callable(fn):
        raise TypeError(f"trace needs a callable, got {type(fn).__name__}")
    params = _check_params(fn, params)
    samples, where = _pick_samples(batches)
    key = None
    if cache and params is not None:
        shapes = tuple(len(item) if hasattr(item, "__len__") else -1 for item in samples[0])
        key = CacheKey(fn, shapes, tuple(id(p) for p in params), backend)
        if key in _CACHE:
            _CACHE.move_to_end(key)
            return _CACHE[key]
    names = [f"batch argument {k}" for k in range(len(batches))]
    first = record(fn, samples[0], names)
    param_at = compare(first, record(fn, samples[-1], names), where or "(no inputs)")
    first = first._replace(reads=())  # checked: the values read need not stay alive
    program = Program(first, param_at, params=params, backend=backend[0], device=backend[1])
    entry = CacheEntry(program, first, param_at)
    if key is not None:
        _CACHE[key] = entry
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return entry


def trace_loss(fn, *batches, reduction="mean", regularizer=None, params=None, cache=True,
               backend="numpy", device=None):
    """Trace a per-sample loss ``fn`` (and an optional parameter-only ``regularizer``,
    a function of no arguments) into a ``BatchLoss``: ``reduction`` ("mean" or "sum")
    over the samples of ``fn``'s output, plus ``regularizer()`` once (in the same pass).
    ``backend``/``device`` as for ``trace``.

        >>> from micrograd.nn import MLP
        >>> model = MLP(1, [3, 1], seed=0)
        >>> loss = trace_loss(lambda x, y: (model(x) - y) ** 2, [[1.0], [2.0]], [0.0, 1.0])
        >>> isinstance(loss.backward([[1.0], [2.0]], [0.0, 1.0]), float)
        True
    """
    per_sample = _trace(fn, batches, params, cache, (backend, device))
    if regularizer is None:
        return BatchLoss(per_sample.program, reduction=reduction)
    reg = _trace(regularizer, (), params, cache, (backend, device))
    return BatchLoss(per_sample.program, reduction=reduction, regularizer=reg.program,
                     recordings=(per_sample, reg))

"""Recording: run the traced function on one sample's Values and write down its graph.

The graph is only a program if it is the same for every sample. Two checks see to it:

* while the function runs, Python-level reads of the numbers of values that depend on
  the sample are refused (``.data``, ``repr``/``str``/``format``, ``bool``, ``float``):
  a decision taken on them would be frozen into the program (``_Watch``);
* the function is recorded twice, on two different samples, and the two graphs must
  be equal node for node, constants included (``compare``).
"""

from __future__ import annotations

import linecache
import sys
import threading
from numbers import Real

from .. import ops as _ops
from ..chain_rule import topological_order
from ..engine import Value, enable_grad
from .ir import InputNode, LeafNode, OpNode, Recording, TraceError, same_number

#: modules whose reads of a Value's number are the engine's own work, not user decisions
_TRUSTED = frozenset({"micrograd.engine", "micrograd.engine_fast", "micrograd.chain_rule",
                      "micrograd.grad_mode", "micrograd.ops"})
_TRACE_LOCK = threading.RLock()

#: the ways, besides ``.data``, in which Python code can look at a Value's number
_DUNDERS = ("__repr__", "__str__", "__format__", "__bool__", "__float__", "__int__",
            "__index__")

_ADVICE = ("a trace records operations on Values, not Python decisions taken on their "
           "numbers (if/else, max(), min(), float(), comparisons, text made with repr "
           "or str). Write it with Value ops (relu, abs; max(a, b) = (a + b + "
           "abs(a - b)) * 0.5) or run this function eagerly (to print while debugging, "
           "call it on Values outside trace()).")


def _trusted(frame):
    name = frame.f_globals.get("__name__") or ""
    return name in _TRUSTED or name.startswith(__package__ + ".")


def _where(frame):
    line = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()
    return f"{frame.f_code.co_filename}:{frame.f_lineno}" + (f" ({line!r})" if line else "")


class _Watch:
    """While installed, user code that reads the number of a value depending on the
    traced inputs raises TraceError naming the line: through ``.data`` (a property
    put over the slot) or through ``repr``/``str``/``format``/``bool``/``float``
    (wrappers put over those methods). Everything is put back by ``remove``."""

    def __init__(self, inputs):
        self.input_ids = {id(v) for v in inputs}
        self.memo = {}  # id -> (node, depends on an input?); the node kept alive
        self.saved = {}  # attribute name -> what Value.__dict__ held (None: nothing)

    def depends(self, v):
        """Does ``v`` depend on a traced input? (iterative walk towards the leaves)"""
        memo = self.memo
        hit = memo.get(id(v))
        if hit is not None and hit[0] is v:
            return hit[1]
        stack, seen, found = [v], set(), False
        while stack:
            u = stack.pop()
            h = memo.get(id(u))
            if id(u) in self.input_ids or (h is not None and h[0] is u and h[1]):
                found = True
                break
            if (h is not None and h[0] is u) or id(u) in seen:
                continue
            seen.add(id(u))
            stack.extend(u._prev)
        memo[id(v)] = (v, found)
        return found

    def check(self, obj, how, frame):
        if isinstance(obj, Value) and not _trusted(frame) and self.depends(obj):
            raise TraceError(f"the traced function reads {how} of a value that depends "
                             f"on the sample, at {_where(frame)}: " + _ADVICE)

    def install(self):
        desc = Value.__dict__.get("data")
        if desc is None or not hasattr(desc, "__set__") or isinstance(desc, property):
            return  # not the plain slot we know how to wrap: rely on the two traces
        self.saved["data"] = desc
        get, put, watch = desc.__get__, desc.__set__, self

        def read(obj):
            watch.check(obj, ".data", sys._getframe(1))
            return get(obj, Value)

        Value.data = property(read, put)
        for name in _DUNDERS:
            self._wrap(name)

    def _wrap(self, name):
        own = Value.__dict__.get(name)
        if own is None and name in ("__float__", "__int__", "__index__"):
            return  # Value has no such conversion: Python refuses it by itself
        inner = own if own is not None else getattr(object, name, None)
        watch = self
        how = {"__repr__": "repr()", "__str__": "str()", "__format__": "format()"}.get(
            name, name.strip("_") + "()")

        def wrapper(obj, *args):
            watch.check(obj, how, sys._getframe(1))
            if inner is None:  # no __bool__ of its own: every object is true
                return True
            return inner(obj, *args)

        wrapper.__name__ = name
        self.saved[name] = own
        setattr(Value, name, wrapper)

    def remove(self):
        for name, own in self.saved.items():
            if own is None:
                delattr(Value, name)
            else:
                setattr(Value, name, own)
        self.saved.clear()


def _is_number(x):
    # NumPy registers its float and integer scalars as numbers.Real
    return isinstance(x, Real) and not isinstance(x, bool)


def _is_array(x):
    """A NumPy array? (Without importing NumPy: an array exists only if it is loaded.)"""
    np = sys.modules.get("numpy")
    return np is not None and isinstance(x, np.ndarray)


def _as_values(item, what):
    """One sample's argument as Values: a number -> Value, a flat sequence -> list.
    Returns (the argument, its width, whether it is a single number)."""
    if _is_number(item):
        return Value(float(item)), 1, True
    if _is_array(item) and item.ndim != 1:
        raise TypeError(f"{what}: one sample must be a number or a flat sequence of "
                        f"numbers, got an array of shape {item.shape}")
    if isinstance(item, (list, tuple)) or _is_array(item):
        vals = []
        for v in item:
            if not _is_number(v):
                raise TypeError(f"{what}: one sample must be a number or a flat sequence "
                                f"of numbers, found {type(v).__name__} inside: {v!r:.40}")
            vals.append(Value(float(v)))
        return vals, len(vals), False
    raise TypeError(f"{what}: one sample must be a number or a flat sequence of numbers, "
                    f"got {type(item).__name__}: {item!r:.60}")


def outputs_of(result):
    """The traced function's result as (list of Values, returned a single Value?)."""
    if isinstance(result, Value):
        return [result], True
    if isinstance(result, (list, tuple)) and result and all(
            isinstance(v, Value) for v in result):
        return list(result), False
    raise TypeError(
        f"the traced function must return a Value or a non-empty list of Values, got "
        f"{type(result).__name__}: {result!r:.60}")


def _run_watched(fn, args, inputs):
    watch = _Watch(inputs)
    with _TRACE_LOCK:
        try:  # installed inside: an interrupt part-way still puts Value back
            watch.install()
            with enable_grad():
                return fn(*args)
        finally:
            watch.remove()


def record(fn, sample, names):
    """Run ``fn`` once on one sample (one item per argument) and record its graph."""
    args, inputs, widths, scalars = [], [], [], []
    for item, name in zip(sample, names):
        vals, width, scalar = _as_values(item, name)
        args.append(vals)
        inputs.extend([vals] if scalar else vals)
        widths.append(width)
        scalars.append(scalar)
    outs, single = outputs_of(_run_watched(fn, args, inputs))
    topo = topological_order(*outs)
    pos = {id(v): i for i, v in enumerate(topo)}
    in_index = {id(v): k for k, v in enumerate(inputs)}
    nodes, leaves = [], {}
    for i, v in enumerate(topo):
        if id(v) in in_index:
            nodes.append(InputNode(in_index[id(v)]))
        elif v._fn is None:
            nodes.append(LeafNode())
            leaves[i] = v
        else:
            key = v._fn.key if _ops.OPS.get(v._fn.key) is v._fn else None
            if key is None:
                raise TraceError(f"node {v!r} was made by {v._fn!r}, which is not in the "
                                 f"op table micrograd.ops.OPS")
            nodes.append(OpNode(key, v._arg, tuple(pos[id(p)] for p in v._prev)))
    return Recording(nodes, leaves, tuple(pos[id(v)] for v in outs), single,
                     tuple(widths), tuple(scalars))


_HINT = (" The graph fn builds depends on the sample's numbers (Python control flow on "
         "values, or a loop whose length depends on the data), so one program cannot "
         "stand for every sample.")


def _same_node(a, b):
    if isinstance(a, OpNode):
        return a.same_as(b)
    return a == b


def compare(r1, r2, where):
    """Check that two recordings are one program; return {position: parameter Value}
    for the leaves that are the same object in both (the others are constants)."""
    if r1.widths != r2.widths:
        raise TraceError(f"samples {where} have different shapes: argument widths "
                         f"{r1.widths} vs {r2.widths}")
    if len(r1.nodes) != len(r2.nodes) or r1.outputs != r2.outputs or r1.single != r2.single:
        raise TraceError(f"fn builds graphs of different shapes on samples {where}: "
                         f"{len(r1.nodes)} nodes vs {len(r2.nodes)} nodes." + _HINT)
    params = {}
    for i, (n1, n2) in enumerate(zip(r1.nodes, r2.nodes)):
        if not _same_node(n1, n2):
            raise TraceError(f"fn builds different graphs on samples {where}: node {i} is "
                             f"{n1.describe()} on one and {n2.describe()} on the other."
                             + _HINT)
        if isinstance(n1, LeafNode):
            a, b = r1.leaves[i], r2.leaves[i]
            if a is b:
                params[i] = a
            elif not same_number(a.data, b.data):
                raise TraceError(
                    f"a constant of the graph differs between samples {where} "
                    f"({a.data!r} vs {b.data!r}): a number computed from the sample "
                    f"(through .data, or taken from the data set inside fn) is frozen "
                    f"into the program. Pass every per-sample number through fn's "
                    f"arguments so it becomes an input.")
    return params

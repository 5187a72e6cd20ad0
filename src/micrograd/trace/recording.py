"""Recording: run the traced function on one sample's Values and write down its graph.

The graph is only a program if it is the same for every sample, and for every value
of the parameters. Three checks see to it:

* while the function runs, Python-level reads of the numbers of values that depend on
  the sample are refused (``.data``, ``repr``/``str``/``format``, ``bool``, ``float``):
  a decision taken on them would be frozen into the program (``_Watch``);
* the function is recorded twice, on two different samples, and the two graphs must
  be equal node for node, constants included (``compare``);
* the other reads of a number (``.data``, ``bool``, ``float``; not text) are written
  down with their lines, and one of a parameter's number is refused after the two
  recordings (``check_reads``): a parameter is what both recordings share, and a float
  taken from it would be frozen into the program, stale after an optimizer step.
"""

from __future__ import annotations

import linecache
import sys
import threading
from numbers import Real
from typing import NamedTuple

from .. import ops as _ops
from ..engine import Value, enable_grad, topological_order
from ..grad_mode import watch_no_grad
from .ir import InputNode, LeafNode, OpNode, Recording, TraceError, same_number

#: modules whose reads of a Value's number are the engine's own work, not user decisions
_TRUSTED = frozenset({"micrograd.engine", "micrograd.engine_fast", "micrograd.chain_rule",
                      "micrograd.grad_mode", "micrograd.ops", "micrograd.node_record"})
_TRACE_LOCK = threading.RLock()

#: the ways, besides ``.data``, in which Python code can look at a Value's number
_DUNDERS = ("__repr__", "__str__", "__format__", "__bool__", "__float__", "__int__",
            "__index__")

#: the reads that make text (for printing) rather than a number
_TEXT = frozenset({"repr()", "str()", "format()"})

_ADVICE = ("a trace records operations on Values, not Python decisions taken on their "
           "numbers (if/else, max(), min(), float(), comparisons, text made with repr "
           "or str). Write it with Value ops (relu, abs; max(a, b) = (a + b + "
           "abs(a - b)) * 0.5) or run this function eagerly (to print while debugging, "
           "call it on Values outside trace()).")


def _trusted(frame):
    name = frame.f_globals.get("__name__") or ""
    return name in _TRUSTED or name.startswith(__package__ + ".")


def _where(filename, lineno):
    line = linecache.getline(filename, lineno).strip()
    return f"{filename}:{lineno}" + (f" ({line!r})" if line else "")


class Read(NamedTuple):
    """A number read by user code from a value that does not depend on the sample."""

    value: Value
    how: str            # ".data", "bool()", ...
    filename: str
    lineno: int

    def where(self):
        return _where(self.filename, self.lineno)


class _Reach:
    """Does a value reach one of the nodes ``ids`` (itself, or walking towards the
    leaves)? Memoized by the values asked about, which the memo keeps alive."""

    def __init__(self, ids):
        self.ids = ids
        self.memo = {}  # id -> (node, reaches?)

    def __call__(self, v):
        memo, ids = self.memo, self.ids
        hit = memo.get(id(v))
        if hit is not None and hit[0] is v:
            return hit[1]
        stack, seen, found = [v], set(), False
        while stack:
            u = stack.pop()
            h = memo.get(id(u))
            if id(u) in ids or (h is not None and h[0] is u and h[1]):
                found = True
                break
            if (h is not None and h[0] is u) or id(u) in seen:
                continue
            seen.add(id(u))
            stack.extend(u._prev)
        memo[id(v)] = (v, found)
        return found


def _subclasses(cls):
    """Every subclass of ``cls``, at any depth."""
    out, stack = [], list(cls.__subclasses__())
    while stack:
        c = stack.pop()
        out.append(c)
        stack.extend(c.__subclasses__())
    return out


class _Watch:
    """While installed, user code that reads the number of a value depending on the
    traced inputs raises TraceError naming the line: through ``.data`` (a property
    put over the slot, and over a subclass's own ``data``, a bound parameter's) or
    through ``repr``/``str``/``format``/``bool``/``float`` (wrappers put over those
    methods). The tracing thread's other number reads are kept in ``reads``, for
    ``check_reads``. Everything is put back by ``remove``."""

    def __init__(self, inputs):
        self.depends = _Reach({id(v) for v in inputs})  # depends on a traced input?
        self.reads = []
        self.thread = threading.get_ident()
        self.saved = {}  # (class, attribute name) -> what its __dict__ held (None: nothing)

    def check(self, obj, how, frame):
        if not isinstance(obj, Value) or _trusted(frame):
            return
        if self.depends(obj):
            raise TraceError(f"the traced function reads {how} of a value that depends "
                             f"on the sample, at "
                             f"{_where(frame.f_code.co_filename, frame.f_lineno)}: "
                             + _ADVICE)
        if how not in _TEXT and threading.get_ident() == self.thread:
            self.reads.append(Read(obj, how, frame.f_code.co_filename, frame.f_lineno))

    def install(self):
        desc = Value.__dict__.get("data")
        if desc is None or not hasattr(desc, "__set__") or isinstance(desc, property):
            return  # not the plain slot we know how to wrap: rely on the two traces
        self._watch_data(Value, desc)
        for cls in _subclasses(Value):
            own = cls.__dict__.get("data")
            if own is not None and hasattr(own, "__get__"):
                self._watch_data(cls, own)
        for name in _DUNDERS:
            self._wrap(name)

    def _watch_data(self, cls, desc):
        get, watch = desc.__get__, self
        put = desc.__set__ if hasattr(desc, "__set__") else None

        def read(obj):
            watch.check(obj, ".data", sys._getframe(1))
            return get(obj, cls)

        self.saved[cls, "data"] = desc
        cls.data = property(read, put)

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
        self.saved[Value, name] = own
        setattr(Value, name, wrapper)

    def remove(self):
        for (cls, name), own in self.saved.items():
            if own is None:
                delattr(cls, name)
            else:
                setattr(cls, name, own)
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
    """``fn(*args)`` with reads watched; returns (its result, the reads kept)."""
    watch = _Watch(inputs)
    with _TRACE_LOCK:
        try:  # installed inside: an interrupt part-way still puts Value back
            watch.install()
            with enable_grad(), watch_no_grad() as opened:
                result = fn(*args)
        finally:
            watch.remove()
    if opened:
        raise TraceError(
            f"the traced function opens a no_grad() block at {_where(*opened[0])}: what "
            f"it computes is a plain number, frozen into the program (stale after the "
            f"next optimizer step when it comes from a parameter). Compute with the "
            f"Values themselves; a number that must carry no gradient (PyTorch's "
            f"detach()) goes in through fn's arguments (an input, read at every run); or "
            f"run fn eagerly.")
    return result, tuple(watch.reads)


def record(fn, sample, names):
    """Run ``fn`` once on one sample (one item per argument) and record its graph."""
    args, inputs, widths, scalars = [], [], [], []
    for item, name in zip(sample, names):
        vals, width, scalar = _as_values(item, name)
        args.append(vals)
        inputs.extend([vals] if scalar else vals)
        widths.append(width)
        scalars.append(scalar)
    result, reads = _run_watched(fn, args, inputs)
    outs, single = outputs_of(result)
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
                     tuple(widths), tuple(scalars), reads)


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
    check_reads(r1, r2)
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


def _leaves_under(values):
    """The leaves under ``values`` (walking towards them): id -> Value."""
    out, seen, stack = {}, set(), list(values)
    while stack:
        u = stack.pop()
        if id(u) in seen:
            continue
        seen.add(id(u))
        prev = u._prev
        if prev:
            stack.extend(prev)
        else:
            out[id(u)] = u
    return out


def check_reads(r1, r2):
    """Refuse, naming its line, a number read from a parameter or from a value computed
    from one. A parameter is a leaf that both recordings share (of the graph, or under
    the values read); a value made by each call anew is the same constant in every run,
    its number safe to use. A float taken from a parameter is only a number by the time
    the graph is built: frozen there, it goes stale as soon as the parameter changes,
    and where it went (a constant, a decision, math.exp) cannot be followed."""
    if not (r1.reads or r2.reads):
        return
    first, second = (
        {**_leaves_under([r.value for r in rec.reads]),
         **{id(v): v for v in rec.leaves.values()}} for rec in (r1, r2))
    # both recordings are alive: one id in both is one object
    shared = {i for i in first.keys() & second.keys() if first[i] is second[i]}
    reach = _Reach(shared)
    for r in r1.reads + r2.reads:
        if reach(r.value):
            raise TraceError(
                f"the traced function reads {r.how} of a parameter at {r.where()}: a "
                f"Value that lives outside fn (the same object in both traces), or a "
                f"value computed from one. Its number would be frozen into the program, "
                f"stale after the next optimizer step. Compute with the Value itself "
                f"(w, not w.data): a parameter is read at every run and gets its "
                f"gradient. A number that must carry no gradient (PyTorch's detach()) "
                f"goes in through fn's arguments (an input, read at every run); or run "
                f"fn eagerly.")

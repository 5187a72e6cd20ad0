"""Write it as scalars, run it as arrays: trace a Value graph once, run it over a batch.

The eager engine builds and walks one Python object per number, every step. This module
runs the same function of Values once on one sample, records the graph it builds as a
flat program, and then runs that program forward and backward over a whole batch with
NumPy::

    import numpy as np
    from micrograd.nn import MLP
    from micrograd.trace import trace, trace_loss

    model = MLP(2, [16, 16, 1], activation="relu", output_activation="linear", seed=0)
    X = np.random.default_rng(0).normal(size=(100, 2)); Y = np.sign(X[:, 0])

    def sample_loss(x, y):                    # one sample, written with the lecture's API
        return (1 - y * model(x)).relu()      # hinge; x is a list of Values, y a Value

    def l2():                                 # a term over the parameters only
        return 1e-4 * sum(p * p for p in model.parameters())

    loss = trace_loss(sample_loss, X, Y, reduction="mean", regularizer=l2)
    for step in range(100):
        model.zero_grad()
        L = loss.backward(X, Y)               # a float; the grads are now in p.grad
        for p in model.parameters():
            p.data -= 0.05 * p.grad           # any optimizer on Values works unchanged

    predict = trace(model, X)                 # outputs only, e.g. a decision boundary
    scores = predict(np.random.rand(2500, 2))  # ndarray of shape (2500,)

What is computed (exactly)
    ``Program.backward(*batches, reduction=r)`` accumulates (``+=``, like the eager
    engine's leaves) into every parameter's ``.grad`` the gradient of
    ``sum_i f(sample_i)`` (``r="sum"``) or ``(1/B) sum_i f(sample_i)`` (``r="mean"``),
    ``B`` the batch size, ``f`` the traced per-sample function. ``BatchLoss`` adds a
    parameter-only ``regularizer()`` (traced separately, run once per step, not per
    sample). Results equal the eager engine's to about 1e-12 relative; only the order of
    summation differs (dense layers run as matrix products).

Parameters, inputs, constants
    The per-sample arguments of ``fn`` become the program's inputs (a float becomes one
    Value, a sequence of floats a list of Values). A leaf that is the SAME object in two
    traces (a model's weight) is a parameter: its ``.data`` is read at every run, so
    optimizers keep working, and it receives ``.grad``. A leaf created anew by each call
    (a number such as the ``1`` of ``1 - y*s``) is a constant, frozen into the program.

What cannot be traced (``TraceError``)
    The program records operations on Values, never Python decisions. ``fn`` is traced
    twice, on two different samples (the first and the last of the batch), while reads of
    ``.data`` are watched; it is refused, with the cause named, when

    * it reads ``.data`` of a value that depends on the sample (``if s.data > 0:``,
      ``max(v.data for v in logits)``): the line is named;
    * the two traces differ in shape (a loop whose length depends on the sample, an op
      chosen by the data) or in a constant (a per-sample number that did not come in
      through fn's arguments, an exponent computed from the data).

    Write such code with Value ops instead: ``relu``, ``abs``, and
    ``max(a, b) = (a + b + abs(a - b)) * 0.5`` cover most cases.

When to trace again
    A program stays valid while ``fn`` builds the same graph: training (parameters'
    ``.data`` change), another batch, another batch size all reuse it. Trace again when
    the graph changes: a new model or architecture, another activation or loss.
    ``trace`` keeps a small cache keyed on (fn, the identities of the parameters, the
    shapes of the per-sample arguments): a new model has new parameters, so it gets a new
    trace automatically; a change made in place that keeps the same parameter objects
    (``neuron._act = ...``) does not: pass ``cache=False`` or call ``clear_cache()``.

A ``Program`` is not thread-safe (it reuses its buffers): one run at a time per program.
"""

from __future__ import annotations

import linecache
import sys
import threading
from collections import OrderedDict
from numbers import Real

import numpy as np

from . import ops as _ops
from .engine import Value, _topo_order, enable_grad, no_grad

__all__ = ["trace", "trace_loss", "Program", "BatchLoss", "TraceError", "NP_FORWARD", "NUMPY",
           "np_forward", "np_contributions", "clear_cache"]


class TraceError(ValueError):
    """A function cannot be traced into a program (the message names the cause)."""


# =======================================================================================
# The NumPy backend of the op table: the same forward values and local derivatives as
# micrograd.ops, elementwise on float64 arrays (IEEE: inf/nan, no warnings asked for:
# callers run them under np.errstate(all="ignore")).
# =======================================================================================


def _np_sigmoid(x):
    # branch on sign: exp only sees -|x|, so it never overflows
    e = np.exp(-np.abs(x))
    return np.where(x >= 0.0, 1.0 / (1.0 + e), e / (1.0 + e))


def _np_pow(x, y):
    r = np.power(x, y)
    # NOTE: NumPy gives nan for (-inf) ** y with y not an integer; C99 (and the eager
    # engine, through math.pow) give +-inf for y > 0 and +-0 for y < 0
    m = (x == -np.inf) & (y == y) & (y != 0.0)
    if np.any(m):
        odd = (np.mod(y, 2.0) == 1.0)
        fix = np.where(y > 0.0, np.where(odd, -np.inf, np.inf), np.where(odd, -0.0, 0.0))
        r = np.where(m, fix, r)
    return r


def _np_relu(x):
    return np.where((x >= 0.0) | (x != x), x, 0.0)  # relu(nan) = nan, relu(-0.0) = -0.0


def _np_sqrt(x):
    return np.where(x >= 0.0, np.sqrt(np.where(x >= 0.0, x, 0.0)), np.nan)


def _np_softplus(x):
    # log(1 + e^x) = max(x, 0) + log1p(e^-|x|)
    return np.maximum(x, 0.0) + np.log1p(np.exp(-np.abs(x)))


def _np_powc(x, n):
    # x ** n for a constant n with PyTorch's special exponents (see ops._fpowc)
    if n == 2:
        return x * x
    if n == 3:
        return x * x * x
    if n == 0.5:
        return _np_sqrt(x)
    if n == -0.5:
        return 1.0 / _np_sqrt(x)
    if n == -1:
        return 1.0 / x
    if n == -2:
        return 1.0 / (x * x)
    return _np_pow(x, np.float64(n))


class NumpyMath:
    """The op table's math namespace on NumPy arrays: the tracer runs each op's one
    derivative rule (``micrograd.ops``) with it, on a whole batch at once."""

    div = staticmethod(np.divide)
    log = staticmethod(np.log)
    exp = staticmethod(np.exp)
    sin = staticmethod(np.sin)
    cos = staticmethod(np.cos)
    sigmoid = staticmethod(_np_sigmoid)
    tanh = staticmethod(np.tanh)
    sqrt = staticmethod(_np_sqrt)
    where = staticmethod(np.where)
    le = staticmethod(np.less_equal)
    ge = staticmethod(np.greater_equal)
    eq = staticmethod(np.equal)
    both = staticmethod(np.logical_and)

    @staticmethod
    def pow(x, n):
        return _np_pow(x, n)

    powc = staticmethod(_np_powc)

    @staticmethod
    def sign(x):
        return np.where(x > 0.0, 1.0, np.where(x < 0.0, -1.0, 0.0))  # torch.sign: nan -> 0


NUMPY = NumpyMath()

#: op key -> NumPy forward kernel (the float kernels' twins; the calculus is the table's)
NP_FORWARD = {
    "add": np.add, "mul": np.multiply, "div": np.divide, "pow": _np_pow,
    "powc": _np_powc,
    "exp": np.exp, "log": np.log, "tanh": np.tanh, "sigmoid": _np_sigmoid,
    "relu": _np_relu, "abs": np.abs, "sqrt": _np_sqrt, "softplus": _np_softplus,
    "sin": np.sin, "cos": np.cos,
}


def _np_kernel(key):
    fn = NP_FORWARD.get(key)
    if fn is None:
        op = _ops.OPS.get(key)
        fn = op.np_forward if op is not None else None
    if fn is None:
        raise TraceError(
            f"op {key!r} has no NumPy forward: give np_forward= to define_op (or add it "
            f"to micrograd.trace.NP_FORWARD) to trace it")
    return fn


def np_forward(key, xs, arg=None):
    """The op's output on arrays ``xs`` (a tuple, one array per input)."""
    fn = _np_kernel(key)
    return fn(*xs, arg) if _ops.OPS[key].has_arg else fn(*xs)


def np_contributions(key, g, xs, out, arg=None):
    """The op's rule on arrays: what it adds to each input's grad, for upstream ``g``."""
    return _ops.contributions(_ops.OPS[key], NUMPY, g, xs, out, arg)


# =======================================================================================
# Tracing: run fn on Values, record the graph, refuse what a program cannot express.
# =======================================================================================

#: modules whose reads of Value.data are the engine's own work, not user decisions
_TRUSTED = frozenset({"micrograd.engine", "micrograd.ops", __name__})
_TRACE_LOCK = threading.RLock()


class _ReadWatch:
    """While installed, a read of ``.data`` by user code of a value that depends on the
    traced inputs raises TraceError naming the line (Python control flow on values)."""

    def __init__(self, inputs):
        self.input_ids = {id(v) for v in inputs}
        self.memo = {}  # id -> (node, depends on an input?); the node kept alive
        self.orig = None

    def depends(self, v):
        memo = self.memo
        hit = memo.get(id(v))
        if hit is not None and hit[0] is v:
            return hit[1]
        # iterative walk towards the leaves
        stack = [v]
        seen = set()
        found = False
        while stack:
            u = stack.pop()
            if id(u) in self.input_ids:
                found = True
                break
            h = memo.get(id(u))
            if h is not None and h[0] is u:
                if h[1]:
                    found = True
                    break
                continue
            if id(u) in seen:
                continue
            seen.add(id(u))
            stack.extend(u._prev)
        memo[id(v)] = (v, found)
        return found

    def install(self):
        desc = Value.__dict__.get("data")
        if desc is None or not hasattr(desc, "__set__") or isinstance(desc, property):
            return False  # not the plain slot we know how to wrap: rely on the 2-trace check
        self.orig = desc
        get, put = desc.__get__, desc.__set__
        watch = self

        def read(obj):
            f = sys._getframe(1)
            if f.f_globals.get("__name__") not in _TRUSTED and watch.depends(obj):
                line = linecache.getline(f.f_code.co_filename, f.f_lineno).strip()
                raise TraceError(
                    f"the traced function reads .data of a value that depends on the "
                    f"sample, at {f.f_code.co_filename}:{f.f_lineno}"
                    + (f" ({line!r})" if line else "")
                    + ": a trace records operations on Values, not Python decisions "
                    "taken on their numbers (if/else, max(), min(), float(), comparisons). "
                    "Write it with Value ops (relu, abs; max(a, b) = (a + b + abs(a - b)) "
                    "* 0.5) or run this function eagerly.")
            return get(obj, Value)

        Value.data = property(read, put)
        return True

    def remove(self):
        if self.orig is not None:
            Value.data = self.orig
            self.orig = None


def _as_values(item, what):
    """One sample's argument as Values: a number -> Value, a flat sequence -> list."""
    if isinstance(item, (Real, np.floating, np.integer)) and not isinstance(item, bool):
        return Value(float(item)), 1, True
    if isinstance(item, np.ndarray):
        if item.ndim != 1:
            raise TypeError(f"{what}: one sample must be a number or a flat sequence of "
                            f"numbers, got an array of shape {item.shape}")
        return [Value(float(v)) for v in item], len(item), False
    if isinstance(item, (list, tuple)):
        vals = []
        for v in item:
            if isinstance(v, bool) or not isinstance(v, (Real, np.floating, np.integer)):
                raise TypeError(f"{what}: one sample must be a number or a flat sequence "
                                f"of numbers, found {type(v).__name__} inside: {v!r:.40}")
            vals.append(Value(float(v)))
        return vals, len(vals), False
    raise TypeError(f"{what}: one sample must be a number or a flat sequence of numbers, "
                    f"got {type(item).__name__}: {item!r:.60}")


def _outputs(result):
    if isinstance(result, Value):
        return [result], True
    if isinstance(result, (list, tuple)) and result and all(
            isinstance(v, Value) for v in result):
        return list(result), False
    raise TypeError(
        f"the traced function must return a Value or a non-empty list of Values, got "
        f"{type(result).__name__}: {result!r:.60}")


def _topo(roots):
    """Every node reachable from ``roots``, each after all of its inputs."""
    return _topo_order(*roots)


def _record(fn, sample, names):
    """Run fn once on one sample; return (structure, leaves, outputs, kinds, widths)."""
    args, inputs, widths, scalars = [], [], [], []
    for item, name in zip(sample, names):
        vals, width, scalar = _as_values(item, name)
        args.append(vals)
        inputs.extend([vals] if scalar else vals)
        widths.append(width)
        scalars.append(scalar)
    watch = _ReadWatch(inputs)
    with _TRACE_LOCK:
        watching = watch.install()
        try:
            with enable_grad():
                result = fn(*args)
        finally:
            if watching:
                watch.remove()
    outs, single = _outputs(result)
    topo = _topo(outs)
    pos = {id(v): i for i, v in enumerate(topo)}
    in_index = {id(v): k for k, v in enumerate(inputs)}
    struct = []  # per node: ("in", k) | ("leaf",) | (op key, arg, input positions)
    leaves = {}  # position -> the leaf Value (not an input)
    for i, v in enumerate(topo):
        if id(v) in in_index:
            struct.append(("in", in_index[id(v)]))
        elif v._fn is None:
            struct.append(("leaf",))
            leaves[i] = v
        else:
            key = v._fn.key if _ops.OPS.get(v._fn.key) is v._fn else None
            if key is None:
                raise TraceError(f"node {v!r} was made by {v._fn!r}, which is not in the "
                                 f"op table micrograd.ops.OPS")
            _np_kernel(key)  # an op without a NumPy forward is refused here, by name
            struct.append((key, v._arg, tuple(pos[id(p)] for p in v._prev)))
    out_pos = tuple(pos[id(v)] for v in outs)
    return struct, leaves, out_pos, single, tuple(widths), tuple(scalars)


def _describe(entry):
    if entry[0] == "in":
        return f"input #{entry[1]}"
    if entry[0] == "leaf":
        return "a parameter or constant"
    key, arg, prevs = entry
    return f"op {key}" + (f" (exponent {arg!r})" if arg is not None else "") + \
        f" of nodes {list(prevs)}"


def _same_number(a, b):
    return a == b or (a != a and b != b)


def _entry_equal(e1, e2):
    if e1[0] != e2[0]:
        return False
    if e1[0] == "in":
        return e1[1] == e2[1]
    if e1[0] == "leaf":
        return True
    if e1[2] != e2[2]:
        return False
    if e1[1] is None or e2[1] is None:
        return e1[1] is e2[1]
    return _same_number(e1[1], e2[1])


def _compare(t1, t2, where):
    """Check that two traces record the same program; return the parameter leaves."""
    s1, leaves1, out1, single1, widths1, _ = t1
    s2, leaves2, out2, single2, widths2, _ = t2
    hint = (" The graph fn builds depends on the sample's numbers (Python control flow "
            "on values, or a loop whose length depends on the data), so one program "
            "cannot stand for every sample.")
    if widths1 != widths2:
        raise TraceError(f"samples {where} have different shapes: argument widths "
                         f"{widths1} vs {widths2}")
    if len(s1) != len(s2) or out1 != out2 or single1 != single2:
        raise TraceError(f"fn builds graphs of different shapes on samples {where}: "
                         f"{len(s1)} nodes vs {len(s2)} nodes." + hint)
    params = {}
    for i, (e1, e2) in enumerate(zip(s1, s2)):
        if not _entry_equal(e1, e2):
            raise TraceError(f"fn builds different graphs on samples {where}: node {i} is "
                             f"{_describe(e1)} on one and {_describe(e2)} on the other."
                             + hint)
        if e1[0] == "leaf":
            a, b = leaves1[i], leaves2[i]
            if a is b:
                params[i] = a
            elif not _same_number(a.data, b.data):
                raise TraceError(
                    f"a constant of the graph differs between samples {where} "
                    f"({a.data!r} vs {b.data!r}): a number computed from the sample "
                    f"(through .data, or taken from the data set inside fn) is frozen "
                    f"into the program. Pass every per-sample number through fn's "
                    f"arguments so it becomes an input.")
    return params


# =======================================================================================
# Compiling: fuse addition chains, find dense layers, schedule by level.
# =======================================================================================


def _is_run(idx):
    """idx as a slice when it is a run of consecutive rows, else None."""
    idx = np.asarray(idx).ravel()
    if idx.size and np.array_equal(idx, np.arange(idx[0], idx[0] + idx.size)):
        return slice(int(idx[0]), int(idx[0]) + idx.size)
    return None


class _Index:
    """Rows of the value array to read (and to accumulate gradients into)."""

    __slots__ = ("idx", "sl", "unique", "need")

    def __init__(self, idx, need=True):
        self.idx = np.asarray(idx, dtype=np.intp)
        self.sl = _is_run(self.idx) if self.idx.ndim == 1 else None
        self.unique = len(np.unique(self.idx)) == self.idx.size
        self.need = need

    def get(self, V):
        return V[self.sl] if self.sl is not None else V[self.idx]

    def add(self, G, contrib):
        if self.sl is not None:
            G[self.sl] += contrib
        elif self.unique:
            G[self.idx] += contrib
        else:
            np.add.at(G, self.idx, np.broadcast_to(contrib, self.idx.shape + G.shape[1:]))


class _Step:
    __slots__ = ("kind", "key", "arg", "s", "e", "ins", "terms", "x", "w", "b", "wview",
                 "bview")


class Program:
    """A traced function as a flat, batched program. Build with ``trace()``.

    ``program(*batches)`` returns the outputs for every sample (an array of shape (B,)
    for one output, (B, k) for k outputs); ``program.backward(*batches, reduction=...)``
    also accumulates parameter gradients into ``.grad``. Attributes: ``params`` (the
    parameter Values, in order), ``n_inputs``, ``n_outputs``, ``n_traced`` (nodes of the
    traced graph), ``widths`` (per-argument widths), ``groups`` (batched steps).
    """

    def __init__(self, struct, leaves, param_pos, out_pos, single, widths, scalars,
                 params=None):
        self.widths = widths
        self.scalars = scalars
        self.n_inputs = sum(widths)
        self.n_outputs = len(out_pos)
        self.single = single
        self.n_traced = len(struct)
        # the parameter list: the caller's order first, then any other found
        plist = list(params) if params is not None else []
        seen = {id(p) for p in plist}
        for i in sorted(param_pos):
            p = param_pos[i]
            if id(p) not in seen:
                seen.add(id(p))
                plist.append(p)
        self.params = plist
        self._reorder = params is None
        pidx = {id(p): j for j, p in enumerate(plist)}
        nodes = []
        for i, e in enumerate(struct):
            if e[0] == "in":
                nodes.append(("in", e[1]))
            elif e[0] == "leaf":
                if i in param_pos:
                    nodes.append(("param", pidx[id(param_pos[i])]))
                else:
                    nodes.append(("const", leaves[i].data))
            else:
                nodes.append(("op",) + e)
        self._compile(nodes, list(out_pos))
        self._lock = threading.Lock()
        self._buf = None

    # ---- compile ----------------------------------------------------------------

    def _compile(self, nodes, outs):
        n_params = len(self.params)
        users = [0] * len(nodes)
        for nd in nodes:
            if nd[0] == "op":
                for p in nd[3]:
                    users[p] += 1
        is_out = set(outs)

        # 1. chains of additions -> one n-ary sum
        terms = {}
        for i, nd in enumerate(nodes):
            if nd[0] == "op" and nd[1] == "add":
                t = []
                for p in nd[3]:
                    if p in terms and users[p] == 1 and p not in is_out:
                        t.extend(terms.pop(p))
                        nodes[p] = ("dead",)
                    else:
                        t.append(p)
                terms[i] = t
        for i, t in terms.items():
            nodes[i] = ("sum", t)

        # 2. sums of parameter * node products (+ a parameter bias) -> dense rows
        def linear(t):
            nd = nodes[t]
            if nd[0] != "op" or nd[1] != "mul" or users[t] != 1 or t in is_out:
                return None
            a, b = nd[3]
            ka, kb = nodes[a][0], nodes[b][0]
            if ka == "param" and kb != "param":
                return nodes[a][1], b
            if kb == "param" and ka != "param":
                return nodes[b][1], a
            return None

        for i in list(terms):
            lin, rest, bias = [], [], None
            for t in nodes[i][1]:
                wx = linear(t)
                if wx is not None:
                    lin.append((wx, t))
                elif bias is None and nodes[t][0] == "param":
                    bias = nodes[t][1]
                else:
                    rest.append(t)
            if not lin:
                continue
            for _, t in lin:
                nodes[t] = ("dead",)
            dense = ("dense", tuple(x for (_, x), _ in lin), tuple(w for (w, _), _ in lin),
                     bias)
            if rest:
                nodes.append(dense)
                nodes[i] = ("sum", [len(nodes) - 1] + rest)
            else:
                nodes[i] = dense

        def inputs_of(nd):
            k = nd[0]
            if k == "op":
                return nd[3]
            if k == "sum":
                return nd[1]
            if k == "dense":
                return nd[1]
            return ()

        # 3. live nodes, levels, whether a gradient is needed
        live = [False] * len(nodes)
        stack = list(outs)
        while stack:
            i = stack.pop()
            if live[i]:
                continue
            live[i] = True
            stack.extend(inputs_of(nodes[i]))
        level = [0] * len(nodes)
        need = [False] * len(nodes)
        order = _order(nodes, inputs_of)
        for i in order:
            nd = nodes[i]
            ins = inputs_of(nd)
            if ins:
                level[i] = 1 + max(level[p] for p in ins)
            need[i] = nd[0] == "param" or nd[0] == "dense" or any(need[p] for p in ins)
        self.n_live = sum(live)

        # 4. batched groups: nodes of one level doing the same thing
        groups = OrderedDict()
        for i in order:
            nd = nodes[i]
            if not live[i] or nd[0] in ("in", "param", "const"):
                continue
            if nd[0] == "op":
                arg = nd[2]
                key = (level[i], "op", nd[1], repr(arg))
            elif nd[0] == "sum":
                key = (level[i], "sum", len(nd[1]))
            else:
                key = (level[i], "dense", nd[1], nd[3] is not None)
            groups.setdefault(key, []).append(i)

        # 5. when the caller did not fix the parameter order, lay parameters out as the
        # dense steps read them (row by row, bias last): their blocks become strided views
        if self._reorder:
            new_order = []
            for key in sorted(groups, key=lambda k: k[0]):
                if key[1] == "dense":
                    for i in groups[key]:
                        new_order.extend(nodes[i][2])
                        if nodes[i][3] is not None:
                            new_order.append(nodes[i][3])
            placed = set(new_order)
            if len(placed) == len(new_order):  # no weight shared between dense rows
                new_order += [j for j in range(n_params) if j not in placed]
                new = {old: k for k, old in enumerate(new_order)}
                self.params = [self.params[old] for old in new_order]
                for i, nd in enumerate(nodes):
                    if nd[0] == "param":
                        nodes[i] = ("param", new[nd[1]])
                    elif nd[0] == "dense":
                        nodes[i] = ("dense", nd[1], tuple(new[j] for j in nd[2]),
                                    None if nd[3] is None else new[nd[3]])

        # 6. rows: inputs, parameters read directly, constants, then the groups by level
        row = {}
        nrow = self.n_inputs
        const_rows, const_vals = [], []
        # parameters read as rows (not through a dense layer): one block, in param order
        prow = sorted((nodes[i][1], i) for i in order if live[i] and nodes[i][0] == "param")
        for _, i in prow:
            row[i] = nrow
            nrow += 1
        self._prow = slice(self.n_inputs, nrow)
        self._pj = _Index([j for j, _ in prow])
        for i in order:
            if not live[i]:
                continue
            nd = nodes[i]
            if nd[0] == "in":
                row[i] = nd[1]
            elif nd[0] == "const":
                row[i] = nrow
                const_rows.append(nrow)
                const_vals.append(nd[1])
                nrow += 1
        steps = []
        for key in sorted(groups, key=lambda k: k[0]):
            members = groups[key]
            s = nrow
            for i in members:
                row[i] = nrow
                nrow += 1
            st = _Step()
            st.kind = key[1]
            st.s, st.e = s, nrow
            first = nodes[members[0]]
            if st.kind == "op":
                st.key, st.arg = first[1], first[2]
                st.ins = [_Index([row[nodes[i][3][j]] for i in members],
                                 need=any(need[nodes[i][3][j]] for i in members))
                          for j in range(len(first[3]))]
            elif st.kind == "sum":
                st.terms = _Index([[row[t] for t in nodes[i][1]] for i in members],
                                  need=any(need[t] for i in members for t in nodes[i][1]))
            else:
                xs = first[1]
                st.x = _Index([row[x] for x in xs], need=any(need[x] for x in xs))
                st.w = np.array([nodes[i][2] for i in members], dtype=np.intp)
                st.b = (np.array([nodes[i][3] for i in members], dtype=np.intp)
                        if first[3] is not None else None)
            steps.append(st)
        self._steps = steps
        self._nrows = nrow
        self._const_rows = np.array(const_rows, dtype=np.intp)
        self._const_vals = np.array(const_vals, dtype=np.float64)[:, None]
        self._out = _Index([row[o] for o in outs])
        # persistent parameter buffers and views of their dense blocks
        self._P = np.zeros(n_params)
        self._gP = np.zeros(n_params)
        for st in steps:
            if st.kind == "dense":
                st.wview = _block_view(self._P, self._gP, st.w)
                st.bview = (_block_view(self._P, self._gP, st.b[:, None])
                            if st.b is not None else None)
        self.groups = len(steps)

    # ---- running ----------------------------------------------------------------

    def _batch(self, batches):
        if len(batches) != len(self.widths):
            raise TypeError(f"this program takes {len(self.widths)} batch argument(s) "
                            f"(per-sample widths {list(self.widths)}), got {len(batches)}")
        if not batches:
            return np.zeros((0, 1)), 1
        cols = []
        B = None
        for k, (b, w) in enumerate(zip(batches, self.widths)):
            try:
                a = np.asarray(b, dtype=np.float64)
            except (TypeError, ValueError) as exc:
                raise TypeError(f"batch argument {k}: expected numbers (an array of shape "
                                f"(B, {w}) or (B,)), could not convert: {exc}") from None
            if a.ndim == 1 and (w == 1 or self.scalars[k]):
                a = a[:, None]
            if a.ndim != 2 or a.shape[1] != w:
                raise ValueError(f"batch argument {k}: expected shape (B, {w}), got "
                                 f"{a.shape}")
            if B is None:
                B = a.shape[0]
            elif a.shape[0] != B:
                raise ValueError(f"batch arguments have different lengths: {B} and "
                                 f"{a.shape[0]} (argument {k})")
            cols.append(a)
        if B == 0:
            raise ValueError("the batch is empty")
        X = cols[0] if len(cols) == 1 else np.concatenate(cols, axis=1)
        return X, B

    def _read_params(self):
        if self.params:
            self._P[:] = [p.data for p in self.params]

    def _write_grads(self):
        for p, g in zip(self.params, self._gP.tolist()):
            p.grad += g

    def _run(self, X, B, seed=None):
        """Forward (and backward when ``seed`` is given: the gradient of the outputs)
        with the parameters already in ``_P``; parameter grads land in ``_gP``.
        Returns the outputs, shape (n_outputs, B)."""
        with np.errstate(all="ignore"):
            V, saved = self._forward(X, B, keep=seed is not None)
            if seed is not None:
                self._backward(V, saved, seed)
            return self._out.get(V)

    def _buffers(self, B):
        """The value and gradient arrays for a batch of B, reused from the last run (a
        fresh multi-megabyte array costs page faults on every step)."""
        if self._buf is None or self._buf[0].shape[1] != B:
            self._buf = (np.empty((self._nrows, B)), np.empty((self._nrows, B)))
        return self._buf

    def _forward(self, X, B, keep):
        V = self._buffers(B)[0]
        if self.n_inputs:
            V[:self.n_inputs] = X.T
        if self._prow.stop > self._prow.start:
            V[self._prow] = self._pj.get(self._P)[:, None]
        if len(self._const_rows):
            V[self._const_rows] = self._const_vals
        saved = [] if keep else None
        for st in self._steps:
            out = V[st.s:st.e]
            if st.kind == "op":
                xs = tuple(ix.get(V) for ix in st.ins)
                out[:] = np_forward(st.key, xs, st.arg)
                if keep:
                    saved.append(xs)
            elif st.kind == "sum":
                T = st.terms.get(V)
                np.sum(T, axis=1, out=out)
                if keep:
                    saved.append(None)
            else:
                Xg = st.x.get(V)
                np.matmul(st.wview.read(), Xg, out=out)
                if st.bview is not None:
                    out += st.bview.read()
                if keep:
                    saved.append(Xg)
        return V, saved

    def _backward(self, V, saved, seed):
        G = self._buffers(V.shape[1])[1]
        G.fill(0.0)
        self._out.add(G, seed)
        gP = self._gP
        gP[:] = 0.0
        for st, sv in zip(reversed(self._steps), reversed(saved)):
            g = G[st.s:st.e]
            if st.kind == "op":
                cs = np_contributions(st.key, g, sv, V[st.s:st.e], st.arg)
                for ix, c in zip(st.ins, cs):
                    if ix.need:
                        ix.add(G, c)
            elif st.kind == "sum":
                if st.terms.need:
                    st.terms.add(G, g[:, None, :])
            else:
                st.wview.accumulate(g @ sv.T)
                if st.bview is not None:
                    st.bview.accumulate(g.sum(axis=1, keepdims=True))
                if st.x.need:
                    st.x.add(G, st.wview.read().T @ g)
        if self._prow.stop > self._prow.start:
            self._pj.add(gP, G[self._prow].sum(axis=1))
        return G

    def __call__(self, *batches):
        """Outputs for every sample of the batch: shape (B,) or (B, n_outputs)."""
        X, B = self._batch(batches)
        with self._lock:
            self._read_params()
            out = self._run(X, B)
        return out[0].copy() if self.single else out.T.copy()

    forward = __call__

    def backward(self, *batches, reduction="mean", grad_outputs=None):
        """Forward and backward over a batch; accumulate parameter grads into ``.grad``.

        Adds to each parameter's ``.grad`` the gradient of ``sum_i f_i``
        (``reduction="sum"``) or ``mean_i f_i`` (``"mean"``) where ``f_i`` is the traced
        function's (single) output on sample i. For several outputs, or any other
        weighting, give ``grad_outputs`` (shape (B,) or (B, n_outputs)): the gradient of
        ``sum_i sum_k grad_outputs[i, k] * f_ik``. Returns the per-sample outputs.
        """
        X, B = self._batch(batches)
        seed = self._seed(B, reduction, grad_outputs)
        with self._lock:
            self._read_params()
            out = self._run(X, B, seed)
            self._write_grads()
        return out[0].copy() if self.single else out.T.copy()

    def _seed(self, B, reduction, grad_outputs):
        if grad_outputs is None:
            if self.n_outputs != 1:
                raise ValueError(f"this program has {self.n_outputs} outputs: give "
                                 f"grad_outputs of shape (B, {self.n_outputs})")
            if reduction not in ("mean", "sum"):
                raise ValueError(f"reduction must be 'mean' or 'sum', got {reduction!r}")
            seed = (1.0 / B) if reduction == "mean" else 1.0
        else:
            seed = np.asarray(grad_outputs, dtype=np.float64).reshape(B, -1).T
            if seed.shape != (self.n_outputs, B):
                raise ValueError(f"grad_outputs must have shape ({B}, {self.n_outputs})")
        return seed

    def summary(self):
        """A short text: traced nodes, live rows, batched steps by kind."""
        kinds = {}
        for st in self._steps:
            name = st.key if st.kind == "op" else st.kind
            kinds[name] = kinds.get(name, 0) + (st.e - st.s)
        body = ", ".join(f"{k} x{n}" for k, n in kinds.items())
        return (f"Program: {self.n_traced} traced nodes -> {len(self._steps)} batched "
                f"steps ({body}); {self.n_inputs} inputs, {len(self.params)} parameters, "
                f"{self.n_outputs} output(s)")

    def __repr__(self):
        return (f"<Program {self.n_traced} nodes, {len(self._steps)} steps, "
                f"{self.n_inputs} inputs, {len(self.params)} params>")


def _order(nodes, inputs_of):
    """A topological order of the compiled nodes (virtual dense nodes were appended)."""
    order, state = [], [0] * len(nodes)
    for r in range(len(nodes)):
        if state[r]:
            continue
        stack = [(r, False)]
        while stack:
            i, done = stack.pop()
            if done:
                order.append(i)
                continue
            if state[i]:
                continue
            state[i] = 1
            stack.append((i, True))
            for p in inputs_of(nodes[i]):
                if not state[p]:
                    stack.append((p, False))
    return order


def _block_view(P, gP, idx):
    """Read and accumulate parameters laid out like the index array ``idx`` (n, m): a
    strided view of the buffers when the indices form a regular grid without repeats
    (a layer's weights, which Layer.parameters() lists neuron by neuron), else a gather
    and a scatter-add."""
    idx = np.asarray(idx, dtype=np.intp)
    n, m = idx.shape
    r = int(idx[1, 0] - idx[0, 0]) if n > 1 else 1
    c = int(idx[0, 1] - idx[0, 0]) if m > 1 else 1
    grid = idx[0, 0] + r * np.arange(n)[:, None] + c * np.arange(m)[None, :]
    if (r > 0 and c > 0 and np.array_equal(grid, idx)
            and len(np.unique(idx)) == idx.size):
        return _GridView(P, gP, int(idx[0, 0]), n, m, r, c)
    return _GatherView(P, gP, idx)


class _GridView:
    """Parameters at base + i*r + j*c: strided views, no copy either way."""

    __slots__ = ("view", "gview")

    def __init__(self, P, gP, base, n, m, r, c):
        s = P.itemsize
        strided = np.lib.stride_tricks.as_strided
        self.view = strided(P[base:], (n, m), (r * s, c * s), writeable=False)
        self.gview = strided(gP[base:], (n, m), (r * s, c * s))

    def read(self):
        return self.view

    def accumulate(self, g):
        self.gview += g


class _GatherView:
    __slots__ = ("P", "gP", "idx", "flat")

    def __init__(self, P, gP, idx):
        self.P, self.gP, self.idx = P, gP, idx
        self.flat = idx.ravel()

    def read(self):
        return self.P[self.idx]

    def accumulate(self, g):
        self.gP += np.bincount(self.flat, weights=np.ravel(g), minlength=len(self.gP))


# =======================================================================================
# Public entry points
# =======================================================================================

_CACHE = OrderedDict()
_CACHE_SIZE = 16


def clear_cache():
    """Forget every cached trace (see "When to trace again" in the module docs)."""
    _CACHE.clear()


def _pick_samples(batches):
    """The first and the last sample of the batch (the two traces)."""
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


def trace(fn, *batches, params=None, cache=True):
    """Trace ``fn`` (a function of one sample's Values) into a batched ``Program``.

    ``batches``: one per argument of ``fn``, each a sequence of per-sample items (a
    number per sample, or a flat sequence of numbers per sample; numpy arrays of shape
    (B,) or (B, k) work). ``fn`` gets, per argument, a Value (number) or a list of
    Values, and returns a Value or a list of Values. With no batches ``fn`` takes no
    arguments (a regulariser over the parameters): the program runs on one "sample".

    ``params``: the parameters in the order you want (default: every leaf that is the
    same object in two traces, in order of appearance; a ``Module`` passed as ``fn``
    gives its ``parameters()``). Raises ``TraceError`` when fn cannot be traced.

        >>> from micrograd.nn import MLP
        >>> model = MLP(2, [4, 1], seed=0)
        >>> prog = trace(model, [[0.5, -1.0], [2.0, 3.0]])
        >>> prog([[0.5, -1.0]]).shape
        (1,)
    """
    if not callable(fn):
        raise TypeError(f"trace needs a callable, got {type(fn).__name__}")
    if params is None and hasattr(fn, "parameters") and callable(fn.parameters):
        params = fn.parameters()
    if params is not None:
        params = list(params)
        for p in params:
            if not isinstance(p, Value):
                raise TypeError(f"params must be Values, got {type(p).__name__}")
    samples, where = _pick_samples(batches)
    key = None
    if cache and params is not None:
        shapes = tuple(
            (len(item) if hasattr(item, "__len__") else -1) for item in samples[0])
        key = (fn, shapes, tuple(id(p) for p in params))
        hit = _CACHE.get(key)
        if hit is not None:
            _CACHE.move_to_end(key)
            return hit
    names = [f"batch argument {k}" for k in range(len(batches))]
    t1 = _record(fn, samples[0], names)
    t2 = _record(fn, samples[-1], names)
    param_pos = _compare(t1, t2, where or "(no inputs)")
    struct, leaves, out_pos, single, widths, scalars = t1
    prog = Program(struct, leaves, param_pos, out_pos, single, widths, scalars,
                   params=params)
    if key is not None:
        _CACHE[key] = prog
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return prog


class BatchLoss:
    """``loss = reduction_i f(sample_i) + regularizer()`` over a batch, traced.

    ``backward(*batches)`` accumulates d loss / d p into every parameter's ``.grad`` and
    returns the loss as a float; ``value(*batches)`` only evaluates it. ``per_sample``
    is a traced ``Program`` with one output; ``regularizer`` a traced program with no
    inputs (or None). Build one with ``trace_loss``.
    """

    def __init__(self, per_sample, reduction="mean", regularizer=None):
        if reduction not in ("mean", "sum"):
            raise ValueError(f"reduction must be 'mean' or 'sum', got {reduction!r}")
        if per_sample.n_outputs != 1:
            raise ValueError("the per-sample function must return one Value (the loss)")
        if regularizer is not None and (regularizer.n_inputs or regularizer.n_outputs != 1
                                        or regularizer.widths):
            raise ValueError("the regularizer must take no arguments and return one Value")
        self.per_sample = per_sample
        self.reduction = reduction
        self.regularizer = regularizer
        # one parameter list for both programs: read .data once, write .grad once
        params = list(per_sample.params)
        index = {id(p): j for j, p in enumerate(params)}
        if regularizer is not None:
            for p in regularizer.params:
                if id(p) not in index:
                    index[id(p)] = len(params)
                    params.append(p)
        self.params = params
        self._P = np.zeros(len(params))
        self._g = np.zeros(len(params))
        self._maps = []
        for prog in (per_sample, regularizer):
            if prog is None:
                continue
            m = _Index([index[id(p)] for p in prog.params])
            self._maps.append((prog, m))
        self._lock = threading.Lock()

    def _load(self):
        P = self._P
        if self.params:
            P[:] = [p.data for p in self.params]
        for prog, m in self._maps:
            if prog.params:
                prog._P[:] = m.get(P)

    def backward(self, *batches):
        """Accumulate d loss / d p into every parameter's ``.grad``; return the loss."""
        ps = self.per_sample
        X, B = ps._batch(batches)
        seed = (1.0 / B) if self.reduction == "mean" else 1.0
        with self._lock, ps._lock:
            self._load()
            out = ps._run(X, B, seed)
            loss = float(out.mean() if self.reduction == "mean" else out.sum())
            g = self._g
            g[:] = 0.0
            for prog, m in self._maps:
                if prog is not ps:
                    with prog._lock:
                        loss += float(prog._run(None, 1, 1.0)[0, 0])
                if prog.params:
                    m.add(g, prog._gP)
            for p, d in zip(self.params, g.tolist()):
                p.grad += d
        return loss

    def value(self, *batches):
        """The loss on a batch (no gradients)."""
        out = self.per_sample(*batches)
        loss = float(out.mean() if self.reduction == "mean" else out.sum())
        if self.regularizer is not None:
            loss += float(self.regularizer()[0])
        return loss

    __call__ = value

    def __repr__(self):
        reg = f", regularizer={self.regularizer!r}" if self.regularizer is not None else ""
        return f"BatchLoss({self.per_sample!r}, reduction={self.reduction!r}{reg})"


def trace_loss(fn, *batches, reduction="mean", regularizer=None, params=None, cache=True):
    """Trace a per-sample loss ``fn`` (and an optional parameter-only ``regularizer``,
    a function of no arguments) into a ``BatchLoss``: ``reduction`` ("mean" or "sum")
    over the samples of ``fn``'s output, plus ``regularizer()`` once.

        >>> from micrograd.nn import MLP
        >>> model = MLP(1, [3, 1], seed=0)
        >>> loss = trace_loss(lambda x, y: (model(x) - y) ** 2, [[1.0], [2.0]], [0.0, 1.0])
        >>> isinstance(loss.backward([[1.0], [2.0]], [0.0, 1.0]), float)
        True
    """
    prog = trace(fn, *batches, params=params, cache=cache)
    reg = trace(regularizer, params=params, cache=cache) if regularizer is not None \
        else None
    return BatchLoss(prog, reduction=reduction, regularizer=reg)


# ---------------------------------------------------------------------------------------
# an engine for micrograd.train.fit
# ---------------------------------------------------------------------------------------


class TracedEngine:
    """``fit``'s engine that runs model and loss over the whole batch with NumPy.

    It traces ``loss.sample(model(x), target)`` (one sample, the lecture's Value API) and
    the L2 term once per (model, loss, l2), then every ``loss_and_grad`` is one batched
    forward and backward pass that writes ``p.grad``: the same numbers as
    ``train.EagerEngine`` to about 1e-12 (only the order of summation differs).
    A loss without a per-sample form (a custom function) cannot be traced: use the eager
    engine for it (``fit(engine="auto")`` does so by itself).
    """

    name = "traced"

    def __init__(self):
        self._entry = None  # (model, params, loss, l2, k, batch loss program, predict)

    def _prepare(self, model, X, y, loss, l2):
        e = self._entry
        params = model.parameters()
        # the programs stay valid for the same model, parameters, loss and l2 (a new
        # architecture has new parameter objects); checked by identity, cheaply
        if e is None or not (e[0] is model and e[2] is loss and e[3] == l2
                             and len(e[1]) == len(params)
                             and all(a is b for a, b in zip(e[1], params))):
            e = self._entry = self._build(model, params, X, y, loss, l2)
        k, batch_loss, predict = e[4], e[5], e[6]
        return batch_loss, predict, [loss.target(t, k) for t in y]

    @staticmethod
    def _build(model, params, X, y, loss, l2):
        from .losses import l2_penalty

        if loss.sample is None:
            raise TraceError(f"the loss {loss.name!r} has no per-sample form to trace; "
                             f"use the eager engine")
        k = 1
        if loss.labels == "index":  # classes: the number of outputs, for one-hot targets
            with no_grad():
                k = len(_outputs(model(X[0]))[0])
        T = [loss.target(t, k) for t in y]

        def sample(x, t):
            return loss.sample(model(x), t)

        reg = (lambda: l2_penalty(params, l2)) if l2 else None
        batch_loss = trace_loss(sample, X, T, reduction="mean", regularizer=reg,
                                params=params, cache=False)
        predict = trace(model, X, params=params, cache=False)
        return (model, params, loss, l2, k, batch_loss, predict)

    @staticmethod
    def _accuracy(predict, X, y):
        from .losses import accuracy

        return accuracy(predict(X).tolist(), y)

    def loss_and_grad(self, model, X, y, loss, l2=0.0):
        batch_loss, predict, T = self._prepare(model, X, y, loss, l2)
        acc = self._accuracy(predict, X, y)  # before the update, as the eager engine
        return batch_loss.backward(X, T), acc

    def evaluate(self, model, X, y, loss, l2=0.0):
        batch_loss, predict, T = self._prepare(model, X, y, loss, l2)
        return batch_loss.value(X, T), self._accuracy(predict, X, y)

    def __repr__(self):
        return "TracedEngine()"

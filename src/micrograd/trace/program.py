"""``Program``: a traced function, compiled, run over whole batches.

Compiling needs only the standard library. The backend's executor that runs the program
(NumPy's by default, ``runtime.NumpyExecutor``) is built with it when NumPy is loaded
already, else when the program first runs: so a Python without NumPy traces, and lowers
the program into primitive instructions (``micrograd.trace.lowering``), without ever importing it.
"""

from __future__ import annotations

import importlib.util
import sys
import threading
from typing import NamedTuple

from .. import ops as _ops
from . import passes
from .batch import Batch
from .ir import OpNode, SumNode, TraceError, no_numpy_kernel


class RunResult(NamedTuple):
    """What ``Program.run`` returns (NumPy arrays)."""

    outputs: object         # (n_outputs, B)
    grads: object           # per parameter, when a seed was given, else None
    once: object            # the once-per-batch outputs (a loss's regularizer)


class Source(NamedTuple):
    """What a program was compiled from: the recording, its parameters by position,
    and the no-input graph run once per batch beside it (recording, parameters), or
    None. The lowering compiles the same source into primitive instructions."""

    recording: object
    param_at: dict
    once: tuple | None


class Compiled(NamedTuple):
    """The compiler's result, from which a backend builds its executor."""

    nodes: list
    groups: list
    layout: object
    need: list
    outputs: list
    n_inputs: int
    n_params: int
    once_outputs: list


class Program:
    """A traced function as a flat, batched program. Build with ``trace()``.

    ``program(*batches)`` returns the outputs for every sample (an array of shape (B,)
    for one output, (B, k) for k outputs); ``program.backward(*batches, reduction=...)``
    also accumulates parameter gradients into ``.grad``. Attributes: ``params`` (the
    parameter Values, in order), ``n_inputs``, ``n_outputs``, ``n_traced`` (nodes of the
    traced graph), ``widths`` (per-argument widths), ``groups`` (batched steps).

    ``run`` is the low-level form that reads and writes no Value: parameter values in,
    outputs and parameter gradients out (``BatchLoss`` and the optimizers use it).
    ``backend="torch"`` (and a ``device``) runs the same program on PyTorch tensors;
    batches, outputs and gradients stay NumPy arrays at its edges.
    """

    def __init__(self, rec, param_at, params=None, once=None, backend="numpy", device=None):
        check_backend(backend, device)
        self.backend, self.device = backend, device
        self.widths = rec.widths
        self.scalars = rec.scalars
        self.n_inputs = sum(rec.widths)
        self.n_outputs = len(rec.outputs)
        self.single = rec.single
        self.n_traced = len(rec.nodes) + (len(once[0].nodes) if once is not None else 0)
        # the parameter list: the caller's order first, then any other found
        plist = list(params) if params is not None else []
        seen = {id(p) for p in plist}
        for at in (param_at, once[1] if once is not None else {}):
            for i in sorted(at):
                if id(at[i]) not in seen:
                    seen.add(id(at[i]))
                    plist.append(at[i])
        self.source = Source(rec, param_at, once)
        self._compiled, self.params = compile_source(rec, param_at, plist, reorder=params is None,
                                               once=once)
        if backend == "numpy":
            check_numpy_kernels(self._compiled.nodes)
        self._built = None
        self._lock = threading.Lock()
        if backend == "torch" or "numpy" in sys.modules:
            # built now, as part of tracing, when NumPy is loaded already (the usual
            # case: the first step then costs what every step costs) or PyTorch was
            # asked for; else when the program first runs (a Python that only lowers)
            self._build()

    @property
    def _executor(self):
        """The backend's executor, built (and NumPy imported) on first use."""
        return self._built if self._built is not None else self._build()

    def _build(self):
        c = self._compiled
        executor = numpy_runtime().NumpyExecutor(c.nodes, c.groups, c.layout, c.need,
                                                 c.outputs, c.n_inputs, c.n_params,
                                                 c.once_outputs)
        if self.backend == "torch":
            from .torch_backend import TorchExecutor  # PyTorch only when asked for

            executor = TorchExecutor(executor, self.device or "cpu")
        self._built = executor
        return executor

    # ---- the low-level interface -------------------------------------------------------

    def as_batch(self, *batches) -> Batch:
        """Check and pack one array (or sequence) per argument into a ``Batch``."""
        return numpy_runtime().pack(batches, self.widths, self.scalars)

    def param_values(self):
        """The parameters' current ``.data``, in ``params`` order, as an array."""
        return numpy_runtime().param_values(self.params)

    def add_grads(self, grads):
        """``p.grad += g`` for every parameter (``grads`` in ``params`` order)."""
        numpy_runtime().add_grads(self.params, grads)

    def run(self, batch: Batch, param_values, seed=None):
        """One pass over ``batch`` with the given parameter values (no Value is read or
        written). Returns a ``RunResult``: outputs of shape (n_outputs, B); with
        ``seed`` (the gradient of the outputs: a number or an (n_outputs, B) array) the
        gradient of ``sum(seed * outputs) + sum(once)`` for every parameter, else None;
        and the once-per-batch outputs."""
        with self._lock:
            r = self._executor
            if len(r.P):
                r.P[:] = param_values
            out, once = r.run(batch.X, batch.size, seed)
            return RunResult(out.copy(), r.gP.copy() if seed is not None else None,
                             once.copy())

    # ---- with Values -------------------------------------------------------------------

    def __call__(self, *batches):
        """Outputs for every sample of the batch: shape (B,) or (B, n_outputs)."""
        out = self.run(self.as_batch(*batches), self.param_values()).outputs
        return out[0] if self.single else out.T

    forward = __call__

    def backward(self, *batches, reduction="mean", grad_outputs=None):
        """Forward and backward over a batch; accumulate parameter grads into ``.grad``.

        Adds to each parameter's ``.grad`` the gradient of ``sum_i f_i``
        (``reduction="sum"``) or ``mean_i f_i`` (``"mean"``) where ``f_i`` is the traced
        function's (single) output on sample i. For several outputs, or any other
        weighting, give ``grad_outputs`` (shape (B,) or (B, n_outputs)): the gradient of
        ``sum_i sum_k grad_outputs[i, k] * f_ik``. Returns the per-sample outputs.
        """
        batch = self.as_batch(*batches)
        out, grads, _ = self.run(batch, self.param_values(),
                                 self._seed(batch.size, reduction, grad_outputs))
        self.add_grads(grads)
        return out[0] if self.single else out.T

    def _seed(self, B, reduction, grad_outputs):
        if grad_outputs is not None:
            return numpy_runtime().seed_array(grad_outputs, B, self.n_outputs)
        if self.n_outputs != 1:
            raise ValueError(f"this program has {self.n_outputs} outputs: give "
                             f"grad_outputs of shape (B, {self.n_outputs})")
        return reduction_seed(reduction, B)

    # ---- description ---------------------------------------------------------------------

    @property
    def groups(self):
        """The number of batched steps."""
        return len(self._compiled.groups)

    def summary(self):
        """A short text: traced nodes, batched steps by kind."""
        kinds = {}
        for g in self._compiled.groups:
            label = {OpNode: None, SumNode: "sum"}.get(g.kind, "dense")
            label = label or self._compiled.nodes[g.members[0]].key
            kinds[label] = kinds.get(label, 0) + len(g.members)
        body = ", ".join(f"{k} x{n}" for k, n in kinds.items())
        return (f"Program: {self.n_traced} traced nodes -> {self.groups} batched "
                f"steps ({body}); {self.n_inputs} inputs, {len(self.params)} parameters, "
                f"{self.n_outputs} output(s)")

    def __repr__(self):
        return (f"<Program {self.n_traced} nodes, {self.groups} steps, "
                f"{self.n_inputs} inputs, {len(self.params)} params>")


_RUNTIME = []  # the NumPy runtime module, once imported


def numpy_runtime():
    """``micrograd.trace.runtime`` (the NumPy backend), imported with NumPy on first use."""
    if not _RUNTIME:
        from . import runtime

        _RUNTIME.append(runtime)
    return _RUNTIME[0]


BACKENDS = ("numpy", "torch")


def check_backend(backend, device):
    """Refuse an unknown backend, a device without torch, and torch not installed."""
    if backend not in BACKENDS:
        raise ValueError(f"backend must be 'numpy' or 'torch', got {backend!r}")
    if device is not None and backend != "torch":
        raise ValueError(f"a device ({device!r}) needs backend='torch'")
    if backend == "torch" and importlib.util.find_spec("torch") is None:
        raise ModuleNotFoundError("the torch backend needs PyTorch: pip install torch",
                                  name="torch")


def reduction_seed(reduction, B):
    """The gradient of a batch's reduction with respect to each sample's output."""
    if reduction == "mean":
        return 1.0 / B
    if reduction == "sum":
        return 1.0
    raise ValueError(f"reduction must be 'mean' or 'sum', got {reduction!r}")


def check_numpy_kernels(nodes):
    """Refuse, naming it, an op the NumPy backend has no forward kernel for: every
    built-in has one (``NP_FORWARD``), a user-defined op brings ``np_forward`` (or was
    added to ``NP_FORWARD``). Checked when tracing, without importing NumPy."""
    added = getattr(sys.modules.get(__package__ + ".numpy_backend"), "NP_FORWARD", {})
    for nd in nodes:
        if not isinstance(nd, OpNode):
            continue
        op = _ops.OPS.get(nd.key)
        if op is _ops.BUILTIN.get(nd.key) or getattr(op, "np_forward", None) is not None \
                or nd.key in added:
            continue
        raise TraceError(no_numpy_kernel(nd.key))


def compile_source(rec, param_at, params, reorder, once=None):
    """Run the compiler passes; returns (the ``Compiled`` program, the parameter list
    in its final order: when the caller fixed no order, as the dense steps read them).
    ``once``: the recording and parameters of a no-input graph to run once per batch
    beside it."""
    nodes = passes.build_graph(rec, param_at, params)
    outputs = list(rec.outputs)
    once_outputs = []
    if once is not None:
        shift = passes.append_graph(nodes, passes.build_graph(once[0], once[1], params))
        once_outputs = [o + shift for o in once[0].outputs]
    users = passes.count_users(nodes)
    ends = set(outputs) | set(once_outputs)
    sums = passes.fuse_sums(nodes, users, ends)
    passes.find_dense(nodes, users, ends, sums)
    an = passes.analyse(nodes, outputs + once_outputs)
    in_once = passes.reachable(nodes, once_outputs)
    groups = passes.group(nodes, an, in_once)
    passes.align_rows(nodes, groups)
    if reorder:
        new_order = passes.dense_param_order(nodes, groups, len(params))
        if new_order is not None:
            passes.renumber_params(nodes, new_order)
            params = [params[j] for j in new_order]
    layout = passes.assign_rows(nodes, an, groups, sum(rec.widths), in_once)
    return Compiled(nodes, groups, layout, an.need, outputs, sum(rec.widths), len(params),
                    once_outputs), params

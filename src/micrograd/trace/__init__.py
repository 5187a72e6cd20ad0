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

The fastest loop: ``TracedSGD`` / ``TracedAdam`` update the traced parameters as one
array (``opt = TracedAdam(loss, lr=5e-3); L = opt.step(X, Y)``) and keep every
parameter's ``.data`` and ``.grad`` true whenever read (see ``micrograd.trace.bound``).

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
    A parameter's number taken out inside ``fn`` (``x * w.data``) is refused (below):
    use the Value ``w``, or for its number without a gradient (PyTorch's ``detach()``)
    pass it in through an argument, an input read at every run:
    ``trace(lambda x, c: x * w + c, X, [w.data] * len(X))``, called likewise.

What cannot be traced (``TraceError``)
    The program records operations on Values, never Python decisions. ``fn`` is traced
    twice, on two different samples (the first and the last of the batch), while reads of
    ``.data`` are watched; it is refused, with the cause named, when

    * it reads the number of a value that depends on the sample, through ``.data``
      (``if s.data > 0:``, ``max(v.data for v in logits)``) or through ``repr``,
      ``str``, ``format``, ``bool`` or ``float`` (``if "-" in str(s):``, an f-string):
      the line is named (so ``print(s)`` inside a traced function is refused too:
      print outside ``trace()``);
    * it reads the number of a parameter, or of a value computed from one, through
      ``.data`` or ``bool`` (``x * w.data``, ``if w.data > 0:``, ``(w * 2).data``): the
      line is named. A float taken from a parameter is only a number by the time the
      graph is built, so it would be frozen into the program and wrong after the next
      optimizer step. (A parameter is a value both traces share; ``.data`` of a Value
      made anew by each call is allowed, and so is the text of a parameter, to print);
    * the two traces differ in shape (a loop whose length depends on the sample, an op
      chosen by the data) or in a constant (a per-sample number that did not come in
      through fn's arguments, an exponent computed from the data).

    Write such code with Value ops instead: ``relu``, ``abs``, and
    ``max(a, b) = (a + b + abs(a - b)) * 0.5`` cover most cases.

    What no check can see: a decision taken on the sample by a route that bypasses the
    Value (the raw batch array read inside ``fn`` through a closure, ``id()`` or
    ``hash()`` of a node, randomness or a counter outside ``fn``) when the first and the
    last sample of the batch happen to take the same branch. The two traces then agree
    and the program silently takes that branch for every sample. Likewise a parameter's
    number read by the first call only and kept outside ``fn``, or taken by a route other
    than ``.data`` and ``bool`` (a copy of the parameter, a decision on its text). Pass
    every per-sample number through ``fn``'s arguments and keep ``fn`` free of outside
    state.

When to trace again
    A program stays valid while ``fn`` builds the same graph: training (parameters'
    ``.data`` change), another batch, another batch size all reuse it. Trace again when
    the graph changes: a new model or architecture, another activation or loss.
    ``trace`` keeps a small cache keyed on (fn, the identities of the parameters, the
    shapes of the per-sample arguments): a new model has new parameters, so it gets a new
    trace automatically; a change made in place that keeps the same parameter objects
    (``neuron._act = ...``) does not: pass ``cache=False`` or call ``clear_cache()``.

A ``Program`` is not thread-safe (it reuses its buffers): one run at a time per program.

Outside Python
    ``lower(loss, optimizer=AdamUpdate(lr=0.01))`` writes traced programs as a flat list
    of primitive array instructions (``prims.PRIMS``, one table) in plain data, for a
    executor outside Python (the web page's JavaScript one). Tracing and lowering need
    only the standard library: NumPy is imported when a program first runs here.

Layout of the package: the compiler, standard library only: ``recording`` (run fn on
Values, watch it, compare two traces), ``ir`` (the node types), ``passes`` (fuse sums,
find dense layers, group by level, lay out rows), ``program`` (``Program``), ``batch``
(``Batch``, what a program hands its backend), ``batch_loss`` (``BatchLoss``), ``api``
(``trace``, ``trace_loss``, the cache), ``optimizers`` (the updates and the traced
optimizers), ``bound``; the lowering:
``prims`` (the primitive table), ``prim_math`` (each op's forward and rule written as
primitives), ``lowering`` (``lower``); the backends: ``runtime`` and ``numpy_backend``
(NumPy), ``torch_backend`` (PyTorch).
"""

from .api import clear_cache, trace, trace_loss
from .batch_loss import BatchLoss
from .ir import LoweringError, TraceError
from .lowering import Lowered, lower, lower_op
from .optimizers import NonFiniteLoss, TracedAdam, TracedSGD
from .updates import AdamUpdate, SGDUpdate
from .prim_math import LOWERED_FORWARD
from .prims import PRIMS
from .program import Program

__all__ = ["trace", "trace_loss", "Program", "BatchLoss", "TraceError", "NP_FORWARD", "NUMPY",
           "np_forward", "np_contributions", "clear_cache", "TracedSGD", "TracedAdam",
           "SGDUpdate", "AdamUpdate", "NonFiniteLoss", "lower", "lower_op", "Lowered",
           "LoweringError", "LOWERED_FORWARD", "PRIMS"]

_NUMPY_NAMES = ("NP_FORWARD", "NUMPY", "np_contributions", "np_forward")


def __getattr__(name):
    # the NumPy backend's names, imported (with NumPy) when first asked for
    if name in _NUMPY_NAMES:
        from . import numpy_backend

        return getattr(numpy_backend, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

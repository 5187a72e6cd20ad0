"""The training loop: ``fit(model, X, y, ...)`` with history, progress bar and callbacks.

    >>> from micrograd.nn import MLP
    >>> from micrograd.data import make_disk, train_test_split
    >>> from micrograd.optim import SGD
    >>> from micrograd.train import fit
    >>> X, y = make_disk(n_samples=40, seed=1)
    >>> Xtr, Xte, ytr, yte = train_test_split(X, y, seed=1)
    >>> model = MLP(2, [4, 1], style="lecture", seed=1)     # tanh, as in the circle experiment
    >>> hist = fit(model, Xtr, ytr, loss="mse", optimizer=SGD(model.parameters(), lr=0.1),
    ...            epochs=5, X_test=Xte, y_test=yte, progress=False)
    >>> len(hist.train_loss), hist.stopped
    (5, 'completed')

One epoch is one pass over the training set, in minibatches of ``batch_size`` (shuffled
with ``seed``) or as one full batch (``batch_size=None``, micrograd's demo). Each step is
the lecture's: set the learning rate from ``schedule(step)``, ``opt.zero_grad()``, the
forward pass, the loss and ``backward()`` of one batch (the runner), ``opt.step()``.

History: ``train_loss`` / ``train_acc`` of an epoch are the averages over its batches,
measured in the forward passes of training (before each batch's update, as micrograd's
demo prints them); ``test_loss`` / ``test_acc`` are measured after the epoch. Both losses
include the L2 penalty (the objective being minimised).

Callbacks run after every epoch as ``callback(epoch, logs, model)`` (``logs`` is the dict
of that epoch's numbers); a callback that returns ``True`` stops training.

Ctrl-C stops cleanly after the current step. A second Ctrl-C interrupts at once, but
only inside a step's loss-and-gradient computation or the test-set evaluation (the
step is abandoned, the evaluation's numbers are recorded as nan), never in the middle of
an optimizer step or of the history's bookkeeping (``micrograd.interrupts.CtrlC``).
Either way the model keeps the weights of the last completed step, the history has one
entry per epoch in every list (the last epoch may be partial: the average over its
completed steps), and ``fit`` returns it with ``stopped == "interrupted"``.

Divergence: ``History.diverged_at`` is the first epoch whose training loss is not a
finite number (nan or inf; None while it stays finite). By default training goes on
regardless (the remaining epochs compute nan); ``stop_on_nan=True`` stops right after
that epoch, before its callbacks, with ``stopped == "diverged"``.

The runner: computing one batch's loss and gradients is pluggable (``runner=``; see
``micrograd.train_runners``): ``"eager"`` builds the ``Value`` graph of the batch and
calls ``backward()``, the reference; ``"traced"`` runs the same scalar code over the
whole batch with NumPy; ``"auto"`` picks the traced one where it applies.
"""

from __future__ import annotations

import gc
import math
import random as _random
import sys
import time
import warnings
from contextlib import contextmanager
from numbers import Real
from typing import NamedTuple

from . import checks
from .engine import no_grad
from .interrupts import ctrl_c_guard
from .losses import get_loss
from .train_runners import get_runner

__all__ = ["fit", "evaluate", "History", "StopTraining"]


class StopTraining(Exception):
    """Raise from a callback to stop training (same as returning ``True``)."""


# ---------------------------------------------------------------------------------------
# the names of an earlier release, accepted for one more with a DeprecationWarning
# ---------------------------------------------------------------------------------------

#: old name in this module -> (module, new name)
_MOVED = {"EagerEngine": ("train_runners", "EagerRunner"),
          "get_engine": ("train_runners", "get_runner"),
          "CtrlC": ("interrupts", "CtrlC"),
          "ctrl_c_guard": ("interrupts", "ctrl_c_guard"),
          "install_ctrl_c": ("interrupts", "install_ctrl_c")}


def _renamed(old, new, stacklevel=3):
    warnings.warn(f"{old} is deprecated: use {new} (the old name goes in the next "
                  f"release)", DeprecationWarning, stacklevel=stacklevel)


def __getattr__(name):
    if name not in _MOVED:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    module, new = _MOVED[name]
    _renamed(f"micrograd.train.{name}", f"micrograd.{module}.{new}")
    return getattr(importlib.import_module(f"micrograd.{module}"), new)


def _runner_keyword(runner, engine, default):
    """``runner=``, or the old keyword ``engine=`` (deprecated) in its place."""
    if engine is None:
        return runner
    _renamed("the keyword engine=", "runner= (the same values)", stacklevel=4)
    if runner is not default:
        raise TypeError("give runner= only (engine= is its old name), not both")
    return engine


def evaluate(model, X, y, loss="mse", l2=0.0, runner=None, *, engine=None):
    """``(loss, accuracy)`` of ``model`` on ``(X, y)``, without gradients. ``runner``:
    as ``fit``'s (default: the eager one)."""
    runner = get_runner(_runner_keyword(runner, engine, None), loss)
    X, spec = list(X), get_loss(loss)
    spec.check_labels(y)
    if X:
        _check_outputs(model, X[0], spec)
    return runner.evaluate(model, X, list(y), spec, l2)


def _check_outputs(model, x, spec):
    """A loss over K class logits (``ce``) needs a model with K >= 2 outputs: refused
    here, the same for every runner (traced, a one-output model gave a loss of 0)."""
    if spec.outputs != "classes":
        return
    with no_grad():
        out = model(x)
    n = len(out) if isinstance(out, (list, tuple)) else 1
    if n < 2:
        raise ValueError(f"the loss {spec.name!r} needs one output (logit) per class, at "
                         f"least 2, but the model has {n} output; give the last layer K "
                         f"outputs, or use 'bce' (one logit, labels 0/1) for two classes")


# ---------------------------------------------------------------------------------------
# history
# ---------------------------------------------------------------------------------------


class History:
    """Per-epoch numbers of one ``fit`` run (lists of floats, one entry per epoch)."""

    KEYS = ("train_loss", "train_acc", "test_loss", "test_acc", "lr", "time")

    def __init__(self):
        self.train_loss = []
        self.train_acc = []
        self.test_loss = []  # empty without a test set
        self.test_acc = []
        self.lr = []  # the learning rate of the epoch's last step
        self.time = []  # seconds since the start of training, at the end of each epoch
        self.steps = 0  # optimizer steps taken
        self.stopped = "running"  # then "completed", "callback", "diverged", "interrupted"
        self.runner = ""  # what computed the gradients: "eager" or "traced"
        self.diverged_at = None  # first epoch whose train loss was nan or inf

    @property
    def epochs(self):
        return len(self.train_loss)

    @property
    def engine(self):
        """The old name of ``runner`` (deprecated)."""
        _renamed("History.engine", "History.runner")
        return self.runner

    def last(self):
        """The last epoch's numbers as a dict (empty before the first epoch)."""
        if not self.train_loss:
            return {}
        out = {"epoch": self.epochs}
        for k in self.KEYS:
            seq = getattr(self, k)
            if seq:
                out[k] = seq[-1]
        return out

    def to_dict(self, json_safe=False):
        """The numbers as a dict. ``json_safe=True`` writes nan and inf as the strings
        ``"NaN"``, ``"Infinity"``, ``"-Infinity"`` (JSON has no such numbers; the same
        form as ``micrograd.viz.num``), so ``json.dumps(..., allow_nan=False)`` works."""
        d = {k: list(getattr(self, k)) for k in self.KEYS}
        if json_safe:
            from .graph import num

            d = {k: [num(x) for x in v] for k, v in d.items()}
        d.update(epochs=self.epochs, steps=self.steps, stopped=self.stopped,
                 diverged_at=self.diverged_at)
        return d

    def _record(self, train_loss, train_acc, lr, test, seconds):
        """Append one epoch's numbers (``test``: ``(loss, acc)`` or None)."""
        self.train_loss.append(train_loss)
        self.train_acc.append(train_acc)
        self.lr.append(lr)
        if test is not None:
            self.test_loss.append(test[0])
            self.test_acc.append(test[1])
        self.time.append(seconds)

    def _even_out(self):
        """Drop a partly recorded last epoch, so every list has one entry per epoch."""
        full = [getattr(self, k) for k in self.KEYS if k not in ("test_loss", "test_acc")]
        n = min(len(seq) for seq in full)
        if self.test_loss or self.test_acc:
            n = min(n, len(self.test_loss), len(self.test_acc))
        for k in self.KEYS:
            del getattr(self, k)[n:]

    def __repr__(self):
        last = self.last()
        nums = " ".join(f"{k}={v:.4g}" for k, v in last.items() if k != "epoch")
        return f"History({self.epochs} epochs, {self.stopped}{', ' + nums if nums else ''})"


@contextmanager
def _gc_paused(pause):
    """Pause Python's cyclic garbage collector while training.

    A ``Value`` graph holds no reference cycles, so reference counting frees each
    batch's graph as soon as it is dropped. The cyclic collector would only re-scan the
    tens of thousands of live nodes of a big batch, again and again: on a network of
    micrograd's demo's size that is as much work as the step itself.
    """
    was = gc.isenabled()
    if pause:
        gc.disable()
    try:
        yield
    finally:
        if pause and was:
            gc.enable()


# ---------------------------------------------------------------------------------------
# fit
# ---------------------------------------------------------------------------------------


def fit(model, X, y, *, loss="mse", optimizer=None, epochs=100, batch_size=None,
        X_test=None, y_test=None, l2=0.0, schedule=None, callbacks=(), progress=True,
        desc="train", seed=0, runner="auto", pause_gc=True, stop_on_nan=False,
        engine=None):
    """Train ``model`` on ``(X, y)`` and return a ``History``.

    Arguments:
        loss: a name of ``micrograd.losses.LOSSES`` ("mse", "hinge", "bce", "ce") or a
            function ``(outputs, targets) -> Value``.
        optimizer: an optimizer of ``micrograd.optim`` built on ``model.parameters()``
            (default: ``SGD(lr=0.1)``).
        epochs: passes over the training set.
        batch_size: samples per step; ``None`` (default) for the full batch.
        X_test, y_test: a held-out set, evaluated after every epoch.
        l2: ``alpha`` of the L2 penalty ``alpha * sum(p*p)`` added to the loss.
        schedule: a function ``step -> lr`` (``micrograd.optim.linear_schedule`` ...),
            applied before every optimizer step.
        callbacks: functions ``(epoch, logs, model)``; returning True stops training.
        progress: show a tqdm progress bar (on stderr) with the latest numbers.
        seed: shuffles the minibatches.
        runner: computes one batch's loss and gradients (``micrograd.train_runners``):
            ``"auto"`` (default: the traced NumPy path where it applies, else eager),
            ``"eager"`` (the Value graph, the reference), ``"traced"``, or an object.
            ``History.runner`` says which ran. (``engine=`` is its deprecated old name.)
        pause_gc: pause Python's cyclic garbage collector during training (the graphs
            have no cycles; the collector's re-scans of a big graph cost about as much
            as the step itself). Restored afterwards.
        stop_on_nan: stop after the first epoch whose training loss is nan or inf
            (``hist.stopped == "diverged"``). Default False: train all the epochs.
            Either way ``hist.diverged_at`` records that epoch.
    """
    runner = _runner_keyword(runner, engine, "auto")
    X, y, test = _check_data(X, y, X_test, y_test)
    epochs = checks.integer(epochs, "epochs", 0)
    batches = _Batches(X, y, batch_size, seed)
    if isinstance(l2, bool) or not isinstance(l2, Real) or not 0 <= checks.as_float(l2) < math.inf:
        raise ValueError(f"l2 must be a finite number >= 0, got {l2!r:.40}")
    loss = get_loss(loss)
    loss.check_labels(y)  # hinge on 0/1 labels, nan targets: refused before training
    if test is not None:
        loss.check_labels(test[1], name="y_test")
    optimizer = _check_optimizer(model, optimizer)
    _check_outputs(model, X[0], loss)
    run = _Run(model, loss, optimizer, get_runner(runner, loss), l2, schedule, test,
               [callbacks] if callable(callbacks) else list(callbacks), stop_on_nan)
    hist = History()
    hist.runner = getattr(run.runner, "name", type(run.runner).__name__)
    bar = _Progress(epochs, desc, progress)
    hist.stopped = "completed"
    try:
        with ctrl_c_guard() as sigint, _gc_paused(pause_gc):
            _train(run, batches, epochs, hist, bar, sigint)
    except KeyboardInterrupt:
        hist.stopped = "interrupted"
        hist._even_out()  # an interrupt from a handler of the caller's may land anywhere
        bar.say(f"interrupted after epoch {hist.epochs} (step {hist.steps}): stopping; "
                f"the model keeps its weights as trained so far")
    finally:
        bar.close()
    return hist


def _train(run, batches, epochs, hist, bar, sigint):
    """The loop: every batch of every epoch takes the lecture's step (zero_grad; forward,
    loss and backward, by the runner; the update), then the epoch is recorded."""
    t0 = time.perf_counter()
    for epoch in range(1, epochs + 1):
        seen = _EpochSums()
        for Xb, yb in batches.epoch():
            if run.schedule is not None:
                run.optimizer.lr = run.schedule(hist.steps)
            try:
                with sigint.interruptible():  # the only place a second Ctrl-C may land
                    run.optimizer.zero_grad()
                    batch_loss, batch_acc = run.runner.loss_and_grad(
                        run.model, Xb, yb, run.loss, run.l2)
            except KeyboardInterrupt:
                run.optimizer.zero_grad()  # the abandoned step's partial gradients
                seen.cut = True
                break
            run.optimizer.step()  # never cut short: a step applies whole or not at all
            hist.steps += 1
            seen.add(batch_loss, batch_acc, len(yb))
            if sigint.hit:
                break
        if not seen.samples:  # interrupted before the epoch's first step ended
            raise KeyboardInterrupt
        test = _test_numbers(run, seen, sigint)
        hist._record(seen.loss / seen.samples, seen.acc / seen.samples, run.optimizer.lr,
                     test, time.perf_counter() - t0)
        logs = hist.last()
        bar.update(logs)
        if _diverged(hist, epoch, logs, run.stop_on_nan, bar):
            return
        if sigint.hit or seen.cut:
            raise KeyboardInterrupt
        if _callbacks_stop(run.callbacks, epoch, logs, run.model):
            hist.stopped = "callback"
            return


class _Run(NamedTuple):
    """What ``fit`` was asked to do, checked: the loop reads it."""

    model: object
    loss: object          # the LossSpec
    optimizer: object
    runner: object        # computes one batch's loss and gradients
    l2: float
    schedule: object      # step -> lr, or None
    test: tuple | None    # (X_test, y_test)
    callbacks: list
    stop_on_nan: bool


class _EpochSums:
    """The loss and accuracy of an epoch's completed steps, summed over their samples;
    ``cut``: a second Ctrl-C abandoned a step or the evaluation."""

    def __init__(self):
        self.loss = self.acc = 0.0
        self.samples = 0
        self.cut = False

    def add(self, loss, acc, n):
        self.loss += loss * n
        self.acc += acc * n
        self.samples += n


class _Batches:
    """The minibatches of an epoch: shuffled with ``seed`` (``random.Random``), or the
    whole training set as one batch."""

    def __init__(self, X, y, batch_size, seed):
        if batch_size is not None:
            batch_size = checks.integer(batch_size, "batch_size", 1)
        self.X, self.y = X, y
        self.size = len(X) if batch_size is None else min(batch_size, len(X))
        self.order = list(range(len(X)))
        self.rng = _random.Random(seed)

    def epoch(self):
        if self.size == len(self.X):
            yield self.X, self.y
            return
        self.rng.shuffle(self.order)
        for start in range(0, len(self.X), self.size):
            idx = self.order[start:start + self.size]
            yield [self.X[i] for i in idx], [self.y[i] for i in idx]


def _test_numbers(run, seen, sigint):
    """The test set's ``(loss, accuracy)`` after an epoch (None without a test set); nan
    when a second Ctrl-C cut the epoch or cuts the evaluation short."""
    if run.test is None:
        return None
    if seen.cut:
        return (math.nan, math.nan)  # no evaluation after a second Ctrl-C
    try:
        with sigint.interruptible():
            return run.runner.evaluate(run.model, *run.test, run.loss, run.l2)
    except KeyboardInterrupt:
        seen.cut = True
        return (math.nan, math.nan)  # the evaluation was cut short


def _diverged(hist, epoch, logs, stop_on_nan, bar):
    """Record the first epoch whose training loss is nan or inf; True to stop there."""
    if hist.diverged_at is not None or math.isfinite(logs["train_loss"]):
        return False
    hist.diverged_at = epoch
    if not stop_on_nan:
        return False
    hist.stopped = "diverged"
    bar.say(f"training diverged: the loss became {logs['train_loss']} at epoch {epoch}; "
            f"stopping")
    return True


def _callbacks_stop(callbacks, epoch, logs, model):
    """Run every callback; True if one of them asks to stop."""
    stop = False
    for cb in callbacks:
        try:
            stop = bool(cb(epoch, logs, model)) or stop
        except StopTraining:
            stop = True
    return stop


def _check_data(X, y, X_test, y_test):
    """The training and test sets as lists, refused when empty or of unequal lengths;
    ``(X, y, test)`` with ``test`` the pair ``(X_test, y_test)`` or None."""
    X, y = list(X), list(y)
    if len(X) != len(y):
        raise ValueError(f"X has {len(X)} samples but y has {len(y)}")
    if not X:
        raise ValueError("no training samples")
    if (X_test is None) != (y_test is None):
        raise ValueError("give both X_test and y_test, or neither")
    if X_test is None:
        return X, y, None
    X_test, y_test = list(X_test), list(y_test)
    if len(X_test) != len(y_test) or not X_test:
        raise ValueError(f"X_test has {len(X_test)} samples but y_test has {len(y_test)}")
    return X, y, (X_test, y_test)


def _check_optimizer(model, optimizer):
    """The optimizer (default ``SGD(lr=0.1)``), refused unless it is one of
    ``micrograd.optim`` holding only the model's own parameters."""
    from .optim import SGD, Optimizer

    params = model.parameters()
    if optimizer is None:
        return SGD(params, lr=0.1)
    if not isinstance(optimizer, Optimizer):
        raise TypeError(f"optimizer must be a micrograd.optim optimizer, got "
                        f"{type(optimizer).__name__}")
    own = {id(p) for p in params}
    foreign = sum(id(p) not in own for p in optimizer.params)
    if foreign:
        raise ValueError(f"the optimizer holds {foreign} of its {len(optimizer.params)} "
                         f"parameters from outside this model (built on another model's "
                         f"parameters?): build it on model.parameters()")
    return optimizer


class _Progress:
    """The tqdm bar on stderr (``progress=False``, or no tqdm: plain lines only)."""

    def __init__(self, epochs, desc, progress):
        self.bar = None
        if progress:
            try:
                from tqdm.auto import tqdm
            except ImportError:  # pragma: no cover - tqdm ships with micrograd[demo]
                return
            self.bar = tqdm(total=epochs, desc=desc, unit="epoch", leave=True,
                            dynamic_ncols=True, file=sys.stderr)

    def update(self, logs):
        if self.bar is None:
            return
        self.bar.update(1)
        post = {"loss": f"{logs['train_loss']:.4f}", "acc": f"{logs['train_acc']:.1%}"}
        if "test_acc" in logs:
            post["test_acc"] = f"{logs['test_acc']:.1%}"
        self.bar.set_postfix(post, refresh=False)

    def say(self, text):
        if self.bar is not None:
            self.bar.write(text, file=sys.stderr)
        else:
            print(text, file=sys.stderr)

    def close(self):
        if self.bar is not None:
            self.bar.close()

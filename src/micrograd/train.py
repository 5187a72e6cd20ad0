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
with ``seed``) or as one full batch (``batch_size=None``, micrograd's demo). Each step:
set the learning rate from ``schedule(step)``, ``opt.zero_grad()``, compute the loss and
the gradients of one batch (the engine), ``opt.step()``.

History: ``train_loss`` / ``train_acc`` of an epoch are the averages over its batches,
measured in the forward passes of training (before each batch's update, as micrograd's
demo prints them); ``test_loss`` / ``test_acc`` are measured after the epoch. Both losses
include the L2 penalty (the objective being minimised).

Callbacks run after every epoch as ``callback(epoch, logs, model)`` (``logs`` is the dict
of that epoch's numbers); a callback that returns ``True`` stops training.

Ctrl-C stops cleanly after the current step. A second Ctrl-C interrupts at once, but
only inside a step's loss-and-gradient computation or the test-set evaluation (the
step is abandoned, the evaluation's numbers are recorded as nan), never in the middle of
an optimizer step or of the history's bookkeeping (see ``CtrlC``). Either way the model
keeps the weights of the last completed step, the history has one entry per epoch in
every list (the last epoch may be partial: the average over its completed steps), and
``fit`` returns it with ``stopped == "interrupted"``.

Divergence: ``History.diverged_at`` is the first epoch whose training loss is not a
finite number (nan or inf; None while it stays finite). By default training goes on
regardless (the remaining epochs compute nan); ``stop_on_nan=True`` stops right after
that epoch, before its callbacks, with ``stopped == "diverged"``.

The engine: computing one batch's loss and gradients is pluggable. ``engine`` is any
object with

* ``loss_and_grad(model, X, y, loss, l2) -> (loss: float, accuracy: float)``: run the
  model on the batch, compute ``loss(outputs, y) + l2 * sum(p*p)`` and ADD its gradient
  into every ``p.grad`` of ``model.parameters()`` (they are zeroed before the call);
* ``evaluate(model, X, y, loss, l2) -> (loss, accuracy)``: the same numbers, no gradients.

``loss`` is a ``micrograd.losses.LossSpec`` (``loss.name`` is ``"mse"``, ``"hinge"``,
``"bce"``, ``"ce"`` or a custom name; ``loss(outputs, y)`` gives a ``Value``). The
default, ``EagerEngine``, builds the ``Value`` graph of the batch and calls
``backward()``: it is the reference every faster engine must agree with.
"""

from __future__ import annotations

import gc
import math
import os
import random as _random
import signal
import sys
import threading
import time
from contextlib import contextmanager
from numbers import Real

from . import checks
from .engine import _as_float, no_grad
from .losses import accuracy, get_loss, l2_penalty

__all__ = ["fit", "evaluate", "History", "EagerEngine", "StopTraining", "get_engine",
           "ctrl_c_guard", "install_ctrl_c", "CtrlC"]


class StopTraining(Exception):
    """Raise from a callback to stop training (same as returning ``True``)."""


# ---------------------------------------------------------------------------------------
# the default engine: the scalar Value graph
# ---------------------------------------------------------------------------------------


class EagerEngine:
    """Loss and gradients through the ``Value`` graph: the reference engine."""

    name = "eager"

    @staticmethod
    def _objective(model, X, y, loss, l2):
        outs = [model(x) for x in X]
        total = loss(outs, y)
        if l2:
            total = total + l2_penalty(model.parameters(), l2)
        return total, outs

    def loss_and_grad(self, model, X, y, loss, l2=0.0):
        total, outs = self._objective(model, X, y, loss, l2)
        total.backward()
        return total.data, accuracy(outs, y)

    def evaluate(self, model, X, y, loss, l2=0.0):
        with no_grad():
            total, outs = self._objective(model, X, y, loss, l2)
        return total.data, accuracy(outs, y)

    def __repr__(self):
        return "EagerEngine()"


ENGINES = ("auto", "eager", "traced")


def get_engine(engine="auto", loss=None):
    """The engine object for ``fit``: ``"eager"`` (the Value graph, the reference),
    ``"traced"`` (``micrograd.trace``: the same scalar code run batched with NumPy),
    ``"auto"`` (traced when NumPy is installed and the loss has a per-sample form, else
    eager), or an engine object as is."""
    if engine is None or engine == "eager":
        return EagerEngine()
    if hasattr(engine, "loss_and_grad") and hasattr(engine, "evaluate"):
        return engine
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {', '.join(ENGINES)} or an engine object, "
                         f"got {engine!r}")
    spec = get_loss(loss) if loss is not None else None
    try:
        from .train_engines import TracedEngine
    except ImportError as err:  # numpy is missing
        if engine == "traced":
            raise ModuleNotFoundError("the traced engine needs NumPy: pip install -e "
                                      "'.[demo]' in the project's folder",
                                      name="numpy") from err
        return EagerEngine()
    if spec is not None and spec.sample is None:
        if engine == "traced":
            raise ValueError(f"the loss {spec.name!r} has no per-sample form, so it cannot "
                             f"be traced; use engine='eager'")
        return EagerEngine()
    return TracedEngine()


def evaluate(model, X, y, loss="mse", l2=0.0, engine=None):
    """``(loss, accuracy)`` of ``model`` on ``(X, y)``, without gradients."""
    engine = get_engine(engine, loss)
    X, spec = list(X), get_loss(loss)
    if X:
        _check_outputs(model, X[0], spec)
    return engine.evaluate(model, X, list(y), spec, l2)


def _check_outputs(model, x, spec):
    """A loss over K class logits (``ce``) needs a model with K >= 2 outputs: refused
    here, the same for every engine (traced, a one-output model gave a loss of 0)."""
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
        self.engine = ""  # the engine that computed the gradients: "eager" or "traced"
        self.diverged_at = None  # first epoch whose train loss was nan or inf

    @property
    def epochs(self):
        return len(self.train_loss)

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
            from .viz.graph import num

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


# ---------------------------------------------------------------------------------------
# Ctrl-C: finish the current step, then stop
# ---------------------------------------------------------------------------------------


class CtrlC:
    """What Ctrl-C (SIGINT) does while ``fit`` trains and a command saves its results.

    Installed as the SIGINT handler by ``ctrl_c_guard()`` (and by the command line for
    the commands that train). Its ``mode`` says what a press does:

    * ``"train"``: the first press sets ``hit`` (the loop stops after the current
      step); a later press interrupts at once, but only inside a step's loss and
      gradient computation or a test-set evaluation (``window``), never in the middle
      of an optimizer step or of the history's bookkeeping;
    * ``"defer"``: a press is noted (``deferred``) and acted on later: for writes that
      must not be cut short (history.json, model.json);
    * ``"abort"`` and ``"raise"``: a press raises ``KeyboardInterrupt`` at once (optional
      work such as pictures, each written atomically; work before training);
    * ``"ignore"``: a press is only counted (a command that has finished and exits).

    ``presses`` counts every press. An inactive guard (another handler was installed,
    SIGINT is ignored, or not the main thread) never sees a press.
    """

    MODES = ("train", "defer", "abort", "raise", "ignore")

    def __init__(self, active=True, mode="train"):
        if mode not in self.MODES:
            raise ValueError(f"mode must be one of {', '.join(self.MODES)}, got {mode!r}")
        self.active = active
        self.mode = mode
        self.presses = 0
        self.hit = False
        self.window = False
        self.deferred = False

    def __call__(self, signum, frame):
        self.presses += 1
        mode = self.mode
        if mode in ("abort", "raise"):
            raise KeyboardInterrupt
        if mode == "ignore":
            return
        if mode == "defer":
            if not self.deferred:
                _note("Ctrl-C: finishing the files being written first")
            self.deferred = True
            return
        if self.hit and self.window:
            raise KeyboardInterrupt
        self.hit = True


def _note(text):
    """A line on stderr from a signal handler: os.write, since the handler may run in
    the middle of a print to sys.stderr (a reentrant write raises)."""
    try:
        os.write(2, (text + "\n").encode())
    except OSError:  # pragma: no cover - no stderr
        pass


def install_ctrl_c(mode="train"):
    """Install a ``CtrlC`` handler (in ``mode``) if Python's default SIGINT handler is in
    place and this is the main thread; return ``(guard, previous handler)``. Otherwise
    (a program's own handler, an inherited ignored SIGINT in a background job, another
    thread, or a ``CtrlC`` already installed) install nothing and return the guard in
    place, or an inactive one, with ``None``."""
    try:
        current = signal.getsignal(signal.SIGINT)
    except ValueError:  # pragma: no cover - no signals here
        current = None
    if isinstance(current, CtrlC):
        return current, None
    if (threading.current_thread() is not threading.main_thread()
            or current is not signal.default_int_handler):
        return CtrlC(active=False, mode=mode), None
    guard = CtrlC(mode=mode)
    signal.signal(signal.SIGINT, guard)
    return guard, current


@contextmanager
def ctrl_c_guard():
    """A ``CtrlC`` handler for the block (see ``install_ctrl_c``); the previous handler
    is restored after it. Nested guards share the outer one; an outer guard in
    ``"raise"`` mode trains in ``"train"`` mode inside the block, and is back in
    ``"raise"`` after it unless the block chose another mode."""
    guard, previous = install_ctrl_c()
    if previous is None:
        outer = guard.mode
        if outer == "raise":
            guard.mode = "train"
        try:
            yield guard
        finally:
            if outer == "raise" and guard.mode == "train":  # a block that moved on to
                guard.mode = outer  # "defer" (saving its results) keeps that mode
        return
    try:
        yield guard
    finally:
        signal.signal(signal.SIGINT, previous)


@contextmanager
def _gc_paused(pause):
    """Pause Python's cyclic garbage collector while training.

    A ``Value`` graph holds no reference cycles, so reference counting frees each
    batch's graph as soon as it is dropped. The cyclic collector would only re-scan the
    tens of thousands of live nodes of a big batch, again and again: measured on
    micrograd's demo step (MLP(2,16,16,1), 100 points), it doubles the step time.
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


def _make_bar(epochs, desc, progress):
    if not progress:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover - tqdm ships with micrograd[demo]
        return None
    return tqdm(total=epochs, desc=desc, unit="epoch", leave=True, dynamic_ncols=True,
                file=sys.stderr)


def _say(bar, text):
    if bar is not None:
        bar.write(text, file=sys.stderr)
    else:
        print(text, file=sys.stderr)


def fit(model, X, y, *, loss="mse", optimizer=None, epochs=100, batch_size=None,
        X_test=None, y_test=None, l2=0.0, schedule=None, callbacks=(), progress=True,
        desc="train", seed=0, engine="auto", pause_gc=True, stop_on_nan=False):
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
        engine: computes one batch's loss and gradients (see the module docstring):
            ``"auto"`` (default: the traced NumPy path where it applies, else eager),
            ``"eager"`` (the Value graph, the reference), ``"traced"``, or an object.
            ``History.engine`` says which ran.
        pause_gc: pause Python's cyclic garbage collector during training (the graphs
            have no cycles; the collector's re-scans of a big graph cost about as much
            as the step itself). Restored afterwards.
        stop_on_nan: stop after the first epoch whose training loss is nan or inf
            (``hist.stopped == "diverged"``). Default False: train all the epochs.
            Either way ``hist.diverged_at`` records that epoch.
    """
    from .optim import SGD, Optimizer

    X, y = list(X), list(y)
    if len(X) != len(y):
        raise ValueError(f"X has {len(X)} samples but y has {len(y)}")
    if not X:
        raise ValueError("no training samples")
    if (X_test is None) != (y_test is None):
        raise ValueError("give both X_test and y_test, or neither")
    if X_test is not None:
        X_test, y_test = list(X_test), list(y_test)
        if len(X_test) != len(y_test) or not X_test:
            raise ValueError(f"X_test has {len(X_test)} samples but y_test has "
                             f"{len(y_test)}")
    epochs = checks.integer(epochs, "epochs", 0)
    if batch_size is not None:
        batch_size = checks.integer(batch_size, "batch_size", 1)
    if isinstance(l2, bool) or not isinstance(l2, Real) or not 0 <= _as_float(l2) < math.inf:
        raise ValueError(f"l2 must be a finite number >= 0, got {l2!r:.40}")
    loss = get_loss(loss)
    params = model.parameters()
    if optimizer is None:
        optimizer = SGD(params, lr=0.1)
    elif not isinstance(optimizer, Optimizer):
        raise TypeError(f"optimizer must be a micrograd.optim optimizer, got "
                        f"{type(optimizer).__name__}")
    own = {id(p) for p in params}
    foreign = sum(id(p) not in own for p in optimizer.params)
    if foreign:
        raise ValueError(f"the optimizer holds {foreign} of its {len(optimizer.params)} "
                         f"parameters from outside this model (built on another model's "
                         f"parameters?): build it on model.parameters()")
    _check_outputs(model, X[0], loss)
    callbacks = [callbacks] if callable(callbacks) else list(callbacks)
    engine = get_engine(engine, loss)
    rng = _random.Random(seed)

    n = len(X)
    bs = n if batch_size is None else min(batch_size, n)
    order = list(range(n))
    hist = History()
    hist.engine = getattr(engine, "name", type(engine).__name__)
    bar = _make_bar(epochs, desc, progress)
    t0 = time.perf_counter()
    hist.stopped = "completed"
    try:
        with ctrl_c_guard() as sigint, _gc_paused(pause_gc):
            for epoch in range(1, epochs + 1):
                if bs < n:
                    rng.shuffle(order)
                tot_loss = tot_acc = 0.0
                done = 0  # samples of the steps completed in this epoch
                cut = False  # a second Ctrl-C abandoned a step or the evaluation
                for start in range(0, n, bs):
                    idx = order[start:start + bs]
                    Xb = [X[i] for i in idx] if bs < n else X
                    yb = [y[i] for i in idx] if bs < n else y
                    if schedule is not None:
                        optimizer.lr = schedule(hist.steps)
                    try:  # the only place a second Ctrl-C may land in a step
                        sigint.window = True
                        optimizer.zero_grad()
                        lb, ab = engine.loss_and_grad(model, Xb, yb, loss, l2)
                        sigint.window = False
                    except KeyboardInterrupt:
                        sigint.window = False
                        optimizer.zero_grad()  # the abandoned step's partial gradients
                        cut = True
                        break
                    optimizer.step()  # never cut short: a step applies whole or not at all
                    hist.steps += 1
                    tot_loss += lb * len(idx)
                    tot_acc += ab * len(idx)
                    done += len(idx)
                    if sigint.hit:
                        break
                if not done:  # interrupted before the epoch's first step ended
                    raise KeyboardInterrupt
                test = None
                if X_test is not None and cut:
                    test = (math.nan, math.nan)  # no evaluation after a second Ctrl-C
                elif X_test is not None:
                    try:
                        sigint.window = True
                        test = engine.evaluate(model, X_test, y_test, loss, l2)
                        sigint.window = False
                    except KeyboardInterrupt:
                        sigint.window = False
                        cut = True
                        test = (math.nan, math.nan)  # the evaluation was cut short
                hist._record(tot_loss / done, tot_acc / done, optimizer.lr, test,
                             time.perf_counter() - t0)
                logs = hist.last()
                if bar is not None:
                    bar.update(1)
                    post = {"loss": f"{logs['train_loss']:.4f}",
                            "acc": f"{logs['train_acc']:.1%}"}
                    if "test_acc" in logs:
                        post["test_acc"] = f"{logs['test_acc']:.1%}"
                    bar.set_postfix(post, refresh=False)
                if hist.diverged_at is None and not math.isfinite(logs["train_loss"]):
                    hist.diverged_at = epoch
                    if stop_on_nan:
                        hist.stopped = "diverged"
                        _say(bar, f"training diverged: the loss became "
                                  f"{logs['train_loss']} at epoch {epoch}; stopping")
                        break
                if sigint.hit or cut:
                    raise KeyboardInterrupt
                stop = False
                for cb in callbacks:
                    try:
                        stop = bool(cb(epoch, logs, model)) or stop
                    except StopTraining:
                        stop = True
                if stop:
                    hist.stopped = "callback"
                    break
    except KeyboardInterrupt:
        hist.stopped = "interrupted"
        hist._even_out()  # an interrupt from a handler of the caller's may land anywhere
        _say(bar, f"interrupted after epoch {hist.epochs} (step {hist.steps}): stopping; "
                  f"the model keeps its weights as trained so far")
    finally:
        if bar is not None:
            bar.close()
    return hist

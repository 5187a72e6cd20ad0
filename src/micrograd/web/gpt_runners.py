"""The GPT tab's runners: what trains a session's run (``micrograd.gpt.train.Run``) a
step at a time, named in the answers.

* :class:`EagerRunner` (``"eager"``): microgpt's loop as ``Run.step`` writes it, the
  ``Value`` graph of each name (``micrograd serve``, and anywhere without a port);
* :class:`LoweredRunner` (``"lowered"``): the static site's. The site's build records the
  default model once (``micrograd.gpt.traced.TracedRun``: one program of ``block_size``
  positions) and lowers it by groups with microgpt's Adam
  (``micrograd.trace.lowering_groups``, :func:`program_text`); the program ships in
  micrograd.zip as ``micrograd/gpt/program.json`` (``PROGRAM``). A session loads it into
  the JavaScript executor through the worker's port (``web/lowered_play.installed()``:
  ``web/pyodide/executor_port.js``), sets its own run's weights into it, and each step
  sends the name as the program's inputs (``name_inputs``) with the step's rate: forward,
  backward and Adam run there, over Float64Arrays, and only the loss comes back. The
  run's ``Value`` weights are brought up to date (``sync``) before anything reads them.

Which one a session gets: :func:`runner_for`. Standard library only (the worker's Python
has no NumPy); the tracer is imported when a lowered runner is made (and where the
program is made, at the site's build), not with the handlers.
"""

from __future__ import annotations

import math
import weakref
from array import array
from pathlib import Path

__all__ = ["EagerRunner", "LoweredRunner", "LossNotFinite", "runner_for", "program_text",
           "PROGRAM", "PROGRAM_SEED"]

#: where the lowered program lies in the site's micrograd.zip (the site writes it there)
PROGRAM = Path(__file__).resolve().parent.parent / "gpt" / "program.json"
#: the run the program is recorded from (its weights are replaced by each session's own)
PROGRAM_SEED = 42


class LossNotFinite(FloatingPointError):
    """An eager step's loss is not finite: the step is refused, nothing changed (the
    lowered runner raises ``micrograd.gpt.traced.TracedStepError`` for the same, a
    ``FloatingPointError`` too, with the same words: :func:`diverged`)."""

    def __init__(self, loss, message):
        super().__init__(message)
        self.loss = loss


def diverged(run, loss):
    """The words of a step refused for a loss that is not finite (either runner)."""
    doc = run.docs[run.done % len(run.docs)]
    return (f"step {run.done + 1}: the loss on {doc!r} is {loss!r}, not a finite number "
            "(the run has diverged); the step was refused and no weight was changed: "
            "start a new run")


class EagerRunner:
    """A step on the eager engine: microgpt's loop as ``Run.step`` writes it (its
    ``backward`` then its ``update``), but for a loss that is not finite: then the
    grads are dropped, no update is made, and :class:`LossNotFinite` is raised (as the
    lowered runner refuses it)."""

    name = "eager"

    def step(self, run):
        """Train ``run`` on its next name; the loss (a float, before the update)."""
        loss = run.backward()
        if not math.isfinite(loss):
            run.zero_grad()
            raise LossNotFinite(loss, diverged(run, loss))
        run.update()
        return loss

    def sync(self, run):
        """The weights are the Values themselves: nothing to bring back."""


def program_text():
    """The lowered program of microgpt's default model (the packaged names, seed
    ``PROGRAM_SEED``): ``TracedRun``'s recording, lowered by groups with microgpt's Adam
    (betas 0.85, 0.99, eps 1e-8; the rate is set at each step), as JSON text. Seconds of
    CPython: the site's build makes it, once."""
    from ..gpt.train import Run
    from ..gpt.traced import TracedRun
    from ..trace import AdamUpdate
    from ..trace.lowering_groups import lower_groups

    run = Run.start(seed=PROGRAM_SEED)
    opt = run.optimizer
    lowered = lower_groups(TracedRun(run).loss, AdamUpdate(
        lr=opt.lr, betas=(opt.beta1, opt.beta2), eps=opt.eps))
    if [id(p) for p in lowered.params] != [id(p) for p in run.model.params]:
        raise AssertionError("the lowered program's parameters are not model.params")
    return lowered.to_json()


def _floats(buf):
    """Numbers from the port (a Float64Array seen from Python, or a Python buffer)."""
    to_py = getattr(buf, "to_py", None)
    if to_py is not None:
        buf = to_py()
    mv = memoryview(buf)
    if mv.format != "d":
        mv = mv.cast("B").cast("d")
    return mv.tolist()


class LoweredRunner:
    """A run's steps on the lowered program, in the executor behind ``port``."""

    name = "lowered"

    def __init__(self, port, text, run):
        """Load the program ``text`` (``program_text``'s) into ``port`` and set ``run``'s
        weights into it; ``ValueError`` when it is not this run's model's program."""
        from ..gpt import traced  # (the tracer: here, not with the handlers)

        self.traced = traced  # name_inputs, TracedStepError
        cfg, params = run.model.config, run.model.params
        self.port, self.params = port, params
        self.block = cfg.block_size
        self.id = port.load(text)
        # the port's copy goes with the runner (the session deleted or evicted)
        self._drop = weakref.finalize(self, port.drop, self.id)
        try:
            port.setParams(self.id, array("d", [p.data for p in params]))
        except Exception as err:  # a program of another model: not this run's
            self._drop()
            raise ValueError(f"the lowered program is not this model's: {err}") from None
        self.stale = False  # the Values behind the executor's parameters

    def step(self, run):
        """Train ``run`` on its next name in the executor; the loss (before the update).
        A loss that is not finite raises ``TracedStepError``, nothing changed."""
        doc = run.docs[run.done % len(run.docs)]
        x = array("d")
        for part in self.traced.name_inputs(run.tokenizer, self.block, doc):
            x.extend(part)
        lr = run.optimizer.lr * (1 - run.done / run.steps)
        loss = float(self.port.train(self.id, "loss", x, lr))
        if not math.isfinite(loss):
            raise self.traced.TracedStepError(loss, diverged(run, loss))
        run.done += 1
        self.stale = True
        return loss

    def sync(self, run):
        """Copy the executor's parameters into the run's Values (after steps here)."""
        if not self.stale:
            return
        for p, x in zip(self.params, _floats(self.port.params(self.id))):
            p.data = x
        self.stale = False

    def close(self):
        """Drop the program from the port."""
        self._drop()


def runner_for(run):
    """The runner of a new session's ``run``: the lowered one where a port is installed
    (the static site's worker) and the program shipped, for the model it was made for;
    else the eager one."""
    from .lowered_play import installed

    from ..gpt.data import Tokenizer
    from ..gpt.model import GPTConfig

    port = installed()
    if port is None or not PROGRAM.is_file():
        return EagerRunner()
    # the program is the default model's: a run of another shape (weights loaded from a
    # file, with the same count of weights but other heads) trains eagerly
    if run.model.config != GPTConfig(vocab_size=run.model.config.vocab_size) or \
            run.tokenizer.chars != Tokenizer.from_names(run.docs).chars:
        return EagerRunner()
    try:
        return LoweredRunner(port, PROGRAM.read_text("utf-8"), run)
    except ValueError:  # another model (another vocabulary or shape): eager
        return EagerRunner()

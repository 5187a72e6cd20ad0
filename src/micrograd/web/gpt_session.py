"""A GPT tab's session: microgpt's run (``micrograd.gpt.train.Run``) on the packaged
names, trained a step at a time by its runner, sampled, and looked into.

    >>> s = GptSession(seed=42, steps=20)
    >>> round(s.train_one(), 4)            # one name, one Adam step: its loss
    3.3962
    >>> s.done, s.runner.name
    (1, 'eager')

The training is behind one small object, the *runner* (``web/gpt_runners.py``):
:class:`EagerRunner` (the ``Value`` graph of each step, ``Run.step``) by default, and in
the static site, where the worker installed a port to the JavaScript executor and the
site shipped the lowered program, ``LoweredRunner`` (the program's forward, backward
and Adam in the executor); the answers name it. Its weights may then live in the
executor between steps: every reader goes through ``session.run``, which brings the
Values up to date first (``runner.sync``; the eager runner's is a no-op). The session
keeps every loss (at most ``limits.GPT_MAX_STEPS``: a run's length) and the names as a
set, to say which sampled names are in the training list. Standard library only.
"""

from __future__ import annotations

import time

from ..gpt.attention import attention
from ..gpt.train import Run
from . import limits
from .gpt_runners import EagerRunner, runner_for

__all__ = ["GptSession", "EagerRunner", "RunDone"]


class RunDone(ValueError):
    """The run's steps are all done (microgpt's rate has decayed to 0)."""


class GptSession:
    """One training run of microgpt's GPT, with the losses so far."""

    def __init__(self, seed=42, steps=1000, runner=None, loaded=None):
        """A new run; ``runner`` a runner object, or None: the one ``runner_for`` picks
        (lowered in the static site, else eager). ``loaded``: ``(model, tokenizer,
        name)`` of a weights file (``micrograd.gpt.weights.parse``), trained on from
        there (a fresh Adam, as ``micrograd gpt --load``); the names must be in its
        letters (else ``UnknownCharacterError``)."""
        model, tokenizer, self.weights_file = loaded or (None, None, None)
        self._run = Run.start(seed=seed, steps=steps, model=model, tokenizer=tokenizer)
        self.seed, self.steps = seed, steps
        self.runner = runner or runner_for(self._run)
        self.losses = []
        self.known = frozenset(self._run.docs)

    @property
    def run(self):
        """The run, its weights up to date (the runner's ``sync``): what every reader
        of the model (sampling, attention, the walk) goes through."""
        self.runner.sync(self._run)
        return self._run

    @property
    def done(self):
        return self._run.done

    def train_one(self):
        """One step (refused once the run's steps are done); its loss. A loss that is
        not finite raises ``FloatingPointError`` (the runner's: the step refused,
        nothing changed)."""
        if self._run.done >= self.steps:
            raise RunDone(f"this run's {self.steps} steps are done (the learning rate has "
                          "decayed to 0); sample from it, or start a new run")
        loss = self.runner.step(self._run)
        self.losses.append(loss)
        return loss

    def train(self, n, clock=time.perf_counter):
        """Up to ``n`` steps, one at a time (a generator: it yields after each, the
        caller's turn boundary); returns ``(losses, seconds)``: their losses and the
        wall time spent in them (not in the waits between). A step whose loss is not
        finite ends them: after steps done, those are answered (the next request meets
        it again, first); as the first, its ``FloatingPointError`` goes up."""
        losses, seconds = [], 0.0
        for _ in range(n):
            if self._run.done >= self.steps:
                break
            start = clock()
            try:
                losses.append(self.train_one())
            except FloatingPointError:
                if not losses:
                    raise
                break
            seconds += clock() - start
            yield
        return losses, seconds

    def mean(self, last=limits.GPT_MEAN_OF):
        """The mean of the last ``last`` losses and how many it took (None, 0: none)."""
        tail = self.losses[-last:]
        return (sum(tail) / len(tail) if tail else None), len(tail)

    def sample(self, count, temperature):
        """``count`` names drawn by ``Run.sample``, each with whether the names hold it."""
        names = [self.run.sample(temperature) for _ in range(count)]
        return [{"name": n, "in_list": n in self.known} for n in names]

    def attention(self, name):
        """Each head's attention over ``name`` (``micrograd.gpt.attention``)."""
        return attention(self.run.model, self.run.tokenizer, name)

    def summary(self):
        """What the page shows of the run besides the losses."""
        run = self._run  # (no weight read)
        cfg = run.model.config
        return {"step": self.done, "steps": self.steps, "seed": self.seed,
                "runner": self.runner.name, "names": len(run.docs),
                "vocab": run.tokenizer.vocab_size,
                "parameters": len(run.model.params), "n_layer": cfg.n_layer,
                "n_head": cfg.n_head, "block_size": cfg.block_size,
                "chars": run.tokenizer.chars, "weights_file": self.weights_file}

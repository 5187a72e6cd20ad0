"""Training and sampling microgpt's GPT, as microgpt's own loop does.

    >>> from micrograd.gpt.train import Run
    >>> run = Run.start(seed=42)               # the packaged names, shuffled; the model
    >>> round(run.step(), 4)                   # one name, one Adam step: the loss
    3.3962

``Run.start`` does what microgpt does before its loop, in its order: ``random.seed``
(here a ``random.Random`` of its own), a shuffle of the names, the tokenizer, the
weights drawn from the same generator. A step takes the next name
(``docs[step % len(docs)]``), feeds ``[BOS] + name + [BOS]`` one token at a time (at most
``block_size`` positions), takes the mean cross-entropy of the next token over the
positions, runs ``backward()`` and one Adam step (lr 0.01 decaying linearly to 0 over
the run's ``steps``, betas 0.85 and 0.99, eps 1e-8), then zeroes the grads. Python's
cyclic collector is paused over the name's graph, as ``micrograd.train.fit`` pauses it
(the graph holds no reference cycle: reference counting frees it). ``sample`` draws a
name token by token from the softmax of the logits over a temperature (``rng.choices``),
from BOS until BOS or ``block_size`` tokens. Standard library only.
"""

from __future__ import annotations

import gc
import random
from dataclasses import dataclass, field

from ..engine import no_grad
from .data import Tokenizer, read_names
from .model import GPT, GPTConfig, softmax

__all__ = ["Adam", "Run", "loss_of", "sample", "DEFAULT_STEPS"]

#: microgpt's number of steps
DEFAULT_STEPS = 1000


@dataclass
class Adam:
    """microgpt's Adam over a list of parameters, with the rate decaying linearly from
    ``lr`` at step 0 to 0 at step ``steps``."""

    params: list
    lr: float = 0.01
    beta1: float = 0.85
    beta2: float = 0.99
    eps: float = 1e-8
    m: list = field(default=None)
    v: list = field(default=None)

    def __post_init__(self):
        self.m = [0.0] * len(self.params) if self.m is None else self.m
        self.v = [0.0] * len(self.params) if self.v is None else self.v

    def step(self, step, steps):
        """Update every parameter from its grad (step ``step`` of ``steps``, from 0),
        then set the grad to 0."""
        lr_t = self.lr * (1 - step / steps)
        b1, b2, eps, m, v = self.beta1, self.beta2, self.eps, self.m, self.v
        for i, p in enumerate(self.params):
            m[i] = b1 * m[i] + (1 - b1) * p.grad
            v[i] = b2 * v[i] + (1 - b2) * p.grad ** 2
            m_hat = m[i] / (1 - b1 ** (step + 1))
            v_hat = v[i] / (1 - b2 ** (step + 1))
            p.data -= lr_t * m_hat / (v_hat ** 0.5 + eps)
            p.grad = 0.0


def loss_of(model, tokens):
    """The mean cross-entropy of each next token of ``tokens`` (at most ``block_size``
    positions), as one ``Value``."""
    n = min(model.config.block_size, len(tokens) - 1)
    keys, values = model.empty_cache()
    losses = []
    for pos_id in range(n):
        token_id, target_id = tokens[pos_id], tokens[pos_id + 1]
        logits = model.gpt(token_id, pos_id, keys, values)
        probs = softmax(logits)
        loss_t = -probs[target_id].log()
        losses.append(loss_t)
    return (1 / n) * sum(losses)


def sample(model, tokenizer, rng, temperature=0.5, prefix=""):
    """One name drawn token by token (``rng.choices`` over the softmax of the logits
    divided by ``temperature``), after the letters of ``prefix`` (fed, not drawn)."""
    if not temperature > 0:
        raise ValueError(f"the temperature must be > 0, got {temperature!r}")
    tokenizer.check(prefix, "the prefix")
    forced = tokenizer.encode(prefix)[1:-1]
    cfg = model.config
    keys, values = model.empty_cache()
    token_id, out = tokenizer.bos, []
    with no_grad():  # the same numbers, no graph
        for pos_id in range(cfg.block_size):
            logits = model.gpt(token_id, pos_id, keys, values)
            if pos_id < len(forced):
                token_id = forced[pos_id]
            else:
                probs = softmax([lg / temperature for lg in logits])
                token_id = rng.choices(range(cfg.vocab_size),
                                       weights=[p.data for p in probs])[0]
                if token_id == tokenizer.bos:
                    break
            out.append(token_id)
    return tokenizer.decode(out)


@dataclass
class Run:
    """One training run: the names (in training order), the tokenizer, the model, the
    optimizer, the generator (it drew the order and the weights; ``sample`` goes on
    with it), the steps done and the run's length (the rate reaches 0 at ``steps``)."""

    docs: list
    tokenizer: Tokenizer
    model: GPT
    rng: random.Random
    steps: int = DEFAULT_STEPS
    done: int = 0
    optimizer: Adam = None
    #: pause Python's cyclic collector while ``backward`` builds and walks the graph
    pause_gc: bool = True

    def __post_init__(self):
        if self.optimizer is None:
            self.optimizer = Adam(self.model.params)
        for doc in self.docs:
            self.tokenizer.check(doc, f"the name {doc[:40]!r} of the names")

    @classmethod
    def start(cls, names=None, seed=42, steps=DEFAULT_STEPS, model=None, tokenizer=None,
              **config):
        """microgpt's set-up: ``names`` (a list; None: the packaged file) shuffled by
        ``random.Random(seed)``, then the tokenizer of the names and a model whose
        weights that generator draws (``config``: ``GPTConfig``'s fields other than the
        vocabulary). A given ``model`` (with its ``tokenizer``) is trained instead."""
        docs = list(read_names() if names is None else names)
        rng = random.Random(seed)
        rng.shuffle(docs)
        if model is None:
            tokenizer = Tokenizer.from_names(docs)
            model = GPT(GPTConfig(vocab_size=tokenizer.vocab_size, **config), rng)
        return cls(docs, tokenizer, model, rng, steps)

    def step(self):
        """Train on the next name; its loss (before the update)."""
        loss = self.backward()
        self.update()
        return loss

    def backward(self):
        """The next name's loss (a float), its gradients in the weights' ``grad``.

        With ``pause_gc`` (the default) Python's cyclic collector is paused meanwhile
        (and set back as it was, also when the step raises): the step makes tens of
        thousands of nodes, each of which would count towards the collector's next scan
        of every live object, though the graph holds no cycle (reference counting frees
        it when the loss goes). microgpt's own loop leaves the collector on."""
        doc = self.docs[self.done % len(self.docs)]
        was = gc.isenabled()
        if self.pause_gc:
            gc.disable()
        try:
            loss = loss_of(self.model, self.tokenizer.encode(doc))
            loss.backward()
            return loss.data
        finally:
            if self.pause_gc and was:
                gc.enable()

    def update(self):
        """The optimizer's step from the grads, which it zeroes; one more step done."""
        self.optimizer.step(self.done, self.steps)
        self.done += 1

    def zero_grad(self):
        """Forget the grads of a step cut short (its update never made)."""
        for p in self.model.params:
            p.grad = 0.0

    def sample(self, temperature=0.5, prefix=""):
        return sample(self.model, self.tokenizer, self.rng, temperature, prefix)

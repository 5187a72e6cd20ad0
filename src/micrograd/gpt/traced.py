"""The GPT on the tracer: the same model, recorded once, run as arrays every step.

The eager step builds the name's graph (50,000 to 140,000 Values) and walks it in
Python; ``TracedRun`` records the model once (``micrograd.trace``) as a program of
``block_size`` positions, then runs each name through that program, forward and
backward, with NumPy, and updates the weights with the traced Adam (one array). The
numbers are the eager step's, up to the order of a few sums (the losses agree to about
1e-14, ``tests/test_gpt_traced.py``).

Three things make one program serve every name (the program records operations on
Values, never a Python decision taken on the name's letters):

* **the tokens are inputs**: each position's token comes in as a one-hot row of
  ``vocab_size`` numbers, and its embedding is ``wte``'s rows weighted by it (a dense
  row of the program: the 1 picks the token's row, the 0s add exact zeros); the target
  likewise picks its probability out of the softmax;
* **every name fills the ``block_size`` positions**: the positions after the name's
  last hold BOS and weigh 0 in the loss (``weights``, an input: ``1/n`` for the name's
  ``n`` positions). Attention is causal, so a later position never changes an earlier
  one; the weight 0 makes their losses, and all they would send back, exact zeros;
* **the softmax's shift is a value of the program**: eager, the shift is the largest
  logit taken out as a float (``max(v.data ...)``), which a program cannot do (its
  number changes with the name). Here it is the largest logit as Values, a tree of
  ``b + relu(a - b)``: it still keeps every ``exp`` at or below 1. Its gradient is 0 in
  exact arithmetic (the shift cancels out of the softmax) and comes out at the level of
  rounding.

A loss that comes out inf or nan (logits hundreds apart: a run that diverged) raises
``TracedStepError``: a padded position could then be the one that broke, where the eager
step would not have looked. Recording takes seconds (about 3 s on CPython 3.11), once per
run; ``benchmarks/gpt.py`` times it apart from the steps (its ``traced`` row). A
model whose program would be far larger than microgpt's (``estimated_nodes`` over
``MAX_PROGRAM_NODES``: a long context, many layers) raises ``ProgramTooLarge`` before
anything is recorded.
"""

from __future__ import annotations

from ..engine import Value, affine
from ..trace import NonFiniteLoss, TracedAdam, trace_loss

__all__ = ["TracedRun", "TracedStepError", "ProgramTooLarge", "shifted_softmax", "value_max",
           "estimated_nodes", "MAX_PROGRAM_NODES", "name_inputs"]

#: the most nodes a recorded program may have (about 0.7 KB each while recording and
#: compiling: 400,000 is about 300 MB); microgpt's model is about 160,000
MAX_PROGRAM_NODES = 400_000


class ProgramTooLarge(ValueError):
    """The model's program would be over ``MAX_PROGRAM_NODES``: train it eagerly."""


def estimated_nodes(config):
    """About how many nodes the program of ``config`` (a ``GPTConfig``) records, within
    about 15%: per position the embeddings, the head and the loss (``4 V e + 8 V``) and
    each layer's matrices (``26 e^2 + 20 e``); the attention of every position to those
    before it adds ``(2 e + heads)`` per pair of positions and layer."""
    v, e, h = config.vocab_size, config.n_embd, config.n_head
    n, b = config.n_layer, config.block_size
    return b * (4 * v * e + 8 * v + n * (26 * e * e + 20 * e)) + n * b * b * (2 * e + h)


class TracedStepError(FloatingPointError):
    """A traced step's loss (``loss``) is not finite: the run has diverged (train it
    eagerly to see where)."""

    def __init__(self, loss, message):
        super().__init__(message)
        self.loss = loss


def value_max(values):
    """The largest of ``values`` as a Value: a tree of ``b + relu(a - b)``."""
    level = list(values)
    while len(level) > 1:
        pairs = [b + (a - b).relu() for a, b in zip(level[0::2], level[1::2])]
        level = pairs + level[len(pairs) * 2:]
    return level[0]


def shifted_softmax(logits):
    """``exp(l - shift) / sum``, the shift the largest logit as a value of the graph."""
    shift = value_max(logits)
    exps = [(val - shift).exp() for val in logits]
    total = sum(exps)
    return [e / total for e in exps]


def one_hot(token, size):
    row = [0.0] * size
    row[token] = 1.0
    return row


def name_inputs(tokenizer, block_size, name):
    """A name as the program's three inputs, without a program: the tokens fed
    (``block_size`` one-hot rows of ``tokenizer.vocab_size``), the tokens to predict
    (likewise) and each position's weight in the loss (``1/n`` for the name's ``n``
    positions, then 0)."""
    ids = tokenizer.encode(name)
    n = min(block_size, len(ids) - 1)
    size, bos = tokenizer.vocab_size, tokenizer.bos
    fed = ids[:n] + [bos] * (block_size - n)
    want = ids[1:n + 1] + [bos] * (block_size - n)
    tokens = [x for t in fed for x in one_hot(t, size)]
    targets = [x for t in want for x in one_hot(t, size)]
    return tokens, targets, [1.0 / n] * n + [0.0] * (block_size - n)


class TracedRun:
    """A ``Run`` (``micrograd.gpt.train``) whose steps run on its traced program: the
    same names in the same order, the same weights (every Value's ``.data`` and
    ``.grad`` stay true whenever read, so ``sample`` and ``save`` work as after an eager
    step), Adam with microgpt's settings and its rate decaying to 0 over the run."""

    def __init__(self, run):
        self.run = run
        model, cfg = run.model, run.model.config
        size = estimated_nodes(cfg)
        if size > MAX_PROGRAM_NODES:
            raise ProgramTooLarge(
                f"the traced runner records one program of block_size positions: this "
                f"model's (block_size {cfg.block_size}, {cfg.n_layer} layer(s), n_embd "
                f"{cfg.n_embd}, {cfg.vocab_size} tokens) would have about {size:,} nodes, "
                f"over the cap of {MAX_PROGRAM_NODES:,}; train it eagerly")
        self.size, self.block = cfg.vocab_size, cfg.block_size
        #: the two names the program was recorded on (the run's first two that differ)
        self.recorded = (run.docs[0], next((d for d in run.docs if d != run.docs[0]),
                                          run.docs[0]))
        first, last = (self.inputs(name) for name in self.recorded)
        batches = [[a, b] for a, b in zip(first, last)]
        self.loss = trace_loss(self._loss, *batches, reduction="sum",
                               params=model.params, cache=False)
        opt = run.optimizer
        self.optimizer = TracedAdam(self.loss, lr=opt.lr, betas=(opt.beta1, opt.beta2),
                                    eps=opt.eps)

    def inputs(self, name):
        """A name as the program's three inputs (``name_inputs``)."""
        return name_inputs(self.run.tokenizer, self.block, name)

    def _loss(self, tokens, targets, weights):
        """The program's function: ``sum_t weights[t] * -log p(target_t)`` over every
        position, the embeddings and the targets picked by the one-hot rows."""
        model, v = self.run.model, self.size
        wte = model.state_dict["wte"]
        columns = [[row[j] for row in wte] for j in range(model.config.n_embd)]
        keys, values = model.empty_cache()
        total = []
        for pos in range(self.block):
            hot = tokens[pos * v:(pos + 1) * v]
            tok_emb = [affine(Value(0.0), col, hot) for col in columns]
            logits = model.forward(tok_emb, pos, keys, values, softmax=shifted_softmax)
            probs = shifted_softmax(logits)
            p = affine(Value(0.0), probs, targets[pos * v:(pos + 1) * v])
            total.append(weights[pos] * -p.log())
        return sum(total)

    def step(self):
        """Train on the next name; its loss (before the update)."""
        loss = self.backward()
        self.update()
        return loss

    def backward(self):
        """The next name's loss (a float), its gradients in the weights' ``grad``;
        ``TracedStepError`` when the loss is not finite (no weight or grad changed)."""
        run = self.run
        doc = run.docs[run.done % len(run.docs)]
        try:
            return float(self.optimizer.backward(*[[x] for x in self.inputs(doc)],
                                                 require_finite=True))
        except NonFiniteLoss as err:
            raise TracedStepError(err.loss, (
                f"step {run.done + 1}: the traced loss on {doc!r} is {err.loss} (logits "
                f"hundreds apart: the run has diverged; train it eagerly to see where); no "
                f"weight or grad was changed")) from None

    def update(self):
        """Adam's step from the grads, at the run's rate for this step; the grads go
        back to 0 (as the eager step leaves them); one more step done."""
        run = self.run
        self.optimizer.lr = run.optimizer.lr * (1 - run.done / run.steps)
        self.optimizer.apply_grads()
        self.optimizer.zero_grad()
        run.done += 1

    def zero_grad(self):
        """Forget the grads of a step cut short (its update never made)."""
        self.optimizer.zero_grad()

    def sample(self, temperature=0.5, prefix=""):
        return self.run.sample(temperature, prefix)

    def close(self):
        """Hand the weights back to their Values for good (the optimizer's arrays go)."""
        self.optimizer.close()

"""The model in scalars: microgpt's GPT, written over ``micrograd.engine.Value``.

Every number of the model is a ``Value``; the functions below are plain loops over lists
of them, as microgpt (Karpathy, 2026) writes them: ``linear`` (a matrix times a vector:
one ``sum`` of products a row), ``softmax`` (shifted by the largest logit, a plain float
that carries no gradient), ``rmsnorm`` and ``GPT.gpt(token, pos, keys, values)``: one
token at one position in, the logits of the next token out, the keys and values of the
positions so far kept in the caller's cache (a list per layer), so a name is fed one
token at a time and each position attends to itself and those before it.

    >>> import random
    >>> from micrograd.gpt.model import GPT, GPTConfig
    >>> model = GPT(GPTConfig(vocab_size=27), random.Random(42))
    >>> len(model.params)
    4192
    >>> keys, values = model.empty_cache()
    >>> logits = model.gpt(26, 0, keys, values)     # BOS at position 0
    >>> len(logits), len(keys[0])
    (27, 1)

The defaults are microgpt's: 16 embedding dimensions, 4 heads, 1 layer, a context of 16
positions; token and position embeddings, an RMSNorm, then per layer a causal multi-head
attention and a ReLU MLP of 4x the width, each with its residual connection (and an
RMSNorm before it), then a linear head to one logit per token. No biases. The weights
are drawn ``rng.gauss(0, 0.08)``, matrix by matrix and row by row in microgpt's order
(``wte``, ``wpe``, ``lm_head``, then each layer's ``attn_wq``, ``attn_wk``, ``attn_wv``,
``attn_wo``, ``mlp_fc1``, ``mlp_fc2``), which is also the order of ``params``. Standard
library only.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from ..engine import Value, affine

__all__ = ["GPTConfig", "GPT", "linear", "softmax", "rmsnorm", "matrix", "MATRICES",
           "INIT_STD", "MAX_PARAMETERS"]

#: the standard deviation of the initial weights (microgpt's)
INIT_STD = 0.08
#: the most weights a model may have (a Value is about 100 bytes; each weight is used
#: at every position of every step, so the graph is many times this)
MAX_PARAMETERS = 2_000_000


@dataclass(frozen=True)
class GPTConfig:
    """The model's shape: microgpt's defaults but for the vocabulary, which the names
    give."""

    vocab_size: int
    n_embd: int = 16
    n_head: int = 4
    n_layer: int = 1
    block_size: int = 16

    def __post_init__(self):
        for name, value in asdict(self).items():
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive int, got {value!r}")
        if self.n_embd % self.n_head:
            raise ValueError(f"n_embd ({self.n_embd}) must be a multiple of n_head "
                             f"({self.n_head})")
        if self.parameters() > MAX_PARAMETERS:
            raise ValueError(f"{self.parameters():,} weights, over the cap of "
                             f"{MAX_PARAMETERS:,}")

    @property
    def head_dim(self):
        return self.n_embd // self.n_head

    def shapes(self):
        """``{name: (rows, columns)}`` of the weight matrices, in microgpt's order."""
        v, e, b = self.vocab_size, self.n_embd, self.block_size
        out = {"wte": (v, e), "wpe": (b, e), "lm_head": (v, e)}
        for i in range(self.n_layer):
            out.update({f"layer{i}.attn_wq": (e, e), f"layer{i}.attn_wk": (e, e),
                        f"layer{i}.attn_wv": (e, e), f"layer{i}.attn_wo": (e, e),
                        f"layer{i}.mlp_fc1": (4 * e, e), f"layer{i}.mlp_fc2": (e, 4 * e)})
        return out

    def parameters(self):
        return sum(r * c for r, c in self.shapes().values())


#: the kinds of matrix a layer holds, in microgpt's order
MATRICES = ("attn_wq", "attn_wk", "attn_wv", "attn_wo", "mlp_fc1", "mlp_fc2")


def matrix(rng, nout, nin, std=INIT_STD):
    """``nout`` rows of ``nin`` weights, each ``Value(rng.gauss(0, std))``, row by row."""
    return [[Value(rng.gauss(0, std)) for _ in range(nin)] for _ in range(nout)]


def linear(x, w):
    """``w @ x``: for each row of ``w``, the sum of its weights times ``x``."""
    # microgpt's sum(wi * xi for wi, xi in zip(wo, x)), which starts from 0: the engine's
    # affine(b, ws, xs) is b + ws[0]*xs[0] + ws[1]*xs[1] + ..., the same nodes and numbers
    # term by term (as a neuron of micrograd.nn sums), built in one call with each
    # + w*x one folded node (engine_fast): 44% fewer objects a step
    return [affine(Value(0.0), wo, x) for wo in w]


def softmax(logits):
    """``exp(l - max) / sum``: the shift (a float, no gradient) keeps exp finite."""
    max_val = max(val.data for val in logits)
    exps = [(val - max_val).exp() for val in logits]
    total = sum(exps)
    return [e / total for e in exps]


def rmsnorm(x):
    """``x / sqrt(mean(x**2) + 1e-5)``: the root mean square scaled to about 1."""
    ms = sum(xi * xi for xi in x) / len(x)
    scale = (ms + 1e-5) ** -0.5
    return [xi * scale for xi in x]


def _no_mark(block, values):
    """``GPT.forward``'s ``mark`` when none is given: nothing."""


class GPT:
    """microgpt's GPT: ``state_dict`` (name -> a list of rows of Values) and ``params``
    (every weight, in the state's order). ``rng`` (a ``random.Random``) draws the
    weights; ``weights`` (name -> rows of floats) gives them instead."""

    def __init__(self, config, rng=None, weights=None):
        if (rng is None) == (weights is None):
            raise ValueError("give the weights' rng or the weights, one of the two")
        self.config = config
        self.state_dict = {}
        for name, (rows, cols) in config.shapes().items():
            if weights is None:
                self.state_dict[name] = matrix(rng, rows, cols)
            else:
                self.state_dict[name] = [[Value(float(x)) for x in row]
                                         for row in weights[name]]
        self.params = [p for mat in self.state_dict.values() for row in mat for p in row]

    def empty_cache(self):
        """The keys and the values of no position yet: a list per layer."""
        n = self.config.n_layer
        return [[] for _ in range(n)], [[] for _ in range(n)]

    def gpt(self, token, pos, keys, values):
        """The logits of the token after ``token`` at position ``pos``; appends this
        position's key and value of each layer to ``keys`` and ``values``."""
        return self.forward(self.state_dict["wte"][token], pos, keys, values)

    __call__ = gpt

    def forward(self, tok_emb, pos, keys, values, softmax=softmax, mark=None):
        """``gpt`` from the token's embedding ``tok_emb`` (its row of ``wte``, or any
        list of ``n_embd`` Values that stands for it); ``softmax`` is each attention
        head's (the traced program's shift is a value of the program). ``mark``, when
        given, is called ``mark(block, values)`` as each block of the model is built,
        with the block's name and its outputs, in order: ``embeddings``, ``rmsnorm``,
        then per layer ``layer0.attn.rmsnorm``, ``layer0.attn.q`` / ``.k`` / ``.v``,
        ``layer0.head0`` ... (each head's output), ``layer0.attn`` (with its residual),
        ``layer0.mlp.rmsnorm``, ``layer0.mlp`` (with its residual), then ``lm_head``
        (the logits): the blocks a drawing of one position's graph folds into."""
        sd, cfg = self.state_dict, self.config
        mark = mark or _no_mark
        x = [t + p for t, p in zip(tok_emb, sd["wpe"][pos])]
        mark("embeddings", x)
        x = rmsnorm(x)
        mark("rmsnorm", x)
        for li in range(cfg.n_layer):
            # 1) multi-head attention
            x_residual = x
            x = rmsnorm(x)
            mark(f"layer{li}.attn.rmsnorm", x)
            q = linear(x, sd[f"layer{li}.attn_wq"])
            k = linear(x, sd[f"layer{li}.attn_wk"])
            v = linear(x, sd[f"layer{li}.attn_wv"])
            for name, out in (("q", q), ("k", k), ("v", v)):
                mark(f"layer{li}.attn.{name}", out)
            keys[li].append(k)
            values[li].append(v)
            x_attn = []
            for h in range(cfg.n_head):
                x_attn.extend(self.head(q, keys[li], values[li], h, softmax))
                mark(f"layer{li}.head{h}", x_attn[-cfg.head_dim:])
            x = linear(x_attn, sd[f"layer{li}.attn_wo"])
            x = [a + b for a, b in zip(x, x_residual)]
            mark(f"layer{li}.attn", x)
            # 2) MLP
            x_residual = x
            x = rmsnorm(x)
            mark(f"layer{li}.mlp.rmsnorm", x)
            x = linear(x, sd[f"layer{li}.mlp_fc1"])
            x = [xi.relu() for xi in x]
            x = linear(x, sd[f"layer{li}.mlp_fc2"])
            x = [a + b for a, b in zip(x, x_residual)]
            mark(f"layer{li}.mlp", x)
        logits = linear(x, sd["lm_head"])
        mark("lm_head", logits)
        return logits

    def head(self, q, keys, values, h, softmax=softmax):
        """Attention head ``h``: this position's query against the keys of every
        position so far, a softmax over them, the values weighted by it."""
        d = self.config.head_dim
        hs = h * d
        q_h = q[hs:hs + d]
        k_h = [ki[hs:hs + d] for ki in keys]
        v_h = [vi[hs:hs + d] for vi in values]
        attn_logits = [sum(q_h[j] * k_h[t][j] for j in range(d)) / d**0.5
                       for t in range(len(k_h))]
        attn_weights = softmax(attn_logits)
        return [sum(attn_weights[t] * v_h[t][j] for t in range(len(v_h)))
                for j in range(d)]

    def weights(self):
        """``{name: rows of floats}``: the numbers of ``state_dict``."""
        return {name: [[p.data for p in row] for row in mat]
                for name, mat in self.state_dict.items()}

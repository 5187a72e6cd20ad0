"""Where each attention head looks: the softmax weights of a name's forward pass.

    >>> from micrograd.gpt.train import Run
    >>> run = Run.start(seed=42, steps=10)
    >>> seen = attention(run.model, run.tokenizer, "emma")
    >>> seen["tokens"]                                 # BOS, then the letters fed
    ['<BOS>', 'e', 'm', 'm', 'a']
    >>> [len(row) for row in seen["heads"][0][0]]      # layer 0, head 0: 5 x 5
    [5, 5, 5, 5, 5]
    >>> seen["heads"][0][0][0]                         # position 0 sees only itself
    [1.0, None, None, None, None]

A name is fed as training feeds it, ``[BOS] + letters`` one token a position (the
positions whose next token the model predicts; at most ``block_size``), and each head
of each layer weighs the positions so far by a softmax of its query against their keys.
:func:`forward` is ``GPT.gpt`` written again over the model's public pieces
(``state_dict``, ``config``, ``linear``, ``softmax``, ``rmsnorm``) so that it can keep
those weights; it gives the same logits to the bit (``tests/test_web_gpt.py`` holds it to
``GPT.gpt``). All under ``no_grad``: no graph is kept. A row is a query's position, a
column a key's; a position after the query (the causal mask: never looked at) is None.
Standard library only.
"""

from __future__ import annotations

from ..engine import no_grad
from .model import linear, rmsnorm, softmax

__all__ = ["attention", "forward", "BOS_LABEL"]

#: how the first position (the BOS token) is named on the axes
BOS_LABEL = "<BOS>"


def forward(model, token, pos, keys, values):
    """``model.gpt(token, pos, keys, values)`` and the attention weights this position's
    query gave: ``(logits, weights)``, ``weights[layer][head]`` a list of floats, one per
    position so far."""
    sd, cfg = model.state_dict, model.config
    x = rmsnorm([t + p for t, p in zip(sd["wte"][token], sd["wpe"][pos])])
    seen = []
    for li in range(cfg.n_layer):
        x_residual = x
        x = rmsnorm(x)
        q = linear(x, sd[f"layer{li}.attn_wq"])
        keys[li].append(linear(x, sd[f"layer{li}.attn_wk"]))
        values[li].append(linear(x, sd[f"layer{li}.attn_wv"]))
        x_attn, layer = [], []
        for h in range(cfg.n_head):
            out, weights = _head(cfg.head_dim, q, keys[li], values[li], h)
            x_attn.extend(out)
            layer.append([w.data for w in weights])
        seen.append(layer)
        x = linear(x_attn, sd[f"layer{li}.attn_wo"])
        x = [a + b for a, b in zip(x, x_residual)]
        x_residual = x
        x = linear(rmsnorm(x), sd[f"layer{li}.mlp_fc1"])
        x = linear([xi.relu() for xi in x], sd[f"layer{li}.mlp_fc2"])
        x = [a + b for a, b in zip(x, x_residual)]
    return linear(x, sd["lm_head"]), seen


def _head(d, q, keys, values, h):
    """``GPT.head``'s sums, and its softmax weights beside its output."""
    hs = h * d
    q_h = q[hs:hs + d]
    logits = [sum(q_h[j] * k[hs + j] for j in range(d)) / d**0.5 for k in keys]
    weights = softmax(logits)
    out = [sum(weights[t] * values[t][hs + j] for t in range(len(values)))
           for j in range(d)]
    return out, weights


def attention(model, tokenizer, name):
    """The attention of every head over ``name`` (its characters checked by the
    tokenizer: ``UnknownCharacterError`` names one it never saw): ``{"name", "tokens"``
    (the axes' labels: BOS_LABEL then the letters fed), ``"heads"``: ``[layer][head]``
    a positions x positions matrix (rows the queries; None after the query)``}``."""
    tokens = tokenizer.encode(name)[:-1][:model.config.block_size]
    n = len(tokens)
    keys, values = model.empty_cache()
    rows = []  # per position: [layer][head] weights over the positions so far
    with no_grad():
        for pos, token in enumerate(tokens):
            _, seen = forward(model, token, pos, keys, values)
            rows.append(seen)
    cfg = model.config
    heads = [[[rows[i][li][h] + [None] * (n - i - 1) for i in range(n)]
              for h in range(cfg.n_head)] for li in range(cfg.n_layer)]
    labels = [BOS_LABEL] + [tokenizer.decode([t]) for t in tokens[1:]]
    return {"name": name, "tokens": labels, "heads": heads}

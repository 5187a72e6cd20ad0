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
positions whose next token the model predicts; at most ``block_size``: the letters past
them are left out, and the answer says how many), and each head of each layer weighs the
positions so far by a softmax of its query against their keys. :func:`forward` is the
model's own ``GPT.forward`` with a softmax that keeps each head's weights as it hands
them on (the same logits to the bit). All under ``no_grad``: no graph is kept. A row is
a query's position, a column a key's; a position after the query (the causal mask:
never looked at) is None. Standard library only.
"""

from __future__ import annotations

from ..engine import no_grad
from .model import softmax

__all__ = ["attention", "forward", "BOS_LABEL"]

#: how the first position (the BOS token) is named on the axes
BOS_LABEL = "<BOS>"


def forward(model, token, pos, keys, values):
    """``model.gpt(token, pos, keys, values)`` and the attention weights this position's
    query gave: ``(logits, weights)``, ``weights[layer][head]`` a list of floats, one per
    position so far."""
    kept = []

    def keeping(logits):  # each head's softmax, in order: layer by layer, head by head
        out = softmax(logits)
        kept.append([w.data for w in out])
        return out

    logits = model.forward(model.state_dict["wte"][token], pos, keys, values,
                           softmax=keeping)
    h = model.config.n_head
    return logits, [kept[i:i + h] for i in range(0, len(kept), h)]


def attention(model, tokenizer, name):
    """The attention of every head over ``name`` (its characters checked by the
    tokenizer: ``UnknownCharacterError`` names one it never saw): ``{"name", "tokens"``
    (the axes' labels: BOS_LABEL then the letters fed), ``"heads"``: ``[layer][head]``
    a positions x positions matrix (rows the queries; None after the query),
    ``"left_out"``: how many of the name's letters are past the context (0 mostly)``}``."""
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
    return {"name": name, "tokens": labels, "heads": heads,
            "left_out": len(tokenizer.encode(name)) - 1 - n}

"""micrograd.gpt against the same GPT in PyTorch float64, from the same weights.

The PyTorch model is written here on whole tensors, the way one writes a GPT in PyTorch
(a causal mask, ``softmax``, ``cross_entropy``): nothing shared with the scalar code but
the weights. At each of the first steps of a run on the packaged names (seed 42) the
weights are copied into it; its loss and the gradient of every weight must equal the
scalar model's to 1e-12 relative: the loss to 1e-12 of itself, each gradient to 1e-12 of
itself plus its matrix's largest gradient (a sum of many terms that nearly cancel is
only as exact as its terms: one gradient of 1e-7 among gradients of 1e-3 differs by a
few 1e-12 of itself, 1e-16 of its matrix, between any two orders of summation). A
gradient that is exactly zero in one (the rows of the letters a name lacks, a ReLU that
is off) is exactly zero in the other. Then the scalar run takes its Adam step, and the
next step compares again.
"""

from __future__ import annotations

import pytest

from micrograd.gpt.train import Run, loss_of

REL = 1e-12


def torch_loss(torch, weights, cfg, tokens):
    """The loss and the weights (as leaf tensors) of one name, in PyTorch."""
    W = {k: torch.tensor(v, dtype=torch.float64, requires_grad=True)
         for k, v in weights.items()}
    n = min(cfg.block_size, len(tokens) - 1)
    inputs, targets = torch.tensor(tokens[:n]), torch.tensor(tokens[1:n + 1])
    H, d = cfg.n_head, cfg.head_dim

    def rms(x):
        return x * ((x * x).mean(-1, keepdim=True) + 1e-5) ** -0.5

    x = rms(W["wte"][inputs] + W["wpe"][:n])
    causal = torch.ones(n, n, dtype=torch.bool).tril()
    for li in range(cfg.n_layer):
        w = {k: W[f"layer{li}.{k}"] for k in ("attn_wq", "attn_wk", "attn_wv", "attn_wo",
                                               "mlp_fc1", "mlp_fc2")}
        h = rms(x)
        q, k, v = (torch.matmul(h, w[f"attn_w{c}"].T).view(n, H, d).transpose(0, 1)
                   for c in "qkv")
        scores = (q @ k.transpose(1, 2) / d ** 0.5).masked_fill(~causal, float("-inf"))
        att = torch.softmax(scores, dim=-1) @ v
        x = x + att.transpose(0, 1).reshape(n, H * d) @ w["attn_wo"].T
        x = x + torch.relu(rms(x) @ w["mlp_fc1"].T) @ w["mlp_fc2"].T
    logits = x @ W["lm_head"].T
    return torch.nn.functional.cross_entropy(logits, targets), W


def grads_of(model):
    return {name: [[p.grad for p in row] for row in mat]
            for name, mat in model.state_dict.items()}


def compare(torch, run, doc):
    """The scalar model's loss and grads on ``doc`` against PyTorch's; the loss."""
    tokens = run.tokenizer.encode(doc)
    t_loss, W = torch_loss(torch, run.model.weights(), run.model.config, tokens)
    t_loss.backward()
    loss = loss_of(run.model, tokens)
    loss.backward()
    assert abs(loss.data - t_loss.item()) <= REL * abs(t_loss.item())
    ours = grads_of(run.model)
    worst = 0.0
    for name, tensor in W.items():
        got = torch.tensor(ours[name], dtype=torch.float64)
        want = tensor.grad
        assert torch.equal(got == 0, want == 0), f"{name}: the zero grads differ"
        scale = want.abs().max().item()  # the matrix's largest gradient
        err = ((got - want).abs() / (want.abs() + scale)).max().item()
        worst = max(worst, err)
        assert err <= REL, f"{name}: relative error {err:.2e}"
    return loss.data, worst


def test_losses_and_every_gradient_equal_pytorch_float64(torch):
    run = Run.start(seed=42, steps=1000)
    for step in range(3):
        doc = run.docs[step]
        loss, worst = compare(torch, run, doc)
        run.optimizer.step(step, run.steps)  # the scalar run's own Adam step
        run.done += 1
    assert run.done == 3


def test_a_longer_name_and_a_second_layer(torch):
    # every position of the context (a 15-letter name: 16 positions, the whole block)
    # and two layers: the cache and the residual stream across layers
    run = Run.start(seed=7, steps=10, n_layer=2)
    loss, worst = compare(torch, run, "maximilianolopez"[:15])
    assert loss > 0 and worst <= REL


@pytest.mark.parametrize("name", ["a", "zz"])
def test_the_shortest_names(torch, name):
    run = Run.start(seed=3, steps=10)
    compare(torch, run, name)

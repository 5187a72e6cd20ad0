"""micrograd.gpt gives microgpt's losses: the same names file and seed, the same numbers.

The reference is microgpt (Karpathy, 2026) written again here, independently of the
package: its own lean ``Value`` (each node keeps its children and their local gradients
as tuples; ``backward`` a depth-first topological sort, then ``child.grad += local *
grad`` in reverse), its ``random.seed``, shuffle and draws, its model and its loop with
Adam. It reads the packaged names file as microgpt reads its input.txt. Our model runs
on ``micrograd.engine.Value``, whose division is a primitive (microgpt multiplies by a
power -1): the same losses to 1e-9 relative (17 of the first 20 to the bit, the others
within 4e-16), not all bit for bit.
"""

from __future__ import annotations

import math
import random

import pytest

from micrograd.gpt.data import NAMES_FILE
from micrograd.gpt.train import Run


class RefValue:
    """microgpt's Value: data, grad, the children and the local grads, nothing else."""

    __slots__ = ("data", "grad", "children", "local_grads")

    def __init__(self, data, children=(), local_grads=()):
        self.data = data
        self.grad = 0
        self.children = children
        self.local_grads = local_grads

    def __add__(self, other):
        other = other if isinstance(other, RefValue) else RefValue(other)
        return RefValue(self.data + other.data, (self, other), (1, 1))

    def __mul__(self, other):
        other = other if isinstance(other, RefValue) else RefValue(other)
        return RefValue(self.data * other.data, (self, other), (other.data, self.data))

    def __pow__(self, k):
        return RefValue(self.data ** k, (self,), (k * self.data ** (k - 1),))

    def log(self):
        return RefValue(math.log(self.data), (self,), (1 / self.data,))

    def exp(self):
        return RefValue(math.exp(self.data), (self,), (math.exp(self.data),))

    def relu(self):
        return RefValue(max(0, self.data), (self,), (float(self.data > 0),))

    def __neg__(self): return self * -1
    def __radd__(self, other): return self + other
    def __sub__(self, other): return self + (-other)
    def __rmul__(self, other): return self * other
    def __truediv__(self, other): return self * other ** -1

    def backward(self):
        # the recursive depth-first sort, written with a stack: the same order
        topo, seen, stack = [], {id(self)}, [(self, iter(self.children))]
        while stack:
            node, children = stack[-1]
            for child in children:
                if id(child) not in seen:
                    seen.add(id(child))
                    stack.append((child, iter(child.children)))
                    break
            else:
                stack.pop()
                topo.append(node)
        self.grad = 1
        for v in reversed(topo):
            for child, local in zip(v.children, v.local_grads):
                child.grad += local * v.grad


def microgpt_losses(steps, seed=42, path=NAMES_FILE):
    """microgpt's first ``steps`` losses on the names at ``path``."""
    rng = random.Random(seed)
    with open(path, encoding="utf-8") as f:
        docs = [line.strip() for line in f.read().strip().split("\n") if line.strip()]
    rng.shuffle(docs)
    uchars = sorted(set("".join(docs)))
    bos, vocab = len(uchars), len(uchars) + 1
    n_embd, n_head, n_layer, block_size = 16, 4, 1, 16
    head_dim = n_embd // n_head

    def matrix(nout, nin):
        return [[RefValue(rng.gauss(0, 0.08)) for _ in range(nin)] for _ in range(nout)]

    sd = {"wte": matrix(vocab, n_embd), "wpe": matrix(block_size, n_embd),
          "lm_head": matrix(vocab, n_embd)}
    for i in range(n_layer):
        for name, shape in (("attn_wq", (n_embd, n_embd)), ("attn_wk", (n_embd, n_embd)),
                            ("attn_wv", (n_embd, n_embd)), ("attn_wo", (n_embd, n_embd)),
                            ("mlp_fc1", (4 * n_embd, n_embd)),
                            ("mlp_fc2", (n_embd, 4 * n_embd))):
            sd[f"layer{i}.{name}"] = matrix(*shape)
    params = [p for mat in sd.values() for row in mat for p in row]

    def linear(x, w):
        return [sum(wi * xi for wi, xi in zip(row, x)) for row in w]

    def softmax(logits):
        top = max(v.data for v in logits)
        exps = [(v - top).exp() for v in logits]
        total = sum(exps)
        return [e / total for e in exps]

    def rmsnorm(x):
        scale = (sum(xi * xi for xi in x) / len(x) + 1e-5) ** -0.5
        return [xi * scale for xi in x]

    def gpt(token, pos, keys, values):
        x = rmsnorm([t + p for t, p in zip(sd["wte"][token], sd["wpe"][pos])])
        for li in range(n_layer):
            res = x
            x = rmsnorm(x)
            q, k, v = (linear(x, sd[f"layer{li}.attn_w{c}"]) for c in "qkv")
            keys[li].append(k)
            values[li].append(v)
            out = []
            for h in range(n_head):
                s = slice(h * head_dim, (h + 1) * head_dim)
                scores = [sum(a * b for a, b in zip(q[s], kt[s])) / head_dim ** 0.5
                          for kt in keys[li]]
                w = softmax(scores)
                out += [sum(w[t] * values[li][t][s][j] for t in range(len(w)))
                        for j in range(head_dim)]
            x = [a + b for a, b in zip(linear(out, sd[f"layer{li}.attn_wo"]), res)]
            res = x
            h1 = [u.relu() for u in linear(rmsnorm(x), sd[f"layer{li}.mlp_fc1"])]
            x = [a + b for a, b in zip(linear(h1, sd[f"layer{li}.mlp_fc2"]), res)]
        return linear(x, sd["lm_head"])

    lr, b1, b2, eps, total = 0.01, 0.85, 0.99, 1e-8, 1000
    m, v = [0.0] * len(params), [0.0] * len(params)
    losses = []
    for step in range(steps):
        tokens = [bos] + [uchars.index(c) for c in docs[step % len(docs)]] + [bos]
        n = min(block_size, len(tokens) - 1)
        keys, values = [[] for _ in range(n_layer)], [[] for _ in range(n_layer)]
        terms = [-softmax(gpt(tokens[p], p, keys, values))[tokens[p + 1]].log()
                 for p in range(n)]
        loss = (1 / n) * sum(terms)
        loss.backward()
        lr_t = lr * (1 - step / total)
        for i, p in enumerate(params):
            m[i] = b1 * m[i] + (1 - b1) * p.grad
            v[i] = b2 * v[i] + (1 - b2) * p.grad ** 2
            p.data -= lr_t * (m[i] / (1 - b1 ** (step + 1))) / (
                (v[i] / (1 - b2 ** (step + 1))) ** 0.5 + eps)
            p.grad = 0
        losses.append(loss.data)
    return losses


def ours(steps, seed=42):
    run = Run.start(seed=seed, steps=1000)
    return [run.step() for _ in range(steps)]


def assert_close(got, want, rel=1e-9):
    assert len(got) == len(want)
    for i, (a, b) in enumerate(zip(got, want)):
        assert abs(a - b) <= rel * abs(b), f"step {i + 1}: {a!r} != {b!r}"


def test_the_first_steps_are_microgpts():
    assert_close(ours(3), microgpt_losses(3))


@pytest.mark.slow  # about 6 s of CPU: 20 names through both engines
def test_the_first_twenty_losses_are_microgpts():
    want = microgpt_losses(20)
    assert_close(ours(20), want)
    assert want[0] == pytest.approx(3.396186, abs=1e-6)  # pinned, as a figure
    assert want[-1] < want[0]


def test_the_reference_is_microgpt_on_a_tiny_graph():
    # the reference's Value itself: d/da of (a*b + b**2).log() at a=2, b=3
    a, b = RefValue(2.0), RefValue(3.0)
    out = (a * b + b ** 2).log()
    out.backward()
    assert (a.grad, b.grad) == pytest.approx((3 / 15, (2 + 6) / 15))

"""microgpt (Karpathy, 2026) as the reference of benchmarks/gpt.py: its own lean ``Value``
and its model and training loop, written again here, over any ``Value`` class.

microgpt's ``Value`` keeps, per node, its data, its grad, a tuple of children and a tuple
of their local gradients (``__slots__``); ``backward`` sorts the graph depth first and
runs ``child.grad += local * v.grad`` in reverse. ``Trainer(Value, docs, seed)`` is its
set-up and loop in its order (``random.seed``, the shuffle, the tokenizer, the weights
drawn by ``gauss(0, 0.08)``, one name a step, Adam with the rate decaying to 0), with
``Value`` any class with microgpt's operators: its own (``MicroValue``) or
``micrograd.engine.Value`` (microgpt with one import changed). Standard library only.
"""

from __future__ import annotations

import math
import random

N_EMBD, N_HEAD, N_LAYER, BLOCK_SIZE = 16, 4, 1, 16
HEAD_DIM = N_EMBD // N_HEAD


class MicroValue:
    """microgpt's Value."""

    __slots__ = ("data", "grad", "_children", "_local_grads")

    def __init__(self, data, children=(), local_grads=()):
        self.data = data
        self.grad = 0
        self._children = children
        self._local_grads = local_grads

    def __add__(self, other):
        other = other if isinstance(other, MicroValue) else MicroValue(other)
        return MicroValue(self.data + other.data, (self, other), (1, 1))

    def __mul__(self, other):
        other = other if isinstance(other, MicroValue) else MicroValue(other)
        return MicroValue(self.data * other.data, (self, other), (other.data, self.data))

    def __pow__(self, k):
        return MicroValue(self.data ** k, (self,), (k * self.data ** (k - 1),))

    def log(self):
        return MicroValue(math.log(self.data), (self,), (1 / self.data,))

    def exp(self):
        return MicroValue(math.exp(self.data), (self,), (math.exp(self.data),))

    def relu(self):
        return MicroValue(max(0, self.data), (self,), (float(self.data > 0),))

    def __neg__(self): return self * -1
    def __radd__(self, other): return self + other
    def __sub__(self, other): return self + (-other)
    def __rsub__(self, other): return other + (-self)
    def __rmul__(self, other): return self * other
    def __truediv__(self, other): return self * other ** -1
    def __rtruediv__(self, other): return other * self ** -1

    def backward(self):
        topo, visited = [], set()

        def build_topo(v):
            if v not in visited:
                visited.add(v)
                for child in v._children:
                    build_topo(child)
                topo.append(v)

        build_topo(self)
        self.grad = 1
        for v in reversed(topo):
            for child, local_grad in zip(v._children, v._local_grads):
                child.grad += local_grad * v.grad


class Trainer:
    """microgpt's set-up and loop over ``Value``; ``step()`` trains on the next name and
    returns its loss."""

    def __init__(self, Value, docs, seed=42, num_steps=1000):
        rng = random.Random(seed)
        self.docs = list(docs)
        rng.shuffle(self.docs)
        self.uchars = sorted(set("".join(self.docs)))
        self.bos = len(self.uchars)
        vocab = len(self.uchars) + 1

        def matrix(nout, nin, std=0.08):
            return [[Value(rng.gauss(0, std)) for _ in range(nin)] for _ in range(nout)]

        sd = {"wte": matrix(vocab, N_EMBD), "wpe": matrix(BLOCK_SIZE, N_EMBD),
              "lm_head": matrix(vocab, N_EMBD)}
        for i in range(N_LAYER):
            sd[f"layer{i}.attn_wq"] = matrix(N_EMBD, N_EMBD)
            sd[f"layer{i}.attn_wk"] = matrix(N_EMBD, N_EMBD)
            sd[f"layer{i}.attn_wv"] = matrix(N_EMBD, N_EMBD)
            sd[f"layer{i}.attn_wo"] = matrix(N_EMBD, N_EMBD)
            sd[f"layer{i}.mlp_fc1"] = matrix(4 * N_EMBD, N_EMBD)
            sd[f"layer{i}.mlp_fc2"] = matrix(N_EMBD, 4 * N_EMBD)
        self.sd = sd
        self.params = [p for mat in sd.values() for row in mat for p in row]
        self.m = [0.0] * len(self.params)
        self.v = [0.0] * len(self.params)
        self.num_steps, self.done = num_steps, 0

    def gpt(self, token_id, pos_id, keys, values):
        sd = self.sd
        x = [t + p for t, p in zip(sd["wte"][token_id], sd["wpe"][pos_id])]
        x = rmsnorm(x)
        for li in range(N_LAYER):
            x_residual = x
            x = rmsnorm(x)
            q = linear(x, sd[f"layer{li}.attn_wq"])
            k = linear(x, sd[f"layer{li}.attn_wk"])
            v = linear(x, sd[f"layer{li}.attn_wv"])
            keys[li].append(k)
            values[li].append(v)
            x_attn = []
            for h in range(N_HEAD):
                hs = h * HEAD_DIM
                q_h = q[hs:hs + HEAD_DIM]
                k_h = [ki[hs:hs + HEAD_DIM] for ki in keys[li]]
                v_h = [vi[hs:hs + HEAD_DIM] for vi in values[li]]
                logits = [sum(q_h[j] * k_h[t][j] for j in range(HEAD_DIM)) / HEAD_DIM ** 0.5
                          for t in range(len(k_h))]
                w = softmax(logits)
                x_attn.extend(sum(w[t] * v_h[t][j] for t in range(len(v_h)))
                              for j in range(HEAD_DIM))
            x = [a + b for a, b in zip(linear(x_attn, sd[f"layer{li}.attn_wo"]), x_residual)]
            x_residual = x
            x = [xi.relu() for xi in linear(rmsnorm(x), sd[f"layer{li}.mlp_fc1"])]
            x = [a + b for a, b in zip(linear(x, sd[f"layer{li}.mlp_fc2"]), x_residual)]
        return linear(x, sd["lm_head"])

    def step(self):
        step = self.done
        doc = self.docs[step % len(self.docs)]
        tokens = [self.bos] + [self.uchars.index(ch) for ch in doc] + [self.bos]
        n = min(BLOCK_SIZE, len(tokens) - 1)
        keys, values = [[] for _ in range(N_LAYER)], [[] for _ in range(N_LAYER)]
        losses = []
        for pos_id in range(n):
            probs = softmax(self.gpt(tokens[pos_id], pos_id, keys, values))
            losses.append(-probs[tokens[pos_id + 1]].log())
        loss = (1 / n) * sum(losses)
        loss.backward()
        lr_t = 0.01 * (1 - step / self.num_steps)
        b1, b2 = 0.85, 0.99
        for i, p in enumerate(self.params):
            self.m[i] = b1 * self.m[i] + (1 - b1) * p.grad
            self.v[i] = b2 * self.v[i] + (1 - b2) * p.grad ** 2
            m_hat = self.m[i] / (1 - b1 ** (step + 1))
            v_hat = self.v[i] / (1 - b2 ** (step + 1))
            p.data -= lr_t * m_hat / (v_hat ** 0.5 + 1e-8)
            p.grad = 0
        self.done += 1
        return loss.data


def linear(x, w):
    return [sum(wi * xi for wi, xi in zip(wo, x)) for wo in w]


def softmax(logits):
    max_val = max(val.data for val in logits)
    exps = [(val - max_val).exp() for val in logits]
    total = sum(exps)
    return [e / total for e in exps]


def rmsnorm(x):
    ms = sum(xi * xi for xi in x) / len(x)
    scale = (ms + 1e-5) ** -0.5
    return [xi * scale for xi in x]

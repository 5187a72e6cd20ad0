"""PyTorch (CPU, float64, eager) twins of the benchmark workloads, for side-by-side timing.

Imported by benchmarks/trace.py, digits.py and scaling.py; not a benchmark by itself.
Each twin copies the micrograd model's weights, so both sides start from the same point
and their numbers can be compared as well as their times.
"""

from __future__ import annotations

import time

import numpy as np
import torch

torch.set_num_threads(1)  # the machine is shared; one thread is the fair comparison


def torch_mlp(model):
    """A torch.nn.Sequential float64 copy of a micrograd MLP (weights copied)."""
    layers = []
    acts = {"relu": torch.nn.ReLU, "tanh": torch.nn.Tanh, "sigmoid": torch.nn.Sigmoid,
            "softplus": torch.nn.Softplus, "linear": None}
    for i, layer in enumerate(model.layers):
        nin = len(layer.neurons[0].w)
        lin = torch.nn.Linear(nin, len(layer.neurons)).double()
        with torch.no_grad():
            lin.weight.copy_(torch.tensor([[w.data for w in n.w] for n in layer.neurons],
                                         dtype=torch.float64))
            lin.bias.copy_(torch.tensor([n.b.data for n in layer.neurons], dtype=torch.float64))
        layers.append(lin)
        name = model.output_activation if i == len(model.layers) - 1 else model.activation
        if acts[name] is not None:
            layers.append(acts[name]())
    return torch.nn.Sequential(*layers)


def demo_step(model, X, Y, alpha=1e-4):
    """The demo's step in torch: hinge mean + alpha * L2, backward, SGD. Returns
    (``step(lr)`` returning the loss, the torch module)."""
    net = torch_mlp(model)
    params = list(net.parameters())
    opt = torch.optim.SGD(params, lr=0.1)
    Xt = torch.tensor(np.asarray(X, dtype=np.float64))
    Yt = torch.tensor(np.asarray(Y, dtype=np.float64))

    def step(lr):
        opt.param_groups[0]["lr"] = lr
        opt.zero_grad()
        scores = net(Xt).squeeze(1)
        loss = torch.relu(1 - Yt * scores).mean() + alpha * sum((p * p).sum() for p in params)
        loss.backward()
        opt.step()
        return loss.item()
    return step, net


def time_per_call(fn, n, warmup=3):
    for _ in range(warmup):
        fn()
    t0 = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t0) / n


def digits_epoch_time(Xtr, ytr, Xte, yte, epochs=3, batch=32, lr=1e-2, hidden=32, seed=0):
    """Train MLP(64, [hidden, 10]) relu/linear with cross-entropy and Adam in torch float64
    on the same minibatch schedule; return the median epoch time and the test accuracy."""
    torch.manual_seed(seed)
    net = torch.nn.Sequential(torch.nn.Linear(64, hidden), torch.nn.ReLU(),
                              torch.nn.Linear(hidden, 10)).double()
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    Xt, yt = torch.tensor(Xtr), torch.tensor(ytr)
    rng = np.random.default_rng(seed)
    times = []
    for _ in range(epochs):
        t0 = time.perf_counter()
        order = rng.permutation(len(Xtr))
        for i in range(0, len(Xtr), batch):
            idx = torch.from_numpy(order[i:i + batch])
            opt.zero_grad()
            loss = torch.nn.functional.cross_entropy(net(Xt[idx]), yt[idx])
            loss.backward()
            opt.step()
        times.append(time.perf_counter() - t0)
    with torch.no_grad():
        acc = (net(torch.tensor(Xte)).argmax(1).numpy() == yte).mean()
    return {"epoch": float(np.median(times)), "acc": float(acc)}


def mlp_step_time(sizes, B, n, seed=0):
    """Seconds per step (forward, MSE loss mean, backward, SGD) for an MLP of ``sizes``
    (e.g. [2, 16, 16, 1], relu hidden, linear out) on a batch of B in torch float64."""
    torch.manual_seed(seed)
    layers = []
    for i in range(len(sizes) - 1):
        layers.append(torch.nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2:
            layers.append(torch.nn.ReLU())
    net = torch.nn.Sequential(*layers).double()
    opt = torch.optim.SGD(net.parameters(), lr=1e-3)
    X = torch.randn(B, sizes[0], dtype=torch.float64)
    Y = torch.randn(B, sizes[-1], dtype=torch.float64)

    def step():
        opt.zero_grad()
        loss = ((net(X) - Y) ** 2).sum(1).mean()
        loss.backward()
        opt.step()
    return time_per_call(step, n)

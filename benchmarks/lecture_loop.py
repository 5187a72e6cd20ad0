"""A training loop written op by op on Values, as the lecture's first half writes it.

No ``nn`` module: a neuron is a list of weight Values and a bias, its output built one
``act = act + wi * xi`` at a time and squashed with ``tanh``; a layer is a list of neurons,
the network a list of layers (3 inputs, two hidden layers of 16, one output: the
lecture's ``MLP(3, [4, 4, 1])`` made wider, on 40 examples instead of its 4). The loss is
the lecture's summed squared error, the grads are zeroed by hand with ``p.grad = 0.0``,
and the update is ``p.data += -lr * p.grad``. The same code runs against each engine:
``from micrograd.engine import Value`` finds whichever ``micrograd`` the worker put on the
path (micrograd 0.1.0 has no ``tanh``: the worker gives its ``Value`` the lecture's
method first). Only the standard library is used, so it runs on Pyodide's Python too.
"""

import random

from micrograd.engine import Value

SEED = 1337
SIZES = (3, 16, 16, 1)
EXAMPLES = 40
LEARNING_RATE = 0.01


def make_data(seed=SEED, n=EXAMPLES):
    """``n`` points in the cube [-2, 2]^3 and a target of +1 or -1 for each."""
    rng = random.Random(seed)
    xs = [[rng.uniform(-2.0, 2.0) for _ in range(SIZES[0])] for _ in range(n)]
    ys = [1.0 if x0 * x1 - x2 > 0 else -1.0 for x0, x1, x2 in xs]
    return xs, ys


def make_network(seed=SEED):
    """Layers of neurons, each neuron ``(weights, bias)``, drawn uniformly in [-1, 1]."""
    rng = random.Random(seed + 1)
    return [[([Value(rng.uniform(-1.0, 1.0)) for _ in range(nin)],
              Value(rng.uniform(-1.0, 1.0))) for _ in range(nout)]
            for nin, nout in zip(SIZES, SIZES[1:])]


def neuron(w, b, x):
    act = b
    for wi, xi in zip(w, x):
        act = act + wi * xi
    return act.tanh()


def forward(network, x):
    for layer in network:
        x = [neuron(w, b, x) for w, b in layer]
    return x[0]


def parameters(network):
    return [p for layer in network for w, b in layer for p in [*w, b]]


def train(network, xs, ys, steps, learning_rate=LEARNING_RATE):
    """``steps`` steps of the lecture's loop; the loss of each step, before its update."""
    params = parameters(network)
    losses = []
    for _ in range(steps):
        ypred = [forward(network, x) for x in xs]
        loss = sum((yout - ygt) ** 2 for ygt, yout in zip(ys, ypred))

        for p in params:
            p.grad = 0.0
        loss.backward()

        for p in params:
            p.data += -learning_rate * p.grad
        losses.append(loss.data)
    return losses

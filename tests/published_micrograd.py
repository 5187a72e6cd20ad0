"""An independent implementation of the algorithm of micrograd's published package
(``micrograd/engine.py`` and ``micrograd/nn.py``), the reference for the drop-in tests.

It is written here on purpose the way micrograd writes it, not the way our engine does:
every node keeps a closure that captures its output ``out`` and pushes ``out.grad`` to its
inputs; the inputs are a ``set``; the topological order comes from a recursive depth-first
search; a grad starts as the int 0 and the output's as the int 1; subtraction and division
are composed (``a + (-b)``, ``a * b**-1``). The network draws its weights from Python's
global ``random`` and starts every bias at 0. Nothing here imports ``micrograd``.
"""

import random


class RefValue:
    """One scalar and the closure that sends its grad to the nodes that made it."""

    def __init__(self, data, _children=(), _op=""):
        self.data = data
        self.grad = 0
        self._backward = lambda: None
        self._prev = set(_children)
        self._op = _op

    @staticmethod
    def _wrap(other):
        return other if isinstance(other, RefValue) else RefValue(other)

    def __add__(self, other):
        other = self._wrap(other)
        out = RefValue(self.data + other.data, (self, other), "+")

        def push():  # d(a+b)/da = d(a+b)/db = 1
            self.grad += out.grad
            other.grad += out.grad
        out._backward = push
        return out

    def __mul__(self, other):
        other = self._wrap(other)
        out = RefValue(self.data * other.data, (self, other), "*")

        def push():  # d(ab)/da = b, d(ab)/db = a
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = push
        return out

    def __pow__(self, k):
        if not isinstance(k, (int, float)):
            raise TypeError("the reference supports int and float powers only")
        out = RefValue(self.data ** k, (self,), f"**{k}")

        def push():  # d(x^k)/dx = k x^(k-1)
            self.grad += (k * self.data ** (k - 1)) * out.grad
        out._backward = push
        return out

    def relu(self):
        out = RefValue(0 if self.data < 0 else self.data, (self,), "ReLU")

        def push():  # the slope is 1 where the output is positive, else 0
            self.grad += (out.data > 0) * out.grad
        out._backward = push
        return out

    def backward(self):
        order, seen = [], set()

        def visit(v):  # recursive depth-first search: inputs before the node
            if v not in seen:
                seen.add(v)
                for child in v._prev:
                    visit(child)
                order.append(v)
        visit(self)
        self.grad = 1
        for v in reversed(order):
            v._backward()

    def __neg__(self):
        return self * -1

    def __radd__(self, other):
        return self + other

    def __sub__(self, other):
        return self + (-other)

    def __rsub__(self, other):
        return other + (-self)

    def __rmul__(self, other):
        return self * other

    def __truediv__(self, other):
        return self * other ** -1

    def __rtruediv__(self, other):
        return other * self ** -1

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"


class RefModule:
    def zero_grad(self):
        for p in self.parameters():
            p.grad = 0

    def parameters(self):
        return []


class RefNeuron(RefModule):
    def __init__(self, nin, nonlin=True):
        self.w = [RefValue(random.uniform(-1, 1)) for _ in range(nin)]
        self.b = RefValue(0)
        self.nonlin = nonlin

    def __call__(self, x):
        act = sum([wi * xi for wi, xi in zip(self.w, x)], self.b)
        return act.relu() if self.nonlin else act

    def parameters(self):
        return self.w + [self.b]

    def __repr__(self):
        return ("ReLU" if self.nonlin else "Linear") + f"Neuron({len(self.w)})"


class RefLayer(RefModule):
    def __init__(self, nin, nout, **kwargs):
        self.neurons = [RefNeuron(nin, **kwargs) for _ in range(nout)]

    def __call__(self, x):
        outs = [n(x) for n in self.neurons]
        return outs[0] if len(outs) == 1 else outs

    def parameters(self):
        return [p for n in self.neurons for p in n.parameters()]

    def __repr__(self):
        return "Layer of [" + ", ".join(str(n) for n in self.neurons) + "]"


class RefMLP(RefModule):
    def __init__(self, nin, nouts):
        sizes = [nin] + nouts
        last = len(nouts) - 1
        self.layers = [RefLayer(sizes[i], sizes[i + 1], nonlin=i != last)
                       for i in range(len(nouts))]

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    def parameters(self):
        return [p for layer in self.layers for p in layer.parameters()]

    def __repr__(self):
        return "MLP of [" + ", ".join(str(layer) for layer in self.layers) + "]"


def release_graph(root):
    """Free a graph at once: each node's closure holds the node (``out``) in a reference
    cycle, which micrograd leaves to Python's cycle collector, slow on a big heap. Not
    part of the algorithm: the tests call this after a step, once the numbers are read."""
    stack, seen = [root], set()
    while stack:
        v = stack.pop()
        if v not in seen:
            seen.add(v)
            if v._prev:  # leaves (the parameters) live on into the next step
                v._backward = None
            stack.extend(v._prev)

"""micrograd's published engine and nn, written again here: the reference of the drop-in
tests (tests/test_micrograd_dropin.py) and of the mistakes gallery's tests. The speed
figures do not come from it: ``benchmarks/engine.py`` measures ours against the real
package, micrograd 0.1.0 from the package index.

This is the algorithm of micrograd's repository (``micrograd/engine.py``, ``nn.py``),
kept deliberately faithful, so that the tests compare ours with it and not with a straw
man:

* every op stores a closure ``_backward`` that captures ``out`` and is stored on ``out``
  (a reference cycle per node, so the graph is freed only by the cyclic GC);
* ``_prev = set(_children)`` (a set per node, a reused input shows once);
* ``self.grad`` starts at the integer 0, ``backward()`` seeds it with 1;
* ``backward()`` orders the graph with a recursive depth-first ``build_topo``;
* plain numbers become leaf Values, ``-a = a * -1``, ``a - b = a + (-b)``,
  ``a / b = a * b**-1``; relu is ``0 if x < 0 else x`` with derivative ``out.data > 0``;
* a neuron is ``sum([wi*xi for ...], self.b)``; ``zero_grad`` sets grads to 0.

Nothing here is imported by the package; it exists only to be measured and compared
against.

    python benchmarks/published_micrograd.py     # the lecture's example: 6.0 -4.0 -2.0 4.0
"""

import math
import random


class Value:
    """One scalar and the closure that pushes its grad to its children."""

    def __init__(self, data, _children=(), _op=""):
        self.data = data
        self.grad = 0
        self._backward = lambda: None
        self._prev = set(_children)
        self._op = _op

    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad += out.grad
            other.grad += out.grad
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        return out

    def __pow__(self, other):
        if isinstance(other, (int, float)):
            out = Value(self.data**other, (self,), f"**{other}")

            def _backward():
                self.grad += (other * self.data ** (other - 1)) * out.grad
            out._backward = _backward
        else:
            out = Value(self.data**other.data, (self, other), f"**{other}")

            def _backward():
                self.grad += (other.data * self.data ** (other.data - 1)) * out.grad
                other.grad += (self.data**other.data) * math.log(self.data) * out.grad
            out._backward = _backward
        return out

    def relu(self):
        out = Value(0 if self.data < 0 else self.data, (self,), "ReLU")

        def _backward():
            self.grad += (out.data > 0) * out.grad
        out._backward = _backward
        return out

    def backward(self):
        topo = []
        visited = set()

        def build_topo(v):
            if v not in visited:
                visited.add(v)
                for child in v._prev:
                    build_topo(child)
                topo.append(v)
        build_topo(self)
        self.grad = 1
        for v in reversed(topo):
            v._backward()

    def __neg__(self):  # -a = a * -1
        return self * -1

    def __radd__(self, other):
        return self + other

    def __sub__(self, other):  # a - b = a + (-b)
        return self + (-other)

    def __rsub__(self, other):
        return other + (-self)

    def __rmul__(self, other):
        return self * other

    def __truediv__(self, other):  # a / b = a * b**-1
        return self * other**-1

    def __rtruediv__(self, other):
        return other * self**-1

    def __repr__(self):
        return f"Value(data={self.data}, grad={self.grad})"


class Module:
    def zero_grad(self):
        for p in self.parameters():
            p.grad = 0

    def parameters(self):
        return []


class Neuron(Module):
    def __init__(self, nin, nonlin=True, rng=random):
        self.w = [Value(rng.uniform(-1, 1)) for _ in range(nin)]
        self.b = Value(0)
        self.nonlin = nonlin

    def __call__(self, x):
        act = sum([wi * xi for wi, xi in zip(self.w, x)], self.b)
        return act.relu() if self.nonlin else act

    def parameters(self):
        return self.w + [self.b]

    def __repr__(self):
        return f"{'ReLU' if self.nonlin else 'Linear'}Neuron({len(self.w)})"


class Layer(Module):
    def __init__(self, nin, nout, **kwargs):
        self.neurons = [Neuron(nin, **kwargs) for _ in range(nout)]

    def __call__(self, x):
        out = [n(x) for n in self.neurons]
        return out[0] if len(out) == 1 else out

    def parameters(self):
        return [p for n in self.neurons for p in n.parameters()]

    def __repr__(self):
        return f"Layer of [{', '.join(str(n) for n in self.neurons)}]"


class MLP(Module):
    """relu hidden layers, linear last layer (micrograd's repository)."""

    def __init__(self, nin, nouts, rng=random):
        sz = [nin] + nouts
        self.layers = [Layer(sz[i], sz[i + 1], nonlin=i != len(nouts) - 1, rng=rng)
                       for i in range(len(nouts))]

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    def parameters(self):
        return [p for layer in self.layers for p in layer.parameters()]

    def __repr__(self):
        return f"MLP of [{', '.join(str(layer) for layer in self.layers)}]"


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


if __name__ == "__main__":
    a, b, c, f = Value(2.0), Value(-3.0), Value(10.0), Value(-2.0)
    L = (a * b + c) * f
    L.backward()
    print(a.grad, b.grad, c.grad, f.grad)

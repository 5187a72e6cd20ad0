"""The code a learner writes: the lecture's engine, and each classic mistake in it.

``LectureValue`` is the engine as the lecture builds it: closures that push a node's
grad to its inputs with ``+=``, a recursive depth-first ``build_topo``, and a
``backward()`` that seeds the root with 1 and runs the closures in reverse order (the
convention of micrograd's published engine: a second ``backward()`` adds to every grad,
interior nodes included). It keeps its inputs as an ordered tuple, where the lecture has
a set: the topological order is the same, and a reused input (``b + b``) shows twice,
so the recursive backward below gives the same wrong number on every run.

Each mistake is the smallest change of that code a learner makes: a subclass that
replaces one or two methods, or a few lines that use the engine. The gallery
(``micrograd.mistakes``) runs them and shows their source as it is written here, so
what a reader sees is what ran. Nothing here is used by the rest of the package.
"""

from __future__ import annotations

import math

# ---------------------------------------------------------------------------------------
# The lecture's engine
# ---------------------------------------------------------------------------------------


class LectureValue:
    """micrograd's ``Value`` as the lecture writes it."""

    def __init__(self, data, _children=(), _op=""):
        self.data = data
        self.grad = 0.0
        self._backward = lambda: None
        self._prev = tuple(_children)
        self._op = _op

    def __repr__(self):
        return f"{type(self).__name__}(data={self.data}, grad={self.grad})"

    def __add__(self, other):
        other = other if isinstance(other, LectureValue) else type(self)(other)
        out = type(self)(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad += 1.0 * out.grad
            other.grad += 1.0 * out.grad
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, LectureValue) else type(self)(other)
        out = type(self)(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad
        out._backward = _backward
        return out

    def __pow__(self, other):
        assert isinstance(other, (int, float)), "only supporting int/float powers for now"
        out = type(self)(self.data**other, (self,), f"**{other}")

        def _backward():
            self.grad += other * self.data ** (other - 1) * out.grad
        out._backward = _backward
        return out

    def __radd__(self, other):  # other + self
        return self + other

    def __rmul__(self, other):  # other * self
        return self * other

    def __neg__(self):  # -self
        return self * -1

    def __sub__(self, other):  # self - other
        return self + (-other)

    def __truediv__(self, other):  # self / other
        return self * other**-1

    def tanh(self):
        x = self.data
        t = (math.exp(2 * x) - 1) / (math.exp(2 * x) + 1)
        out = type(self)(t, (self,), "tanh")

        def _backward():
            self.grad += (1 - t**2) * out.grad
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

        self.grad = 1.0
        for node in reversed(topo):
            node._backward()


# ---------------------------------------------------------------------------------------
# The mistakes: each a small change of the engine above
# ---------------------------------------------------------------------------------------


class AssignValue(LectureValue):
    """``=`` where the lecture writes ``+=``."""

    def __add__(self, other):
        other = other if isinstance(other, LectureValue) else type(self)(other)
        out = type(self)(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad = 1.0 * out.grad
            other.grad = 1.0 * out.grad
        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, LectureValue) else type(self)(other)
        out = type(self)(self.data * other.data, (self, other), "*")

        def _backward():
            self.grad = other.data * out.grad
            other.grad = self.data * out.grad
        out._backward = _backward
        return out


class RecursiveValue(LectureValue):
    """A backward pass that recurses into the inputs, with no topological sort."""

    def backward(self, is_root=True):
        if is_root:
            self.grad = 1.0
        self._backward()
        for child in self._prev:
            child.backward(is_root=False)


class BadRaddValue(LectureValue):
    """``__radd__`` with its operands the wrong way round."""

    def __radd__(self, other):  # other + self
        return other + self


class NoRaddValue(LectureValue):
    """The engine before ``__radd__`` is written: Python finds no way to do int + Value."""

    def __radd__(self, other):  # as if the method were missing
        return NotImplemented


class ValuePowValue(LectureValue):
    """A ``Value`` exponent, with the power rule for the base only."""

    def __pow__(self, other):
        other = other if isinstance(other, LectureValue) else type(self)(other)
        out = type(self)(self.data**other.data, (self, other), "**")

        def _backward():
            self.grad += other.data * self.data ** (other.data - 1) * out.grad
        out._backward = _backward
        return out


class LogPowValue(LectureValue):
    """A ``Value`` exponent with both rules: d(a**b)/db = a**b * log(a), by ``math.log``."""

    def __pow__(self, other):
        other = other if isinstance(other, LectureValue) else type(self)(other)
        out = type(self)(self.data**other.data, (self, other), "**")

        def _backward():
            self.grad += other.data * self.data ** (other.data - 1) * out.grad
            other.grad += out.data * math.log(self.data) * out.grad
        out._backward = _backward
        return out


# ---------------------------------------------------------------------------------------
# The mistakes made with a working engine
# ---------------------------------------------------------------------------------------


def backward_twice(root):
    """Two backward passes over one graph, with no zero_grad in between."""
    root.backward()
    root.backward()


def backward_retained_twice(root):
    """The same in PyTorch, which frees the graph after a pass unless asked to keep it."""
    root.backward(retain_graph=True)
    root.backward()


def draw_then_backward(root, draw_dot):
    """The graph drawn first, ``backward()`` called after."""
    picture = draw_dot(root)
    root.backward()
    return picture


# ---------------------------------------------------------------------------------------
# The fixes that are more than the lecture's own line
# ---------------------------------------------------------------------------------------


class IterativeValue(LectureValue):
    """The lecture's backward with the topological sort written as a loop over a stack."""

    def backward(self):
        topo = []
        visited = set()
        stack = [(self, False)]
        while stack:
            v, children_placed = stack.pop()
            if children_placed:
                topo.append(v)
            elif v not in visited:
                visited.add(v)
                stack.append((v, True))
                stack.extend((child, False) for child in v._prev)

        self.grad = 1.0
        for node in reversed(topo):
            node._backward()


def zero_grad_between(root):
    """Two backward passes, the grads set to zero in between."""
    root.backward()
    root.zero_grad()
    root.backward()


def backward_then_draw(root, draw_dot):
    """``backward()`` first, the drawing after."""
    root.backward()
    return draw_dot(root)


# ---------------------------------------------------------------------------------------
# The graphs the mistakes are shown on: the lecture's, written once for any Value class
# ---------------------------------------------------------------------------------------


def lecture_L(Value, a=2.0, b=-3.0, c=10.0, f=-2.0):
    """The lecture's first graph: ``L = (a*b + c) * f``."""
    a, b, c, f = Value(a), Value(b), Value(c), Value(f)
    e = a * b
    d = e + c
    L = d * f
    return L, {"a": a, "b": b, "c": c, "f": f}


def square(Value, a=3.0):
    """A node used twice: ``f = a*a``."""
    a = Value(a)
    f = a * a
    return f, {"a": a}


def twice_reused(Value, a=1.0):
    """An interior node used twice: ``b = a + a; c = b + b``."""
    a = Value(a)
    b = a + a
    c = b + b
    return c, {"a": a}


def neuron(Value, x1=2.0, x2=0.0, w1=-3.0, w2=1.0, b=6.8813735870195432):
    """The lecture's neuron: ``o = tanh(x1*w1 + x2*w2 + b)``."""
    x1, x2, w1, w2, b = Value(x1), Value(x2), Value(w1), Value(w2), Value(b)
    n = x1 * w1 + x2 * w2 + b
    o = n.tanh()
    return o, {"x1": x1, "x2": x2, "w1": w1, "w2": w2, "b": b}


def power(Value, a=2.0, b=3.0):
    """A Value raised to a Value: ``y = a ** b``."""
    a, b = Value(a), Value(b)
    y = a**b
    return y, {"a": a, "b": b}


def cube(Value, a=-2.0):
    """A Value raised to a plain number: ``y = a ** 3``."""
    a = Value(a)
    y = a**3
    return y, {"a": a}


def one_plus_square(Value, a=2.0):
    """A plain number on the left of ``+``: ``y = 1 + a*a``."""
    a = Value(a)
    y = 1 + a * a
    return y, {"a": a}


def three_terms(Value, a=1.0, b=2.0, c=3.0):
    """Python's ``sum``, which starts from the int 0: ``s = sum([a*a, b*c, c])``."""
    a, b, c = Value(a), Value(b), Value(c)
    s = sum([a * a, b * c, c])
    return s, {"a": a, "b": b, "c": c}


def chain(Value, x=1.0, depth=2000):
    """A graph ``depth`` multiplications deep: ``y = x * 1.001 * 1.001 * ...``."""
    x = Value(x)
    y = x
    for _ in range(depth):
        y = y * 1.001
    return y, {"x": x}

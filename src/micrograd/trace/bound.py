"""Parameter Values bound to a traced optimizer's arrays: true when read, no copy per step.

A traced optimizer keeps every parameter's number and gradient in two NumPy arrays and
updates them there. Copying 2,410 numbers into 2,410 Values after every step would cost
more than the step itself, so instead each parameter Value is *bound*: its class
becomes ``BoundValue``, a subclass of ``Value`` with no storage of its own whose
``data`` and ``grad`` read and write the optimizer's arrays. So ``p.data`` and
``p.grad`` are true at every moment, a change made by hand (``p.data = 0.5``) is seen by
the next step, and the Value works everywhere a Value does (``isinstance(p, Value)``,
the eager engine, ``micrograd.io.save``), only a little slower per read.
``unbind`` (the optimizer's ``close()``, or its garbage collection) writes the numbers
back into the Values and gives them back their class.
"""

from __future__ import annotations

import numpy as np

from ..engine import Value

_SLOTS = (Value.__dict__.get("data"), Value.__dict__.get("grad"))
_WHERE = {}  # id(bound Value) -> (store, index); the store keeps the Value alive


class Store:
    """The arrays that bound parameters live in."""

    __slots__ = ("params", "P", "G")

    def __init__(self, params, P, G):
        self.params, self.P, self.G = params, P, G


def _data(v):
    store, j = _WHERE[id(v)]
    return float(store.P[j])


def _set_data(v, x):
    store, j = _WHERE[id(v)]
    store.P[j] = x


def _grad(v):
    store, j = _WHERE[id(v)]
    return float(store.G[j])


def _set_grad(v, x):
    store, j = _WHERE[id(v)]
    store.G[j] = x


def _plain(data, grad, label):
    v = Value(data, label=label)
    v.grad = grad
    return v


class BoundValue(Value):
    """A parameter whose ``data`` and ``grad`` live in a traced optimizer's arrays."""

    __slots__ = ()
    data = property(_data, _set_data, doc="the number, read from the optimizer's array")
    grad = property(_grad, _set_grad, doc="the gradient, from the optimizer's array")

    def __reduce__(self):
        # a copy (copy, deepcopy, pickle) is a plain Value with the numbers of now
        return _plain, (self.data, self.grad, self.label)


def bind(params):
    """Bind ``params`` (plain Values) to two new arrays, filled from their numbers;
    returns the ``Store``. Refuses Values bound already."""
    if not all(type(d).__name__ == "member_descriptor" for d in _SLOTS):
        raise TypeError("Value.data and Value.grad are not the plain slots this module "
                        "binds: use micrograd.optim with loss.backward instead")
    for i, p in enumerate(params):
        if type(p) is BoundValue:
            raise ValueError(f"parameter {i} already belongs to another traced optimizer: "
                             f"close() that one first")
        if type(p) is not Value:
            raise TypeError(f"parameter {i} is a {type(p).__name__}; a traced optimizer "
                            f"binds plain Values only")
        if not isinstance(p.grad, float):
            raise TypeError(f"parameter {i} has a grad of type {type(p.grad).__name__} "
                            f"(a graph from backward(create_graph=True)?): zero it first")
    store = Store(list(params), np.array([p.data for p in params], dtype=np.float64),
                  np.array([p.grad for p in params], dtype=np.float64))
    for j, p in enumerate(store.params):
        _WHERE[id(p)] = (store, j)
        p.__class__ = BoundValue
    return store


def unbind(store):
    """Write the numbers back into the Values and make them plain Values again."""
    data, grad = _SLOTS
    for p, d, g in zip(store.params, store.P.tolist(), store.G.tolist()):
        if _WHERE.get(id(p), (None,))[0] is store:
            del _WHERE[id(p)]
            p.__class__ = Value
            data.__set__(p, d)
            grad.__set__(p, g)

"""Derivatives beyond ``.backward()``: functional grad, higher order, forward mode.

Every mode here sweeps the graph of ``Value`` nodes that the engine records, and asks the
op table (``micrograd.ops``) for each node's local derivatives. The table's rules work on
floats and on Values, so one rule per op serves all of them:

* reverse mode on floats (``grad``, ``value_and_grad``, ``jacrev``, ``gradients``);
* reverse mode on Values (``create_graph=True``): the rule is applied to the node's input
  Values and its output Value, so the gradient is itself a graph and can be
  differentiated again (``hessian``, ``grad(grad(f))``);
* forward mode (``jvp``, ``jacfwd``): tangents pushed from the inputs to the outputs
  through the same rules, one sweep per input direction.

    >>> from micrograd.autodiff import grad, value_and_grad, jvp, hessian
    >>> f = lambda x, y: (x * y).tanh() + x ** 3
    >>> round(grad(f)(0.5, -1.0), 6)                    # df/dx
    -0.036448
    >>> [round(g, 6) for g in grad(f, argnums=(0, 1))(0.5, -1.0)]
    [-0.036448, 0.393224]
    >>> round(grad(grad(grad(lambda x: x.tanh())))(0.3), 6)   # tanh'''
    -1.364306
    >>> out, t = jvp(f, (0.5, -1.0), (1.0, 0.0))        # forward mode: df/dx again
    >>> round(t, 6)
    -0.036448

Conventions:

* Functions take plain numbers or Values. When every argument is a plain number (and
  the call is not nested inside another transform), results are floats. When any
  argument is a Value, or the call runs inside another transform (``grad(grad(f))``),
  results are Values on a graph, differentiable again.
* A Value argument is first copied into a fresh node (``x * 1.0``), so the derivative is
  taken with respect to *this argument* only, never through another reference to the
  same Value captured by a closure ("perturbation confusion").
* Kinks follow the table: relu'(0) = 0 and abs'(0) = 0, and because those rules return
  constants, relu'' = abs'' = 0 everywhere, at 0 too (PyTorch gives the same).
* Nothing here reads or writes ``.grad`` except ``backward()``, which mirrors
  ``Value.backward()``.
"""

from __future__ import annotations

from numbers import Real

from .chain_rule import contributions_at, sweep
from .checks import as_float
from .engine import Value, enable_grad, topological_order
from .ops import FLOAT, VALUE

__all__ = [
    "grad", "value_and_grad", "gradients", "backward", "jvp", "jacfwd", "jacrev",
    "hessian", "hvp",
]

# How many transforms are evaluating their function right now. Inside one, every nested
# transform builds its result as a graph, so the outer one can differentiate it.
_depth = 0


# ---------------------------------------------------------------------------------------
# Order, reverse sweep, forward sweep
# ---------------------------------------------------------------------------------------


def _topo(roots):
    """Every node reachable from ``roots``, each after all of its inputs."""
    return topological_order(*roots)


def _reverse(topo, seeds, create_graph, needed=None):
    """Reverse sweep: ``{node: d(seeded outputs)/d node}`` (floats, or Values if graph).

    ``seeds`` maps output nodes to their upstream gradients. With ``needed`` given, only
    nodes in it receive gradients (a gradient with respect to some inputs only never
    builds nodes for constants). The one sweep (``chain_rule``), on floats or on Values.
    """
    return sweep(reversed(topo), dict(seeds), VALUE if create_graph else FLOAT, needed)


def _forward(topo, seeds, create_graph):
    """Forward sweep: ``{node: tangent}`` given tangents ``seeds`` at some nodes.

    The same rules as the reverse sweep: for a scalar op each contribution is linear in
    the upstream gradient, so the tangent of a node is the sum over its inputs of the
    rule run with that input's tangent as the upstream (``t_out = sum_i d_i t_i``)."""
    m = VALUE if create_graph else FLOAT
    tans = dict(seeds)
    get = tans.get
    for v in topo:
        if v._fn is None or v in seeds:
            continue
        acc = None
        for i, p in enumerate(v._prev):
            t = get(p)
            if t is None:
                continue
            c = contributions_at(v, t, m)[i]
            acc = c if acc is None else acc + c
        if acc is not None:
            tans[v] = acc
    return tans


def _depends_on(topo, inputs):
    """The nodes of ``topo`` that are one of ``inputs`` or are computed from one (forward
    from ``inputs`` through ``topo``)."""
    needed = set(inputs)
    for v in topo:
        if v not in needed:
            for p in v._prev:
                if p in needed:
                    needed.add(v)
                    break
    return needed


def _as_value(x):
    return x if isinstance(x, Value) else Value(x)


def _float_of(x):
    """A Value's number, or a real number as a float (``10**400`` -> inf)."""
    return x.data if isinstance(x, Value) else as_float(x)


# ---------------------------------------------------------------------------------------
# gradients / backward: the building blocks on Values
# ---------------------------------------------------------------------------------------


def _check_values(xs, what):
    for i, x in enumerate(xs):
        if not isinstance(x, Value):
            raise TypeError(f"{what}[{i}] must be a Value, got {type(x).__name__}: {x!r:.60}")


def _grads(outputs, cotangents, inputs, create_graph):
    """d(sum_k cotangent_k * output_k) / d input_i for each input: floats or Values."""
    seeds = {}
    for o, c in zip(outputs, cotangents):
        if not create_graph:
            c = _float_of(c)
        if isinstance(o, Value):
            seeds[o] = c if o not in seeds else seeds[o] + c
    if not seeds:
        zero = 0.0
        return [Value(zero) if create_graph else zero for _ in inputs]
    topo = _topo(list(seeds))
    if create_graph:
        with enable_grad():
            g = _reverse(topo, seeds, True, _depends_on(topo, inputs))
        return [_as_value(g.get(x, 0.0)) for x in inputs]
    g = _reverse(topo, seeds, False)  # on floats, pruning costs more than it saves
    return [_float_of(g.get(x, 0.0)) for x in inputs]


def gradients(outputs, inputs, grad_outputs=None, create_graph=False):
    """Gradients of ``outputs`` with respect to ``inputs``, as Values, touching no ``.grad``.

    The counterpart of ``torch.autograd.grad``. ``outputs`` is a Value (or a sequence of
    them, then ``grad_outputs`` weights each: a vector-Jacobian product); ``inputs`` is a
    Value or a sequence of Values, leaves or interior nodes (the gradient with respect to
    an interior node counts the paths through that node). Returns one Value per input (a
    single Value if ``inputs`` is a single Value, else a tuple). An input that does not
    affect the outputs gets ``Value(0.0)``.

    With ``create_graph=True`` the results are graphs built from the op table's rules
    applied to the graph's Values, so they can be differentiated again; otherwise they are
    constant leaves. No node's ``.grad`` is read or written, so it is safe to call on any
    graph, any number of times.

        >>> from micrograd.engine import Value
        >>> x = Value(0.5)
        >>> y = x.tanh() * x
        >>> (dx,) = gradients(y, [x], create_graph=True)
        >>> (d2x,) = gradients(dx, [x])
        >>> round(dx.data, 6), round(d2x.data, 6)
        (0.855341, 1.209464)
    """
    single_out = not isinstance(outputs, (list, tuple))
    outs = [outputs] if single_out else list(outputs)
    if grad_outputs is None:
        cots = [1.0] * len(outs)
    else:
        cots = [grad_outputs] if single_out else list(grad_outputs)
        if len(cots) != len(outs):
            raise ValueError(f"gradients: {len(outs)} outputs but {len(cots)} grad_outputs")
        for i, c in enumerate(cots):
            if not isinstance(c, (Value, Real)) or isinstance(c, bool):
                raise TypeError(f"grad_outputs[{i}] must be a number or a Value, "
                                f"got {type(c).__name__}")
    single_in = isinstance(inputs, Value)
    ins = [inputs] if single_in else list(inputs)
    _check_values(ins, "inputs")
    for i, o in enumerate(outs):
        if not isinstance(o, (Value, Real)) or isinstance(o, bool):
            raise TypeError(f"outputs[{i}] must be a Value or a number, "
                            f"got {type(o).__name__}: {o!r:.60}")
    res = [_as_value(g) for g in _grads(outs, cots, ins, create_graph)]
    return res[0] if single_in else tuple(res)


def backward(root, grad=1.0, create_graph=False):
    """``root.backward()`` that can build the gradient as a graph (``create_graph=True``).

    Fills ``.grad`` exactly as ``Value.backward`` does: every interior node reachable from
    ``root`` gets this pass's gradient, every leaf accumulates (``leaf.grad += ...``).
    With ``create_graph=False`` the numbers are the same as ``Value.backward`` bit for bit.
    With ``create_graph=True`` every ``.grad`` becomes a ``Value`` (use ``.grad.data`` for
    the number) whose graph is built from the op table's rules, so it can be
    differentiated again. As in PyTorch, a leaf's ``.grad`` then refers to a graph that
    refers back to the leaf (a reference cycle, freed by the garbage collector), and a
    later ``x.grad.backward()`` accumulates into ``x.grad`` itself: set ``x.grad = 0.0``
    first, or use ``gradients()``, which touches no ``.grad``.

        >>> from micrograd.engine import Value
        >>> x = Value(2.0)
        >>> y = x ** 3
        >>> backward(y, create_graph=True)
        >>> g = x.grad                      # 3 x^2, a Value on a graph
        >>> x.grad = 0.0
        >>> g.backward()                    # 6 x
        >>> g.data, x.grad
        (12.0, 12.0)
    """
    if not isinstance(root, Value):
        raise TypeError(f"backward needs a Value, got {type(root).__name__}")
    if not isinstance(grad, (Value, Real)) or isinstance(grad, bool):
        raise TypeError(f"backward: grad must be a number or a Value, got {type(grad).__name__}")
    root.backward(grad, create_graph=create_graph)


# ---------------------------------------------------------------------------------------
# Function transforms: grad, value_and_grad, jacrev, jacfwd, jvp, hessian, hvp
# ---------------------------------------------------------------------------------------


def _check_argnums(argnums, name):
    """``(tuple of ints or None, single)`` from an ``argnums`` given as int, tuple or None."""
    if argnums is None:
        return None, False
    if isinstance(argnums, int) and not isinstance(argnums, bool):
        if argnums < 0:
            raise ValueError(f"{name}: argnums must be >= 0, got {argnums}")
        return (argnums,), True
    if isinstance(argnums, (tuple, list)) and argnums:
        for a in argnums:
            if not isinstance(a, int) or isinstance(a, bool) or a < 0:
                raise TypeError(f"{name}: argnums must be ints >= 0, got {argnums!r}")
        if len(set(argnums)) != len(argnums):
            raise ValueError(f"{name}: argnums has a repeated index: {argnums!r}")
        return tuple(argnums), False
    raise TypeError(f"{name}: argnums must be an int or a non-empty tuple of ints, "
                    f"got {type(argnums).__name__}: {argnums!r:.60}")


def _is_number(x):
    return isinstance(x, Real) and not isinstance(x, bool)


def _graph_mode(args, kwargs):
    """Results are graphs inside another transform or when any argument is a Value."""
    return (_depth > 0 or any(isinstance(a, Value) for a in args)
            or any(isinstance(a, Value) for a in kwargs.values()))


def _wrap_args(args, nums, name):
    """Fresh Value nodes for the differentiated arguments; the new argument list."""
    args = list(args)
    if nums is None:
        nums = tuple(range(len(args)))
    if not nums:
        raise TypeError(f"{name}: the function was called without positional arguments")
    for i in nums:
        if i >= len(args):
            raise TypeError(f"{name}: argnums includes {i} but the function was called "
                            f"with {len(args)} positional argument(s)")
    xs = []
    for i in nums:
        a = args[i]
        if isinstance(a, Value):
            with enable_grad():
                x = a * 1.0  # a fresh node: derivatives flow to it only via this argument
            x.label = a.label or f"arg{i}"
        elif _is_number(a):
            x = Value(a, label=f"arg{i}")
        else:
            raise TypeError(f"{name}: argument {i} must be a number or a Value, "
                            f"got {type(a).__name__}: {a!r:.60}")
        args[i] = x
        xs.append(x)
    return xs, args, nums


def _call(f, args, kwargs):
    """Call ``f`` with graph building on, marking that a transform is evaluating it."""
    global _depth
    _depth += 1
    try:
        with enable_grad():
            return f(*args, **kwargs)
    finally:
        _depth -= 1


def _scalar_output(out, name):
    if isinstance(out, Value) or _is_number(out):
        return out
    raise TypeError(f"{name}: f must return one scalar (a Value or a number), got "
                    f"{type(out).__name__}; for several outputs use jacrev / jacfwd")


def _outputs(out, name):
    """``(list of outputs, is_sequence)`` from a function result."""
    if isinstance(out, (list, tuple)):
        outs = list(out)
        seq = True
    else:
        outs = [out]
        seq = False
    for k, o in enumerate(outs):
        if not (isinstance(o, Value) or _is_number(o)):
            raise TypeError(f"{name}: output {k} of f must be a Value or a number, "
                            f"got {type(o).__name__}: {o!r:.60}")
    return outs, seq


def _result(x, graph):
    return _as_value(x) if graph else _float_of(x)


def value_and_grad(f, argnums=0):
    """``f`` and its gradient together: ``value_and_grad(f)(*args) -> (f(*args), df)``.

    ``argnums`` (an int, or a tuple of ints) selects the positional arguments to
    differentiate; with an int the gradient is one number, with a tuple a tuple. Other
    arguments and keyword arguments are passed through unchanged. Floats in, floats out;
    Value arguments (or a call nested in another transform) give Values on a graph, so
    ``grad(grad(f))`` works.

        >>> v, g = value_and_grad(lambda x, y: x * y + y.exp(), argnums=(0, 1))(3.0, 0.0)
        >>> v, g
        (1.0, (0.0, 4.0))
    """
    nums, single = _check_argnums(argnums, "value_and_grad")
    if nums is None:
        raise TypeError("value_and_grad: argnums must be an int or a tuple of ints, got None")

    def value_and_grad_f(*args, **kwargs):
        graph = _graph_mode(args, kwargs)
        xs, args2, _ = _wrap_args(args, nums, "value_and_grad")
        out = _scalar_output(_call(f, args2, kwargs), "value_and_grad")
        gs = _grads([out], [1.0], xs, graph)
        value = _result(out, graph)
        return value, (gs[0] if single else tuple(gs))

    value_and_grad_f.__name__ = f"value_and_grad({getattr(f, '__name__', 'f')})"
    value_and_grad_f.__doc__ = f"value and gradient of {getattr(f, '__name__', 'f')}"
    return value_and_grad_f


def grad(f, argnums=0):
    """The gradient of a scalar function: ``grad(f)(*args) -> df/d args[argnums]``.

    Same rules as ``value_and_grad`` (``argnums`` int or tuple; floats in, floats out;
    Values in, Values out). Nest it for higher derivatives: ``grad(grad(f))``.

        >>> grad(lambda x: x ** 3)(2.0)
        12.0
        >>> grad(grad(lambda x: x ** 3))(2.0)
        12.0
        >>> grad(grad(grad(lambda x: x ** 3)))(2.0)
        6.0
    """
    vg = value_and_grad(f, argnums)

    def grad_f(*args, **kwargs):
        return vg(*args, **kwargs)[1]

    grad_f.__name__ = f"grad({getattr(f, '__name__', 'f')})"
    grad_f.__doc__ = f"gradient of {getattr(f, '__name__', 'f')}"
    return grad_f


def _shape(rows, out_seq, single):
    """Jacobian rows ``rows[k][i]`` shaped like JAX: drop the output axis for a scalar
    output, the input axis for an int ``argnums``."""
    rows = [r[0] if single else tuple(r) for r in rows]
    return rows if out_seq else rows[0]


def jacrev(f, argnums=None):
    """Jacobian by reverse mode: one backward sweep per output.

    ``jacrev(f)(*args)[k][i] = d out_k / d args[i]``. ``argnums=None`` (the default)
    differentiates every positional argument (for scalars one argument is one number, so
    the Jacobian over all of them is the useful default); an int drops the input axis, a
    scalar output drops the output axis. Cheap when there are few outputs.

        >>> jacrev(lambda x, y: [x * y, x + y])(2.0, 3.0)
        [(3.0, 2.0), (1.0, 1.0)]
    """
    nums, single = _check_argnums(argnums, "jacrev")

    def jacrev_f(*args, **kwargs):
        graph = _graph_mode(args, kwargs)
        xs, args2, _ = _wrap_args(args, nums, "jacrev")
        outs, seq = _outputs(_call(f, args2, kwargs), "jacrev")
        rows = [_grads([o], [1.0], xs, graph) for o in outs]
        return _shape(rows, seq, single)

    return jacrev_f


def _jvp_sweep(outs, xs, tangents, graph, topo=None):
    """Tangents of ``outs`` for tangents at ``xs``, by one forward sweep (over ``topo``,
    the outputs' graph in order, computed here if not given)."""
    if topo is None:
        topo = _topo([o for o in outs if isinstance(o, Value)])
    seeds = {x: t for x, t in zip(xs, tangents)}
    if graph:
        with enable_grad():
            tans = _forward(topo, seeds, True)
    else:
        tans = _forward(topo, seeds, False)
    return [tans.get(o, 0.0) if isinstance(o, Value) else 0.0 for o in outs]


def jacfwd(f, argnums=None):
    """Jacobian by forward mode: one tangent sweep per input. Same shapes as ``jacrev``.

    Cheap when there are few inputs and many outputs.

        >>> jacfwd(lambda x, y: [x * y, x + y])(2.0, 3.0)
        [(3.0, 2.0), (1.0, 1.0)]
    """
    nums, single = _check_argnums(argnums, "jacfwd")

    def jacfwd_f(*args, **kwargs):
        graph = _graph_mode(args, kwargs)
        xs, args2, _ = _wrap_args(args, nums, "jacfwd")
        outs, seq = _outputs(_call(f, args2, kwargs), "jacfwd")
        topo = _topo([o for o in outs if isinstance(o, Value)])
        cols = []
        for i in range(len(xs)):
            tangents = [1.0 if j == i else 0.0 for j in range(len(xs))]
            cols.append([_result(t, graph)
                         for t in _jvp_sweep(outs, xs, tangents, graph, topo)])
        rows = [[cols[i][k] for i in range(len(xs))] for k in range(len(outs))]
        return _shape(rows, seq, single)

    return jacfwd_f


def jvp(f, primals, tangents):
    """Forward mode: ``(f(*primals), J @ tangents)`` in one sweep.

    ``primals`` and ``tangents`` are sequences of the same length (numbers or Values), one
    entry per positional argument of ``f``. ``f`` may return one scalar or a sequence of
    them; the outputs and their tangents come back in the same shape.

    How: ``f`` is traced once into a graph of Values, then tangents flow from the inputs
    to the outputs, node by node in topological order: ``t(v) = sum_i d v/d x_i * t(x_i)``
    with the local derivatives from the op table (the same rules reverse mode uses).

        >>> out, t = jvp(lambda x: [x.sin(), x.cos(), x * x], (0.0,), (1.0,))
        >>> out, t
        ((0.0, 1.0, 0.0), (1.0, -0.0, 0.0))
    """
    if not isinstance(primals, (list, tuple)) or not isinstance(tangents, (list, tuple)):
        raise TypeError(f"jvp: primals and tangents must be tuples or lists, got "
                        f"{type(primals).__name__} and {type(tangents).__name__}")
    if len(primals) != len(tangents):
        raise ValueError(f"jvp: {len(primals)} primals but {len(tangents)} tangents")
    for i, t in enumerate(tangents):
        if not (isinstance(t, Value) or _is_number(t)):
            raise TypeError(f"jvp: tangents[{i}] must be a number or a Value, "
                            f"got {type(t).__name__}: {t!r:.60}")
    graph = _graph_mode(primals, {}) or any(isinstance(t, Value) for t in tangents)
    xs, args2, _ = _wrap_args(primals, None, "jvp")
    outs, seq = _outputs(_call(f, args2, {}), "jvp")
    tans = [t if isinstance(t, Value) else float(t) for t in tangents]
    touts = _jvp_sweep(outs, xs, tans, graph)
    outs = [_result(o, graph) for o in outs]
    touts = [_result(t, graph) for t in touts]
    if seq:
        return tuple(outs), tuple(touts)
    return outs[0], touts[0]


def hessian(f, argnums=None):
    """The matrix of second derivatives of a scalar function, by reverse over reverse.

    ``hessian(f)(*args)[i][j] = d2 f / d args[i] d args[j]`` (tuples of tuples);
    ``argnums=None`` (default) takes every positional argument, an int gives the one
    second derivative.

        >>> hessian(lambda x, y: x * x * y + y.exp())(1.0, 0.0)
        ((0.0, 2.0), (2.0, 1.0))
    """
    nums, single = _check_argnums(argnums, "hessian")

    def hessian_f(*args, **kwargs):
        graph = _graph_mode(args, kwargs)
        xs, args2, _ = _wrap_args(args, nums, "hessian")
        out = _scalar_output(_call(f, args2, kwargs), "hessian")
        gs = _grads([out], [1.0], xs, True)
        rows = [_grads([g], [1.0], xs, graph) for g in gs]
        if single:
            return rows[0][0]
        return tuple(tuple(r) for r in rows)

    return hessian_f


def hvp(f, primals, tangents):
    """Hessian-vector product ``H(primals) @ tangents`` by forward over reverse.

    The gradient of ``f`` (reverse mode, built as a graph) is pushed forward along
    ``tangents`` (forward mode): one reverse sweep and one forward sweep, never the whole
    Hessian. Returns a tuple, one entry per argument.

        >>> hvp(lambda x, y: x * x * y + y.exp(), (1.0, 0.0), (1.0, 0.0))
        (0.0, 2.0)
    """
    if not isinstance(primals, (list, tuple)):
        raise TypeError(f"hvp: primals must be a tuple or list, got {type(primals).__name__}")
    g = grad(f, argnums=tuple(range(len(primals))))
    return jvp(g, primals, tangents)[1]

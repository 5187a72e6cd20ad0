"""``gradcheck``: derivatives against central finite differences, naming the culprit.

    >>> from micrograd.gradcheck import gradcheck
    >>> gradcheck(lambda x, y: (x * y).tanh() + y.log(), [0.3, 2.0])
    True

Every entry of the Jacobian, computed by reverse mode (``autodiff.jacrev``) and by forward
mode (``autodiff.jacfwd``), is compared with the central difference of ``f``. When they
disagree, each node of ``f``'s graph has its own local derivative (the op table's rule)
checked against central differences of that op's forward function, so the report names
the op whose rule is wrong, or says that none is (then ``f`` usually reads ``.data``).
"""

from __future__ import annotations

import inspect
import math
from numbers import Real

from . import ops as _ops
from .autodiff import jacfwd, jacrev
from .engine import Value, enable_grad, topological_order

__all__ = ["gradcheck", "gradcheck_report", "GradcheckError", "GradcheckReport"]


class GradcheckError(AssertionError):
    """Raised by ``gradcheck`` when analytic and numerical derivatives disagree.

    ``.report`` holds the ``GradcheckReport`` (which inputs, which ops)."""

    def __init__(self, report):
        super().__init__(str(report))
        self.report = report


class GradcheckReport:
    """What ``gradcheck_report`` found.

    ``ok``: True when every derivative agrees. ``mismatches``: dicts with ``output``,
    ``input`` (index), ``name`` (the argument's name), ``mode`` ('reverse' or 'forward'),
    ``analytic``, ``numerical``. ``ops``: the graph nodes whose own local derivative
    disagrees with central differences of the op's forward function, dicts with ``key``
    (the op's key in ``ops.OPS``), ``op`` (its label), ``inputs`` (the node's input
    values), ``arg``, ``input`` (which operand), ``analytic``, ``numerical``. ``kinks``:
    nodes sitting on a kink (left and right differences differ), same fields.
    """

    def __init__(self, ok, mismatches, ops, kinks):
        self.ok = ok
        self.mismatches = mismatches
        self.ops = ops
        self.kinks = kinks

    def __bool__(self):
        return self.ok

    def __str__(self):
        if self.ok:
            return "gradcheck: all derivatives agree"
        lines = ["gradcheck: analytic and numerical derivatives disagree"]
        for m in self.mismatches:
            lines.append(f"  d out[{m['output']}] / d {m['name']} (input {m['input']}, "
                         f"{m['mode']} mode): analytic {m['analytic']!r}, "
                         f"numerical {m['numerical']!r}")
        for o in self.ops:
            lines.append(f"  op {o['key']!r} ({o['op']}) at inputs {o['inputs']!r}: local "
                         f"derivative for operand {o['input']} is {o['analytic']!r}, "
                         f"numerical {o['numerical']!r}")
        for o in self.kinks:
            lines.append(f"  op {o['key']!r} ({o['op']}) at inputs {o['inputs']!r} sits on "
                         f"a kink (one-sided derivatives {o['numerical']!r}): finite "
                         f"differences cannot check it there")
        if not self.ops and not self.kinks:
            lines.append("  every op's local rule agrees with its own finite differences: f "
                         "likely depends on its inputs outside the graph (.data, float())")
        return "\n".join(lines)

    __repr__ = __str__


def _close(a, b, atol, rtol):
    if math.isfinite(a) and math.isfinite(b):
        return abs(a - b) <= atol + rtol * abs(b)
    return a == b or (a != a and b != b)


def _check_ops(topo, eps, atol, rtol):
    """Each node's local derivatives against central differences of its forward."""
    bad, kinks = [], []
    for v in topo:
        fn = v._fn
        if fn is None:
            continue
        xs = [p.data for p in v._prev]
        if not all(math.isfinite(x) for x in xs):
            continue
        analytic = _ops.local_grads(fn, xs, v.data, v._arg)

        def fwd(ys, fn=fn, arg=v._arg):
            return _ops.forward(fn, ys, arg)

        y0 = fwd(xs)
        for i, x in enumerate(xs):
            h = eps * max(1.0, abs(x))
            hi = xs[:i] + [x + h] + xs[i + 1:]
            lo = xs[:i] + [x - h] + xs[i + 1:]
            yp, ym = fwd(hi), fwd(lo)
            if not all(math.isfinite(y) for y in (yp, ym, y0)):
                continue
            num = (yp - ym) / (2 * h)
            a = float(analytic[i])
            entry = {"key": fn.key, "op": fn.label(v._arg),
                     "inputs": tuple(xs), "arg": v._arg, "input": i, "analytic": a,
                     "numerical": num}
            right, left = (yp - y0) / h, (y0 - ym) / h
            if not _close(right, left, 10 * atol, 10 * rtol):
                entry["numerical"] = (left, right)
                kinks.append(entry)
            elif not _close(a, num, atol, rtol):
                bad.append(entry)
    return bad, kinks


def gradcheck_report(f, inputs, eps=1e-6, atol=1e-5, rtol=1e-3, modes=("reverse", "forward")):
    """Check ``f``'s derivatives at ``inputs`` against central differences; a report.

    See ``gradcheck`` for the arguments. Returns a ``GradcheckReport`` (true when all
    agree) instead of raising.
    """
    if not isinstance(inputs, (list, tuple)):
        raise TypeError(f"gradcheck: inputs must be a tuple or list of numbers, "
                        f"got {type(inputs).__name__}")
    xs0 = []
    for i, a in enumerate(inputs):
        if isinstance(a, Value):
            a = a.data
        if not isinstance(a, Real) or isinstance(a, bool):
            raise TypeError(f"gradcheck: inputs[{i}] must be a number or a Value, "
                            f"got {type(a).__name__}: {a!r:.60}")
        xs0.append(Value(a).data)  # a real number as a float (10**400 -> inf)
    if not (eps > 0):
        raise ValueError(f"gradcheck: eps must be > 0, got {eps!r}")
    for m in modes:
        if m not in ("reverse", "forward"):
            raise ValueError(f"gradcheck: unknown mode {m!r} (use 'reverse', 'forward')")
    try:
        names = list(inspect.signature(f).parameters)
    except (TypeError, ValueError):
        names = []
    names = [names[i] if i < len(names) else f"arg{i}" for i in range(len(xs0))]

    def evaluate(vals):
        """``f``'s outputs at ``vals`` (a list), each a Value or a number."""
        with enable_grad():
            out = f(*[Value(x, label=n) for x, n in zip(vals, names)])
        outs = list(out) if isinstance(out, (list, tuple)) else [out]
        for k, o in enumerate(outs):
            if not isinstance(o, (Value, Real)) or isinstance(o, bool):
                raise TypeError(f"gradcheck: output {k} of f must be a Value or a number, "
                                f"got {type(o).__name__}: {o!r:.60}")
        return outs, isinstance(out, (list, tuple))

    outs, seq = evaluate(xs0)
    y0 = [_number(o) for o in outs]
    if not all(math.isfinite(y) for y in y0):
        raise ValueError(f"gradcheck: f is not finite at {xs0!r} (outputs {y0!r}); "
                         f"check at a point where it is")
    n, m = len(xs0), len(outs)
    # numerical Jacobian, by central differences
    num = [[0.0] * n for _ in range(m)]
    for i in range(n):
        h = eps * max(1.0, abs(xs0[i]))
        hi = xs0[:i] + [xs0[i] + h] + xs0[i + 1:]
        lo = xs0[:i] + [xs0[i] - h] + xs0[i + 1:]
        yp = [_number(o) for o in evaluate(hi)[0]]
        ym = [_number(o) for o in evaluate(lo)[0]]
        for k in range(m):
            num[k][i] = (yp[k] - ym[k]) / (2 * h)
    analytic = {}
    for mode, jacobian in (("reverse", jacrev), ("forward", jacfwd)):
        if mode in modes:
            rows = jacobian(f)(*xs0)  # a row per output, a tuple over the inputs
            analytic[mode] = [[_number(d) for d in row] for row in (rows if seq else [rows])]
    mismatches = []
    for mode, jac in analytic.items():
        for k in range(m):
            for i in range(n):
                if not _close(jac[k][i], num[k][i], atol, rtol):
                    mismatches.append({"output": k, "input": i, "name": names[i],
                                       "mode": mode, "analytic": jac[k][i],
                                       "numerical": num[k][i]})
    if not mismatches:
        return GradcheckReport(True, [], [], [])
    bad, kinks = _check_ops(topological_order(*[o for o in outs if isinstance(o, Value)]),
                            eps, atol, rtol)
    return GradcheckReport(False, mismatches, bad, kinks)


def _number(x):
    return float(x.data if isinstance(x, Value) else x)


def gradcheck(f, inputs, eps=1e-6, atol=1e-5, rtol=1e-3, modes=("reverse", "forward")):
    """Check ``f``'s derivatives at ``inputs`` against central differences.

    ``f`` takes one Value per entry of ``inputs`` (numbers) and returns a Value or a
    sequence of Values. Every entry of the Jacobian, computed by reverse mode and by
    forward mode (``modes``), must agree with the central difference
    ``(f(x + h) - f(x - h)) / 2h``, ``h = eps * max(1, |x|)``, within
    ``|analytic - numerical| <= atol + rtol * |numerical|``. The defaults (``eps=1e-6``,
    ``atol=1e-5``, ``rtol=1e-3``, PyTorch's) leave room for the difference's own error
    (about ``eps**2 * f'''`` plus ``1e-16 * |f| / eps`` of rounding). Do not check at a
    kink (relu or abs at 0): finite differences see the average of the two sides there.

    Returns True, or raises ``GradcheckError`` whose message (and ``.report``) names each
    disagreeing input and every op of the graph whose local derivative rule disagrees
    with central differences of its own forward function. ``f`` may itself use ``grad``
    (``gradcheck(grad(f), ...)`` checks second derivatives).

        >>> gradcheck(lambda x, y: (x * y).tanh() + y.log(), [0.3, 2.0])
        True
    """
    report = gradcheck_report(f, inputs, eps=eps, atol=atol, rtol=rtol, modes=modes)
    if not report.ok:
        raise GradcheckError(report)
    return True

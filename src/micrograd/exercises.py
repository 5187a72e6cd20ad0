"""Checks for the exercise notebook: each answer is checked in place, with the reason.

    >>> from micrograd.exercises import check_lecture_grads
    >>> r = check_lecture_grads(a=6.0, b=-4.0, c=-2.0, f=4.0)
    ✓ dL/da = 6 (backward() agrees)
    ✓ dL/db = -4 (backward() agrees)
    ✓ dL/dc = -2 (backward() agrees)
    ✓ dL/df = 4 (backward() agrees)
    lecture grads: all 4 checks passed
    >>> r.passed
    True

Every check compares the student's answer with micrograd's engine (``backward()`` on the
same expression) or with a formula worked out independently, at several points, so a
hard-coded number cannot pass a function exercise. A check never raises because of the
answer: an error inside the student's code, an unanswered exercise (``None``, or a
function that still raises ``NotImplementedError``) or a wrong type is reported as a
failed check with a hint. The student's copy of the notebook, without the solutions, is
made by ``micrograd.student`` (``micrograd notebooks student SRC DST``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from numbers import Real

from .engine import Value

__all__ = ["POINTS", "Report", "check_cross_entropy", "check_gradf", "check_lecture_grads",
           "check_numerical_grad", "check_scalar_ops", "check_softmax", "check_training_step",
           "f_exercise"]

OK, WRONG = "\u2713", "\u2717"


@dataclass
class Report:
    """The checks of one exercise: ``[(passed, text)]``; printed as they are made."""

    name: str
    checks: list = field(default_factory=list)

    @property
    def passed(self):
        return bool(self.checks) and all(ok for ok, _ in self.checks)

    @property
    def n_passed(self):
        return sum(ok for ok, _ in self.checks)

    def add(self, ok, text, hint=None):
        ok = bool(ok)
        line = f"{OK if ok else WRONG} {text}"
        if not ok and hint:
            line += f"\n    hint: {hint}"
        self.checks.append((ok, line))
        print(line)
        return ok

    def finish(self):
        n = len(self.checks)
        if self.passed:
            print(f"{self.name}: all {n} checks passed")
        else:
            print(f"{self.name}: {self.n_passed} of {n} checks passed")
        return self

    def _ipython_display_(self):
        """Already printed line by line: show nothing more when it ends a cell."""

    def __repr__(self):
        return f"<Report {self.name}: {self.n_passed} of {len(self.checks)} passed>"


class _Unanswered(Exception):
    pass


def _call(fn, *args, **kwargs):
    """Call student code; any error becomes a message (never a traceback)."""
    if fn is None:
        raise _Unanswered("not answered yet")
    if not callable(fn):
        raise _Unanswered(f"expected a function, got {type(fn).__name__}")
    try:
        return fn(*args, **kwargs)
    except NotImplementedError:
        raise _Unanswered("not answered yet: the function still raises "
                          "NotImplementedError") from None
    except Exception as err:  # noqa: BLE001 - the student's code failed: say how, never raise
        raise _Unanswered(f"your code raised {type(err).__name__}: {err}") from None


def _num(x):
    """A float from a number or a Value; None if it is neither."""
    if isinstance(x, Value):
        return x.data
    if isinstance(x, Real) and not isinstance(x, bool):
        return float(x)
    return None


def _close(a, b, rel=1e-6, abs_=1e-9):
    if a is None or b is None:
        return False
    if math.isnan(a) or math.isnan(b):
        return False
    return math.isclose(a, b, rel_tol=rel, abs_tol=abs_)


def _g(x):
    return f"{x:.6g}" if isinstance(x, float) else repr(x)


# ---------------------------------------------------------------------------------------
# Exercise 1: derivatives by hand
# ---------------------------------------------------------------------------------------


def _lecture(a=2.0, b=-3.0, c=10.0, f=-2.0):
    va, vb, vc, vf = Value(a), Value(b), Value(c), Value(f)
    L = (va * vb + vc) * vf
    L.backward()
    return {"a": va.grad, "b": vb.grad, "c": vc.grad, "f": vf.grad}


_LECTURE_HINTS = {
    "a": "L = (a*b + c)*f: dL/dd = f, dd/de = 1, de/da = b; multiply along the path",
    "b": "the same path as a, but de/db = a",
    "c": "d = e + c copies dL/dd to c; dL/dd = f",
    "f": "L = d*f: dL/df is the other input, d = a*b + c",
}


def check_lecture_grads(a=None, b=None, c=None, f=None):
    """The grads of the lecture's ``L = (a*b + c)*f`` at a=2, b=-3, c=10, f=-2, worked
    out by hand: each is compared with ``backward()``."""
    r = Report("lecture grads")
    want = _lecture()
    for name, got in (("a", a), ("b", b), ("c", c), ("f", f)):
        x = _num(got)
        if got is None:
            r.add(False, f"dL/d{name}: not answered yet", _LECTURE_HINTS[name])
        elif x is None:
            r.add(False, f"dL/d{name}: expected a number, got {type(got).__name__}")
        elif _close(x, want[name]):
            r.add(True, f"dL/d{name} = {_g(x)} (backward() agrees)")
        elif _close(x, -want[name]):
            r.add(False, f"dL/d{name} = {_g(x)}: the size is right, the sign is not",
                  _LECTURE_HINTS[name])
        else:
            r.add(False, f"dL/d{name} = {_g(x)} is not right", _LECTURE_HINTS[name])
    return r.finish()


def _f_values(a, b, c):
    """Karpathy's exercise function on Values: -a**3 + sin(3b) - 1/c + b**2.5 - a**0.5."""
    return -a ** 3 + (3 * b).sin() - 1.0 / c + b ** 2.5 - a ** 0.5


def f_exercise(a, b, c):
    """The exercise function on plain numbers (for the numerical gradient)."""
    return -a ** 3 + math.sin(3 * b) - 1.0 / c + b ** 2.5 - a ** 0.5


def _engine_grad(a, b, c):
    va, vb, vc = Value(a), Value(b), Value(c)
    _f_values(va, vb, vc).backward()
    return [va.grad, vb.grad, vc.grad]


#: points where the checks evaluate gradients (a and b positive: a**0.5 and b**2.5)
POINTS = ((2.0, 3.0, 4.0), (0.5, 1.25, -2.0), (3.5, 0.4, 0.75))

_F_HINTS = ("d/da(-a**3) = -3a**2 and d/da(-a**0.5) = -0.5 * a**-0.5",
            "d/db sin(3b) = 3cos(3b) and d/db b**2.5 = 2.5 * b**1.5",
            "d/dc(-1/c) = 1/c**2")


def _as_triple(got):
    try:
        xs = [_num(x) for x in got]
    except TypeError:
        return None
    return xs if len(xs) == 3 and None not in xs else None


def check_gradf(gradf):
    """``gradf(a, b, c)`` returns ``[df/da, df/db, df/dc]`` of
    ``f = -a**3 + sin(3*b) - 1.0/c + b**2.5 - a**0.5``, derived by hand. Checked against
    ``backward()`` at three points (so numbers typed in for one point do not pass)."""
    r = Report("derivatives by hand")
    for point in POINTS:
        want = _engine_grad(*point)
        try:
            got = _as_triple(_call(gradf, *point))
        except _Unanswered as why:
            r.add(False, f"gradf{point}: {why}", "write the three derivatives of f by hand")
            break
        if got is None:
            r.add(False, f"gradf{point}: expected a list of three numbers",
                  "return [df_da, df_db, df_dc]")
            continue
        bad = [i for i in range(3) if not _close(got[i], want[i])]
        if not bad:
            r.add(True, f"gradf{point} = [{', '.join(_g(x) for x in got)}] "
                        "(backward() agrees)")
        else:
            names = "abc"
            r.add(False, f"gradf{point}: " + "; ".join(
                f"df/d{names[i]} is {_g(got[i])}, backward() gives {_g(want[i])}"
                for i in bad), " ".join(_F_HINTS[i] for i in bad))
    return r.finish()


# ---------------------------------------------------------------------------------------
# Exercise 2: the numerical gradient
# ---------------------------------------------------------------------------------------


def check_numerical_grad(numerical_grad, central_grad):
    """``numerical_grad(f, args, h)``: the forward difference ``(f(x+h) - f(x)) / h`` of
    every argument in turn; ``central_grad(f, args, h)``: ``(f(x+h) - f(x-h)) / 2h``.
    Both are checked on the exercise's ``f`` against ``backward()``: the forward one to
    about ``h``, the central one to about ``h**2``, and the central one must be closer."""
    r = Report("numerical gradient")
    unanswered = set()
    for point in POINTS[:2]:
        want = _engine_grad(*point)
        errs = {}
        for name, fn, h, tol in (("numerical_grad", numerical_grad, 1e-6, 1e-4),
                                 ("central_grad", central_grad, 1e-4, 1e-6)):
            args = list(point)
            try:
                got = _as_triple(_call(fn, f_exercise, args, h))
            except _Unanswered as why:
                if name in unanswered:
                    continue
                if "not answered" in str(why):
                    unanswered.add(name)
                r.add(False, f"{name} at {point}: {why}",
                      "nudge one argument at a time: copy args, add h to one of them")
                continue
            if args != list(point):
                r.add(False, f"{name} changed the list args it was given",
                      "work on a copy: xs = list(args)")
                continue
            if got is None:
                r.add(False, f"{name} at {point}: expected a list of three numbers")
                continue
            err = max(abs(g - w) / (1 + abs(w)) for g, w in zip(got, want))
            errs[name] = err
            if err <= tol:
                r.add(True, f"{name} at {point} (h={h:g}): within {err:.1e} of backward()")
            elif name == "central_grad" and err <= 1e-3:
                r.add(False, f"central_grad at {point}: off by {err:.1e}, about what a "
                             "forward difference gives",
                      "use both sides: (f(x + h) - f(x - h)) / (2*h)")
            else:
                r.add(False, f"{name} at {point}: off by {err:.1e} from backward() "
                             f"({_g(got[0])}, {_g(got[1])}, {_g(got[2])} against "
                             f"{_g(want[0])}, {_g(want[1])}, {_g(want[2])})",
                      "divide the change of f by h (2h for the central difference)")
        if len(errs) == 2:
            r.add(errs["central_grad"] < errs["numerical_grad"],
                  f"at {point} the central difference is the more accurate one",
                  "the forward difference errs by about h * f''/2, the central one by "
                  "about h**2 * f'''/6")
    return r.finish()


# ---------------------------------------------------------------------------------------
# Exercise 3: an op with its backward
# ---------------------------------------------------------------------------------------


def _ref_cases():
    """Expressions as functions of a constructor, with their inputs."""
    return [
        ("a*b", lambda a, b: a * b, (2.0, -3.0)),
        ("a*a (a used twice)", lambda a, b: a * a, (3.0, 1.0)),
        ("a.exp()", lambda a, b: a.exp(), (0.5, 1.0)),
        ("(a*b).exp() + a", lambda a, b: (a * b).exp() + a, (0.5, -1.5)),
        ("(a*b + b).exp() * a", lambda a, b: (a * b + b).exp() * a, (-0.3, 0.8)),
    ]


def check_scalar_ops(Scalar):
    """The student's ``Scalar`` class (``data``, ``grad``, ``__add__`` and ``backward``
    given; ``__mul__`` and ``exp`` written with their ``_backward``): every expression's
    value and grads are compared with micrograd's ``Value``."""
    r = Report("an op with its backward")
    for text, expr, (x, y) in _ref_cases():
        va, vb = Value(x), Value(y)
        ref = expr(va, vb)
        ref.backward()
        try:
            a, b = _call(Scalar, x), _call(Scalar, y)
            out = _call(expr, a, b)
            _call(out.backward)
            got = (out.data, a.grad, b.grad)
        except _Unanswered as why:
            r.add(False, f"{text}: {why}", "fill in __mul__ and exp, each with a _backward "
                  "that adds (+=) local derivative * out.grad into its inputs")
            if "not answered" in str(why):
                break
            continue
        except AttributeError as err:  # no backward(), no grad: the class is incomplete
            r.add(False, f"{text}: {err}", "keep data, grad, _prev, _backward and "
                  "backward() as given")
            continue
        want = (ref.data, va.grad, vb.grad)
        if not _close(_num(got[0]), want[0]):
            r.add(False, f"{text}: the value is {_g(got[0])}, expected {_g(want[0])}",
                  "the forward part: out = Scalar(self.data * other.data, (self, other))")
            continue
        names = ("grad of a", "grad of b")
        bad = [i for i in (1, 2) if not _close(_num(got[i]), want[i])]
        if not bad:
            r.add(True, f"{text}: value {_g(want[0])}, grads {_g(want[1])}, {_g(want[2])}")
            continue
        hint = ("a product sends each input the OTHER input's data times out.grad; "
                "exp sends out.data * out.grad (exp is its own derivative)")
        if "twice" in text and _close(_num(got[1]), want[1] / 2):
            hint = ("a is used twice: its two contributions must add up; write "
                    "self.grad += ..., never self.grad = ...")
        r.add(False, f"{text}: " + "; ".join(
            f"{names[i - 1]} is {_g(got[i])}, expected {_g(want[i])}" for i in bad), hint)
    return r.finish()


# ---------------------------------------------------------------------------------------
# Exercise 4: softmax and cross-entropy
# ---------------------------------------------------------------------------------------


def _softmax_ref(zs):
    m = max(zs)
    es = [math.exp(z - m) for z in zs]
    s = sum(es)
    return [e / s for e in es]


_LOGITS = ([0.0, 3.0, -2.0, 1.0], [1.5, -0.5, 0.25], [1000.0, 999.0, -1000.0])
_WEIGHTS = [1.0, -2.0, 0.5, 3.0]


def _values_out(out, n, what):
    if isinstance(out, Value):
        return None, f"{what} returned one Value; expected a list of {n}"
    try:
        out = list(out)
    except TypeError:
        return None, f"{what} returned {type(out).__name__}; expected a list of Values"
    if len(out) != n or not all(isinstance(p, Value) for p in out):
        return None, f"{what} must return a list of {n} Values (use Value ops: exp, /, +)"
    return out, None


def check_softmax(softmax):
    """``softmax(logits)`` maps a list of Values to a list of Values that are positive
    and sum to 1, ``exp(z_i) / sum_j exp(z_j)``; their grads must flow back to the
    logits. Checked against an independent formula, large logits included."""
    r = Report("softmax")
    for zs in _LOGITS:
        logits = [Value(z) for z in zs]
        try:
            out = _call(softmax, logits)
        except _Unanswered as why:
            r.add(False, f"softmax({zs}): {why}", "exp every logit, divide by the sum")
            break
        probs, err = _values_out(out, len(zs), "softmax")
        if err:
            r.add(False, f"softmax({zs}): {err}")
            continue
        want = _softmax_ref(zs)
        got = [p.data for p in probs]
        if not all(_close(g, w, 1e-9, 1e-12) for g, w in zip(got, want)):
            big = max(zs) > 700
            r.add(False, f"softmax({zs}) = [{', '.join(_g(g) for g in got)}], expected "
                         f"[{', '.join(_g(w) for w in want)}]",
                  "exp(1000) overflows to inf and inf/inf is nan: subtract the largest "
                  "logit from every logit first (it changes neither the result nor the "
                  "gradient)" if big else "p_i = exp(z_i) / (exp(z_1) + ... + exp(z_n))")
            continue
        # grads: loss = sum w_i p_i has dloss/dz_j = p_j (w_j - sum_i w_i p_i)
        w = _WEIGHTS[:len(zs)]
        loss = sum((wi * p for wi, p in zip(w, probs)), Value(0.0))
        try:
            _call(loss.backward)
        except _Unanswered as why:
            r.add(False, f"softmax({zs}): backward failed: {why}")
            continue
        mean = sum(wi * pi for wi, pi in zip(w, want))
        gwant = [pj * (wj - mean) for pj, wj in zip(want, w)]
        if all(_close(z.grad, g, 1e-7, 1e-10) for z, g in zip(logits, gwant)):
            r.add(True, f"softmax({zs}): values and grads right")
        else:
            r.add(False, f"softmax({zs}): the values are right but the grads are not "
                         f"({', '.join(_g(z.grad) for z in logits)} against "
                         f"{', '.join(_g(g) for g in gwant)})",
                  "build the result from Value operations only, so backward() can see it")
    return r.finish()


def check_cross_entropy(cross_entropy):
    """``cross_entropy(logits, target)``: ``-log(softmax(logits)[target])`` as one Value.
    Its grads must be ``softmax - onehot(target)``; large logits included."""
    r = Report("cross-entropy")
    for zs, target in zip(_LOGITS, (1, 2, 0)):
        logits = [Value(z) for z in zs]
        try:
            loss = _call(cross_entropy, logits, target)
        except _Unanswered as why:
            r.add(False, f"cross_entropy({zs}, {target}): {why}",
                  "-log of the target's probability; log-sum-exp minus the target logit")
            break
        if not isinstance(loss, Value):
            r.add(False, f"cross_entropy({zs}, {target}): expected a Value, got "
                         f"{type(loss).__name__}")
            continue
        p = _softmax_ref(zs)
        m = max(zs)
        want = m + math.log(sum(math.exp(z - m) for z in zs)) - zs[target]
        if not _close(loss.data, want, 1e-9, 1e-12):
            r.add(False, f"cross_entropy({zs}, {target}) = {_g(loss.data)}, expected "
                         f"{_g(want)}",
                  "log(sum(exp(z - m))) + m - z[target], with m the largest logit: "
                  "without m, exp(1000) overflows" if m > 700 else
                  "the loss is -log(p[target]) = log(sum_j exp(z_j)) - z[target]")
            continue
        try:
            _call(loss.backward)
        except _Unanswered as why:
            r.add(False, f"cross_entropy({zs}, {target}): backward failed: {why}")
            continue
        gwant = [pi - (1.0 if i == target else 0.0) for i, pi in enumerate(p)]
        if all(_close(z.grad, g, 1e-7, 1e-10) for z, g in zip(logits, gwant)):
            r.add(True, f"cross_entropy({zs}, {target}) = {_g(want)}, grads = softmax - "
                        "onehot")
        else:
            r.add(False, f"cross_entropy({zs}, {target}): the grads are "
                         f"{', '.join(_g(z.grad) for z in logits)}, expected "
                         f"{', '.join(_g(g) for g in gwant)} (softmax - onehot)",
                  "use Value operations throughout, so the graph reaches every logit")
    return r.finish()


# ---------------------------------------------------------------------------------------
# Exercise 5: a training step
# ---------------------------------------------------------------------------------------

_XS = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]
_YS = [1.0, -1.0, -1.0, 1.0]


def _model():
    from .nn import MLP

    return MLP(3, [4, 4, 1], activation="tanh", output_activation="tanh",
               bias_init="uniform", seed=0)


def _reference_step(model, xs, ys, lr):
    """The lecture's step, written independently of the student's."""
    params = model.parameters()
    loss = Value(0.0)
    for x, y in zip(xs, ys):
        loss = loss + (model(x) - y) ** 2
    for p in params:
        p.grad = 0.0
    loss.backward()
    for p in params:
        p.data = p.data - lr * p.grad
    return loss.data


def check_training_step(train_step):
    """``train_step(model, xs, ys, lr)``: one step of the lecture's loop (forward, the
    sum of squared errors, ``zero_grad``, ``backward``, ``p.data -= lr * p.grad``),
    returning the loss. Three steps are compared with a reference, parameter by
    parameter."""
    r = Report("training step")
    mine, ref = _model(), _model()
    lr = 0.05
    for step in range(3):
        before = [p.data for p in mine.parameters()]
        try:
            loss = _call(train_step, mine, _XS, _YS, lr)
        except _Unanswered as why:
            r.add(False, f"step {step}: {why}", "forward, loss, zero_grad, backward, update")
            break
        want = _reference_step(ref, _XS, _YS, lr)
        got_loss = _num(loss)
        if got_loss is None:
            r.add(False, f"step {step}: return the loss (a Value or a number), got "
                         f"{type(loss).__name__}")
            break
        if not _close(got_loss, want, 1e-9):
            r.add(False, f"step {step}: the loss is {_g(got_loss)}, expected {_g(want)}",
                  "the loss is the SUM over the four samples of (prediction - target)**2")
            break
        after = [p.data for p in mine.parameters()]
        target = [p.data for p in ref.parameters()]
        if after == before:
            r.add(False, f"step {step}: no parameter moved",
                  "for p in model.parameters(): p.data -= lr * p.grad")
            break
        if all(_close(a, t, 1e-9, 1e-12) for a, t in zip(after, target)):
            r.add(True, f"step {step}: loss {_g(want)}, all {len(after)} parameters "
                        "moved as they should")
            continue
        back = [2 * b - t for b, t in zip(before, target)]  # a step up the gradient
        if all(_close(a, t, 1e-9, 1e-12) for a, t in zip(after, back)):
            hint = "you stepped up the gradient: subtract lr * p.grad to lower the loss"
        elif step > 0:
            hint = ("the first step was right and this one is not: the grads of the last "
                    "step piled up; call model.zero_grad() before loss.backward()")
        else:
            hint = "p.data -= lr * p.grad, after zero_grad() and backward()"
        r.add(False, f"step {step}: the parameters moved, but not as they should", hint)
        break
    return r.finish()

"""micrograd.exercises: the solved notebook passes every check, the student's copy fails
them cleanly; each checker spots the classic mistakes and says why."""

import math
import re

from notebook_runner import NOTEBOOKS, run, stdout

from micrograd import exercises as ex
from micrograd.engine import Value

TEACHER = NOTEBOOKS / "exercises_solutions.ipynb"
STUDENT = NOTEBOOKS / "exercises.ipynb"
N_EXERCISES = 7  # reports: lecture grads, gradf, numerical, op, softmax, ce, training


def test_solved_notebook_passes_every_check(tmp_path):
    out = stdout(run(TEACHER.name, tmp_path))
    assert "\u2717" not in out
    assert len(re.findall(r"^[\w -]+: all \d+ checks passed$", out, re.MULTILINE)) == N_EXERCISES
    assert out.count("\u2713") >= 25


def test_student_notebook_fails_every_check_cleanly(tmp_path):
    nb = run(STUDENT.name, tmp_path)  # nbclient raises on any error in a cell
    out = stdout(nb)
    assert "Traceback" not in out and "\u2713" not in out
    assert len(re.findall(r"^[\w -]+: 0 of \d+ checks passed$", out, re.MULTILINE)) == N_EXERCISES
    assert "not answered yet" in out
    assert all(o.output_type == "stream" for c in nb.cells if c.cell_type == "code"
               for o in c.outputs)


# -- the checkers, one mistake at a time ------------------------------------------------


def test_lecture_grads(capsys):
    assert ex.check_lecture_grads(6.0, -4.0, -2.0, 4.0).passed
    r = ex.check_lecture_grads(-6.0, -4.0, None, "4")
    out = capsys.readouterr().out
    assert not r.passed and r.n_passed == 1
    assert "the sign is not" in out and "not answered yet" in out
    assert "expected a number, got str" in out
    assert "1 of 4 checks passed" in out


def true_gradf(a, b, c):
    return [-3 * a**2 - 0.5 * a**-0.5, 3 * math.cos(3 * b) + 2.5 * b**1.5, 1 / c**2]


def test_gradf(capsys):
    assert ex.check_gradf(true_gradf).passed
    # the numbers at the first point, typed in: passes there, nowhere else
    typed = true_gradf(*ex.POINTS[0])
    r = ex.check_gradf(lambda a, b, c: typed)
    assert [ok for ok, _ in r.checks] == [True, False, False]
    # a forgotten chain-rule factor in sin(3b)
    r = ex.check_gradf(lambda a, b, c: [true_gradf(a, b, c)[0],
                                        math.cos(3 * b) + 2.5 * b**1.5, 1 / c**2])
    assert not r.passed and "3cos(3b)" in capsys.readouterr().out
    r = ex.check_gradf(lambda a, b, c: 1 / 0)
    out = capsys.readouterr().out
    assert not r.passed and "your code raised ZeroDivisionError" in out
    assert not ex.check_gradf(lambda a, b, c: [1, 2]).passed
    assert not ex.check_gradf(None).passed


def forward(f, args, h):
    base = f(*args)
    return [(f(*[x + h * (i == j) for j, x in enumerate(args)]) - base) / h
            for i in range(len(args))]


def central(f, args, h):
    return [(f(*[x + h * (i == j) for j, x in enumerate(args)])
             - f(*[x - h * (i == j) for j, x in enumerate(args)])) / (2 * h)
            for i in range(len(args))]


def test_numerical_grad(capsys):
    assert ex.check_numerical_grad(forward, central).passed
    r = ex.check_numerical_grad(forward, forward)  # a forward difference as "central"
    assert not r.passed and "use both sides" in capsys.readouterr().out

    def mutating(f, args, h):
        args[0] += 0.0 * h + 1.0
        return forward(f, args, h)
    r = ex.check_numerical_grad(mutating, central)
    assert not r.passed and "changed the list args" in capsys.readouterr().out
    r = ex.check_numerical_grad(lambda f, a, h: [(f(*a) - f(*a)) / h] * 3, central)
    assert not r.passed


def make_scalar(mul_assign=False, exp_local=None):
    class S:
        def __init__(self, data, _children=()):
            self.data, self.grad, self._prev = data, 0.0, _children
            self._backward = lambda: None

        def __add__(self, other):
            out = S(self.data + other.data, (self, other))

            def bw():
                self.grad += out.grad
                other.grad += out.grad
            out._backward = bw
            return out

        def __mul__(self, other):
            out = S(self.data * other.data, (self, other))

            def bw():
                if mul_assign:
                    self.grad = other.data * out.grad
                    other.grad = self.data * out.grad
                else:
                    self.grad += other.data * out.grad
                    other.grad += self.data * out.grad
            out._backward = bw
            return out

        def exp(self):
            out = S(math.exp(self.data), (self,))

            def bw():
                local = out.data if exp_local is None else exp_local(self.data)
                self.grad += local * out.grad
            out._backward = bw
            return out

        def backward(self):
            topo, seen = [], set()

            def build(v):
                if v not in seen:
                    seen.add(v)
                    for c in v._prev:
                        build(c)
                    topo.append(v)
            build(self)
            self.grad = 1.0
            for v in reversed(topo):
                v._backward()
    return S


def test_scalar_ops(capsys):
    assert ex.check_scalar_ops(make_scalar()).passed
    r = ex.check_scalar_ops(make_scalar(mul_assign=True))
    out = capsys.readouterr().out
    assert not r.passed and "self.grad += ..., never self.grad = ..." in out
    r = ex.check_scalar_ops(make_scalar(exp_local=lambda x: x))  # exp' written as x
    assert not r.passed and "exp is its own derivative" in capsys.readouterr().out

    class NoBackward:
        def __init__(self, data):
            self.data = data
    r = ex.check_scalar_ops(NoBackward)
    assert not r.passed and "Traceback" not in capsys.readouterr().out


def good_softmax(zs):
    m = max(z.data for z in zs)
    es = [(z - m).exp() for z in zs]
    s = sum(es[1:], es[0])
    return [e / s for e in es]


def naive_softmax(zs):
    es = [z.exp() for z in zs]
    s = sum(es[1:], es[0])
    return [e / s for e in es]


def good_ce(zs, t):
    m = max(z.data for z in zs)
    es = [(z - m).exp() for z in zs]
    return sum(es[1:], es[0]).log() + m - zs[t]


def test_softmax_and_cross_entropy(capsys):
    assert ex.check_softmax(good_softmax).passed
    r = ex.check_softmax(naive_softmax)
    out = capsys.readouterr().out
    assert [ok for ok, _ in r.checks] == [True, True, False]
    assert "subtract the largest logit" in out
    # numbers right but detached from the graph: grads do not reach the logits
    r = ex.check_softmax(lambda zs: [Value(p.data) for p in good_softmax(zs)])
    assert not r.passed and "Value operations only" in capsys.readouterr().out
    assert not ex.check_softmax(lambda zs: [p.data for p in good_softmax(zs)]).passed
    assert ex.check_cross_entropy(good_ce).passed
    r = ex.check_cross_entropy(lambda zs, t: -(naive_softmax(zs)[t].log()))
    assert [ok for ok, _ in r.checks] == [True, True, False]
    assert not ex.check_cross_entropy(lambda zs, t: good_ce(zs, t).data).passed


def lecture_step(model, xs, ys, lr, zero=True, sign=1.0):
    loss = sum((model(x) - y) ** 2 for x, y in zip(xs, ys))
    if zero:
        model.zero_grad()
    loss.backward()
    for p in model.parameters():
        p.data -= sign * lr * p.grad
    return loss


def test_training_step(capsys):
    assert ex.check_training_step(lecture_step).passed
    r = ex.check_training_step(lambda *a: lecture_step(*a, zero=False))
    out = capsys.readouterr().out
    assert [ok for ok, _ in r.checks] == [True, False] and "zero_grad()" in out
    r = ex.check_training_step(lambda *a: lecture_step(*a, sign=-1.0))
    assert not r.passed and "stepped up the gradient" in capsys.readouterr().out
    r = ex.check_training_step(lambda m, xs, ys, lr: sum((m(x) - y) ** 2
                                                         for x, y in zip(xs, ys)))
    assert not r.passed and "no parameter moved" in capsys.readouterr().out
    r = ex.check_training_step(lambda m, xs, ys, lr: "done")
    assert not r.passed and "got str" in capsys.readouterr().out


def test_report_display():
    r = ex.Report("x")
    assert not r.passed  # no checks: not passed
    assert r._ipython_display_() is None and repr(r) == "<Report x: 0 of 0 passed>"

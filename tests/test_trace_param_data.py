"""A parameter's number read inside a traced function is never frozen into the program.

A program reads every parameter's ``.data`` at each run, but a float taken out of a
parameter inside ``fn`` (``w.data``, ``bool(w)``) is only a number by the time the
tracer sees it: frozen into the program, it goes stale at the next optimizer step.
Such a read is refused when tracing, naming the user's line; reads of values made
inside ``fn`` stay allowed. The first two tests hold either design (read at every run
or refused) to the eager engine's numbers across optimizer steps.
"""

import numpy as np
import pytest

from micrograd.engine import Value
from micrograd.nn import MLP
from micrograd.optim import SGD
from micrograd.trace import TracedAdam, TraceError, trace, trace_loss

X = [1.0, 2.0]


def _eager(fn, *batches):
    """The eager engine, one sample at a time: the numbers a program must give."""
    n = len(batches[0])
    return [fn(*(Value(float(b[i])) for b in batches)).data for i in range(n)]


def _names_the_line(err, text):
    msg = str(err)
    assert "reads .data of a parameter" in msg or "reads bool() of a parameter" in msg
    assert "test_trace_param_data.py" in msg and text in msg


def test_a_program_never_keeps_a_stale_parameter_number_across_an_sgd_step():
    w = Value(2.0)

    def f(x):
        return x * w + w.data

    try:
        prog = trace(f, X, cache=False)
    except TraceError as err:  # refused: the line is named
        _names_the_line(err, "x * w + w.data")
        return
    assert prog(X).tolist() == _eager(f, X)
    loss = sum((f(Value(x)) for x in X), Value(0.0))
    loss.backward()
    SGD([w], lr=0.5).step()  # w.data: 2.0 -> 2.0 - 0.5 * 3 = 0.5
    assert w.data == 0.5
    assert prog(X).tolist() == _eager(f, X)


def test_a_traced_loss_never_keeps_a_stale_parameter_number_across_traced_adam_steps():
    w, b = Value(0.3), Value(-0.2)
    T = [1.0, -1.0, 0.5]
    Xs = [0.5, -1.5, 2.0]

    def sample_loss(x, t):
        return (x * w + b - t) ** 2 + 0.1 * w.data * x  # w.data: no gradient wanted

    try:
        loss = trace_loss(sample_loss, Xs, T, cache=False)
    except TraceError as err:
        _names_the_line(err, "0.1 * w.data * x")
        return
    with TracedAdam(loss, lr=0.1) as opt:
        for _ in range(3):
            opt.step(Xs, T)
        want = float(np.mean(_eager(sample_loss, Xs, T)))
        assert loss.value(Xs, T) == pytest.approx(want, rel=1e-12)


def test_the_refusal_names_the_line_and_says_what_to_do():
    w = Value(2.0)
    with pytest.raises(TraceError) as info:
        trace(lambda x: x * w + w.data, X, cache=False)
    _names_the_line(info.value, "x * w + w.data")
    msg = str(info.value)
    assert "w, not w.data" in msg and "through fn's arguments" in msg
    # nothing was cached: the same call is refused again
    with pytest.raises(TraceError, match="reads .data of a parameter"):
        trace(lambda x: x * w + w.data, X, params=[w])


def test_a_parameter_read_is_refused_wherever_it_goes():
    w = Value(2.0)
    cases = {
        "a number frozen as a constant": lambda x: x * w.data,
        "a decision": lambda x: x * w if w.data > 0 else x,
        "a value computed from a parameter": lambda x: x * (w * 3.0).data,
        "bool() of a parameter": lambda x: x * w if w else x,
    }
    for what, fn in cases.items():
        with pytest.raises(TraceError, match="of a parameter") as info:
            trace(fn, X, cache=False)
        assert "test_trace_param_data.py" in str(info.value), what
    # a regularizer (a function of no sample) too
    model = MLP(2, [2, 1], seed=0)
    with pytest.raises(TraceError, match="reads .data of a parameter"):
        trace_loss(lambda x: model(x), [[0.1, 0.2]], cache=False,
                   regularizer=lambda: sum(abs(p.data) for p in model.parameters())
                   * model.parameters()[0])


def test_a_parameter_bound_to_a_traced_optimizer_is_refused_too():
    # while a traced optimizer is open, its parameters' .data live in its array (a
    # subclass of Value with a property of its own): still watched
    model = MLP(2, [2, 1], seed=0)
    X2 = [[0.1, 0.2], [0.3, -0.4]]
    loss = trace_loss(lambda x, t: (model(x) - t) ** 2, X2, [1.0, -1.0], cache=False)
    w = model.parameters()[0]
    with TracedAdam(loss, lr=0.05) as opt:
        opt.step(X2, [1.0, -1.0])
        with pytest.raises(TraceError, match="reads .data of a parameter"):
            trace(lambda x: model(x) + w.data, X2, cache=False)
        prog = trace(lambda x: model(x) + w, X2, cache=False)  # the Value itself: fine
        opt.step(X2, [1.0, -1.0])
        want = [(model(list(x)) + w).data for x in X2]
        assert prog(X2).tolist() == pytest.approx(want, rel=1e-12)


def test_the_number_without_its_gradient_goes_in_through_the_arguments():
    # what the refusal advises: an input is read at every run and gets no gradient
    w = Value(2.0)
    prog = trace(lambda x, c: x * w + c, X, [w.data] * len(X), cache=False)
    w.data = 5.0
    assert prog(X, [w.data] * len(X)).tolist() == [10.0, 15.0]
    w.grad = 0.0
    prog.backward(X, [w.data] * len(X), reduction="sum")
    assert w.grad == 3.0  # d/dw of (1 * w + c) + (2 * w + c): c carries none


def test_reads_that_freeze_nothing_stay_allowed():
    w = Value(3.0)
    seen = []

    def fn(x):
        c = Value(0.5)  # made anew by each call: a constant, the same in every run
        seen.append(repr(w))  # text of a parameter, for printing
        return x * w * c.data

    prog = trace(fn, X, cache=False)
    w.data = 4.0
    assert prog(X).tolist() == _eager(fn, X) == [2.0, 4.0]
    assert seen[0] == "Value(data=3.0, grad=0.0)"
    # the sample-dependent read keeps its own message
    with pytest.raises(TraceError, match="depends on the sample"):
        trace(lambda x: x * (x * w).data, X, cache=False)


def test_a_no_grad_block_inside_a_traced_function_is_refused_naming_its_line():
    """PyTorch's way to detach, ``with no_grad(): c = w * 1.0``, makes a new plain leaf
    at every call: the tracer would take it for a constant and freeze w's number."""
    from micrograd.engine import no_grad

    model = MLP(2, [3, 1], seed=0)
    w = model.parameters()[0]

    def f(x):
        with no_grad():
            scale = w * 1.0  # detached: the step below must not leave it stale
        return model(x) * scale

    rows = [[0.5, -1.0], [1.0, 2.0]]
    with pytest.raises(TraceError, match="opens a no_grad\\(\\) block at") as info:
        prog = trace(f, rows)
        w.data += 1.0
        assert prog(rows).tolist() == [f([Value(a), Value(b)]).data for a, b in rows]
    assert "test_trace_param_data.py" in str(info.value) and "with no_grad():" in str(info.value)

    @no_grad()
    def detached():
        return w * 3.0

    with pytest.raises(TraceError, match="opens a no_grad\\(\\) block at"):
        trace(lambda x: x * detached(), X)
    # a block around the call to trace, or in another thread meanwhile, is not fn's
    with no_grad():
        assert trace(lambda x: x * w * 2.0, X)(X).tolist() == [x * w.data * 2.0 for x in X]

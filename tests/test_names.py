"""One meaning per name: the renamed names exist, and every old spelling still works.

* ``as_float``: the engine's number check, public in ``micrograd.checks`` (the lowest
  layer), used by the engine, autodiff, the optimizers and ``fit``.
* ``nodes_and_edges``: the numbered nodes and edges of a graph (was ``graph.trace`` and
  ``viz.trace``, still there as aliases); ``value_sets``: the lecture's ``trace`` (two
  sets), also ``viz.digraph.trace``; ``micrograd.trace`` stays the compiler.
* ``runner``: how a batch's loss and gradients are computed (``engine`` is
  ``micrograd.engine`` only): ``run_moons``/``run_circle(runner=)``, and ``engine=``
  deprecated in them, in ``fit`` and in ``evaluate``. (The commands' ``--runner`` and
  its hidden old name ``--engine``: tests/test_train_runner_flag.py.)
* ``WalkResult``: what ``micrograd.walk.walk`` returns (the module and its function keep
  the name ``walk``); ``Walk``, its old name, is the same class.
* ``executor``: what runs a traced program (the tracer's ``NumpyExecutor`` and
  ``TorchExecutor``, the page's JavaScript ``LoweredExecutor``); no file of the package
  but fit's is named for a runner. (The Playground state's ``execution`` and its old name
  ``engine``: tests/test_web_play.py.)
"""

import math
import warnings
from fractions import Fraction

import pytest

from micrograd import checks, viz
from micrograd.engine import Value
from micrograd.nn import MLP

# --- as_float ---------------------------------------------------------------------------


def test_as_float_is_public_and_documented():
    assert "as_float" in checks.__all__
    assert checks.as_float.__doc__ and "real number" in checks.as_float.__doc__


@pytest.mark.parametrize("x,want", [
    (3, 3.0), (True, 1.0), (Fraction(1, 4), 0.25), (10**400, math.inf),
    (-10**400, -math.inf), (float("nan"), None), (-0.0, -0.0)])
def test_as_float_turns_real_numbers_into_floats(x, want):
    got = checks.as_float(x)
    assert type(got) is float
    if want is None:
        assert got != got
    else:
        assert got == want and math.copysign(1, got) == math.copysign(1, want)


@pytest.mark.parametrize("bad", ["3", None, 1j, [1.0]])
def test_as_float_refuses_with_the_type_and_the_name(bad):
    with pytest.raises(TypeError, match=f"lr needs a real number .*got {type(bad).__name__}"):
        checks.as_float(bad, "lr")


def test_every_user_of_the_number_check_shares_the_one_in_checks():
    """The engine, autodiff, the optimizers and fit all give the same refusal."""
    from micrograd import autodiff, optim, train

    with pytest.raises(TypeError, match="Value needs a real number .*got str"):
        Value("1")
    with pytest.raises(TypeError, match="backward's grad needs a real number .*got str"):
        (Value(2.0) * 3).backward("1")
    w = Value(1.0)
    # a cotangent too big for a float is the infinity of its sign, as in the engine
    (g,) = autodiff.gradients([w * 2], [w], grad_outputs=[10**400])
    assert g.data == math.inf and Value(10**400).data == math.inf
    p, q = Value(1.0), Value(1.0)
    p.grad, q.grad = Fraction(1, 2), 10**400  # real numbers, not floats
    optim.SGD([p, q], lr=1.0).step()
    assert (p.data, q.data) == (0.5, -math.inf)
    model = MLP(2, [1], seed=0)
    with pytest.raises(ValueError, match="l2 must be a finite number >= 0"):
        train.fit(model, [[0.0, 1.0]], [1.0], l2=10**400, epochs=1, progress=False)


def test_the_engine_keeps_no_private_copy_of_the_number_check():
    import micrograd.engine as engine

    assert engine.as_float is checks.as_float
    assert not hasattr(engine, "_as_float")


# --- trace: three meanings, three names ------------------------------------------------


def _graph():
    a = Value(3.0, label="a")
    f = a * a + a
    f.label = "f"
    f.backward()
    return a, f


def test_nodes_and_edges_is_the_numbered_graph():
    from micrograd import graph

    _, f = _graph()
    nodes, edges = graph.nodes_and_edges(f)
    assert [n.id for n in nodes] == ["n0", "n1", "n2"]
    assert [(e.src, e.dst, e.index) for e in edges] == [
        ("n0", "n1", 0), ("n0", "n1", 1), ("n1", "n2", 0), ("n0", "n2", 1)]
    assert viz.nodes_and_edges is graph.nodes_and_edges
    assert "nodes_and_edges" in viz.__all__


def test_the_old_trace_spellings_still_give_the_numbered_graph():
    from micrograd import graph
    from micrograd.graph import trace as graph_trace
    from micrograd.viz import trace as viz_trace

    _, f = _graph()
    want = graph.nodes_and_edges(f)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for old in (viz.trace, viz_trace, graph.trace, graph_trace):
            assert old(f) == want


def test_value_sets_is_the_lectures_trace_and_keeps_its_name():
    from micrograd.viz import digraph
    from micrograd.viz.digraph import trace as lecture_trace

    a, f = _graph()
    nodes, edges = digraph.value_sets(f)
    square = f._prev[0]
    assert nodes == {a, square, f}
    assert edges == {(a, square), (square, f), (a, f)}  # a*a: one pair, as a set holds it
    assert lecture_trace(f) == (nodes, edges)
    assert "value_sets" in digraph.__all__ and "trace" in digraph.__all__


def test_the_compiler_keeps_the_name_trace():
    import micrograd.trace as compiler

    assert compiler.__name__ == "micrograd.trace" and callable(compiler.trace)
    assert compiler.trace is not viz.trace


@pytest.mark.parametrize("fn", ["nodes_and_edges", "value_sets"])
def test_the_graph_functions_refuse_a_non_value_by_its_type(fn):
    from micrograd import graph
    from micrograd.viz import digraph

    f = getattr(graph, fn, None) or getattr(digraph, fn)
    with pytest.raises(TypeError, match="expected a micrograd Value, got float"):
        f(1.5)
    assert graph.check_root(Value(1.0)).data == 1.0


# --- runner, not engine ----------------------------------------------------------------


def test_demo_experiments_take_runner_and_warn_on_engine():
    from micrograd.commands import demo

    (res,) = demo.run_circle(epochs=2, progress=False, gif=False, hidden=(1,),
                             runner="eager")
    assert res.hist.runner == "eager"
    with pytest.warns(DeprecationWarning, match="engine= is deprecated: use runner="):
        (old,) = demo.run_circle(epochs=2, progress=False, gif=False, hidden=(1,),
                                 engine="eager")
    assert old.hist.runner == "eager" and old.final_loss == res.final_loss
    with pytest.warns(DeprecationWarning, match="use runner="):
        moons = demo.run_moons(epochs=1, progress=False, gif=False, engine="eager")
    assert moons.hist.runner == "eager"
    with pytest.warns(DeprecationWarning), pytest.raises(TypeError, match="runner= only"):
        demo.run_moons(epochs=1, progress=False, gif=False, runner="traced", engine="eager")


def test_fit_and_evaluate_warn_on_engine_naming_runner():
    from micrograd.train import evaluate, fit

    X, y = [[0.0, 1.0], [1.0, 0.0]], [1.0, -1.0]
    model = MLP(2, [2, 1], seed=0)
    with pytest.warns(DeprecationWarning, match="engine= is deprecated: use runner="):
        hist = fit(model, X, y, epochs=1, progress=False, engine="eager")
    assert hist.runner == "eager"
    with pytest.warns(DeprecationWarning, match="engine= is deprecated: use runner="):
        old = evaluate(model, X, y, engine="eager")
    assert old == evaluate(model, X, y, runner="eager")


# --- WalkResult, what walk() returns ---------------------------------------------------


def test_walk_returns_a_walk_result_still_importable_as_walk():
    from micrograd import walk as walk_module
    from micrograd.walk import Walk, WalkResult, walk

    a, b = Value(2.0, label="a"), Value(-3.0, label="b")
    w = walk(a * b)
    assert type(w) is WalkResult and Walk is WalkResult
    assert {"walk", "WalkResult", "Walk"} <= set(walk_module.__all__)


# --- executor: what runs a traced program; runner: fit's strategy alone -----------------


def test_the_tracers_executors_are_not_runners():
    pytest.importorskip("numpy")
    from micrograd.trace import runtime, trace

    a = Value(1.0, label="a")
    program = trace(lambda x: x * a, [1.0], params=[a])
    assert type(program._executor) is runtime.NumpyExecutor
    assert not hasattr(runtime, "Runner")


def test_no_file_of_the_package_but_fits_is_named_for_a_runner():
    from pathlib import Path

    import micrograd

    package = Path(micrograd.__file__).parent
    named = sorted(str(p.relative_to(package)) for p in package.rglob("*runner*")
                   if "__pycache__" not in p.parts)
    # fit's runners, and the GPT's (how a step's loss and gradients are computed, as
    # micrograd gpt --runner names them): the GPT tab's, eager or lowered
    assert named == ["commands/runner_option.py", "train_runners.py", "web/gpt_runners.py"]
    executor = package / "web" / "static" / "lowered" / "executor.js"
    assert "export class LoweredExecutor" in executor.read_text(encoding="utf-8")

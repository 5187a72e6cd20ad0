"""The gallery of classic mistakes: every entry's wrong number or error is what its
shipped code gives when run, checked against references computed here (PyTorch float64,
central differences, ``micrograd.walk``'s simulation of each mistake, and
``benchmarks/published_micrograd.py``, an independent copy of micrograd's published
engine). Each check of a mistake fails if the mistake is fixed in the shipped code."""

import doctest
import inspect
import json
import math
import pathlib
import subprocess
import sys

import pytest
import torch

import micrograd.mistakes as mistakes
from micrograd.engine import Value
from micrograd.mistakes import FIXED, LEARNER, OURS, PUBLISHED, TORCH, get, learner
from micrograd.viz.digraph import NOTE
from micrograd.walk import walk

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import published_micrograd  # noqa: E402

TORCH_RETAINED = f"{TORCH}, retain_graph=True"


def close(x, y, tol=1e-9):
    return math.isclose(x, y, rel_tol=tol, abs_tol=tol)


def t(x):
    return torch.tensor(x, dtype=torch.double, requires_grad=True)


def torch_grads(build, **point):
    """``build``'s graph in PyTorch float64, one backward(): (value, grads)."""
    root, leaves = build(t, **point)
    root.backward()
    return root.item(), {k: v.grad.item() for k, v in leaves.items()}


def labelled(build, **point):
    """``build``'s graph on micrograd.engine with its leaves labelled, for ``walk``."""
    root, leaves = build(Value, **point)
    for name, v in leaves.items():
        v.label = name
    return root


def assert_grads(got, want, tol=1e-9):
    assert got.keys() == want.keys()
    for k in want:
        assert close(got[k], want[k], tol), (k, got[k], want[k])


def assert_right(result, build, **point):
    """``right`` and the central differences agree with PyTorch float64."""
    value, grads = torch_grads(build, **point)
    assert close(result.right.value, value) and result.right.error is None
    assert_grads(result.right.grads, grads)
    assert_grads(result.finite_differences, grads, tol=1e-6)
    return grads


# ---------------------------------------------------------------------------------------
# Each entry: the mistake reproduced, the right numbers checked
# ---------------------------------------------------------------------------------------


def test_assign_keeps_only_the_last_contribution():
    r = get("assign").run()
    grads = assert_right(r, learner.square)  # d(a*a)/da = 6
    wrong = r.on(LEARNER).grads
    # each use of a sends a*upstream = 3; with = only one of the two stays
    assert wrong == {"a": grads["a"] / 2}
    assert wrong["a"] == walk(labelled(learner.square), mode="assign").grad("a")
    assert r.fixed.grads == grads


def test_recursive_backward_pushes_a_partial_grad():
    r = get("recursive_backward").run()
    grads = assert_right(r, learner.twice_reused)  # d(4a)/da = 4
    wrong = r.on(LEARNER).grads["a"]
    assert wrong == walk(labelled(learner.twice_reused), mode="recursive").grad("a")
    assert wrong == 2 * grads["a"]  # b is visited twice, each time with its whole grad
    assert r.fixed.grads == grads


def test_no_zero_grad_both_conventions():
    r = get("no_zero_grad").run()
    once = assert_right(r, learner.lecture_L)  # 6, -4, -2, 4
    # micrograd's published engine: the reference implementation, run twice
    ref = published_micrograd
    a, b, c, f = ref.Value(2.0), ref.Value(-3.0), ref.Value(10.0), ref.Value(-2.0)
    L = (a * b + c) * f
    L.backward()
    L.backward()
    published = {"a": a.grad, "b": b.grad, "c": c.grad, "f": f.grad}
    assert r.on(PUBLISHED).grads == published
    assert published["a"] == 24.0 == walk(labelled(learner.lecture_L),
                                          mode="no_zero_grad").grad("a")
    # ours and PyTorch: the leaves accumulate, twice the one-pass grads
    root, leaves = learner.lecture_L(t)
    root.backward(retain_graph=True)
    root.backward()
    twice = {k: v.grad.item() for k, v in leaves.items()}
    assert r.on(OURS).grads == twice == {k: 2 * g for k, g in once.items()}
    assert r.on(TORCH_RETAINED).grads == twice
    assert r.fixed.grads == once and r.fixed.runs_on == FIXED


def test_backward_twice_pytorch_refuses_micrograd_adds_up():
    r = get("backward_twice").run()
    once = assert_right(r, learner.neuron)
    root, _ = learner.neuron(t)
    root.backward()
    with pytest.raises(RuntimeError) as err:
        root.backward()
    refused = r.on(TORCH)
    assert refused.error.type == "RuntimeError"
    assert refused.error.message[:80] == str(err.value)[:80]
    assert "retain_graph=True" in refused.error.message
    assert_grads(r.on(TORCH_RETAINED).grads, {k: 2 * g for k, g in once.items()})
    assert_grads(r.on(OURS).grads, {k: 2 * g for k, g in once.items()})
    sim = walk(labelled(learner.neuron), mode="no_zero_grad")
    published = r.on(PUBLISHED).grads
    assert_grads(published, {k: sim.grad(k) for k in once})
    assert published["w1"] > 2 * once["w1"]  # more than doubled: interior grads kept


def test_radd_other_plus_self_recurses_forever():
    r = get("radd_recursion").run()
    grads = assert_right(r, learner.one_plus_square)
    err = r.on(LEARNER).error
    assert err.type == "RecursionError" and "maximum recursion depth" in err.message
    assert r.fixed.grads == grads and r.fixed.error is None


def test_value_exponent_without_its_rule_gets_no_grad():
    r = get("pow_exponent_no_grad").run()
    grads = assert_right(r, learner.power)
    assert close(grads["b"], 8 * math.log(2))  # a**b * log(a), worked out by hand
    lecture = r.on("the lecture's engine").error
    assert lecture.type == "AssertionError" and "int/float" in lecture.message
    wrong = r.on(LEARNER).grads
    assert wrong["a"] == grads["a"] and wrong["b"] == 0.0 != grads["b"]
    assert_grads(r.fixed.grads, grads)


def test_negative_base_nan_like_pytorch_not_an_error():
    r = get("pow_negative_base").run()
    err = r.on(LEARNER).error
    assert err.type == "ValueError" and err.message == "math domain error"
    value, grads = torch_grads(learner.power, a=-2.0, b=3.0)
    assert math.isnan(grads["b"])
    for on in (OURS, TORCH):
        o = r.on(on)
        assert o.error is None and o.value == value and o.grads["a"] == grads["a"]
        assert math.isnan(o.grads["b"])
    assert math.isnan(r.finite_differences["b"])  # (-2)**(3 +- h) is not a real number
    assert r.fixed.grads == {"a": grads["a"]}  # a**3, the lecture's own power
    facts = r.facts
    assert facts["Python's (-8.0) ** (1/3)"] == repr(complex((-8.0) ** (1 / 3)))
    assert math.isnan(facts["micrograd.engine's Value(-8.0) ** Value(1/3)"])
    assert math.isnan(facts["PyTorch's tensor(-8.0) ** tensor(1/3)"])
    assert math.isnan(torch.tensor(-8.0, dtype=torch.double).pow(1 / 3).item())


def test_recursive_topological_sort_fails_on_a_deep_graph():
    r = get("deep_recursive_topo").run()
    limit = sys.getrecursionlimit()
    depth = 2 * limit
    assert_right(r, learner.chain, depth=depth)
    assert close(r.right.grads["x"], 1.001**depth)
    err = r.on(PUBLISHED).error
    assert err.type == "RecursionError"
    # the independent copy of micrograd's published engine fails the same way
    x = published_micrograd.Value(1.0)
    y = x
    for _ in range(depth):
        y = y * 1.001
    with pytest.raises(RecursionError):
        y.backward()
    first = r.facts["shallowest depth that fails"]
    assert limit // 2 < first <= limit  # near 1,000: the frames already in use count
    ok = learner.chain(learner.LectureValue, depth=first - 1)[0]
    ok.backward()  # one level less works
    assert r.fixed.grads == r.right.grads and r.fixed.error is None


def test_drawing_before_backward_shows_zeros():
    r = get("draw_before_backward").run()
    grads = assert_right(r, learner.lecture_L)
    drawn = r.on("the drawing made first").grads
    assert drawn == {k: 0.0 for k in grads} and all(g != 0 for g in grads.values())
    assert r.facts["the drawing's note"] == NOTE
    assert r.fixed.grads == grads  # drawn after backward()


def test_sum_from_zero_is_fine_with_radd():
    r = get("sum_from_zero").run()
    grads = assert_right(r, learner.three_terms)
    err = r.on("the engine without __radd__").error
    assert err.type == "TypeError" and "'int' and 'NoRaddValue'" in err.message
    ours = r.on(OURS)
    assert ours.error is None and ours.grads == grads  # not a bug here
    assert r.fixed.grads == grads
    # the constant 0 and the + that adds it: two more nodes than starting from a term
    assert (r.facts["nodes of sum(terms)"] - r.facts["nodes of sum(terms[1:], terms[0])"]
            == 2)
    with pytest.raises(TypeError):
        sum([learner.NoRaddValue(1.0)])


# ---------------------------------------------------------------------------------------
# The entries as data
# ---------------------------------------------------------------------------------------


def test_every_entry_shows_its_shipped_code_and_a_fix_found_in_shipped_code():
    keys = [m.key for m in mistakes.GALLERY]
    assert len(keys) == len(set(keys)) == 10
    for m in mistakes.GALLERY:
        for obj in m.code_objects:
            assert inspect.getsource(obj).strip().splitlines()[-1].strip() in m.code
            assert inspect.getmodule(obj) is learner
        if m.fixed_by is not None:
            fixed = [ln.split("#")[0].strip()
                     for ln in inspect.getsource(m.fixed_by).splitlines()]
            for line in m.fix.splitlines():
                assert line.split("#")[0].strip() in fixed, (m.key, line)
        assert m.why and m.title


def test_buggy_lines_are_in_the_code_shown():
    assert "self.grad = other.data * out.grad" in get("assign").code
    assert "child.backward(is_root=False)" in get("recursive_backward").code
    assert "return other + self" in get("radd_recursion").code
    assert "def build_topo(v):" in get("deep_recursive_topo").code
    assert "picture = draw_dot(root)\n    root.backward()" in get("draw_before_backward").code


def test_to_dict_is_json_ready_and_runs_the_code():
    entries = mistakes.to_dict()
    text = json.dumps(entries, allow_nan=False)
    assert [e["key"] for e in entries] == [m.key for m in mistakes.GALLERY]
    for e in entries:
        assert list(e) == ["key", "title", "code", "result", "why", "fix"]
        assert set(e["result"]) == {"example", "learner", "right", "finite_differences",
                                    "fixed", "facts"}
    neg = json.loads(text)[[m.key for m in mistakes.GALLERY].index("pow_negative_base")]
    assert neg["result"]["right"]["grads"]["b"] == "NaN"


def test_get_names_the_keys():
    with pytest.raises(KeyError, match="assign"):
        get("nope")


def test_module_doctest_and_doc_page():
    assert doctest.testmod(mistakes).failed == 0
    result = doctest.testfile(str(ROOT / "docs" / "mistakes.md"), module_relative=False)
    assert result.attempted > 0 and result.failed == 0
    page = (ROOT / "docs" / "mistakes.md").read_text()
    for m in mistakes.GALLERY:
        assert f"`{m.key}`" in page


def test_importing_the_gallery_imports_neither_torch_nor_numpy():
    code = ("import sys, micrograd.mistakes; "
            "print(sorted(m for m in ('torch', 'numpy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def test_the_gallery_evaluates_no_text():
    for path in (ROOT / "src" / "micrograd" / "mistakes").glob("*.py"):
        src = path.read_text()
        assert "eval(" not in src and "exec(" not in src, path.name

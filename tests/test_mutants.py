"""Behaviours that mutation testing found no test pinned: each test here fails when the
rule it names is changed in a small, realistic way (the mutant the comment describes).

The references are independent: PyTorch float64 for derivatives, and numbers that follow
from the definitions (a derivative error of a known size, injected through a dependency
the graph cannot see)."""

import pytest
import torch

from micrograd.gradcheck import GradcheckError, gradcheck, gradcheck_report
from micrograd.expr import parse
from micrograd.walk import walk

# ---- gradcheck's tolerance: rtol=1e-3, atol=1e-5 (PyTorch's) -----------------------------
# x * k + x.data * (k * err): the graph's derivative is k, the function's is k (1 + err),
# because x.data is a constant to the graph but not to a finite difference


def off_by(k, err):
    return lambda x: x * k + x.data * (k * err)


@pytest.mark.parametrize("x0", [0.7, -2.5])
def test_gradcheck_fails_a_half_percent_derivative_error(x0):
    # mutant: rtol ten times looser (1e-2) lets a 0.5% error pass
    with pytest.raises(GradcheckError):
        gradcheck(off_by(2.0, 0.005), [x0])
    report = gradcheck_report(off_by(2.0, 0.005), [x0])
    assert {m["mode"] for m in report.mismatches} == {"reverse", "forward"}
    (m, *_) = report.mismatches
    assert m["analytic"] == 2.0 and m["numerical"] == pytest.approx(2.01, rel=1e-8)


def test_gradcheck_fails_a_small_derivative_off_by_more_than_atol():
    # derivative 0.004, off by 0.5% = 2e-5 > atol 1e-5 + rtol * 0.004 = 1.4e-5;
    # mutant: atol ten times looser (1e-4) lets it pass
    assert not gradcheck_report(off_by(0.004, 0.005), [0.3]).ok


def test_gradcheck_passes_errors_inside_its_tolerance():
    # mutant: a tolerance ten times tighter (rtol 1e-4) fails these correct-enough ones
    assert gradcheck(off_by(2.0, 0.0005), [0.7])  # 0.05% < rtol 0.1%
    assert gradcheck(off_by(0.004, 0.001), [0.3])  # 4e-6 < 1e-5 + 4e-6
    assert gradcheck_report(off_by(2.0, 0.0005), [0.7]).ok  # the report's own defaults
    assert gradcheck_report(off_by(0.004, 0.001), [0.3]).ok


# ---- the walk: a never-visited node's lost amount includes the local derivative --------


def test_unvisited_node_loses_grad_times_local_derivative():
    # b = a*5 is left out of the visit order: the gradient that would have reached a
    # through b is dL/db * db/da = 6 * 5 = 30, and the 5 gets dL/db * a = 6 * 2 = 12.
    # mutant: the amount without the local derivative (dL/db alone, 6 for both)
    w = walk(parse("a = 2; b = a*5; c = a*3; d = b*c"), order="d,c,a")
    assert [w.names[n] for n in w.unvisited] == ["b"]
    a = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
    five = torch.tensor(5.0, dtype=torch.float64, requires_grad=True)
    b = a * five
    b.retain_grad()
    d = b * (a * 3)
    d.backward()
    via_b = b.grad * torch.autograd.grad(a * five, (a, five))[0]
    to_five = b.grad * a.detach()
    lost = {w.names[x.node]: x.amount for x in w.lost if x.reason == "unvisited"}
    assert lost == {"a": via_b.item(), "5": to_five.item()}
    assert lost == {"a": 30.0, "5": 12.0}
    text = " ".join(x.text for x in w.lost)
    assert "its 30 never reached a" in text and "its 12 never reached constant 5" in text

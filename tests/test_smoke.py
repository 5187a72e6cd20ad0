"""The seeds' worked examples print the seeds' numbers."""

import math

from micrograd.engine import Value


def test_seed002_expression():
    a, b, c, f = Value(2.0), Value(-3.0), Value(10.0), Value(-2.0)
    e = a * b
    d = e + c
    L = d * f
    L.backward()
    assert (L.data, a.grad, b.grad, c.grad, f.grad) == (-8.0, 6.0, -4.0, -2.0, 4.0)


def test_seed003_presets():
    a, b, c = Value(2.0), Value(-3.0), Value(10.0)
    f = (a + b) * c
    f.backward()
    assert (a.grad, b.grad, c.grad) == (10.0, 10.0, -1.0)

    a = Value(3.0)
    (a * a).backward()
    assert a.grad == 6.0

    a = Value(2.0)
    d = (a + 1) * (a * 3)
    d.backward()
    assert d.data == 18.0 and a.grad == 15.0


def test_tanh_neuron():
    x1, x2, w1, w2 = Value(2.0), Value(0.0), Value(-3.0), Value(1.0)
    b = Value(6.8813735870195432)
    o = (x1 * w1 + x2 * w2 + b).tanh()
    o.backward()
    assert math.isclose(o.data, math.sqrt(0.5), rel_tol=1e-15)
    assert math.isclose(w1.grad, 1.0, rel_tol=1e-14)
    assert math.isclose(x1.grad, -1.5, rel_tol=1e-14)
    assert w2.grad == 0.0


def test_training_learns_the_lectures_four_examples():
    """The lecture's loop: forward, zero_grad, backward, step. The loss must fall."""
    from micrograd.nn import MLP

    xs = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]
    ys = [1.0, -1.0, -1.0, 1.0]
    model = MLP(3, [4, 4, 1], style="lecture", seed=1337)
    losses = []
    for _ in range(40):
        ypred = [model(x) for x in xs]
        loss = sum((yout - ygt) ** 2 for ygt, yout in zip(ys, ypred))
        model.zero_grad()
        loss.backward()
        for p in model.parameters():
            p.data += -0.05 * p.grad
        losses.append(loss.data)
    assert losses[-1] < 0.05 < losses[0]
    assert all(b <= a * 1.5 for a, b in zip(losses, losses[1:]))  # no blow-up
    assert [math.copysign(1.0, model(x).data) for x in xs] == ys


def test_the_engine_page_example_prints_what_the_page_says():
    import os
    import pathlib
    import re
    import subprocess
    import sys

    root = pathlib.Path(__file__).resolve().parent.parent
    page = (root / "docs" / "engine.md").read_text()
    code, shown = re.search(r"```python\n(.*?)```\s*prints\s*```text\n(.*?)```", page,
                            re.S).groups()
    out = subprocess.run([sys.executable, "-"], input=code, capture_output=True, text=True,
                         cwd=root, env={**os.environ, "PYTHONPATH": str(root / "src")}, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout == shown

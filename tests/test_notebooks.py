"""Every notebook of notebooks/ runs top to bottom from a clean kernel, and prints the
lecture's numbers: each one checked against PyTorch float64 or a derivative worked out
independently, parsed from what the notebook printed."""

import math
import re
import sys

import nbformat
import pytest
import torch
from notebook_runner import NOTEBOOKS, ROOT, execute, mimetypes, run, stdout

LECTURE = ["01_derivative_as_a_nudge.ipynb", "02_value_and_its_graph.ipynb",
           "03_backprop_by_hand.ipynb", "04_a_neuron.ipynb",
           "05_topological_sort_and_plus_equals.ipynb", "06_training_an_mlp.ipynb",
           "07_pytorch_side_by_side.ipynb", "08_walk_widget.ipynb"]


def numbers(pattern, text):
    """Every float captured by ``pattern`` (one group) in ``text``."""
    return [float(m) for m in re.findall(pattern, text)]


def close(a, b, tol=1e-4):
    return math.isclose(a, b, rel_tol=tol, abs_tol=tol)


def torch_lecture_grads():
    t = {k: torch.tensor(x, dtype=torch.double, requires_grad=True)
         for k, x in {"a": 2.0, "b": -3.0, "c": 10.0, "f": -2.0}.items()}
    L = (t["a"] * t["b"] + t["c"]) * t["f"]
    L.backward()
    return L.item(), {k: v.grad.item() for k, v in t.items()}


def torch_neuron():
    t = {k: torch.tensor(x, dtype=torch.double, requires_grad=True)
         for k, x in {"x1": 2.0, "x2": 0.0, "w1": -3.0, "w2": 1.0,
                     "b": 6.8813735870195432}.items()}
    o = torch.tanh(t["x1"] * t["w1"] + t["x2"] * t["w2"] + t["b"])
    o.backward()
    return o.item(), {k: v.grad.item() for k, v in t.items()}


def test_every_notebook_is_tested_and_committed_without_outputs():
    lecture = sorted(p.name for p in NOTEBOOKS.glob("0*.ipynb"))
    assert lecture == sorted(LECTURE)
    for path in NOTEBOOKS.glob("*.ipynb"):
        nb = nbformat.read(path, as_version=4)
        nbformat.validate(nb)
        for cell in nb.cells:
            if cell.cell_type == "code":
                assert cell.outputs == [] and cell.execution_count is None, path.name


def fprime(x):
    return 6 * x - 4  # d/dx (3x^2 - 4x + 5), worked out by hand


def test_kernel_is_this_interpreter_and_this_checkout(tmp_path):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import sys, micrograd; print(sys.executable); print(micrograd.__file__)")])
    exe, path = stdout(execute(nb, tmp_path)).split()
    assert exe == sys.executable
    assert path == str(ROOT / "src" / "micrograd" / "__init__.py")


def test_01_derivative_as_a_nudge(tmp_path):
    out = stdout(run("01_derivative_as_a_nudge.ipynb", tmp_path))
    slopes = numbers(r"x = \S+: slope (\S+)\n", out)
    assert len(slopes) == 3
    for x, s in zip((3.0, -3.0, 2 / 3), slopes):
        assert close(s, fprime(x), 1e-3)  # one-sided difference: error about 3h
    assert numbers(r"dy/dx = (-?[\d.]+)", out) == [fprime(3.0)]
    # d = a*b + c: slopes b, a, 1
    assert numbers(r"nudge (?:a|b|c): d goes .*slope (-?[\d.]+)", out) == [-3.0, 2.0, 1.0]
    assert out.count("(ok)") == 3


def test_02_value_and_its_graph(tmp_path):
    nb = run("02_value_and_its_graph.ipynb", tmp_path)
    out = stdout(nb)
    assert "Value(data=-8.0, grad=0.0, label='L')" in out
    svgs = [o.data["image/svg+xml"] for c in nb.cells if c.cell_type == "code"
            for o in c.outputs if "image/svg+xml" in o.get("data", {})]
    assert len(svgs) == 2
    assert "backward() has not run yet" in svgs[0]  # drawn before backward()
    assert "backward() has not run yet" not in svgs[1]
    assert (tmp_path / "lecture_graph.svg").read_text().startswith("<svg")


def test_03_backprop_by_hand_and_automatic(tmp_path):
    out = stdout(run("03_backprop_by_hand.ipynb", tmp_path))
    L, g = torch_lecture_grads()
    want = [g["a"], g["b"], g["c"], g["f"]]  # 6, -4, -2, 4
    pat = r"a\.grad = (\S+) b\.grad = (\S+) c\.grad = (\S+) f\.grad = (\S+)"
    by_hand, auto = re.findall(pat, out)
    assert [float(x) for x in by_hand] == want
    assert [float(x) for x in auto] == want
    assert f"L = {L}\n" in out
    assert close(numbers(r"slope of L with respect to a: (\S+)", out)[0], g["a"])
    # one step of gradient ascent, as in the lecture: leaves += 0.01 * grad
    t = {k: v + 0.01 * g[k] for k, v in {"a": 2.0, "b": -3.0, "c": 10.0, "f": -2.0}.items()}
    stepped = (t["a"] * t["b"] + t["c"]) * t["f"]
    assert numbers(r"L after one step: (\S+)", out) == [round(stepped, 4)]
    assert "every grad is correct" in out


def test_04_neuron(tmp_path):
    out = stdout(run("04_a_neuron.ipynb", tmp_path))
    o, g = torch_neuron()
    assert numbers(r"o = tanh\(n\) = (\S+)", out) == [round(o, 4)]  # 0.7071
    assert numbers(r"\no = (\S+)", out) == [round(o, 4)]  # tanh from exp
    for name in ("x1", "w1", "x2", "w2", "b"):
        got = numbers(rf"\n{name}\.grad = (\S+)", "\n" + out)
        assert got == [round(g[name], 4)] * 2, name  # tanh, then tanh from exp


def test_05_topological_sort_and_plus_equals(tmp_path):
    out = stdout(run("05_topological_sort_and_plus_equals.ipynb", tmp_path))
    a = torch.tensor(2.0, dtype=torch.double, requires_grad=True)
    d = (a + 1) * (a * 3)
    d.backward()
    assert numbers(r"dd/da = (\S+)", out) == [a.grad.item()]  # the seeds' 15
    assert numbers(r"grad\[a\] in the order d, b, c, a: (\S+)", out) == [a.grad.item()]
    assert "LOST: b deposited 6 into a" in out and "wrong: grad[a] = 0, correct 15" in out
    assert numbers(r"with \+=: (\S+)\n", out) == [6.0, 2.0]  # a*a at 3; a + a
    assert numbers(r"with = : (\S+)\n", out) == [3.0]  # the overwritten a*a
    assert numbers(r"recursive: (\S+) ", out) == [8.0]
    assert numbers(r"after two backward\(\) calls: (\S+)", out) == [12.0]


def test_06_training(tmp_path):
    nb = run("06_training_an_mlp.ipynb", tmp_path)
    out = stdout(nb)
    assert "parameters: 41" in out
    losses = numbers(r"step +\d+ loss (\S+)\n", out)
    assert len(losses) == 5 and losses[-1] < 0.1 * losses[0]
    after = re.search(r"after training: +\[(.*)\]", out).group(1)
    preds = [float(x) for x in after.split(",")]
    assert all((p > 0.5) == (y > 0) for p, y in zip(preds, [1, -1, -1, 1]))
    accs = numbers(r"accuracy (\d+)%", out)
    assert accs[0] <= 60 and accs[-1] >= 90
    assert "image/png" in mimetypes(nb)  # the decision boundary


def test_07_pytorch_side_by_side(tmp_path):
    out = stdout(run("07_pytorch_side_by_side.ipynb", tmp_path))
    rows = re.findall(r"^ *(\w+) +(-?\d+\.\d+) +(-?\d+\.\d+)$", out, re.MULTILINE)
    assert len(rows) == 6 + 5 + 5
    for name, ours, theirs in rows:
        assert ours == theirs, name
    o, g = torch_neuron()
    assert float(rows[0][1]) == round(o, 6) and float(rows[2][1]) == round(g["x2"], 6)


def test_07_without_pytorch_says_how_to_get_it(tmp_path):
    """A kernel where ``import torch`` fails still runs the notebook to the end."""
    block = tmp_path / "block"
    (block / "torch").mkdir(parents=True)
    (block / "torch" / "__init__.py").write_text("raise ImportError('blocked for a test')\n")
    out = stdout(run("07_pytorch_side_by_side.ipynb", tmp_path, extra_path=str(block)))
    assert "pip install 'torch==2.13.0'" in out
    rows = re.findall(r"^ *(\w+) +(-?\d+\.\d+) +-$", out, re.MULTILINE)
    assert len(rows) == 16


@pytest.mark.parametrize("name", LECTURE)
def test_notebook_has_a_title_and_imports_only_the_package(name):
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    assert nb.cells[0].cell_type == "markdown" and nb.cells[0].source.startswith("# ")
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    assert "graphviz" not in code  # every picture is drawn by micrograd


def test_08_walk_widget(tmp_path):
    nb = run("08_walk_widget.ipynb", tmp_path)
    out = stdout(nb)
    assert mimetypes(nb).count("application/vnd.jupyter.widget-view+json") == 2
    assert "WalkWidget(sum_times, mode='correct', phase='idle')" in out
    a = torch.tensor(3.0, dtype=torch.double, requires_grad=True)
    (a * a).backward()
    assert numbers(r"with \+=, grad\[a\] = (\S+)", out) == [a.grad.item()]
    # = keeps only the last of the two equal contributions: half the right answer
    assert numbers(r"with = instead of \+=, grad\[a\] = (\S+)", out) == [a.grad.item() / 2]

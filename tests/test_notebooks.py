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
           "07_pytorch_side_by_side.ipynb", "08_walk_widget.ipynb",
           "09_classic_mistakes.ipynb", "10_everything_else_is_efficiency.ipynb",
           "11_from_micrograd_to_a_gpt.ipynb"]


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
    lecture = sorted(p.name for p in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
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
    assert out.count("(agree)") == 3


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


@pytest.mark.slow  # seconds each (a kernel, a subprocess demo): CI runs it, the quick run does not
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


@pytest.mark.slow  # seconds each (a kernel, a subprocess demo): CI runs it, the quick run does not
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


def _sections(out):
    """What notebook 09 printed under each ``== key: title`` header, by key."""
    parts = re.split(r"^== (\w+): .*$", out, flags=re.MULTILINE)
    return dict(zip(parts[1::2], parts[2::2]))


def _row(section, runs_on):
    """The text after ``runs_on: `` on its line of a result."""
    return re.search(rf"^{re.escape(runs_on)}: (.*)$", section, re.MULTILINE).group(1)


def _grads(text):
    """``'value 9, grads a 3, b nan'`` -> ``{'a': 3.0, 'b': nan}``."""
    pairs = re.search(r"grads (.*?)(?:, raised .*)?$", text).group(1).split(", ")
    return {k: float(v) for k, v in (p.split(" ") for p in pairs)}


def _same(got, want, tol=1e-5):  # printed with 6 significant digits
    assert got.keys() == want.keys()
    for k in want:
        assert (math.isnan(got[k]) and math.isnan(want[k])) or close(got[k], want[k], tol), k


def _torch_graph(fn, **leaves):
    t = {k: torch.tensor(x, dtype=torch.double, requires_grad=True) for k, x in leaves.items()}
    fn(**t).backward()
    return {k: v.grad.item() for k, v in t.items()}


@pytest.mark.slow  # seconds each (a kernel, a subprocess demo): CI runs it, the quick run does not
def test_09_classic_mistakes(tmp_path):
    from micrograd.engine import Value
    from micrograd.mistakes import GALLERY
    from micrograd.walk import walk

    sec = _sections(stdout(run("09_classic_mistakes.ipynb", tmp_path)))
    assert list(sec) == [m.key for m in GALLERY]
    learner, right = "the learner's engine", "this package's engine (right)"
    ours = "the mistake's code on this package's engine"
    # = for +=: one of the two equal contributions of a*a at 3
    g = _torch_graph(lambda a: a * a, a=3.0)
    _same(_grads(_row(sec["assign"], learner)), {"a": g["a"] / 2})
    _same(_grads(_row(sec["assign"], right)), g)
    # recursive: b = a + a; c = b + b; b's whole grad reaches a twice
    g = _torch_graph(lambda a: (a + a) + (a + a), a=1.0)
    _same(_grads(_row(sec["recursive_backward"], learner)), {"a": 2 * g["a"]})
    # no zero_grad: the two conventions on the lecture's L
    lecture = dict(a=2.0, b=-3.0, c=10.0, f=-2.0)
    g = _torch_graph(lambda a, b, c, f: (a * b + c) * f, **lecture)
    v = {k: Value(x, label=k) for k, x in lecture.items()}
    sim = walk((v["a"] * v["b"] + v["c"]) * v["f"], mode="no_zero_grad")
    _same(_grads(_row(sec["no_zero_grad"], "micrograd's published engine")),
          {k: sim.grad(k) for k in lecture})
    _same(_grads(_row(sec["no_zero_grad"], ours)), {k: 2 * x for k, x in g.items()})
    _same(_grads(_row(sec["no_zero_grad"], right)), g)
    # backward twice: PyTorch refuses; with retain_graph=True it doubles, as ours does
    assert "raised RuntimeError: Trying to backward through the graph a second time" in \
        _row(sec["backward_twice"], "PyTorch (float64)")
    _, g = torch_neuron()
    _same(_grads(_row(sec["backward_twice"], "PyTorch (float64), retain_graph=True")),
          {k: 2 * x for k, x in g.items()})
    assert "raised RecursionError" in _row(sec["radd_recursion"], learner)
    # a Value exponent: the exponent's grad a**b log a is missing
    g = _torch_graph(lambda a, b: a**b, a=2.0, b=3.0)
    _same(_grads(_row(sec["pow_exponent_no_grad"], learner)), {"a": g["a"], "b": 0.0})
    _same(_grads(_row(sec["pow_exponent_no_grad"], right)), g)
    # a negative base: math.log raises; ours and PyTorch give nan
    assert _row(sec["pow_negative_base"], learner).endswith("raised ValueError: math domain error")
    g = _torch_graph(lambda a, b: a**b, a=-2.0, b=3.0)
    _same(_grads(_row(sec["pow_negative_base"], ours)), g)
    assert "raised RecursionError" in _row(sec["deep_recursive_topo"],
                                           "micrograd's published engine")
    depth = int(_row(sec["deep_recursive_topo"], "shallowest depth that fails"))
    assert sys.getrecursionlimit() // 2 < depth <= sys.getrecursionlimit()
    g = _torch_graph(lambda a, b, c, f: (a * b + c) * f, **lecture)
    _same(_grads(_row(sec["draw_before_backward"], "the drawing made first")),
          {k: 0.0 for k in g})
    _same(_grads(_row(sec["draw_before_backward"], right)), g)
    assert "raised TypeError" in _row(sec["sum_from_zero"], "the engine without __radd__")
    g = _torch_graph(lambda a, b, c: sum([a * a, b * c, c]), a=1.0, b=2.0, c=3.0)
    _same(_grads(_row(sec["sum_from_zero"], ours)), g)


def _moons_loss_in_torch():
    """Notebook 10's loss at its starting weights, computed here in PyTorch."""
    from micrograd.data import make_moons
    from micrograd.nn import MLP
    from micrograd.torch_bridge import to_torch

    X, y = make_moons(n_samples=100, noise=0.1, seed=1)
    model = MLP(2, [16, 16, 1], activation="relu", output_activation="linear",
                bias_init="uniform", seed=0)
    net = to_torch(model)
    out = net(torch.tensor(X, dtype=torch.double)).squeeze(1)
    return torch.relu(1 - torch.tensor(y, dtype=torch.double) * out).mean().item()


@pytest.mark.slow  # seconds each (a kernel, a subprocess demo): CI runs it, the quick run does not
def test_10_everything_else_is_efficiency(tmp_path):
    out = stdout(run("10_everything_else_is_efficiency.ipynb", tmp_path))
    assert numbers(r"parameters: (\d+)", out) == [(2 * 16 + 16) + (16 * 16 + 16) + (16 + 1)]
    losses = numbers(r"(?:eager|traced|PyTorch) loss (-?[\d.]+)", out)
    assert len(losses) == 3
    for loss in losses:
        assert close(loss, _moons_loss_in_torch(), 1e-12)
    diffs = numbers(r"max abs difference from eager, (?:traced|PyTorch): +(\S+)", out)
    assert len(diffs) == 2 and all(d < 1e-12 for d in diffs)
    assert numbers(r"largest gradient: (\S+)", out)[0] > 0.01  # the grads are not all ~0
    rows = re.findall(r"^(eager|traced|PyTorch) +(\d+\.\d+) ", out, re.MULTILINE)
    assert [r[0] for r in rows] == ["eager", "traced", "PyTorch"]
    assert all(float(ms) > 0 for _, ms in rows)  # measured; the times are not checked


@pytest.mark.slow  # seconds each (a kernel, a subprocess demo): CI runs it, the quick run does not
def test_10_without_pytorch_runs_the_rest(tmp_path):
    block = tmp_path / "block"
    (block / "torch").mkdir(parents=True)
    (block / "torch" / "__init__.py").write_text("raise ImportError('blocked for a test')\n")
    out = stdout(run("10_everything_else_is_efficiency.ipynb", tmp_path, extra_path=str(block)))
    assert "pip install 'torch==2.13.0'" in out
    diffs = numbers(r"max abs difference from eager, traced: +(\S+)", out)
    assert len(diffs) == 1 and diffs[0] < 1e-12
    assert re.findall(r"^(eager|traced|PyTorch) +\d", out, re.MULTILINE) == ["eager", "traced"]


#: notebook 11's run: its length, the steps every Python trains (the browser stops there)
#: and the names compared with PyTorch after them
GPT_STEPS, GPT_FIRST, GPT_AHEAD = 200, 40, 5


def _gpt_in_torch():
    """Notebook 11's run trained again in PyTorch float64: the GPT on tensors of
    test_gpt_torch, from the same drawn weights, with torch's own Adam and its rate
    decaying linearly to 0. The loss of each step before its update, and the losses of
    the next GPT_AHEAD names after GPT_FIRST steps."""
    from test_gpt_torch import torch_loss

    from micrograd.gpt.train import Run

    run = Run.start(seed=42, steps=GPT_STEPS)  # the shuffled names, the drawn weights
    cfg, tok = run.model.config, run.tokenizer
    W = {k: torch.tensor(v, dtype=torch.double, requires_grad=True)
         for k, v in run.model.weights().items()}
    opt = torch.optim.Adam(W.values(), lr=0.01, betas=(0.85, 0.99), eps=1e-8)
    rate = torch.optim.lr_scheduler.LambdaLR(opt, lambda step: 1 - step / GPT_STEPS)

    def loss_of(name):
        plain = {k: w.detach().tolist() for k, w in W.items()}  # float64: exact
        return torch_loss(torch, plain, cfg, tok.encode(name))

    losses, ahead = [], None
    for step, name in enumerate(run.docs[:GPT_STEPS]):
        if step == GPT_FIRST:
            ahead = [loss_of(n)[0].item() for n in run.docs[step:step + GPT_AHEAD]]
        loss, grads = loss_of(name)
        loss.backward()
        for k, w in W.items():
            w.grad = grads[k].grad
        opt.step()
        rate.step()
        losses.append(loss.item())
    return run.docs, losses, ahead


def _count_values(root):
    """The nodes of a Value's graph, by a walk of its own over ``_prev``."""
    seen, stack = set(), [root]
    while stack:
        v = stack.pop()
        if id(v) not in seen:
            seen.add(id(v))
            stack.extend(v._prev)
    return len(seen)


def _nodes_of(name):
    from micrograd.gpt.train import Run, loss_of

    run = Run.start(seed=42, steps=GPT_STEPS)
    return _count_values(loss_of(run.model, run.tokenizer.encode(name)))


def _check_gpt_samples(out, lines):
    from micrograd.gpt.data import read_names

    known = set(read_names())
    rows = re.findall(r"^temperature (\S+): (.*) \((\d+) of 10 not in the names file\)$",
                      out, re.MULTILINE)
    assert [float(t) for t, _, _ in rows] == [0.5, 1.0] * lines
    for _, names, new in rows:
        names = ["" if n == "(empty)" else n for n in names.split(", ")]
        assert len(names) == 10 and all(re.fullmatch("[a-z]*", n) for n in names)
        assert sum(n not in known for n in names) == int(new)


def _check_gpt_start(out, docs, losses):
    assert numbers(r"parameters: ([\d,]+)", out.replace(",", "")) == \
        [2 * 27 * 16 + 16 * 16 + 4 * 16 * 16 + 2 * 64 * 16]  # wte lm_head wpe, attn, mlp
    nodes = int(re.search(r"one graph: ([\d,]+) Values", out).group(1).replace(",", ""))
    assert nodes == _nodes_of(docs[0])
    by_op = re.findall(r"^ +([\d,]+) (\S+)$", out, re.MULTILINE)
    leaves = re.search(r"of which ([\d,]+) weights and ([\d,]+) constants", out).groups()
    assert sum(int(n.replace(",", "")) for n, _ in by_op) + \
        sum(int(n.replace(",", "")) for n in leaves) == nodes
    assert numbers(r"\nloss (\S+); ln 27", out) == [round(losses[0], 4)]
    steps = re.findall(r"^step +(\d+) / 200 \| +(\w+) \| loss (\S+)$", out, re.MULTILINE)
    assert [int(n) for n, _, _ in steps] == [1, 5, 10, 15, 20, 25, 30, 35, GPT_FIRST]
    for n, name, loss in steps:  # rounded to 4 places; PyTorch's within 1e-9 of ours
        assert name == docs[int(n) - 1]
        assert abs(float(loss) - losses[int(n) - 1]) <= 0.5e-4 + 1e-9, n


@pytest.mark.slow  # seconds each (a kernel, a subprocess demo): CI runs it, the quick run does not
def test_11_from_micrograd_to_a_gpt(tmp_path):
    out = stdout(run("11_from_micrograd_to_a_gpt.ipynb", tmp_path))
    docs, losses, ahead = _gpt_in_torch()
    _check_gpt_start(out, docs, losses)
    rows = re.findall(r"^ *(\w+) +(\d+\.\d{12}) +(\d+\.\d{12})$", out, re.MULTILINE)
    assert [r[0] for r in rows] == docs[GPT_FIRST:GPT_FIRST + GPT_AHEAD]
    for (_, ours, theirs), want in zip(rows, ahead):
        assert abs(float(ours) - want) <= 1e-11 and abs(float(theirs) - want) <= 1e-11
    diffs = numbers(r"largest (?:relative )?difference of a \w+.*: (\S+)\n", out)
    assert len(diffs) == 2 and all(0 <= d < 1e-12 for d in diffs)
    timed = re.search(r"one step on '(\w+)' \(\d+ positions\) builds ([\d,]+) scalar", out)
    assert timed.group(1) == docs[GPT_FIRST]
    assert int(timed.group(2).replace(",", "")) == _nodes_of(docs[GPT_FIRST])
    ms = numbers(r"(?m)^(?:micrograd|PyTorch): +(\S+) ms forward and backward", out)
    assert len(ms) == 2 and all(t > 0 for t in ms)  # measured; the times are not checked
    assert numbers(r"(\d+) tensor operations", out)[0] > 10
    later = re.findall(r"^step +(\d+) / 200 \| loss (\S+) \| mean of the last 20 (\S+)$",
                       out, re.MULTILINE)
    assert [int(n) for n, _, _ in later] == list(range(60, GPT_STEPS + 1, 20))
    for n, loss, mean in later:
        n = int(n)
        assert abs(float(loss) - losses[n - 1]) <= 0.5e-4 + 1e-9, n
        assert abs(float(mean) - sum(losses[n - 20:n]) / 20) <= 0.5e-4 + 1e-9, n
    _check_gpt_samples(out, 2)  # after 40 steps, then after 200


@pytest.mark.slow  # seconds each (a kernel, a subprocess demo): CI runs it, the quick run does not
def test_11_without_pytorch_runs_the_rest(tmp_path):
    block = tmp_path / "block"
    (block / "torch").mkdir(parents=True)
    (block / "torch" / "__init__.py").write_text("raise ImportError('blocked for a test')\n")
    out = stdout(run("11_from_micrograd_to_a_gpt.ipynb", tmp_path, extra_path=str(block)))
    assert "pip install 'torch==2.13.0' to see its column" in out
    assert len(re.findall(r"^ *\w+ +\d+\.\d{12} +-$", out, re.MULTILINE)) == GPT_AHEAD
    assert "largest relative difference" not in out
    assert "PyTorch:   not installed: pip install 'torch==2.13.0'" in out
    assert re.search(r"^micrograd: +\S+ ms forward and backward", out, re.MULTILINE)
    _check_gpt_samples(out, 2)

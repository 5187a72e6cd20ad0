"""``micrograd graph``: outputs by suffix, the walk in the terminal, parse errors."""

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from micrograd.cli import main

SEED002 = "a = 2; b = -3; c = 10; f = -2; e = a*b; d = e + c; L = d*f"
DIAMOND = "a = 2; b = a + 1; c = a*3; d = b*c"
SRC = os.path.join(os.path.dirname(__file__), os.pardir, "src")


def test_svg_by_suffix(tmp_path, capsys):
    out = tmp_path / "g.svg"
    assert main(["graph", SEED002, "-o", str(out)]) == 0
    tree = ET.parse(out).getroot()
    texts = [t.text for t in tree.iter("{http://www.w3.org/2000/svg}text")]
    assert "grad 6.0000" in texts  # backward ran: grad[a] = 6
    assert "wrote" in capsys.readouterr().out


@pytest.mark.parametrize("suffix", [".json", ".dot", ".gv", ".png"])
def test_other_formats(tmp_path, suffix):
    out = tmp_path / f"g{suffix}"
    assert main(["graph", "tanh(x*w + b)", "--values", "x=2,w=-3,b=6.88", "-o", str(out)]) == 0
    data = out.read_bytes()
    if suffix == ".json":
        d = json.loads(data)
        assert len(d["nodes"]) == 6 and d["rankdir"] == "LR"  # x w * b + tanh
    elif suffix == ".png":
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
    else:
        assert data.startswith(b"digraph micrograd {")


def test_no_grad_and_rankdir(tmp_path):
    out = tmp_path / "g.json"
    assert main(["graph", SEED002, "--no-grad", "--rankdir", "TB", "-o", str(out)]) == 0
    d = json.loads(out.read_text())
    assert d["rankdir"] == "TB" and d["show_grad"] is False
    assert all(n["grad"] == 0.0 for n in d["nodes"])
    assert all(len(n["cells"]) == 2 for n in d["nodes"])


def test_summary_without_output(capsys):
    assert main(["graph", SEED002]) == 0
    out = capsys.readouterr().out
    assert "L = -8" in out and "a=6, b=-4, c=-2, f=4" in out


def test_steps_prints_seed003_bullets(capsys):
    assert main(["graph", "a = 2; b = -3; c = 10; e = a + b; f = e*c", "--steps"]) == 0
    out = capsys.readouterr().out
    assert "  - e = a + b = 2 + (-3) = -1" in out
    assert "  - visit f = e*c: grad[e] += 1 * 10 = 10; grad[c] += 1 * (-1) = -1" in out
    assert "every grad is correct" in out


def test_order_prints_what_was_lost(capsys):
    assert main(["graph", DIAMOND, "--order", "d,a,b,c"]) == 0
    out = capsys.readouterr().out
    assert "LOST: b deposited 6 into a" in out and "the path d -> c -> a is lost" in out
    assert "wrong: grad[a] = 0, correct 15" in out
    assert main(["graph", DIAMOND, "--order", "d,b,c,a"]) == 0
    out = capsys.readouterr().out
    assert "a=15" in out and "LOST" not in out


@pytest.mark.parametrize("text, mode, expect", [
    ("a = 3; f = a*a", "assign", "wrong: grad[a] = 3, correct 6"),
    ("a = 1; b = a + a; c = b + b", "recursive", "wrong: grad[a] = 8, correct 4"),
    ("a = 3; f = a*a", "no_zero_grad", "wrong: grad[a] = 12, correct 6"),
])
def test_modes(text, mode, expect, capsys):
    assert main(["graph", text, "--mode", mode]) == 0
    assert expect in capsys.readouterr().out


def test_a_mode_says_what_it_does_to_the_graph_after_the_steps(capsys):
    # the sentence the page and the widget show (walk_explain), once, after the steps;
    # the recursive mode's repeat visits labelled in the step lines
    from micrograd import walk_explain
    from micrograd.expr import parse
    from micrograd.walk import walk
    from micrograd.walk_setup import PRESETS

    for preset, mode in (("reused", "recursive"), ("lecture", "assign"), ("lecture", "correct")):
        assert main(["graph", "--preset", preset, "--mode", mode, "--steps"]) == 0
        lines = capsys.readouterr().out.splitlines()
        root = parse(PRESETS[preset].expr)
        said = walk_explain.explain(root, walk(root, mode=mode))
        assert lines.count(said["text"]) == 1, lines
        at = lines.index(said["text"])
        assert lines[at - 1].startswith(("wrong:", "every grad is correct")), lines
        offer = lines[at + 1:]
        assert offer == ([f"{said['offer']['label']}: micrograd graph --preset reused "
                          f"--mode {mode}"] if said["offer"] else []), offer
    assert main(["graph", "--preset", "reused", "--mode", "recursive"]) == 0
    out = capsys.readouterr().out
    assert "  - visit b = a + a (path 1 of 2): grad[a] += 2 * 1 = 2;" in out
    assert "  - visit b = a + a (again: path 2 of 2): grad[a] += 2 * 1 = 2 (grad[a] now 6);" in out
    assert out.count("again: path") == 4  # b's second visit, a's second to fourth
    assert "the inner node b is reached by 2 paths" in out
    assert main(["graph", DIAMOND, "--order", "d,b,c,a"]) == 0  # the user's order: no mode
    assert "Here, with" not in capsys.readouterr().out

def test_nudge(capsys):
    assert main(["graph", "x = 3; y = 3*x**2 - 4*x + 5", "--nudge", "x"]) == 0
    out = capsys.readouterr().out
    assert "slope" in out and "grad[x] = 14" in out and "(agree)" in out


@pytest.mark.parametrize("args, verdict", [
    # the case: exp(10x) at 0, h = 0.1: slope 17.18 against a grad of 10
    (["--h", "0.1"], "disagree: more than the 2.2 allowed at this h; the curvature"),
    (["--h", "0.1", "--central"], "disagree"),  # 11.75 against 10
    (["--h", "0.1", "--tol", "1"], "(agree)"),  # the user's own, looser tolerance
    (["--h", "1e-4", "--central", "--tol", "1e-6"], "(agree)"),
])
def test_nudge_judges_with_a_tolerance_that_shrinks_with_h(args, verdict, capsys):
    assert main(["graph", "x = 0; y = exp(10*x)", "--nudge", "x", *args]) == 0
    out = capsys.readouterr().out
    assert "grad[x] = 10" in out and verdict in out


def test_nudge_with_a_tiny_h_answers_and_one_too_small_exits_2(capsys):
    assert main(["graph", "relu(a)", "--values", "a=0", "--nudge", "a", "-H", "1e-170"]) == 0
    out = capsys.readouterr().out
    assert "slope (f(a+h) - f(a)) / h = 1, grad[a] = 0, difference 1 (disagree" in out
    assert main(["graph", "relu(a)", "--values", "a=0", "--nudge", "a", "-H", "1e-320"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("micrograd graph: error: h must be ") and err.count("\n") == 1
    assert main(["graph", "relu(a)", "--values", "a=0", "--nudge", "a", "-H", "1e308",
                 "--central"]) == 2
    assert "h = 1e+308 is too large: 2h" in capsys.readouterr().err


@pytest.mark.parametrize("args, message", [
    (["1 +* 2"], "unexpected '*'"),
    (["foo(3)"], "unknown function 'foo'"),
    (["__import__('os')"], "names starting with '__'"),
    (["x + 1"], "undefined name 'x'"),
    (["x + 1", "--values", "x=abc"], "--values: the value of x must be a number"),
    (["x + 1", "--values", "x"], "--values: 'x' is not name:value"),
    (["a = 1", "--preset", "square"], "give an expression (EXPR) or --preset"),
    ([], "give an expression (EXPR) or --preset"),
    (["a = 1", "-o", "g.pdf"], "unknown output suffix"),
    ([DIAMOND, "--order", "d,q"], "no node named 'q'"),
    ([DIAMOND, "--order", "d,b", "--mode", "assign"], "only be walked in mode 'correct'"),
    (["a = 1; b = tanh(a)", "--nudge", "b"], "not a leaf"),
])
def test_errors_exit_2_without_traceback(args, message, capsys):
    assert main(["graph", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_parse_error_shows_caret(capsys):
    assert main(["graph", "a = 1; b = a +* 2"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[-2].strip() == "a = 1; b = a +* 2"
    assert err[-1].index("^") == err[-2].index("*")


def test_real_process_exit_code_and_no_traceback():
    env = dict(os.environ, PYTHONPATH=os.path.abspath(SRC))
    r = subprocess.run([sys.executable, "-m", "micrograd", "graph", "(" * 10000 + "1"],
                       capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 2
    assert "nested too deeply" in r.stderr and "Traceback" not in r.stderr
    r = subprocess.run([sys.executable, "-m", "micrograd", "graph", "--help"],
                       capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0 and "--order" in r.stdout and "micrograd graph" in r.stdout


@pytest.mark.parametrize("suffix", [".svg", ".png", ".json", ".dot"])
def test_missing_output_folder_exits_1_before_any_work(tmp_path, suffix, capsys):
    target = tmp_path / "nope" / f"x{suffix}"
    assert main(["graph", "a = 2; b = a*a", "-o", str(target)]) == 1
    cap = capsys.readouterr()
    assert f"cannot write {str(target)!r}: the folder" in cap.err
    assert "does not exist" in cap.err and "Traceback" not in cap.err
    assert cap.out == ""  # refused before the walk / summary


def test_output_path_that_is_a_folder_or_unwritable(tmp_path, capsys):
    folder = tmp_path / "d.svg"
    folder.mkdir()
    assert main(["graph", "a = 2; b = a*a", "-o", str(folder)]) == 1
    assert "it is a folder" in capsys.readouterr().err
    # the folder exists but nothing can be created in it: the write fails, caught
    assert main(["graph", "a = 2; b = a*a", "-o", "/proc/x.json"]) == 1
    err = capsys.readouterr().err
    assert "cannot write '/proc/x.json'" in err and "Traceback" not in err


def test_values_edit_assigned_leaves_like_the_web_page(capsys):
    from micrograd.web.walkview import build

    assert main(["graph", "a = 2; b = a*a", "--values", "a=5"]) == 0
    out = capsys.readouterr().out
    assert "b = 25" in out and "grads: a=10" in out
    view = build("a = 2; b = a*a", {"a": 5.0})
    g = view["graph"]
    assert next(n for n in g["nodes"] if n["id"] == g["root"])["data"] == 25.0
    assert main(["graph", SEED002, "--values", "a=1,c=0", "--nudge", "a"]) == 0
    assert "grad[a] = 6" in capsys.readouterr().out  # d(L)/da = b*f = 6 at any a


def test_values_written_to_the_drawing(tmp_path):
    out = tmp_path / "g.json"
    assert main(["graph", "a = 2; b = a*a", "--values", "a=5", "-o", str(out)]) == 0
    d = json.loads(out.read_text())
    assert sorted(n["data"] for n in d["nodes"]) == [5.0, 25.0]


@pytest.mark.parametrize("values, message", [
    ("zz=1", "no leaf named 'zz' in the expression (leaves: a)"),
    ("b=1", "'b' is computed by the expression, not a leaf"),
    ("a=1,zz=2", "no leaf named 'zz'"),
])
def test_values_that_are_not_leaves_are_refused(values, message, capsys):
    assert main(["graph", "a = 2; b = a*a", "--values", values]) == 2
    cap = capsys.readouterr()
    assert message in cap.err and "Traceback" not in cap.err and cap.out == ""


@pytest.mark.parametrize("passes", ["0", "101", "100000000", "two"])
def test_passes_cap_is_a_usage_error(passes, capsys):
    with pytest.raises(SystemExit) as info:
        main(["graph", "a = 2; b = a*a", "--mode", "no_zero_grad", "--passes", passes])
    assert info.value.code == 2
    assert "argument --passes" in capsys.readouterr().err


def test_passes_at_the_cap_runs(capsys):
    assert main(["graph", "a = 3; f = a*a", "--mode", "no_zero_grad", "--passes", "100"]) == 0
    assert "wrong: grad[a] = 600, correct 6" in capsys.readouterr().out
    assert "1 to 100" in " ".join(subprocess.run(
        [sys.executable, "-m", "micrograd", "graph", "--help"], capture_output=True,
        text=True, env=dict(os.environ, PYTHONPATH=os.path.abspath(SRC)),
        timeout=60).stdout.split())


# ---- output that cannot be written: a closed pipe, a full disk, a device --------------

#: a walk long enough to fill any pipe buffer: 3,000 lines
LONG = "x = 1; y = " + " + ".join(f"x*{k}" for k in range(1, 1000))


def graph_process(args, **kw):
    env = dict(os.environ, PYTHONPATH=os.path.abspath(SRC))
    return subprocess.Popen([sys.executable, "-m", "micrograd", "graph", *args], env=env,
                            stderr=subprocess.PIPE, text=True, **kw)


def test_a_closed_pipe_exits_quietly():
    # `micrograd graph ... --steps | head -1`: the reader leaves after one line
    proc = graph_process([LONG, "--steps"], stdout=subprocess.PIPE)
    first = proc.stdout.readline()
    proc.stdout.close()
    with proc.stderr:
        err = proc.stderr.read()
    assert proc.wait(timeout=60) == 141  # 128 + SIGPIPE, like any Unix tool
    assert first.startswith("forward") and err == ""


def test_a_full_disk_is_one_line_and_exit_1():
    with open("/dev/full", "w") as full:
        proc = graph_process([LONG, "--steps"], stdout=full)
        with proc.stderr:
            err = proc.stderr.read()
        assert proc.wait(timeout=60) == 1
    assert err == ("micrograd graph: error: cannot write the output: No space left on "
                   "device\n")


def test_output_through_a_link_to_a_device_is_refused(tmp_path, capsys):
    import stat

    # as root, a device node of our own (a broken check must never replace /dev/full)
    device = "/dev/full"
    if os.geteuid() == 0:
        device = str(tmp_path / "full")
        os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    link = tmp_path / "g.svg"
    link.symlink_to(device)
    assert main(["graph", "a = 2; b = a*a", "-o", str(link)]) == 1
    err = capsys.readouterr().err
    assert f"cannot write {str(link)!r}: it is a character device, not a regular" in err
    assert link.is_symlink() and os.readlink(link) == device
    assert stat.S_ISCHR(os.stat(device).st_mode)


def test_output_is_written_atomically_with_the_usual_mode(tmp_path):
    old = os.umask(0o022)
    try:
        for suffix in (".svg", ".png", ".json", ".dot"):
            out = tmp_path / f"g{suffix}"
            assert main(["graph", "a = 2; b = a*a", "-o", str(out)]) == 0
            assert os.stat(out).st_mode & 0o777 == 0o644
    finally:
        os.umask(old)
    assert sorted(os.listdir(tmp_path)) == ["g.dot", "g.json", "g.png", "g.svg"]


# ---- PNG: proportionate to the graph, or refused when it cannot be read ---------------


def test_png_size_follows_the_layout(tmp_path):
    from PIL import Image

    from micrograd.expr import parse
    from micrograd.viz.layout import layout
    from micrograd.viz.png import png_scale

    text = "x = 1; y = " + " + ".join(f"x*{k}" for k in range(1, 41))  # 11,925 px wide
    out = tmp_path / "g.png"
    assert main(["graph", text, "-o", str(out)]) == 0
    lay = layout(parse(text))
    scale = png_scale(lay)
    assert 0.5 <= scale < 1.5  # shrunk to the 12,000 px side, text still over 6 px
    assert scale == pytest.approx(12000 / lay.width)
    with Image.open(out) as im:
        w, h = im.size
    assert w == pytest.approx(lay.width * scale, rel=0.005) and w <= 12000
    assert h == pytest.approx(lay.height * scale, rel=0.005)


@pytest.mark.slow  # seconds each (a kernel, a subprocess demo): CI runs it, the quick run does not
def test_png_too_large_to_read_is_refused_before_any_output(tmp_path, capsys):
    # the 2,500-term expression: once a 12000 x 22 smear after a minute
    text = "x = 1; y = " + " + ".join(["x"] * 2500)
    out = tmp_path / "big.png"
    assert main(["graph", text, "-o", str(out), "--steps"]) == 2
    cap = capsys.readouterr()
    assert "too large for a legible PNG" in cap.err and "(.svg)" in cap.err
    assert "2,500 boxes" in cap.err and "0.2 px high" in cap.err
    assert cap.out == "" and not out.exists() and os.listdir(tmp_path) == []
    svg = tmp_path / "big.svg"  # the SVG of the same graph is written
    assert main(["graph", text, "-o", str(svg)]) == 0 and svg.stat().st_size > 0


@pytest.mark.parametrize("args, message", [
    (["--tol", "-1"], "argument --tol: must be >= 0, got -1"),
    (["--tol", "nan"], "argument --tol: value must be finite"),
    (["-H", "１e-4"], "argument -H/--h: value must be a number, got '１e-4'"),
    (["-H", "inf"], "argument -H/--h: value must be finite"),
    (["--mode", "no_zero_grad", "--passes", "٣"], "argument --passes: must be a whole number"),
])
def test_the_nudges_numbers_are_checked_as_they_are_read(capsys, args, message):
    with pytest.raises(SystemExit) as e:
        main(["graph", "relu(a)", "--values", "a=0", "--nudge", "a", *args])
    assert e.value.code == 2 and message in capsys.readouterr().err


def test_nudge_refuses_a_tolerance_that_always_or_never_agrees():
    from micrograd.expr import parse
    from micrograd.walk import nudge

    root = parse("a = 2; y = a * a")
    assert nudge(root, "a", tol=0.0).ok is False  # one-sided: off by h, none allowed
    for tol in (-1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="tol must be a finite number >= 0"):
            nudge(root, "a", tol=tol)


# ---------------------------------------------------------------------------------------
# the graph, the values and the mode are the Walk's set-up (micrograd.walk_setup)
# ---------------------------------------------------------------------------------------


def test_values_are_written_as_a_links_and_the_older_way_too(capsys):
    for values in ("a:5", "a=5"):
        assert main(["graph", "a = 2; b = a*a", "--values", values]) == 0
        assert "b = 25" in capsys.readouterr().out
    assert main(["graph", "tanh(x*w)", "--values", "x:2,w=0"]) == 0
    assert "result = 0" in capsys.readouterr().out


def test_a_preset_by_its_key_with_the_pages_values(capsys):
    from micrograd.walk_setup import WalkSetup

    link = WalkSetup.from_url({"preset": "lecture", "v": "a:3", "mode": "assign"})
    assert main(["graph", "--preset", link.preset, "--values", link.to_url()["v"],
                 "--mode", link.mode, "--steps"]) == 0
    out = capsys.readouterr().out
    assert "e = a*b = 3*(-3) = -9" in out and "backward (assign)" in out


def test_the_options_and_their_help_are_the_declarations(capsys):
    from micrograd.walk_setup import MODES, PRESETS, WalkSetup

    spec = {f["name"]: f for f in WalkSetup.spec()["fields"]}
    with pytest.raises(SystemExit):
        main(["graph", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    for name in ("preset", "values", "mode"):
        assert " ".join(f"{spec[name]['label']}: {spec[name]['help']}".split()) in text
    assert "{" + ",".join(MODES) + "}" in text and "(default: correct)" in text
    for key, p in PRESETS.items():  # each choice with its title (said once)
        assert (p.title if p.title.startswith(f"{key}:") else f"{key}: {p.title}") in text
    assert "NAME:NUM,..." in text
    with pytest.raises(SystemExit):
        main(["graph", "a = 1", "--mode", "sideways"])
    assert "invalid choice: 'sideways'" in capsys.readouterr().err

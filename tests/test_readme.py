"""The README's examples print the numbers the README shows."""

import contextlib
import io
import re
from pathlib import Path

README = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")


def _blocks(lang):
    return re.findall(rf"```{lang}\n(.*?)```", README, flags=re.S)


def _run(code):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})  # our own README, not user input
    return out.getvalue()


def _expected_comments(code):
    """The ``# ...`` after each print(...) line, in order."""
    return [line.split("#", 1)[1].strip() for line in code.splitlines()
            if line.startswith("print(") and "#" in line]


def test_engine_example_prints_what_the_readme_says():
    code = _blocks("python")[0]
    printed = _run(code).splitlines()
    assert printed == _expected_comments(code) == ["Value(data=-8.0, grad=1.0)",
                                                    "6.0 -4.0 -2.0 4.0"]


def test_mlp_example_prints_what_the_readme_says():
    code = _blocks("python")[1]
    printed = _run(code).strip()
    expected = code.strip().splitlines()[-1].lstrip("# ").strip()
    assert printed == expected


def test_autodiff_example_gives_the_numbers_in_its_comments():
    code = _blocks("python")[2]
    env = {}
    lines = code.strip().splitlines()
    exec(compile(lines[0], "README.md", "exec"), env)
    for line in lines[1:]:
        expr, _, comment = line.partition("#")
        exec(compile(f"_result = {expr.strip()}", "README.md", "exec"), env)
        if comment.strip() != "forward mode":
            assert repr(env["_result"]) == comment.strip()
    assert env["_result"][1] == 1 * 2.0 + 2.718281828459045  # d/dx (x*y + e^x) at (1, 2)


def test_demo_table_is_what_the_demo_prints(tmp_path):
    from micrograd.cli import main

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["demo", "--no-gif", "--no-progress", "--out", str(tmp_path)]) == 0
    drop_time = lambda row: re.sub(r"\s+\d+\.\ds\s+", " ", row).split()  # noqa: E731
    printed = [drop_time(r) for r in out.getvalue().splitlines()
               if r.startswith(("moons ", "circle "))]
    shown = [drop_time(r) for r in README.splitlines() if r.startswith(("moons ", "circle "))]
    assert len(shown) == 4 and printed == shown

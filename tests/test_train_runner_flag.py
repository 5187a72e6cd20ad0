"""``--runner`` of ``micrograd train`` and ``micrograd demo``, the library's name
(``fit(runner=...)``, ``History.runner``, ``micrograd.train_runners``), and ``--engine``,
its old name: still accepted, the same run and the same output, left out of ``--help``."""

import json
import re

import pytest

from micrograd.cli import build_parser, main
from micrograd.train_runners import RUNNERS

SMALL = ["--epochs", "3", "--samples", "40", "--hidden", "4", "--no-plots", "--no-progress"]


def run_cli(argv, capsys):
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    got = capsys.readouterr()
    return code, got.out, got.err


def without_times(text, out):
    """The printed text with the seconds and the output folder taken out."""
    return re.sub(r"\d+\.\d ?s\b", "T s", text.replace(str(out), "OUT"))


def train(tmp_path, capsys, name, flag, runner):
    out = tmp_path / name
    code, stdout, err = run_cli(["train", *SMALL, flag, runner, "--out", str(out)], capsys)
    assert code == 0 and err == "", err
    hist = json.loads((out / "history.json").read_text())
    del hist["time"]
    model = json.loads((out / "model.json").read_text())
    del model["meta"]["args"]["out"], model["meta"]["final"]["time"]
    return without_times(stdout, out), hist, model


@pytest.mark.parametrize("runner", ["eager", "traced"])
def test_both_spellings_give_the_same_run(tmp_path, capsys, runner):
    new = train(tmp_path, capsys, "new", "--runner", runner)
    old = train(tmp_path, capsys, "old", "--engine", runner)
    assert new == old
    printed, _, model = new
    assert f"completed, runner {runner})" in printed and "engine" not in printed
    assert model["meta"]["args"]["runner"] == runner and "engine" not in model["meta"]["args"]


@pytest.mark.parametrize("command", ["train", "demo"])
def test_the_parser_reads_both_spellings_into_runner(command):
    parser = build_parser()
    assert parser.parse_args([command]).runner == "auto"
    for name in RUNNERS:
        for flag in ("--runner", "--engine"):
            args = parser.parse_args([command, flag, name])
            assert args.runner == name and not hasattr(args, "engine"), (flag, name)
    # the last one given wins, as for any option given twice
    assert parser.parse_args([command, "--engine", "eager", "--runner", "traced"]).runner \
        == "traced"


@pytest.mark.parametrize("flag", ["--runner", "--engine"])
def test_an_unknown_runner_is_refused_by_the_flag_given(capsys, flag):
    code, out, err = run_cli(["train", flag, "fast"], capsys)
    assert code == 2 and out == ""
    assert f"argument {flag}: invalid choice: 'fast'" in err
    assert "auto" in err and "eager" in err and "traced" in err


@pytest.mark.parametrize("flag", ["--runner", "--engine"])
def test_the_eager_cap_suggests_runner_traced(tmp_path, capsys, flag):
    out = tmp_path / "never"
    code, stdout, err = run_cli(["train", "--samples", "100000", flag, "eager", "--out",
                                 str(out)], capsys)
    assert code == 2 and stdout == "" and not out.exists()
    assert "the eager runner would build a graph of 75,000 points" in err
    assert err.rstrip().endswith("or --runner traced") and "--engine" not in err


@pytest.mark.parametrize("command", ["train", "demo"])
def test_help_lists_runner_and_names_engine_only_as_its_old_name(capsys, command):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = capsys.readouterr().out
    assert "[--runner {auto,eager,traced}]" in " ".join(text.split())
    assert re.search(r"^  --runner \{auto,eager,traced\}", text, re.M)
    flat = " ".join(text.split())
    assert "--engine is its old name, still accepted" in flat
    assert not re.search(r"^  --engine", text, re.M) and "[--engine" not in flat


def demo(tmp_path, capsys, name, flag):
    out = tmp_path / name
    code, stdout, err = run_cli(["demo", "--quick", "--no-gif", "--no-progress", "--only",
                                 "circle", flag, "traced", "--out", str(out)], capsys)
    assert code == 0, err
    summary = json.loads((out / "summary.json").read_text())
    for row in summary["rows"]:
        del row["train_seconds"]
    del summary["seconds_with_pictures"]
    return without_times(stdout, out), summary


def test_the_demo_table_says_runner_under_both_spellings(tmp_path, capsys):
    new = demo(tmp_path, capsys, "new", "--runner")
    assert new == demo(tmp_path, capsys, "old", "--engine")
    printed, summary = new
    head = next(line for line in printed.splitlines() if line.startswith("experiment"))
    assert head.split()[-1] == "runner" and "engine" not in head
    rows = [line for line in printed.splitlines() if line.startswith("circle ")]
    assert len(rows) == 3 and all(line.split()[-1] == "traced" for line in rows)
    assert "runner traced: micrograd.trace ran" in printed
    assert "(--runner eager for the Value-by-Value engine)" in printed
    # summary.json: each row's runner, and its old key beside it for scripts that read it
    assert [(r["runner"], r["engine"]) for r in summary["rows"]] == [("traced", "traced")] * 3

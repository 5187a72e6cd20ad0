"""The engine benchmark against this project's own ``src/`` at a git revision
(``benchmarks/engine.py --baseline REV``): the export, the worker's import check on it,
the baseline's labels and the before-and-after verdict. Nothing here is timed: the
workers run one step, and only what they imported and computed is checked."""

import inspect
import io
import os
import pathlib
import subprocess
import sys
from contextlib import redirect_stdout

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import engine  # noqa: E402
import engine_baseline  # noqa: E402
import engine_runs  # noqa: E402
import engine_worker  # noqa: E402


def git(*args, cwd=ROOT):
    return subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, check=True,
                          text=True).stdout


def this_interpreter():
    """The side-environment description the workers need, for the running interpreter
    (the loop workload needs only the standard library and the engine)."""
    return {"python_exe": sys.executable, "micrograd": None}


def test_export_is_the_revisions_src_keyed_by_full_sha_and_reused(tmp_path):
    said = []
    got = engine_baseline.export("HEAD", str(tmp_path), said.append)
    sha = git("rev-parse", "HEAD").strip()
    assert got["sha"] == sha and got["label"] == f"baseline {sha[:7]}"
    assert got["src"] == str(tmp_path / "baseline-src" / sha / "src")
    engine_file = pathlib.Path(got["engine"])
    assert engine_file == pathlib.Path(got["src"], "micrograd", "engine.py")
    assert engine_file.read_text() == git("show", "HEAD:src/micrograd/engine.py")
    assert len(said) == 1 and sha in said[0]
    # no temporary folder is left beside the export
    assert os.listdir(tmp_path / "baseline-src") == [sha]

    sentinel = pathlib.Path(got["src"], "left-by-the-first-run")
    sentinel.write_text("")
    said.clear()
    assert engine_baseline.export(sha[:12], str(tmp_path), said.append) == got
    assert said == [] and sentinel.exists()  # the second run reuses the export


@pytest.mark.parametrize("rev, message", [("no-such-revision-here", "no such commit"),
                                          ("--output=x", "not a git revision"),
                                          ("", "not a git revision")])
def test_an_unknown_revision_stops_with_its_name(tmp_path, rev, message):
    with pytest.raises(SystemExit) as stop:
        engine_baseline.export(rev, str(tmp_path), print)
    assert message in str(stop.value) and repr(rev)[1:-1] in str(stop.value)
    assert not (tmp_path / "baseline-src").exists()


def test_a_revision_without_the_engine_stops_and_leaves_no_export(tmp_path):
    repo = tmp_path / "repo"
    (repo / "src" / "other").mkdir(parents=True)
    (repo / "src" / "other" / "thing.py").write_text("x = 1\n")
    git("init", "-q", cwd=repo)
    git("add", ".", cwd=repo)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "x", cwd=repo)
    cache = tmp_path / "cache"
    with pytest.raises(SystemExit, match="has no src/micrograd/engine.py"):
        engine_baseline.export("HEAD", str(cache), print, repo=str(repo))
    assert os.listdir(cache / "baseline-src") == []


def test_the_baseline_worker_imports_the_exported_engine(tmp_path):
    exported = engine_baseline.export("HEAD", str(tmp_path), print)
    run = engine_runs.cpython_workers(this_interpreter(), 1, exported["src"])
    rounds = [{e: run(e, "loop") for e in ("ours", "baseline")}]
    assert os.path.realpath(rounds[0]["baseline"]["engine_file"]) == os.path.realpath(
        exported["engine"])
    assert rounds[0]["baseline"]["engine"] == "baseline"
    assert os.path.realpath(rounds[0]["ours"]["engine_file"]) == str(
        ROOT / "src" / "micrograd" / "engine.py")
    assert engine_runs.check_losses(rounds, "here", "loop") == 0.0


def test_a_baseline_folder_without_the_engine_is_refused(tmp_path):
    empty = tmp_path / "src"
    empty.mkdir()
    run = engine_runs.cpython_workers(this_interpreter(), 1, str(empty))
    with pytest.raises(SystemExit, match="baseline loop"):
        run("baseline", "loop")
    with pytest.raises(ValueError, match="baseline_src"):
        engine_runs.cpython_workers(this_interpreter(), 1)("baseline", "loop")


def measured(seconds, gc_seconds=0.0, full=0):
    return {"seconds": seconds, "gc_seconds": gc_seconds, "gc_collections": [0, 0, full],
            "gc_tracked_at_start": 100}


def test_the_table_names_the_baseline_and_reads_baseline_over_ours():
    rounds = [{"ours": measured(1.0), "baseline": measured(1.25, 0.5, 2)},
              {"ours": measured(1.0), "baseline": measured(1.5)},
              {"ours": measured(2.0), "baseline": measured(2.0)}]
    row = engine.summary("3.11.7", "loop", 10, rounds, "baseline")
    assert row["other"] == 150.0 and row["ours"] == 100.0  # ms a step, medians
    assert row["ratio"] == 1.5 and row["ratio_range"] == (1.0, 1.5)
    assert row["full_other"] == 0.0 and row["gc_other"] == 0.0
    printed = io.StringIO()
    with redirect_stdout(printed):
        engine.print_table([row], "baseline 8e8b095")
    head, _, line = printed.getvalue().splitlines()
    assert "baseline 8e8b095 ms/step" in head and "published" not in head
    assert "1.500x" in line and "[1.000-1.500]" in line
    rounds[0]["baseline"] = measured(3.0)  # a ratio above 2 keeps its three decimals
    row = engine.summary("3.11.7", "demo", 10, rounds, "baseline")
    with redirect_stdout(printed):
        engine.print_table([row], "baseline 8e8b095")
    assert "2.000x" in printed.getvalue() and "[1.000-3.000]" in printed.getvalue()


def test_the_verdict_names_a_workload_slower_by_more_than_five_percent():
    rows = [{"python": "3.12.1", "workload": "demo", "ratio": 1 / 1.06},
            {"python": "3.12.1", "workload": "loop", "ratio": 1 / 1.04}]
    verdict = engine.slower_than_baseline(rows, "baseline 8e8b095")
    assert verdict.startswith("SLOWER") and "3.12.1 demo notebook (+6.0%)" in verdict
    assert "loop" not in verdict
    assert engine.slower_than_baseline(rows[1:], "baseline 8e8b095").startswith(
        "no workload slower")


def test_parse_args_runs_pyodide_for_a_baseline_only_when_asked(tmp_path):
    assert engine.parse_args(["--baseline", "HEAD"]).pyodide is None
    with pytest.raises(SystemExit):  # asked for, but no Pyodide there
        engine.parse_args(["--baseline", "HEAD", "--pyodide", str(tmp_path)])


def test_a_lecture_default_mlp_is_asked_for_micrograds_network():
    calls = []

    def lecture_mlp(nin, nouts, activation="tanh", output_activation=None, *,
                    bias_init="uniform", nonlin=None):
        calls.append((nin, nouts, activation, bias_init, nonlin))

    adapted, note = engine_worker.notebook_mlp(lecture_mlp)
    adapted(2, [16, 16, 1])
    assert calls == [(2, [16, 16, 1], "tanh", "zero", True)] and "nonlin=True" in note

    from micrograd.nn import MLP

    assert engine_worker.notebook_mlp(MLP) == (MLP, None)  # micrograd's defaults already
    assert inspect.signature(MLP).parameters["activation"].default != "tanh"

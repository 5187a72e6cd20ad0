"""``benchmarks/big_inputs.py`` and ``benchmarks/serve_hardening.py`` run and say what they
measured: each part's figures, its ratio, the load. Not timed tests: the figures are the
benchmarks' to print, not the suite's."""

import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


def run(name, *args, timeout=300):
    out = subprocess.run([sys.executable, str(BENCH / name), *args],
                         capture_output=True, text=True, timeout=timeout)
    assert out.returncode == 0, out.stderr
    return out.stdout


def test_the_big_inputs_benchmark_prints_each_part_and_its_ratio():
    text = run("big_inputs.py", "--rounds", "1")
    for line in ("load average at start", "ratio (1e6 / 1e5; linear: 10)",
                 "refuse 1,048,576 characters", "ratio (refusal / tokenize)",
                 "ratio (layout / build)", "load average at end"):
        assert line in text, text


@pytest.mark.slow  # a real server, eight tabs training: CI runs it, the quick run does not
def test_the_serve_hardening_benchmark_prints_each_part_and_its_ratio():
    text = run("serve_hardening.py", "--rounds", "1", "--limit", "0.2")
    for line in ("load average at start", "a tab's request", "x a tab's", "one step",
                 "half the body", "a byte every 0.2 s", "x the limit", "load average at end"):
        assert line in text, text


def test_the_benchmarks_refuse_nonsense_sizes():
    for name in ("big_inputs.py", "serve_hardening.py"):
        out = subprocess.run([sys.executable, str(BENCH / name), "--rounds", "0"],
                             capture_output=True, text=True, timeout=60)
        assert out.returncode == 2 and "must be at least 1" in out.stderr, name

"""``benchmarks/open_block.py`` runs and says what it measured: both cases, the ratio, the
load. Not a timed test: the figures are the benchmark's to print, not the suite's."""

import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "benchmarks" / "open_block.py"


def test_the_open_block_benchmark_runs_both_cases_and_prints_their_ratio():
    out = subprocess.run([sys.executable, str(BENCH), "--rounds", "1", "--steps", "1"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    for line in ("load average at start", "no block open anywhere",
                 "a block open in another thread", "ratio (block elsewhere / none)",
                 "load average at end"):
        assert line in text, text


def test_the_open_block_benchmark_refuses_nonsense_sizes():
    out = subprocess.run([sys.executable, str(BENCH), "--rounds", "0"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "must be at least 1" in out.stderr

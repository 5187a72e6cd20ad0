"""The ``micrograd`` command itself: help, version, and missing optional packages."""

import subprocess
import sys

from micrograd import __version__
from micrograd.cli import main


def test_help_lists_every_command(capsys):
    assert main([]) == 0
    out = capsys.readouterr().out
    for name in ("demo", "train", "graph", "serve"):
        assert name in out


def test_version(capsys):
    try:
        main(["--version"])
    except SystemExit as exit_:
        assert exit_.code == 0
    assert capsys.readouterr().out.strip() == f"micrograd {__version__}"


def _run_without(blocked, argv, tmp_path):
    """Run the CLI in a fresh interpreter in which ``blocked`` cannot be imported."""
    code = ("import sys\n"
            f"for name in {blocked!r}: sys.modules[name] = None\n"
            "from micrograd.cli import main\n"
            f"sys.exit(main({argv!r}))\n")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120)


def test_a_missing_extra_is_named_before_any_work(tmp_path):
    out = tmp_path / "out"
    r = _run_without(["numpy"], ["demo", "--out", str(out)], tmp_path)
    assert r.returncode == 1
    assert "needs the package 'numpy'" in r.stderr and ".[demo]'" in r.stderr
    assert "Traceback" not in r.stderr and not out.exists()  # refused before any work
    r = _run_without(["fastapi"], ["serve", "--port", "0"], tmp_path)
    assert r.returncode == 1 and ".[serve]'" in r.stderr


def test_a_missing_extra_on_a_rarer_path_is_a_message_not_a_traceback(tmp_path):
    # PNG drawing needs matplotlib; SVG does not
    r = _run_without(["matplotlib"], ["graph", "a = 2; b = a*a", "-o",
                                      str(tmp_path / "g.png")], tmp_path)
    assert r.returncode == 1 and "needs the package 'matplotlib'" in r.stderr
    assert "Traceback" not in r.stderr
    r = _run_without(["matplotlib"], ["graph", "a = 2; b = a*a", "-o",
                                      str(tmp_path / "g.svg")], tmp_path)
    assert r.returncode == 0 and (tmp_path / "g.svg").exists()


def test_options_decide_what_is_needed(tmp_path):
    # no progress bar and no GIF: the demo runs without tqdm
    r = _run_without(["tqdm"], ["demo", "--quick", "--no-progress", "--no-gif", "--out",
                                str(tmp_path / "d")], tmp_path)
    assert r.returncode == 0, r.stderr
    # the traced engine without NumPy: named, not a traceback
    r = _run_without(["numpy"], ["train", "--runner", "traced", "--no-plots", "--out",
                                 str(tmp_path / "t")], tmp_path)
    assert r.returncode == 1 and "needs the package 'numpy'" in r.stderr
    assert "Traceback" not in r.stderr
    # plots need matplotlib: refused before training, not after
    r = _run_without(["matplotlib"], ["train", "--epochs", "1", "--no-progress", "--out",
                                      str(tmp_path / "p")], tmp_path)
    assert r.returncode == 1 and "matplotlib" in r.stderr and not (tmp_path / "p").exists()

"""``micrograd gpt``: training, samples, weights saved and loaded, and every bad input
refused with one line on stderr and exit code 2, never a traceback."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from micrograd.cli import main
from micrograd.gpt.weights import load


def run_cli(argv, capsys):
    try:
        code = main(["gpt", *argv])
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def refused(code, err):
    """Exit 2 and one line on stderr, no traceback."""
    lines = [line for line in err.splitlines() if line.strip()]
    return code == 2 and len(lines) == 1 and "Traceback" not in err


def test_help_says_what_it_does(capsys):
    code, out, _ = run_cli(["--help"], capsys)
    assert code == 0
    for text in ("--steps N", "--names FILE", "--temperature T", "--samples N", "--load FILE",
                 "--save FILE", "--seed SEED", "--runner {eager,traced}", "recorded once",
                 "1990 US census", "exit codes"):
        assert text in out, text


def test_train_save_then_load_and_sample(tmp_path, capsys):
    path = tmp_path / "gpt.json"
    code, out, err = run_cli(["--steps", "2", "--samples", "3", "--no-progress", "--save",
                              str(path)], capsys)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("names: 5,163 from the packaged census list | vocab 27 | "
                               "4,192 parameters | 2 steps | seed 42 | runner eager")
    assert lines[1] == "step    1 /    2 | loss 3.3962"  # microgpt's first loss
    assert lines[2].startswith("step    2 /    2 | loss ")
    assert lines[3].startswith("trained 2 steps in ")
    assert f"wrote {path}" in lines
    assert "--- 3 samples at temperature 0.5 ---" in lines
    assert lines[-1].endswith("samples (" + lines[-1].split("(")[1].split(")")[0]
                              + ") are not in the names file")
    model, tok, meta = load(path)
    assert tok.chars == "abcdefghijklmnopqrstuvwxyz" and meta["steps"] == 2

    code, out2, _ = run_cli(["--load", str(path), "--samples", "4", "--prefix", "ma",
                             "--temperature", "0.8"], capsys)
    assert code == 0
    samples = [line.split(": ", 1)[1] for line in out2.splitlines()
               if line.startswith("sample ")]
    assert len(samples) == 4 and all(s.startswith("ma") for s in samples)
    assert "| 0 steps |" in out2 and "step " not in out2.replace("0 steps", "")
    # the same seed: the same samples
    assert run_cli(["--load", str(path), "--samples", "4", "--prefix", "ma",
                    "--temperature", "0.8"], capsys)[1] == out2


def write(tmp_path, data, name="names.txt"):
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


@pytest.mark.parametrize("data, message", [
    (b"", "no names in it"),
    (b"\x7fELF\x02\x01\x01\x00\x00\x00", "a binary file"),
    (b"\xff\xfeh\x00i\x00", "not UTF-8 text (it is UTF-16)"),
    ("ren\xe9e\n".encode("latin-1"), "not UTF-8 text (an invalid byte at offset 3)"),
    (b"anna\n" * (4 * 2**20 // 5 + 1), "larger than the cap of 4,194,304 bytes"),
])
def test_a_bad_names_file_gets_one_line_and_exit_2(tmp_path, capsys, data, message):
    code, out, err = run_cli(["--names", write(tmp_path, data), "--steps", "1"], capsys)
    assert refused(code, err) and message in err, err
    assert err.startswith("micrograd gpt: error: the names file ") and out == ""


def test_a_missing_names_file_and_a_folder(tmp_path, capsys):
    code, _, err = run_cli(["--names", str(tmp_path / "none.txt")], capsys)
    assert refused(code, err) and "no such file" in err
    code, _, err = run_cli(["--names", str(tmp_path)], capsys)
    assert refused(code, err) and "it is a folder" in err


def test_a_character_the_model_never_saw(tmp_path, capsys):
    path = tmp_path / "gpt.json"
    assert run_cli(["--steps", "1", "--no-samples", "--no-progress", "--save", str(path)],
                   capsys)[0] == 0
    names = write(tmp_path, "anna\nzoë\n".encode())
    code, out, err = run_cli(["--load", str(path), "--names", names, "--steps", "1"], capsys)
    assert refused(code, err) and "the character 'ë'" in err and "never saw" in err
    code, out, err = run_cli(["--load", str(path), "--prefix", "Ma"], capsys)
    assert refused(code, err) and "--prefix holds the character 'M'" in err
    code, out, err = run_cli(["--prefix", "abcdefghijklmnopq", "--steps", "0"], capsys)
    assert refused(code, err) and "the model's context holds 15" in err


def test_a_failed_load_changes_nothing(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "micrograd-gpt", "version": 1, "config": {}}')
    out_file = tmp_path / "out.json"
    out_file.write_text("keep me")
    code, out, err = run_cli(["--load", str(bad), "--save", str(out_file)], capsys)
    assert refused(code, err) and f"cannot load {str(bad)!r}" in err
    assert out_file.read_text() == "keep me" and sorted(os.listdir(tmp_path)) == [
        "bad.json", "out.json"]
    code, _, err = run_cli(["--load", str(tmp_path / "none.json")], capsys)
    assert refused(code, err) and "no model file" in err


@pytest.mark.parametrize("argv, message", [
    (["--runner", "lowered"], "invalid choice: 'lowered'"),
    (["--steps", "-1"], "must be at least 0"),
    (["--steps", "100001"], "must be at most 100,000"),
    (["--temperature", "0"], "must be > 0"),
    (["--temperature", "nan"], "must be finite"),
    (["--samples", "0"], "must be at least 1"),
    (["--seed", "x"], "must be a whole number"),
])
def test_options_out_of_range_are_refused(capsys, argv, message):
    code, _, err = run_cli(argv, capsys)
    assert code == 2 and message in err and "Traceback" not in err


def test_an_unwritable_save_is_refused_before_training(tmp_path, capsys):
    code, out, err = run_cli(["--save", str(tmp_path / "no" / "gpt.json")], capsys)
    assert code == 1 and "does not exist" in err and "step" not in out


def test_the_real_command_refuses_a_binary_file_without_a_traceback(tmp_path):
    names = write(tmp_path, bytes(range(256)))
    proc = subprocess.run([sys.executable, "-m", "micrograd", "gpt", "--names", names],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "a binary file (it holds NUL bytes)" in proc.stderr


def test_ctrl_c_stops_after_the_step_and_still_saves(tmp_path):
    path = tmp_path / "gpt.json"
    proc = subprocess.Popen([sys.executable, "-m", "micrograd", "gpt", "--steps", "500",
                             "--save", str(path), "--no-progress"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    seen = [proc.stdout.readline() for _ in range(3)]  # the header and two steps
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert seen[2].startswith("step    2 /  500 | loss ")
    assert proc.returncode == 130 and "Traceback" not in err
    done = json.loads(path.read_text())["meta"]["steps"]
    assert 2 <= done < 500 and f"trained {done} steps" in out and "samples" not in out

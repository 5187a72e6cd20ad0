"""``micrograd train``'s options that are fields of an experiment come from the fields'
declarations (``micrograd.experiment``; what the command line reads differently is the
declaration's ``cli=``): the flag, the default and range its ``--help`` shows, what it
refuses, the one validation and the one momentum rule."""

import re
from dataclasses import fields
from pathlib import Path
from types import MappingProxyType

import pytest

from micrograd.cli import build_parser, main
from micrograd.commands import train
from micrograd.commands.field_options import option_fields, shown_default
from micrograd.engine import Value
from micrograd.experiment import (Experiment, ExperimentError, declared, default_noise,
                                  range_text)
from micrograd.optim import SGD, momentum_rule

SRC = Path(__file__).resolve().parents[1] / "src" / "micrograd"


def run_cli(argv, capsys):
    try:
        code = main(argv)
    except SystemExit as exc:
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def help_blocks(capsys):
    """``micrograd train --help`` as ``{flag: its help, on one line}``."""
    code, out, _ = run_cli(["train", "--help"], capsys)
    assert code == 0
    blocks, flag = {}, None
    for line in out.splitlines():
        m = re.match(r"^  (--[\w-]+)", line)
        if m:
            flag = m.group(1)
            blocks[flag] = re.sub(r"^ ?\S*\s*", "", line[m.end():])  # less its metavar
        elif flag and line.startswith("   "):
            blocks[flag] += " " + line.strip()
        else:
            flag = None
    return {k: " ".join(v.split()) for k, v in blocks.items()}


def field(name):
    return next(f for f in fields(Experiment) if f.name == name)


def redeclare(monkeypatch, name, **cli):
    """Change what the command line reads of field ``name``, for this test."""
    f = field(name)
    meta = dict(f.metadata, cli={**f.metadata["cli"], **cli})
    monkeypatch.setattr(f, "metadata", MappingProxyType(meta))


# ---- the options are the declarations --------------------------------------------------

OPTIONS = ["--dataset", "--classes", "--noise", "--samples", "--seed", "--hidden",
           "--activation", "--loss", "--optimizer", "--momentum", "--nesterov",
           "--weight-decay", "--lr", "--batch-size", "--l2"]


def test_the_fields_on_the_command_line_are_the_options_it_always_had():
    assert [m["flag"] for m in option_fields()] == OPTIONS


def test_help_shows_each_fields_declared_default_and_range(capsys):
    blocks = help_blocks(capsys)
    for meta in option_fields():
        block = blocks[meta["flag"]]
        assert block.startswith(f"{meta['label']}: {meta['help']}"), block
        if meta["kind"] != "bool":
            assert f"default: {shown_default(meta)})" in block, block
        if meta["kind"] in ("int", "number"):
            assert f"({range_text(meta)};" in block, block


def test_the_command_lines_defaults_and_caps_are_written_in_the_declarations(capsys):
    """micrograd's demo (relu, 16,16) and a laptop's caps, beside the page's own."""
    blocks = help_blocks(capsys)
    assert "default: relu)" in blocks["--activation"]
    assert "(1 to 32 hidden layers of 1 to 4,096, 100,000 parameters in all; default: " \
           "16,16)" in blocks["--hidden"]
    assert "(more than 0 and at most 100; default: 1.0 for sgd, 0.01 for the others)" \
        in blocks["--lr"]
    page = {f.name: declared(f) for f in fields(Experiment)}
    assert (page["activation"]["default"], page["hidden"]["default"]) == ("tanh", [4, 2])
    assert (page["lr"]["max"], page["hidden"]["max_len"]) == (10, 6)
    cli = {m["name"]: m for m in option_fields()}
    assert (cli["activation"]["default"], cli["hidden"]["default"]) == ("relu", [16, 16])
    assert (cli["lr"]["max"], cli["hidden"]["max_len"]) == (100, 32)


def test_changing_a_declaration_changes_the_option(monkeypatch, capsys):
    redeclare(monkeypatch, "hidden", default=[8, 4, 2], max_len=3)
    redeclare(monkeypatch, "lr", max=5.0)
    blocks = help_blocks(capsys)
    assert "1 to 3 hidden layers" in blocks["--hidden"] and "default: 8,4,2)" in blocks[
        "--hidden"]
    assert "(more than 0 and at most 5;" in blocks["--lr"]
    parser = build_parser()
    assert parser.parse_args(["train"]).hidden == [8, 4, 2]
    code, _, err = run_cli(["train", "--lr", "6"], capsys)
    assert code == 2 and "argument --lr: must be more than 0 and at most 5, got 6" in err
    code, _, err = run_cli(["train", "--hidden", "2,2,2,2"], capsys)
    assert code == 2 and "argument --hidden: give 1 to 3 hidden layers, got 4" in err


def test_the_page_reads_none_of_the_command_lines_overrides():
    spec = Experiment.spec()
    assert all("cli" not in f and "flag" not in f for f in spec["fields"])
    by_name = {f["name"]: f for f in spec["fields"]}
    assert (by_name["activation"]["default"], by_name["lr"]["max"]) == ("tanh", 10)


# ---- what each option refuses, from its declaration ------------------------------------


def bad_values(meta):
    """Texts just outside the range the command line declares for a field."""
    if meta["kind"] == "ints":
        return [(",".join(["1"] * (meta["max_len"] + 1)),
                 f"give 1 to {meta['max_len']} {meta['label']}")]
    if meta["kind"] not in ("int", "number"):
        return []
    step = 1 if meta["kind"] == "int" else 0.5
    out = [(str(meta["min"] - (0 if meta.get("min_exclusive") else step)), None)]
    if meta.get("max") is not None:
        out.append((str(meta["max"] + (0 if meta.get("max_exclusive") else step)), None))
    return out


CASES = [(m["flag"], text, said) for m in option_fields() for text, said in bad_values(m)]


@pytest.mark.parametrize("flag, text, said", CASES, ids=[f"{f}={t[:12]}" for f, t, _ in CASES])
def test_a_value_outside_the_declared_range_is_refused_naming_the_option(capsys, flag, text,
                                                                          said):
    meta = next(m for m in option_fields() if m["flag"] == flag)
    code, out, err = run_cli(["train", flag, text, "--out", "never-written"], capsys)
    assert code == 2 and out == "" and "usage: micrograd train" in err
    said = said or f"must be {range_text(meta)}, got {text}"
    assert f"micrograd train: error: argument {flag}: {said}" in err


def test_the_cases_cover_every_bounded_option():
    assert {f for f, _, _ in CASES} == {
        "--classes", "--noise", "--samples", "--seed", "--hidden", "--momentum",
        "--weight-decay", "--lr", "--batch-size", "--l2"}


# ---- one validation, one rule ----------------------------------------------------------


def flag_of(name):
    return next((m["flag"] for m in option_fields() if m["name"] == name), name)


@pytest.mark.parametrize("settings, argv, page, cli", [
    ({"nesterov": True}, ["--nesterov"], "nesterov needs momentum > 0",
     "--nesterov needs --momentum > 0"),
    ({"momentum": 0.5, "optimizer": "adam"}, ["--momentum", "0.5", "--optimizer", "adam"],
     "momentum applies to optimizer sgd only, not adam",
     "--momentum applies to --optimizer sgd only, not adam"),
    ({"nesterov": True, "optimizer": "adam"}, ["--nesterov", "--optimizer", "adam"],
     "nesterov applies to optimizer sgd only, not adam",
     "--nesterov applies to --optimizer sgd only, not adam"),
])
def test_the_momentum_rule_gives_one_message_on_every_surface(capsys, settings, argv, page,
                                                              cli):
    setting, message = momentum_rule(**settings)
    assert message == page
    if "optimizer" not in settings:  # the optimizer itself knows only its own settings
        with pytest.raises(ValueError) as err:
            SGD([Value(1.0)], lr=0.1, **settings)
        assert str(err.value).startswith(message + " (setting ")
    with pytest.raises(ExperimentError) as err:  # the Playground's set-up
        Experiment.from_dict(settings)
    assert (str(err.value), err.value.field) == (message, setting)
    code, _, err_text = run_cli(["train", *argv], capsys)  # the same, naming options
    assert momentum_rule(**settings, name=flag_of)[1] == cli
    assert code == 2 and f"micrograd train: error: {cli}\n" in err_text


def test_the_nesterov_rule_is_written_once():
    """Nobody tests nesterov against the momentum or the dampening but
    ``checks.nesterov_rule``: ``optim.momentum_rule`` (SGD, the experiment's checks, the
    command line) and the traced runner's SGD update ask it."""
    rule = re.compile(r"\bnesterov\b[\]\"']*\s+and\b[^\n]*\b(momentum|dampening)\b"
                      r"[\]\"']*\s*(<=|!=)\s*0")
    found = sorted(p.relative_to(SRC).as_posix() for p in SRC.rglob("*.py")
                   if rule.search(p.read_text(encoding="utf-8").split('"""', 2)[-1]))
    assert found == ["checks.py"]


def test_the_command_line_counts_parameters_with_the_experiment():
    found = sorted(p.relative_to(SRC).as_posix() for p in SRC.rglob("*.py")
                   if re.search(r"^def count_parameters\b", p.read_text(encoding="utf-8"),
                                re.M))
    assert found == ["experiment/fields.py"]
    args = build_parser().parse_args(["train", "--dataset", "blobs", "--classes", "3",
                                      "--loss", "ce", "--hidden", "5,4"])
    assert train._parameters(args) == (2 + 1) * 5 + (5 + 1) * 4 + (4 + 1) * 3


def test_the_options_become_an_experiment_at_the_command_lines_defaults():
    parser = build_parser()
    exp = train.experiment_of(parser.parse_args(["train"]))
    assert (exp.dataset, exp.hidden, exp.activation, exp.loss, exp.lr, exp.l2) == (
        "moons", [16, 16], "relu", "hinge", 1.0, 1e-4)
    assert (exp.samples, exp.seed, exp.init_seed, exp.noise) == (100, 1337, 1337, 0.1)
    assert exp.bias_init == Experiment().bias_init  # not an option: the page's default
    assert exp.train_ratio == 0.75  # --test-fraction 0.25 of 100 points
    adam = train.experiment_of(parser.parse_args(["train", "--optimizer", "adam",
                                                  "--seed", "5"]))
    assert (adam.lr, adam.seed, adam.init_seed) == (0.01, 5, 5)
    digits = train.experiment_of(parser.parse_args(["train", "--dataset", "digits"]))
    assert (digits.samples, digits.classes, digits.noise) == (1797, 10, 0.0)


def test_from_options_takes_the_declared_defaults_and_follows():
    exp = Experiment.from_options({"optimizer": "adam", "seed": 9, "lr": None})
    assert (exp.lr, exp.init_seed, exp.activation) == (0.01, 9, "relu")
    assert Experiment.from_options({"lr": 0.5, "optimizer": "adam"}).lr == 0.5
    for name in ("moons", "blobs"):
        assert Experiment.from_options({"dataset": name}).noise == default_noise(name)

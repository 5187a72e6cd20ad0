"""The one field type: every set-up's field (an experiment's, a Walk's) is declared by
``micrograd.setup_field.declare``, and the surfaces that read it (the set-up's own check,
a request's fields, the HTTP schema, the command line) agree at its bounds."""

import ast
from dataclasses import dataclass, fields
from pathlib import Path

import pydantic
import pytest

from micrograd.experiment import Experiment, ExperimentError
from micrograd.setup_field import KINDS, declare, declared, request_terms
from micrograd.walk_setup import WalkSetup
from micrograd.web import schemas
from micrograd.web.handlers.errors import Failure
from micrograd.web.handlers.request_fields import Field, read

SRC = Path(__file__).resolve().parents[1] / "src" / "micrograd"
SETUPS = (Experiment, WalkSetup)


@pytest.mark.parametrize("cls", SETUPS, ids=lambda c: c.__name__)
def test_every_field_of_a_set_up_is_a_declaration(cls):
    for f in fields(cls):
        meta = declared(f)
        assert meta["kind"] in KINDS, f.name
        assert meta["name"] == f.name and isinstance(meta["url"], str) and meta["url"]
        assert isinstance(meta["label"], str) and meta["label"], f.name
        assert isinstance(meta["help"], str) and meta["help"], f.name


def test_only_the_field_type_declares_fields_with_metadata():
    """No second field system: a dataclass field with metadata is made in
    setup_field.py alone (wire.py reads a ``wire`` flag, it makes none)."""
    makers = []
    for path in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and any(k.arg == "metadata" for k in node.keywords):
                makers.append(path.relative_to(SRC).as_posix())
    assert sorted(set(makers)) == ["setup_field.py"]


def _scalar_bounds():
    """(set-up class, field, a value at a bound, a value just past it, whether a set-up
    can be at it) for every bound of every scalar field."""
    out = []
    for cls in SETUPS:
        for f in fields(cls):
            meta = declared(f)
            if meta["kind"] not in ("int", "number"):
                continue
            step = 1 if meta["kind"] == "int" else 1e-9
            for key, sign in (("min", -1), ("max", 1)):
                bound = meta.get(key)
                if bound is None:
                    continue
                inside = bound if not meta.get(f"{key}_exclusive") else bound - sign * step
                outside = bound if meta.get(f"{key}_exclusive") else bound + sign * step
                out.append(pytest.param(cls, f.name, inside, outside,
                                        (f.name, key) not in UNREACHABLE,
                                        id=f"{cls.__name__}.{f.name}.{key}"))
    return out


#: what an experiment needs beside a field at its bound for the combination rules to let
#: it be (5 classes: a set that has them, and a loss over classes)
CONTEXT = {"classes": {"dataset": "blobs", "loss": "ce"}}
#: bounds a combination always refuses: a batch is at most the training set, which
#: holds at most 0.9 of MAX_SAMPLES points
UNREACHABLE = {("batch_size", "max")}


def _set_up_accepts(cls, name, x):
    try:
        if cls is Experiment:
            Experiment.from_dict({**CONTEXT.get(name, {}), name: x})
        else:
            WalkSetup.from_dict({"preset": "lecture", name: x})
    except (ExperimentError, ValueError):
        return False
    return True


def _request_accepts(cls, name, x):
    meta = declared(next(f for f in fields(cls) if f.name == name))
    try:
        read((Field.declared(meta),), {name: x})
    except Failure:
        return False
    return True


def _schema_accepts(name, x):
    try:
        schemas.PlayConfigIn.model_validate({name: x})
    except pydantic.ValidationError:
        return False
    return True


@pytest.mark.parametrize("cls, name, inside, outside, reachable", _scalar_bounds())
def test_a_bound_is_the_same_bound_everywhere(cls, name, inside, outside, reachable):
    """At a field's bound the set-up's check, the request field made from the
    declaration and (for an experiment) the HTTP schema accept; just past it, all
    three refuse (an exclusive bound: at it)."""
    assert _request_accepts(cls, name, inside)
    assert _set_up_accepts(cls, name, inside) is reachable
    assert not _set_up_accepts(cls, name, outside)
    assert not _request_accepts(cls, name, outside)
    if cls is Experiment:
        assert _schema_accepts(name, inside) and not _schema_accepts(name, outside)


def test_an_exclusive_bound_reaches_the_request():
    """momentum < 1 (max_exclusive): 1 is refused by the request field and the schema,
    saying so."""
    meta = declared(next(f for f in fields(Experiment) if f.name == "momentum"))
    assert request_terms(meta)["lt"] == 1
    with pytest.raises(Failure, match="momentum: less than 1, got 1"):
        read((Field.declared(meta),), {"momentum": 1.0})
    assert not _schema_accepts("momentum", 1.0) and _schema_accepts("momentum", 0.99)


def test_a_list_field_s_sizes_reach_the_request_and_the_schema():
    hidden = declared(next(f for f in fields(Experiment) if f.name == "hidden"))
    terms = request_terms(hidden)
    assert (terms["min_items"], terms["max_items"]) == (hidden["min_len"], hidden["max_len"])
    for n, ok in ((0, False), (1, True), (hidden["max_len"], True),
                  (hidden["max_len"] + 1, False)):
        assert _schema_accepts("hidden", [1] * n) is ok, n
        assert _set_up_accepts(Experiment, "hidden", [1] * n) is ok, n


def test_the_command_line_reads_its_overrides():
    lr = next(f for f in fields(Experiment) if f.name == "lr")
    assert declared(lr)["max"] == 10 and declared(lr, "cli")["max"] == 100
    assert declared(lr, "cli")["flag"] == "--lr"
    step = next(f for f in fields(WalkSetup) if f.name == "step")
    assert declared(step, "cli") is None  # micrograd graph has no --step


def test_a_declaration_refuses_what_it_cannot_be():
    with pytest.raises(ValueError, match="no kind 'float'"):
        declare("float", 0.0, "x", "a number")
    with pytest.raises(ValueError, match="cannot override colour"):
        declare("int", 0, "x", "a number", cli={"colour": "red"})


def test_a_list_default_is_fresh_for_each_set_up():
    @dataclass
    class Demo:
        xs: list = declare("ints", [1, 2], "xs", "numbers", min_len=1, max_len=4)

    a, b = Demo(), Demo()
    a.xs.append(3)
    assert b.xs == [1, 2]

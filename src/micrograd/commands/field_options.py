"""The options of ``micrograd train`` that are fields of an experiment, made from the
fields' declarations (``micrograd.experiment``: each field's ``cli=`` says what the
command line reads differently): the flag, how its text is read, its default, range,
choices and help. An option's value is checked while it is parsed, by the experiment's
own checks against the declaration as the command line reads it, and a bad one is
refused by argparse with the option named (``argument --lr: must be ...``)."""

from __future__ import annotations

import argparse
from dataclasses import fields

from ..experiment import (Depends, Experiment, declared, item_problem, length_problem,
                          range_text, value_problem)
from .arg_types import number, whole

#: the command's help section of a field, by the page's group of the field
SECTIONS = {"data": "data", "network": "model", "features": "model", "act": "model"}
#: a field in a group not above: this section
OTHER_SECTION = "training"


def option_fields(cls=Experiment):
    """The command line's declarations (``declared(f, "cli")``) of the fields that
    are options, in the order of the class."""
    metas = (declared(f, "cli") for f in fields(cls))
    return [m for m in metas if m is not None and "same_as" not in m]


def add_field_options(sections, cls=Experiment):
    """Add an option for each field the command line offers, to ``sections[name]``
    (argparse groups, by the names of ``SECTIONS``' values)."""
    for meta in option_fields(cls):
        section = sections[SECTIONS.get(meta["group"], OTHER_SECTION)]
        section.add_argument(meta["flag"], **_argument(meta))


def shown_default(meta):
    """The default as the help writes it: ``16,16``, ``0.0001``, ``moons``, or the
    text of a default that follows another field."""
    x = meta["default"]
    if isinstance(x, Depends):
        return x.shown
    if isinstance(x, list):
        return ",".join(map(str, x))
    return f"{x:g}" if isinstance(x, float) else str(x)


def bounds_text(meta):
    """The declared range as the help writes it (empty for a choice or a switch)."""
    kind = meta["kind"]
    if kind in ("int", "number"):
        return range_text(meta)
    if kind == "ints":
        text = f"1 to {meta['max_len']} {meta['label']} of {range_text(meta)}"
        if "max_parameters" in meta:
            text += f", {meta['max_parameters']:,} parameters in all"
        return text
    return ""


def help_text(meta):
    """``label: help (range; default: ...)``, all from the declaration."""
    text = f"{meta['label']}: {meta['help']}"
    if meta["kind"] == "bool":
        return text
    bounds = bounds_text(meta)
    return text + f" ({bounds + '; ' if bounds else ''}default: {shown_default(meta)})"


def _argument(meta):
    """``add_argument``'s keywords for one field."""
    kind = meta["kind"]
    kw = {"help": help_text(meta).replace("%", "%%")}
    if kind == "bool":
        if meta["default"] is not False:
            raise ValueError(f"{meta['flag']}: a switch is off unless given")
        return dict(kw, action="store_true")
    default = meta["default"]
    kw["default"] = None if isinstance(default, Depends) else default  # None: not given
    if "metavar" in meta:
        kw["metavar"] = meta["metavar"]
    if kind == "choice":
        kw["choices"] = meta["choices"]
    elif kind in ("int", "number"):
        kw["type"] = _value_reader(meta)
    elif kind == "ints":
        kw["type"] = _list_reader(meta)
    else:
        raise ValueError(f"{meta['flag']}: no command-line option of the kind {kind!r}")
    return kw


def _value_reader(meta):
    """An argparse type: a whole number or a number, then its declared range."""
    def read(text):
        x = whole(text) if meta["kind"] == "int" else number(text, "value")
        problem = value_problem(meta, x, text)
        if problem:
            raise argparse.ArgumentTypeError(problem)
        return x

    read.__name__ = meta["name"]  # argparse names the type in some messages
    return read


def _list_reader(meta):
    """An argparse type: ``"16,16"`` -> [16, 16], each item in the declared range
    (a bad one pointed at), and the declared number of items."""
    example = shown_default(meta)

    def read(text):
        items = []
        for i, item in enumerate(text.split(","), 1):
            try:
                n = whole(item)
            except argparse.ArgumentTypeError:
                raise argparse.ArgumentTypeError(
                    f"item {i} of {text!r} is {item.strip()!r}, not a whole number (write "
                    f"them like {example})") from None
            problem = item_problem(meta, n)
            if problem:
                raise argparse.ArgumentTypeError(f"item {i} of {text!r}: {problem}")
            items.append(n)
        problem = length_problem(meta, items)
        if problem:
            raise argparse.ArgumentTypeError(problem)
        return items

    read.__name__ = meta["name"]
    return read

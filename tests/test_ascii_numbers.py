"""Numbers in text are ASCII, everywhere text becomes a number: a link (the Playground's
and the Walk's), a Host header's port, the expression language, a CSV file. Python's
``float()``, ``int()``, ``str.isdigit()`` and a pattern's ``\\d`` all take the digits of
other scripts ('١', '１', '²'): read silently as other numbers, or failing later with a
bare ValueError. And an error message cut to its cap is cut once."""

import json

import pytest

from micrograd import urltext
from micrograd.expr import ExprError, parse
from micrograd.experiment import Experiment, ExperimentError
from micrograd.points_csv import PointsError, read_points
from micrograd.walk_setup import WalkSetup, WalkSetupError
from micrograd.web.handlers.errors import Failure, cut_message
from micrograd.web.limits import MAX_ERROR_CHARS
from micrograd.web.routers.answers import respond
from micrograd.web.server.guard import split_host

# digits of other scripts: Arabic-Indic, fullwidth, Devanagari, a superscript
OTHER_DIGITS = ["١", "１", "३", "²"]


@pytest.mark.parametrize("d", OTHER_DIGITS)
def test_the_number_patterns_take_ascii_digits_only(d):
    for pattern in (urltext.NUMBER, urltext.UNSIGNED_NUMBER, urltext.WHOLE_NUMBER):
        assert pattern.fullmatch("12")
        assert not pattern.fullmatch(d) and not pattern.fullmatch("1" + d)


@pytest.mark.parametrize("d", OTHER_DIGITS)
def test_a_playground_link_refuses_digits_of_other_scripts(d):
    assert Experiment.from_url({"lr": "0.5"}).lr == 0.5
    for key, text in (("lr", f"0.{d}"), ("seed", d), ("n", f"1{d}0"), ("pts", f"1:{d}:0")):
        with pytest.raises(ExperimentError, match="must be a"):
            Experiment.from_url({key: text})


@pytest.mark.parametrize("d", OTHER_DIGITS)
def test_a_walk_link_refuses_digits_of_other_scripts(d):
    assert WalkSetup.from_url({"preset": "lecture", "v": "a:3", "step": "2"}).step == 2
    with pytest.raises(WalkSetupError, match="the value of a must be a number"):
        WalkSetup.from_url({"preset": "lecture", "v": f"a:{d}"})
    with pytest.raises(WalkSetupError, match="step must be a whole number"):
        WalkSetup.from_url({"preset": "lecture", "step": d})


@pytest.mark.parametrize("d", OTHER_DIGITS)
def test_a_host_header_with_a_port_of_other_digits_is_no_host(d):
    assert split_host("localhost:8000") == ("localhost", 8000)
    assert split_host(f"localhost:80{d}") is None  # the guard answers 400, as for any bad host


@pytest.mark.parametrize("d", OTHER_DIGITS)
def test_the_expression_language_and_a_csv_file_refuse_them_too(d):
    with pytest.raises(ExprError):
        parse(f"a = {d}; b = a * 2")
    with pytest.raises(PointsError, match="line 1, field x1"):
        read_points(f"{d},0.5,1\n")


def test_a_message_cut_once_is_not_cut_again_and_keeps_its_true_length():
    long = "x" * 5000
    once = cut_message(long)
    assert len(once) <= MAX_ERROR_CHARS and once.endswith("(message cut: 5000 characters)")
    assert cut_message(once) == once
    # a handler's failure, sent over HTTP: cut where it is made, not again on the way out
    answer = respond({"ok": False, "error": Failure("refused", long).data()})
    body = json.loads(answer.body)
    assert body["error"] == once and answer.status_code == 400
    assert cut_message("short") == "short"
    assert len(cut_message("y" * 100, n=60)) == 60

"""What the Playground page knows of an experiment it reads from ``Experiment.spec()``
(``/api/meta``): the groups of controls (their order, text and place), your own data
sets, the regression sets' loss, the seeds' range; the picture of a loss's output is read
from the loss's own description. The page's modules repeat none of it.

The page drawing from a changed catalogue is tests/test_play_spec_browser.py."""

import math
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from micrograd import losses
from micrograd.experiment import Experiment, ExperimentError
from micrograd.experiment.fields import GROUPS, REGRESSION_LOSS
from micrograd.web import limits
from micrograd.web.play_pictures import boundary

STATIC = Path(__file__).resolve().parent.parent / "src" / "micrograd" / "web" / "static"


def test_the_spec_lists_the_groups_in_the_pages_order_each_with_its_text_and_place():
    spec = Experiment.spec()
    assert [g["name"] for g in spec["groups"]] == ["data", "network", "features", "lr",
                                                    "act", "reg", "loss", "opt"]
    by = {g["name"]: g for g in spec["groups"]}
    assert by["data"] == {"name": "data", "text": "data set and its settings",
                          "place": "data"}
    assert by["features"]["place"] is None and by["opt"]["place"] == "bar"
    used = {f["group"] for f in spec["fields"]}
    assert used == set(by)  # every field in a group, every group with fields


def test_a_field_goes_to_its_groups_place_unless_it_names_its_own():
    fields = {f["name"]: f for f in Experiment.spec()["fields"]}
    places = {g["name"]: g["place"] for g in Experiment.spec()["groups"]}
    assert fields["batch_size"]["group"] == "data" and fields["batch_size"]["place"] == "bar"
    moved = [n for n, f in fields.items() if f["place"] != places[f["group"]]]
    assert moved == ["batch_size"]
    assert fields["hidden"]["place"] == "network" and fields["lr"]["place"] == "bar"


def test_the_spec_names_the_regression_loss_the_check_holds_a_regression_set_to():
    spec = Experiment.spec()
    assert spec["regression_loss"] == REGRESSION_LOSS in losses.LOSSES
    assert spec["losses"][REGRESSION_LOSS]["output_activation"] == "tanh"
    Experiment.from_dict({"dataset": "plane", "loss": spec["regression_loss"]})
    with pytest.raises(ExperimentError, match=f"loss must be {REGRESSION_LOSS!r}"):
        Experiment.from_dict({"dataset": "plane", "loss": "hinge"})


def test_the_seeds_range_is_the_init_seed_fields():
    fields = {f["name"]: f for f in Experiment.spec()["fields"]}
    top = fields["init_seed"]["max"]
    Experiment.from_dict({"init_seed": top})
    with pytest.raises(ExperimentError):
        Experiment.from_dict({"init_seed": top + 1})


def one_output(loss_spec, scores):
    """The boundary of a one-output network whose grid scores are ``scores``."""
    session = SimpleNamespace(k=1, extent=(-1.0, 1.0, -1.0, 1.0), loss_spec=loss_spec)
    return boundary(session, scores)["values"]


@pytest.mark.parametrize("name", list(losses.LOSSES))
def test_the_boundary_reads_the_losss_labels_not_its_name(name):
    spec = losses.LOSSES[name]
    if spec.outputs != "one":
        return
    scores = [-3.0, -0.5, 0.0, 0.25, 2.0] + [0.0] * (limits.GRID * limits.GRID - 5)
    # the same loss under another name draws the same
    renamed = losses.LossSpec("mine", spec.fn, spec.labels, spec.outputs, spec.doc,
                              spec.sample, spec.output_activation, spec.wants)
    got = one_output(renamed, scores)[:5]
    assert got == one_output(spec, scores)[:5]
    if spec.labels == "01":  # a logit: 2 sigmoid(z) - 1
        assert got == [round(math.tanh(z / 2), 4) for z in scores[:5]]
    else:  # a score on the -1/+1 scale, cut there
        assert got == [-1.0, -0.5, 0.0, 0.25, 1.0]


# ---------------------------------------------------------------------------------------
# the page's modules repeat none of it
# ---------------------------------------------------------------------------------------

def source(name):
    """A module of the page without its comments."""
    text = (STATIC / name).read_text()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"(?m)^\s*//.*$|\s//\s.*$", "", text)


def test_the_playground_names_no_data_set_loss_or_seed_limit_of_its_own():
    for name in ("play_data.js", "playground.js", "play_controls.js"):
        code = source(name)
        for word in ('"own"', '"own_regression"', *(f'"{k}"' for k in losses.LOSSES),
                     "2147483647", "2 ** 31", "2**31"):
            assert word not in code, (name, word)


def test_the_controls_hold_no_group_of_the_spec():
    code = source("play_controls.js")
    for key, group in GROUPS.items():
        assert f'"{group.text}"' not in code, group.text
        if key not in ("data", "network"):  # (the names of two places too)
            assert not re.search(rf'\b{re.escape(key)}: |"{re.escape(key)}"', code), key
    assert "batch_size" not in code


def test_numbers_are_formatted_in_one_place():
    users = [p.name for p in STATIC.glob("*.js") if "toPrecision(" in source(p.name)]
    assert users == ["format.js"]

"""What one change of a set-up implies (``micrograd.experiment.changes``): each rule, the
exact patch it answers (each test names the small wrong version of its rule it fails), the
rules read from the registries, and the same set-ups the page's own rules gave before
they moved here (that JavaScript kept below as the reference, run in node over every
data set, loss, class count and kind of points)."""

import ast
import dataclasses
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from micrograd import data, losses
from micrograd.experiment import Experiment, ExperimentError
from micrograd.experiment import changes
from micrograd.experiment.changes import PAGE_FIELDS, implied, makes_own
from micrograd.experiment.fields import DATASETS, MULTICLASS, OWN, REGRESSION, REGRESSION_LOSS

ADDED = [[0.25, -0.5, 1], [1.5, 0.125, -1]]
MINE = [[0.5, 0.5, 1], [-0.5, -0.5, -1], [0.6, 0.4, 1], [-0.4, -0.6, -1],
        [0.7, 0.2, 1], [-0.3, -0.8, -1]]
#: the first loss on one output per class, and the loss field's default
PER_CLASS = next(n for n, s in losses.LOSSES.items() if s.outputs == "classes")
DEFAULT_LOSS = Experiment().loss
ONE_OUTPUT = {s.labels: n for n, s in losses.LOSSES.items() if s.outputs == "one"}


def setup(**kw):
    return Experiment.from_dict(kw)


def with_labels(points, labels):
    return [[x, y, v] for (x, y, _), v in zip(points, labels)]


# ---------------------------------------------------------------------------------------
# a new data set
# ---------------------------------------------------------------------------------------

def test_a_new_data_set_starts_without_hand_edits_or_your_points():
    # mutants: any of the three lists kept
    exp = setup(dataset="disk", added=ADDED, removed=[3])
    assert implied(exp, "dataset", "moons") == {"dataset": "moons", "added": [],
                                                 "removed": [], "points": [], "classes": 2}
    mine = setup(dataset="own", points=MINE)
    assert implied(mine, "dataset", "spiral")["points"] == []


def test_a_regression_set_trains_with_its_loss_and_two_classes():
    # mutants: the regression loss left out; the test "in REGRESSION" turned round (its
    # 2 classes are a set's that takes no class count)
    assert not set(REGRESSION) & set(MULTICLASS)
    exp = setup(dataset="spiral", classes=3, loss=PER_CLASS)
    got = implied(exp, "dataset", REGRESSION[0])
    assert got == {"dataset": REGRESSION[0], "added": [], "removed": [], "points": [],
                   "loss": REGRESSION_LOSS, "classes": 2}
    assert "loss" not in implied(setup(dataset="disk", loss="hinge"), "dataset", "moons")


def test_leaving_a_regression_set_the_loss_goes_back_to_its_default():
    # mutant: the forced loss kept (the same today, as the default is the regression
    # loss: the patch says it)
    got = implied(setup(dataset="plane"), "dataset", "spiral")
    assert got["loss"] == DEFAULT_LOSS and "classes" not in got
    assert implied(setup(dataset="plane"), "dataset", "gaussians")["loss"] == REGRESSION_LOSS


def test_a_set_that_takes_no_class_count_has_two_classes():
    # mutants: "not in MULTICLASS" turned round, or the rule gone
    exp = setup(dataset="spiral", classes=3, loss=PER_CLASS)
    two = [d for d in data.DATASETS if d not in MULTICLASS]
    assert two and all(implied(exp, "dataset", d)["classes"] == 2 for d in two)
    assert all("classes" not in implied(exp, "dataset", d) for d in MULTICLASS)


def test_a_data_set_of_your_own_is_made_from_the_page():
    # mutants: another field, or another set, taken for your own
    assert [d for d in data.DATASETS if makes_own("dataset", d)] == []
    assert all(makes_own("dataset", d) for d in OWN)
    assert not makes_own("loss", OWN[0])
    assert implied(setup(dataset="plane"), "dataset", OWN[1])["loss"] == REGRESSION_LOSS


# ---------------------------------------------------------------------------------------
# new points
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("name, value", [("samples", 100), ("seed", 5)])
def test_new_points_drop_the_hand_edits(name, value):
    # mutants: one of samples and seed left out of the rule
    exp = setup(added=ADDED, removed=[3])
    assert implied(exp, name, value) == {name: value, "added": [], "removed": []}


def test_other_fields_imply_nothing():
    exp = setup(added=ADDED, removed=[3])
    for name, value in [("noise", 0.2), ("train_ratio", 0.7), ("hidden", [3, 3]),
                        ("lr", 0.5), ("init_seed", 4), ("optimizer", "adam")]:
        assert implied(exp, name, value) == {name: value}


# ---------------------------------------------------------------------------------------
# the number of classes
# ---------------------------------------------------------------------------------------

def test_three_classes_switch_to_a_loss_per_class():
    # mutants: "> 2" as ">= 2"; another loss than the first per-class one; the switch
    # made from a per-class loss too
    exp = setup(dataset="spiral", loss="hinge")
    assert implied(exp, "classes", 3) == {"classes": 3, "loss": PER_CLASS}
    assert implied(exp, "classes", 5) == {"classes": 5, "loss": PER_CLASS}
    assert implied(setup(dataset="spiral", loss=PER_CLASS), "classes", 3) == {"classes": 3}
    assert implied(exp, "classes", 2) == {"classes": 2}


def test_the_loss_per_class_is_the_first_of_the_registry(monkeypatch):
    # mutant: another per-class loss than the first
    exp = setup(dataset="spiral")
    spec = losses.LOSSES[PER_CLASS]
    later = losses.LossSpec("later", spec.fn, spec.labels, spec.outputs, spec.doc)
    monkeypatch.setitem(losses.LOSSES, "later", later)
    assert implied(exp, "classes", 3)["loss"] == PER_CLASS
    monkeypatch.setattr(losses, "LOSSES", {"first": later, **losses.LOSSES})
    assert implied(exp, "classes", 3)["loss"] == "first"


def test_the_default_loss_is_read_from_its_declaration(monkeypatch):
    # mutant: the regression loss (today the default too) taken for the default
    exp = setup(dataset="spiral", classes=3, loss=PER_CLASS)
    (loss,) = [f for f in dataclasses.fields(Experiment) if f.name == "loss"]
    monkeypatch.setattr(loss, "default", "hinge")
    assert implied(exp, "classes", 2)["loss"] == "hinge"
    assert implied(setup(dataset="plane"), "dataset", "moons")["loss"] == "hinge"


def test_back_to_two_classes_the_default_loss():
    # mutants: "== 2" as "<= 2" (a count below 2 is refused, never switched); the
    # default read from another field; the switch made from a one-output loss too
    exp = setup(dataset="spiral", classes=3, loss=PER_CLASS)
    assert implied(exp, "classes", 2) == {"classes": 2, "loss": DEFAULT_LOSS}
    assert implied(exp, "classes", 2.0) == {"classes": 2.0, "loss": DEFAULT_LOSS}
    assert implied(exp, "classes", 1) == {"classes": 1}
    assert implied(exp, "classes", 4) == {"classes": 4}


@pytest.mark.parametrize("value", [None, "3", True, float("nan"), float("inf"), [3]])
def test_a_count_that_is_no_number_is_passed_on_for_the_check_to_refuse(value):
    # mutant: a bool or an infinity read as a number
    exp = setup(dataset="spiral", classes=3, loss=PER_CLASS)
    assert implied(exp, "classes", value) == {"classes": value}
    assert implied(setup(dataset="spiral"), "classes", value) == {"classes": value}


# ---------------------------------------------------------------------------------------
# a new loss: the points keep their class
# ---------------------------------------------------------------------------------------

def test_points_added_by_hand_keep_their_class_in_the_new_losss_labels():
    # mutants: "> 0" as ">= 0"; the indices' 0 as -1; a one-output loss's 0/1 used for
    # points added by hand (the check holds them to -1/+1)
    exp = setup(added=[[0.1, 0.2, 1], [0.3, 0.4, -1]], removed=[3])
    assert implied(exp, "loss", PER_CLASS)["added"] == [[0.1, 0.2, 1], [0.3, 0.4, 0]]
    assert implied(exp, "loss", ONE_OUTPUT["01"])["added"] == [[0.1, 0.2, 1],
                                                                [0.3, 0.4, -1]]
    indexed = setup(added=[[0.1, 0.2, 1], [0.3, 0.4, 0]], loss=PER_CLASS)
    assert implied(indexed, "loss", "hinge") == {"loss": "hinge", "added": [[0.1, 0.2, 1],
                                                                            [0.3, 0.4, -1]]}


def test_no_new_loss_no_new_labels():
    # mutant: the labels rewritten when the loss stays
    exp = setup(added=ADDED)
    assert implied(exp, "loss", exp.loss) == {"loss": exp.loss}
    assert implied(exp, "loss", "no such loss") == {"loss": "no such loss"}


def test_more_than_two_classes_keep_the_labels_of_added_points():
    # mutant: the classes counted from the set-up before the change
    exp = setup(dataset="spiral", loss="hinge", added=[[0.1, 0.2, 1], [0.3, 0.4, -1]])
    assert implied(exp, "classes", 3) == {"classes": 3, "loss": PER_CLASS}
    three = setup(dataset="spiral", classes=3, loss=PER_CLASS, added=[[0.1, 0.2, 2]])
    assert implied(three, "loss", "mse") == {"loss": "mse"}
    back = setup(dataset="spiral", classes=3, loss=PER_CLASS, added=[[0.1, 0.2, 1]])
    assert implied(back, "classes", 2) == {"classes": 2, "loss": DEFAULT_LOSS,
                                           "added": [[0.1, 0.2, 1]]}


def test_a_new_data_set_brings_no_point_back():
    # mutant: the points added to the set before, relabelled, carried to the new set
    # when its loss is another (the page's own rule did, for a loss other than the
    # regression loss)
    exp = setup(dataset="disk", loss="hinge", added=ADDED)
    assert implied(exp, "dataset", REGRESSION[0])["added"] == []


def test_your_points_carry_the_new_losss_own_labels():
    # mutants: the 01 loss's 0 as -1; a class index above 1 not kept
    exp = setup(dataset="own", points=MINE)
    got = implied(exp, "loss", ONE_OUTPUT["01"])
    assert got == {"loss": ONE_OUTPUT["01"], "points": with_labels(MINE, [1, 0] * 3)}
    assert implied(exp, "loss", PER_CLASS)["points"] == with_labels(MINE, [1, 0] * 3)
    zero_one = setup(dataset="own", loss=ONE_OUTPUT["01"],
                     points=with_labels(MINE, [1, 0] * 3))
    assert implied(zero_one, "loss", "mse")["points"] == MINE
    three = setup(dataset="own", classes=3, loss=PER_CLASS,
                  points=with_labels(MINE, [2, 0, 1, 0, 1, 0]))
    # back to two classes: the index 2 stays, for the check to refuse
    assert implied(three, "classes", 2)["points"] == with_labels(MINE, [2, -1, 1, -1, 1, -1])
    with pytest.raises(ExperimentError):
        Experiment.from_dict({**three.to_dict(), **implied(three, "classes", 2)})


def test_your_points_of_more_classes_are_relabelled_only_from_one_output():
    # mutant: "two or old != INDEX" as "two and ..." / the test left out
    exp = setup(dataset="own", points=MINE)
    assert implied(exp, "classes", 3) == {"classes": 3, "loss": PER_CLASS,
                                          "points": with_labels(MINE, [1, 0] * 3)}
    three = setup(dataset="own", classes=3, loss=PER_CLASS,
                  points=with_labels(MINE, [2, 0, 1, 0, 1, 0]))
    assert implied(three, "loss", "mse") == {"loss": "mse"}


def test_regression_targets_are_no_labels():
    # mutant: your points of a regression set relabelled as classes
    exp = setup(dataset=OWN[1], points=[[0.1, 0.2, 0.5], [0.3, 0.4, -0.25]] * 3)
    assert implied(exp, "loss", "hinge") == {"loss": "hinge"}


# ---------------------------------------------------------------------------------------
# read from the registries and the declarations
# ---------------------------------------------------------------------------------------

def test_the_rules_name_no_data_set_or_loss_of_their_own():
    tree = ast.parse(Path(changes.__file__).read_text())
    words = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)
             and isinstance(n.value, str)}
    names = set(data.DATASETS) | set(data.REGRESSION) | set(OWN) | set(losses.LOSSES)
    assert not words & names, words & names


def test_the_pages_own_fields_are_fields_of_the_set_up():
    names = {f["name"] for f in Experiment.spec()["fields"]}
    for part, field in PAGE_FIELDS.items():
        assert set([field] if isinstance(field, str) else field) <= names, part
    assert len(set(map(str, PAGE_FIELDS.values()))) == len(PAGE_FIELDS)


# ---------------------------------------------------------------------------------------
# the same set-ups as the page's own rules gave
# ---------------------------------------------------------------------------------------

#: the page's fieldChanged as it was before the rules moved here, a plain function over
#: the catalogue (spec), the accepted set-up and the change; "own" where it went on to
#: take your own points from the page
PAGE_RULES = r"""
function fieldChanged(spec, a, name, v) {
  const lossSpec = (n) => spec.losses[n];
  const perClass = (cfg) => lossSpec(cfg.loss).outputs === "classes";
  const patch = { [name]: v };
  const losses = Object.entries(spec.losses);
  const lossField = spec.fields.find((f) => f.name === "loss");
  if (name === "dataset" && spec.own.includes(v)) return "own";
  if (name === "dataset") {
    if (spec.regression.includes(v)) { patch.loss = spec.regression_loss; patch.classes = 2; }
    if (!spec.multiclass.includes(v)) patch.classes = 2;
    patch.added = []; patch.removed = []; patch.points = [];
  }
  if (name === "samples" || name === "seed") { patch.added = []; patch.removed = []; }
  if (name === "classes" && v > 2 && !perClass(a)) {
    patch.loss = losses.find(([, l]) => l.outputs === "classes")[0];
  }
  if (name === "classes" && v === 2 && perClass(a)) patch.loss = lossField.default;
  const loss = patch.loss || a.loss;
  if (loss !== a.loss) {
    const to = lossSpec(loss).labels, from = lossSpec(a.loss).labels;
    const binary = (patch.classes || a.classes) === 2;
    if (a.added.length && binary) {
      patch.added = a.added.map(([x, y, l]) =>
        [x, y, to === "index" ? (l > 0 ? 1 : 0) : (l > 0 ? 1 : -1)]);
    }
    const own = a.points.length && !patch.points && !spec.regression.includes(a.dataset);
    if (own && (binary || from !== "index")) {
      const zero = to === "pm1" ? -1 : 0;
      patch.points = a.points.map(([x, y, l]) =>
        [x, y, from === "index" && l > 1 ? l : l > 0 ? 1 : zero]);
    }
  }
  return patch;
}
const { spec, cases } = JSON.parse(require("fs").readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(cases.map(([a, name, v]) => fieldChanged(spec, a, name, v))));
"""


def accepted_set_ups():
    """Set-ups the Python side accepts, of every kind the rules tell apart."""
    out = []
    for dataset in ("disk", "spiral", "plane", *OWN):
        for loss in losses.LOSSES:
            for classes in (2, 3):
                for added in ([], ADDED, [[0.1, 0.2, 0], [0.3, 0.4, 1]], [[0.1, 0.2, 2]]):
                    for points in ([], MINE, with_labels(MINE, [1, 0] * 3),
                                   with_labels(MINE, [0, 1, 2, 0, 1, 2]),
                                   with_labels(MINE, [0.5, -0.5, 0.25] * 2)):
                        try:
                            out.append(Experiment.from_dict(dict(
                                dataset=dataset, loss=loss, classes=classes, added=added,
                                points=points, removed=[] if points else [1])))
                        except ExperimentError:
                            pass
    return out


CHANGES = ([("dataset", d) for d in DATASETS]
           + [("classes", k) for k in (2, 3, 4, None, 2.5)]
           + [("loss", n) for n in losses.LOSSES]
           + [("samples", 100), ("seed", 5), ("noise", 0.2), ("hidden", [3])])


def test_the_same_set_ups_as_the_pages_own_rules_gave(tmp_path):
    node = shutil.which("node")
    assert node, "node (20 or later) is part of the test set-up: apt-get install nodejs"
    set_ups = accepted_set_ups()
    assert len(set_ups) > 40
    runs = [(exp, name, value) for exp in set_ups for name, value in CHANGES]
    cases = [(exp.to_dict(), name, value) for exp, name, value in runs]
    script = tmp_path / "rules.cjs"
    script.write_text(PAGE_RULES)
    done = subprocess.run([node, str(script)], capture_output=True, text=True, timeout=120,
                          input=json.dumps({"spec": Experiment.spec(), "cases": cases}))
    assert done.returncode == 0, done.stderr[-2000:]
    fixed = 0
    for (exp, _, _), (a, name, value), page in zip(runs, cases, json.loads(done.stdout)):
        if page == "own":
            assert makes_own(name, value)
            continue
        assert not makes_own(name, value)
        got = {**a, **implied(exp, name, value)}
        want = {**a, **page}
        if name == "dataset" and want["added"] != got["added"] == []:
            # the page's rule carried the points added to the set before to the new one
            # when the new set's loss was another: a new data set drops them
            fixed += 1
            want["added"] = []
        assert got == want, (a, name, value)
    assert fixed  # the one difference, on purpose

"""micrograd.experiment: one set-up, one validation, its links (old ones included), the
page's spec, and build() equal to what the Playground built before."""

import json
import math
from dataclasses import fields as dataclass_fields
from urllib.parse import parse_qsl

import pytest

from micrograd import data, losses, nn, optim
from micrograd.urltext import js_number
from micrograd.experiment import (DATASETS, FEATURES, MAX_EDITS, MAX_LAYERS, MAX_NEURONS,
                                  MAX_PARAMETERS, MAX_SAMPLES, Experiment, ExperimentError,
                                  build, check_combinations, declared, make_model,
                                  make_optimizer, penalty)
from micrograd.experiment.fields import OWN, declare


def query(text):
    """A link's query as the page's URLSearchParams reads it."""
    return dict(parse_qsl(text, keep_blank_values=True))


# ---- links the page already wrote (playground.js's P_URL) open the same set-up --------

# what the page's writeUrl put in the address (URLSearchParams' text, byte for byte) for its
# default set-up, a 3-class spiral with SGD momentum and hand edits, a regression set with
# Adam, and blobs with noise, the binary cross-entropy, hand edits and a tie in the
# split (25 * 0.5 = 12.5 test points)
OLD_DEFAULT = ("page=play&ds=circle&k=2&noise=0&n=200&ratio=0.5&seed=1&feat=x1%2Cx2"
               "&hidden=4%2C2&act=tanh&loss=mse&opt=sgd&lr=0.1&batch=0&l1=0&l2=0&iseed=0"
               "&test=0&zl=0&hide=reg")
OLD_SPIRAL = ("page=play&ds=spiral&k=3&noise=0.1&n=150&ratio=0.6&seed=4"
              "&feat=x1%2Cx2%2Csin+x1&hidden=6%2C3&act=relu&loss=ce&opt=momentum&lr=0.05"
              "&batch=16&l1=0.001&l2=0&iseed=2&add=0.5%3A0.5%3A2%3B-1%3A1.25%3A0&rm=3%2C7"
              "&pt=0.1%3A0.2")
OLD_REGRESSION = ("page=play&ds=gaussians&k=2&noise=0.05&n=300&ratio=0.7&seed=9"
                  "&feat=x1%2Cx2%2Cx1*x2&hidden=8&act=tanh&loss=mse&opt=adam&lr=0.01"
                  "&batch=0&l1=0&l2=0.0001&iseed=5&add=0%3A0%3A-0.5")
OLD_BLOBS = ("page=play&ds=blobs&k=2&noise=0.3&n=25&ratio=0.5&seed=1&feat=x1%2Cx2&hidden=3"
             "&act=tanh&loss=bce&opt=sgd&lr=1e-7&batch=0&l1=0&l2=0&iseed=0"
             "&add=1%3A1%3A1%3B0.25%3A-2%3A-1&rm=0")
OLD_LINKS = [OLD_DEFAULT, OLD_SPIRAL, OLD_REGRESSION, OLD_BLOBS]


def test_old_links_read_aliases():
    e = Experiment.from_url(query(OLD_DEFAULT))
    assert e == Experiment()
    assert e.dataset == "disk" and e.optimizer == "sgd" and e.momentum == 0.0
    s = Experiment.from_url(query(OLD_SPIRAL))
    assert (s.dataset, s.classes, s.optimizer, s.momentum) == ("spiral", 3, "sgd", 0.9)
    assert s.features == ["x1", "x2", "sin x1"] and s.hidden == [6, 3]
    assert s.added == [[0.5, 0.5, 2], [-1.0, 1.25, 0]] and s.removed == [3, 7]
    r = Experiment.from_url(query(OLD_REGRESSION))
    assert r.dataset == "gaussians" and r.added == [[0.0, 0.0, -0.5]]


# The Playground's set-up path as it was before micrograd.experiment (web/playground.py's
# PlayConfig, make_points and reset, and playground.js's startFromUrl), transcribed as the
# reference that old links must keep meaning.
P_URL = {"dataset": "ds", "classes": "k", "noise": "noise", "samples": "n",
         "train_ratio": "ratio", "seed": "seed", "features": "feat", "hidden": "hidden",
         "activation": "act", "loss": "loss", "optimizer": "opt", "lr": "lr",
         "batch_size": "batch", "l1": "l1", "l2": "l2", "init_seed": "iseed",
         "added": "add", "removed": "rm"}
OLD_DEFAULTS = {"dataset": "circle", "classes": 2, "noise": 0.0, "samples": 200,
                "train_ratio": 0.5, "seed": 1, "features": ["x1", "x2"], "hidden": [4, 2],
                "activation": "tanh", "loss": "mse", "optimizer": "sgd", "lr": 0.1,
                "batch_size": 0, "l1": 0.0, "l2": 0.0, "init_seed": 0, "added": [],
                "removed": []}
OLD_NAMES = {"circle": "disk", "moons": "moons", "xor": "xor", "spiral": "spiral",
             "blobs": "blobs", "plane": "plane", "gaussians": "gaussians"}


def old_config(q):
    """playground.js's startFromUrl: the link's fields over the defaults."""
    cfg = json.loads(json.dumps(OLD_DEFAULTS))
    for key, uk in P_URL.items():
        if uk not in q:
            continue
        v = q[uk]
        if key == "features":
            cfg[key] = v.split(",") if v else []
        elif key == "hidden":
            cfg[key] = [int(t) for t in v.split(",")]
        elif key == "added":
            cfg[key] = [[float(t) for t in p.split(":")] for p in v.split(";")] if v else []
        elif key == "removed":
            cfg[key] = [int(t) for t in v.split(",")] if v else []
        elif isinstance(OLD_DEFAULTS[key], (int, float)):
            cfg[key] = float(v) if "." in v or "e" in v else int(v)
        else:
            cfg[key] = v
    return cfg


def old_build(c):
    """The Playground's data, model and optimizer for config ``c``, as they were made."""
    spec = losses.LOSSES[c["loss"]]
    name = OLD_NAMES[c["dataset"]]
    regression = name in ("plane", "gaussians")
    if regression:
        X, y = data.REGRESSION[name](n_samples=c["samples"], noise=c["noise"],
                                     seed=c["seed"])
    else:
        extra = {"n_classes": c["classes"]} if name in ("spiral", "blobs") else {}
        noise = math.hypot(0.5, c["noise"]) if name == "blobs" else c["noise"]
        X, y = data.make_dataset(name, n_samples=c["samples"], noise=noise, seed=c["seed"],
                                 labels=spec.labels, **extra)
    keep = [i for i in range(len(X)) if i not in set(c["removed"])]
    X, y = [X[i] for i in keep], [y[i] for i in keep]
    for x1, x2, lab in c["added"]:
        X.append([float(x1), float(x2)])
        y.append(float(lab) if regression else int(lab) if spec.labels == "index"
                 else (1 if lab > 0 else 0) if spec.labels == "01" else (1 if lab > 0 else -1))
    rows = [list(x) + [i] for x, i in zip(X, keep + [-1] * len(c["added"]))]
    tr, te, ytr, yte = data.train_test_split(
        rows, y, test_size=round(c["samples"] * (1 - c["train_ratio"])), seed=c["seed"],
        stratify=not regression)
    k = c["classes"] if c["loss"] == "ce" else 1
    model = nn.MLP(len(c["features"]), list(c["hidden"]) + [k], activation=c["activation"],
                   output_activation=spec.output_activation, bias_init="uniform",
                   seed=c["init_seed"])
    if c["optimizer"] == "momentum":
        opt = optim.make_optimizer("sgd", model.parameters(), lr=c["lr"], momentum=0.9)
    else:
        opt = optim.make_optimizer(c["optimizer"], model.parameters(), lr=c["lr"])
    return tr, te, ytr, yte, model, opt, spec


@pytest.mark.parametrize("link", OLD_LINKS)
def test_old_links_build_what_the_playground_built(link):
    """The same data, network and optimizer as the Playground's own set-up path."""
    q = query(link)
    tr, te, ytr, yte, model, opt, spec = old_build(old_config(q))
    b = build(Experiment.from_url(q))
    assert (b.X_train, b.X_test, b.y_train, b.y_test) == ([r[:2] for r in tr],
                                                          [r[:2] for r in te], ytr, yte)
    assert (b.id_train, b.id_test) == ([r[2] for r in tr], [r[2] for r in te])
    assert [p.data for p in b.model.parameters()] == [p.data for p in model.parameters()]
    assert b.model.config() == model.config()
    assert repr(b.optimizer) == repr(opt) and b.loss is spec


def test_canonical_links_round_trip():
    for link in OLD_LINKS:
        e = Experiment.from_url(query(link))
        url = e.to_url()
        assert all(isinstance(v, str) for v in url.values())
        assert url["ds"] != "circle" and url["opt"] in optim.OPTIMIZERS
        assert Experiment.from_url(url) == e
        assert Experiment.from_dict(e.to_dict()) == e
        assert json.loads(json.dumps(e.to_dict())) == e.to_dict()
    assert Experiment().to_url()["ds"] == "disk"
    assert "add" not in Experiment().to_url() and "rm" not in Experiment().to_url()


def test_every_field_round_trips_through_a_link():
    e = Experiment(dataset="moons", classes=2, noise=0.25, samples=120, train_ratio=0.8,
                   seed=3, added=[[0.5, -0.25, 1], [1e-7, 2, -1]], removed=[0, 119],
                   features=["x1^2", "x2"], hidden=[3, 5], activation="relu",
                   bias_init="zero", init_seed=11, loss="hinge", optimizer="sgd",
                   momentum=0.5, nesterov=True, weight_decay=0.001, lr=0.003,
                   batch_size=7, l1=1e-5, l2=0.5)
    e.check()
    url = e.to_url()
    assert (url["nesterov"], url["mom"], url["add"]) == ("1", "0.5", "0.5:-0.25:1;1e-7:2:-1")
    assert Experiment.from_url(url) == e
    assert Experiment.from_dict(e.to_dict()) == e


def test_whole_json_numbers_are_ints_and_an_alias_keeps_what_is_given():
    e = Experiment.from_dict({"samples": 100.0, "classes": 3.0, "hidden": [4.0],
                              "dataset": "spiral", "loss": "ce", "noise": 1})
    assert (e.samples, e.classes, e.hidden, e.noise) == (100, 3, [4], 1.0)
    assert type(e.samples) is int and type(e.hidden[0]) is int and type(e.noise) is float
    e = Experiment.from_dict({"optimizer": "momentum", "momentum": 0.5})
    assert (e.optimizer, e.momentum) == ("sgd", 0.5)


def test_the_spec_describes_every_field_once():
    spec = Experiment.spec()
    assert json.loads(json.dumps(spec)) == spec
    names = [f["name"] for f in spec["fields"]]
    urls = [f["url"] for f in spec["fields"]]
    assert len(set(names)) == len(names) and len(set(urls)) == len(urls)
    assert names == list(Experiment().to_dict())
    kinds = {"choice", "int", "number", "bool", "ints", "choices", "points", "indices"}
    for f in spec["fields"]:
        assert f["kind"] in kinds and f["label"] and f["help"]
        assert f["default"] == Experiment().to_dict()[f["name"]]
        if f["kind"] in ("choice", "choices"):
            assert f["default"] in f["choices"] or set(f["default"]) <= set(f["choices"])
    by = {f["name"]: f for f in spec["fields"]}
    assert by["dataset"]["choices"] == list(DATASETS)
    assert set(by["dataset"]["choices"]) == set(data.DATASETS) | set(data.REGRESSION) | set(OWN)
    assert by["loss"]["choices"] == list(losses.LOSSES)
    assert by["optimizer"]["choices"] == list(optim.OPTIMIZERS)
    assert by["activation"]["choices"] == list(nn.ACTIVATIONS)
    assert by["features"]["choices"] == list(FEATURES)
    assert by["hidden"]["max_len"] == MAX_LAYERS and by["hidden"]["max"] == MAX_NEURONS
    assert by["samples"]["max"] == MAX_SAMPLES and by["added"]["max_len"] == MAX_EDITS
    assert by["dataset"]["choice_labels"]["disk"] == "circle"
    assert spec["regression"] == ["plane", "gaussians", "own_regression"]
    assert spec["multiclass"] == ["spiral", "blobs", "own"]
    assert spec["own"] == ["own", "own_regression"]
    assert spec["output_activation"] == {k: v.output_activation
                                         for k, v in losses.LOSSES.items()}
    assert spec["limits"]["max_parameters"] == MAX_PARAMETERS
    assert spec["aliases"]["dataset"] == {"circle": "disk"}


def test_l1_and_l2_penalties_of_an_experiment():
    e = Experiment(l1=0.01, l2=0.001)
    model = make_model(e)
    ps = model.parameters()
    p = penalty(e, ps)
    want = 0.01 * sum(abs(q.data) for q in ps) + 0.001 * sum(q.data ** 2 for q in ps)
    assert math.isclose(p.data, want, rel_tol=1e-12)
    assert penalty(Experiment(), ps) is None
    assert make_optimizer(Experiment(optimizer="adamw"), ps).weight_decay == 0.0


def test_js_number_writes_what_javascript_writes():
    cases = {0.1: "0.1", 200.0: "200", 1e-7: "1e-7", 1e21: "1e+21", 1e20:
             "100000000000000000000", 1e-6: "0.000001", 1.5e-6: "0.0000015",
             0.30000000000000004: "0.30000000000000004", -2.5: "-2.5", 7: "7",
             5e-324: "5e-324"}
    for x, text in cases.items():
        assert js_number(x) == text


@pytest.mark.parametrize("fields, message", [
    ({"dataset": "mnist"}, "unknown data set 'mnist'; choose one of moons, circles, disk"),
    ({"classes": 7}, "classes must be 2 to 5, got 7"),
    ({"classes": 2.5}, "classes must be a whole number, got float 2.5"),
    ({"noise": -1}, "noise must be 0 to 2, got -1"),
    ({"lr": 0}, "lr must be more than 0 and at most 10, got 0"),
    ({"momentum": 1.0}, "momentum must be at least 0 and less than 1, got 1.0"),
    ({"samples": 5}, "samples must be 10 to 2,000, got 5"),
    ({"features": []}, "choose at least one input feature"),
    ({"features": ["x3"]}, "unknown feature 'x3'; features: x1, x2"),
    ({"features": ["x1", "x1"]}, "a feature is listed twice"),
    ({"hidden": []}, "give 1 to 6 hidden layers, got 0"),
    ({"hidden": [2] * 7}, "give 1 to 6 hidden layers, got 7"),
    ({"hidden": [40]}, "a hidden layer has 1 to 32 neurons, got 40"),
    ({"hidden": [32, 32, 32]}, "hidden 32,32,32 makes a network of 2,241 parameters; "
                                      "the cap is 1,500"),
    ({"dataset": "plane", "loss": "hinge"}, "the regression set 'plane' is trained with the "
                                            "squared error: loss must be 'mse'"),
    ({"dataset": "plane", "classes": 3}, "the regression set 'plane' has no classes"),
    ({"classes": 3, "loss": "ce"}, "classes applies to spiral, blobs and own, not disk"),
    ({"dataset": "spiral", "classes": 3}, "loss mse is for two classes; with 3 classes "
                                          "use loss ce"),
    ({"optimizer": "adam", "momentum": 0.5}, "momentum applies to optimizer sgd only, not adam"),
    ({"nesterov": True}, "nesterov needs momentum > 0"),
    ({"added": [[0, 0, 1]] * (MAX_EDITS + 1)}, "at most 200 points added and 200 removed"),
    ({"added": [[0, 0]]}, "an added point is [x1, x2, label] with finite numbers"),
    ({"added": [[0, -11, 1]]}, "an added point lies within [-10, 10]^2"),
    ({"added": [[0, 0, 0]]}, "an added point's class is -1 or +1, got 0"),
    ({"dataset": "spiral", "classes": 3, "loss": "ce", "added": [[0, 0, 3]]},
     "an added point's class is 0 to 2, got 3"),
    ({"dataset": "plane", "added": [[0, 0, 2]]}, "a regression target lies in [-1, 1]"),
    ({"dataset": "spiral", "classes": 3, "loss": "ce", "added": [[0, 0, 1.5]]},
     "an added point's class is 0 to 2, got 1.5"),
    ({"removed": [200]}, "removed point 200 is not one of the 200 generated points"),
    ({"samples": 10, "removed": [0, 1, 2, 3]}, "6 points at train ratio 0.5 leave no test "
                                               "or too few train points"),
    ({"noise": float("nan")}, "noise must be 0 to 2, got nan"),
    ({"lr": float("inf")}, "lr must be more than 0 and at most 10, got inf"),
    ({"hidden": [2.5]}, "hidden holds whole numbers, got float 2.5"),
    ({"nesterov": 1}, "nesterov must be true or false, got int 1"),
    ({"features": "x1"}, "features must be a list, got str 'x1'"),
    ({"removed": ["3"]}, "removed holds indices (whole numbers), got str '3'"),
    ({"batch_size": 101}, "batch size 101 is larger than the training set (100 points)"),
    ({"colour": "red"}, "unknown field 'colour'"),
])
def test_each_refusal_names_the_field(fields, message):
    with pytest.raises(ExperimentError) as err:
        Experiment.from_dict(fields)
    assert message in str(err.value)


@pytest.mark.parametrize("q, message", [
    ({"k": "three"}, "k (classes) must be a whole number, got 'three'"),
    ({"n": "1e2.5"}, "n (samples) must be a whole number"),
    ({"lr": "fast"}, "lr (lr) must be a number, got 'fast'"),
    ({"lr": "nan"}, "lr (lr) must be a number"),
    ({"hidden": "4,,2"}, "hidden (hidden) must be a whole number, got ''"),
    ({"nesterov": "yes"}, "nesterov (nesterov) is 1 or 0"),
    ({"add": "1:2"}, "an added point is [x1, x2, label]"),
])
def test_a_bad_link_is_refused_with_its_key(q, message):
    with pytest.raises(ExperimentError) as err:
        Experiment.from_url(q)
    assert message in str(err.value)


# ---- what another surface (the command line) reads differently ------------------------


def test_a_field_declares_what_the_command_line_reads_differently():
    by_name = {f.name: f for f in dataclass_fields(Experiment)}
    page, cli = declared(by_name["lr"]), declared(by_name["lr"], "cli")
    assert "cli" not in page and "flag" not in page and page["max"] == 10
    assert (cli["flag"], cli["max"], cli["min"], cli["help"]) == (
        "--lr", 100, page["min"], page["help"])  # only the cap differs, the rest is one
    assert declared(by_name["weight_decay"], "cli")["flag"] == "--weight-decay"
    assert declared(by_name["added"], "cli") is None  # hand edits: the page's only
    assert declared(by_name["init_seed"], "cli")["same_as"] == "seed"


def test_a_surface_may_override_only_what_a_declaration_knows():
    with pytest.raises(ValueError, match="the command line cannot override colour"):
        declare("x", "int", 1, "x", "", "data", min=0, max=2, cli={"colour": "red"})


def test_the_combinations_are_checked_against_the_surfaces_caps_and_names():
    big = Experiment(hidden=[200])  # (2 + 1) x 200 + (200 + 1) x 1 parameters
    assert check_combinations(big, "cli") == check_combinations(big) == 801
    bigger = Experiment(hidden=[20, 100])
    assert check_combinations(bigger, "cli") == 2261
    with pytest.raises(ExperimentError, match="^hidden 20,100 makes a network of 2,261 "
                                              "parameters; the cap is 1,500$"):
        check_combinations(bigger)
    with pytest.raises(ExperimentError, match="^--loss mse is for two classes; with 3 "
                                              "classes use --loss ce$"):
        check_combinations(Experiment(dataset="spiral", classes=3), "cli")

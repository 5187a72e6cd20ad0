"""The set-ups' one link codec (``web/static/setup_codec.js``), run in node from the
specs alone: it writes an experiment's link (the Playground's) and a Walk's as
``Experiment.to_url`` and ``WalkSetup.to_url`` do, reads them back to the same set-ups,
and reads a number that is not one as NaN, which the Python side refuses naming the
field (a link's mistake is never dropped without a word)."""

import json
import random
import shutil
import subprocess
from pathlib import Path

import pytest

from micrograd.experiment import Experiment, ExperimentError
from micrograd.walk_setup import WalkSetup

CODEC = Path(__file__).resolve().parents[1] / "src/micrograd/web/static/setup_codec.js"

#: node: import the codec from its text, then for each (fields, set-up) its link and the
#: set-up read back from that link (NaN as null, as JSON.stringify sends it)
RUN = """
const fs = await import("node:fs");
const codec = await import("data:text/javascript," + encodeURIComponent(
  fs.readFileSync(process.argv[1], "utf8")));
const jobs = JSON.parse(fs.readFileSync(0, "utf8"));
const out = jobs.map(({ fields, setup, link }) => {
  const texts = setup ? codec.byKey(fields, codec.encode(fields, setup)) : link;
  const written = Object.fromEntries(Object.entries(texts).filter(([, t]) => t !== null));
  return { link: written, back: codec.decode(fields, written) };
});
process.stdout.write(JSON.stringify(out));
"""


def run_codec(jobs):
    node = shutil.which("node")
    assert node, "node (20 or later) is part of the test set-up: apt-get install nodejs"
    done = subprocess.run([node, "--input-type=module", "-e", RUN, str(CODEC)],
                          input=json.dumps(jobs), capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def experiments(n=40, seed=3):
    """Set-ups over every kind of field: points of one's own and added, removed
    indices, features, hidden sizes, switches, numbers with exponents."""
    rng = random.Random(seed)
    out = [Experiment(), Experiment(dataset="moons", hidden=[16, 16], activation="relu",
                                    optimizer="sgd", momentum=0.9, nesterov=True)]
    while len(out) < n:
        own = rng.random() < 0.3
        d = {"dataset": "own" if own else rng.choice(["disk", "moons", "xor", "circles"]),
             "noise": rng.choice([0.0, 0.1, 1e-7, 0.35]),
             "lr": rng.choice([0.1, 1e-5, 3.0, 0.03125]),
             "hidden": [rng.randint(1, 8) for _ in range(rng.randint(1, 3))],
             "features": rng.sample(["x1", "x2", "x1^2", "x2^2", "x1*x2", "sin x1"],
                                    rng.randint(1, 4)),
             "l2": rng.choice([0.0, 1e-4]), "batch_size": rng.choice([0, 10])}
        pts = [[round(rng.uniform(-3, 3), 3), rng.uniform(-1, 1), rng.choice([-1.0, 1.0])]
               for _ in range(rng.randint(10, 30))]
        if own:
            d["points"] = pts
        else:
            d["added"] = pts[:rng.randint(0, 3)]
            d["removed"] = sorted(rng.sample(range(100), rng.randint(0, 3)))
        try:
            exp = Experiment.from_dict(d)
        except ExperimentError:
            continue
        out.append(exp)
    return out


WALKS = [WalkSetup(), WalkSetup(preset="lecture", values={"a": 3.0, "b:1": -1e-7}),
         WalkSetup(preset=None, expr="y = x*x", mode="assign", step=4, ask="x", of="y",
                   questions=["grad"], hide=["graph", "values"]),
         WalkSetup(preset="diamond", questions=[])]


def test_the_codec_writes_the_playground_s_link_as_python_does():
    fields = Experiment.spec()["fields"]
    exps = experiments()
    got = run_codec([{"fields": fields, "setup": e.to_dict()} for e in exps])
    for exp, g in zip(exps, got):
        assert g["link"] == exp.to_url()
        assert Experiment.from_url(g["link"]) == exp
        assert Experiment.from_dict(g["back"]) == exp


def test_the_codec_writes_a_walk_s_link_as_python_does():
    fields = WalkSetup.spec()["fields"]
    got = run_codec([{"fields": fields, "setup": s.to_dict()} for s in WALKS])
    for s, g in zip(WALKS, got):
        assert g["link"] == s.to_url()
        assert WalkSetup.from_url(g["link"]) == s


@pytest.mark.parametrize("key, text, name", [
    ("lr", "abc", "lr"), ("n", "", "samples"), ("hidden", "4,,2", "hidden"),
    ("add", "1:x:1", "added")])
def test_a_number_that_is_not_one_reaches_python_and_is_refused_by_name(key, text, name):
    """The page reads lr=abc as NaN (sent as null), never as the default: the Python
    side refuses it, naming the field, and the page shows that refusal."""
    [g] = run_codec([{"fields": Experiment.spec()["fields"], "link": {key: text}}])
    assert name in g["back"]
    with pytest.raises(ExperimentError) as err:
        Experiment.from_dict(g["back"])
    assert err.value.field == name

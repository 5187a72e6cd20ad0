"""The web's handlers without HTTP: plain data in, plain data out, errors as data, turns
a driver can stop between, and a Python without FastAPI, pydantic or NumPy (the
browser's) answering the same requests.

The HTTP answers (FastAPI's TestClient over ``create_app``) are the reference: the
routers only map the handlers' outcomes to statuses."""

import json
import math
import os
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

with warnings.catch_warnings():  # starlette warns about httpx vs httpx2 at import time
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from micrograd.experiment import Experiment
from micrograd.web import create_app, limits
from micrograd.web import play_pictures as pictures
from micrograd.web.handlers import ROUTES, LocalSessions, dispatch, run_to_end
from micrograd.web.handlers.errors import KINDS
from micrograd.web.play_session import PlaySession, round_half_even
from micrograd.web.routers.answers import STATUS

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def client():
    return TestClient(create_app())


def run(route, request, sessions=None):
    sessions = LocalSessions() if sessions is None else sessions
    out = run_to_end(dispatch(route, request, sessions))
    # plain data: JSON as it is (no NaN or inf numbers, no objects)
    assert json.loads(json.dumps(out, allow_nan=False)) == out
    return out


def error(route, request, sessions=None):
    out = run(route, request, sessions)
    assert out["ok"] is False and set(out) == {"ok", "error"}, out
    err = out["error"]
    assert err["kind"] in KINDS and err["message"].strip()
    return err


# ---------------------------------------------------------------------------------------
# the same answers as over HTTP
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("route, path, body", [
    ("walk", "/api/walk", {"preset": "lecture"}),
    ("walk", "/api/walk", {"expr": "a = 2; b = a*a; c = exp(b)", "recursive": True}),
    ("walk.order", "/api/walk/order", {"preset": "diamond", "order": ["n5", "n2", "n0"]}),
    ("walk.nudge", "/api/walk/nudge", {"preset": "neuron", "leaf": "w1"}),
    ("walk.check", "/api/walk/check", {"preset": "square", "answer": 3}),
])
def test_walk_answers_are_the_http_answers(client, route, path, body):
    out = run(route, body)
    assert out["ok"] is True
    assert out["answer"] == client.post(path, json=body).json()


def test_the_lectures_grads_come_out_as_plain_data():
    view = run("walk", {"preset": "lecture"})["answer"]
    grads = {n["name"]: n["grad"] for n in view["graph"]["nodes"] if n["leaf"]}
    assert grads == {"a": 6.0, "b": -4.0, "c": -2.0, "f": 4.0}


def test_meta_is_the_http_meta(client):
    mine, http = run("meta", {})["answer"], client.get("/api/meta").json()
    assert mine == http
    # the same JSON text: an integer cap stays an integer (6, not 6.0) through HTTP
    assert json.dumps(mine["limits"]) == json.dumps(http["limits"])
    assert all(type(v) is int for k, v in http["limits"].items() if k.startswith("max_"))


def test_a_playground_session_answers_as_over_http(client):
    body = {"samples": 60, "hidden": [3], "dataset": "moons", "optimizer": "adam",
            "lr": 0.05, "batch_size": 10}
    sessions = LocalSessions()
    mine = run("play.create", body, sessions)["answer"]
    theirs = client.post("/api/play", json=body).json()
    assert {**mine, "sid": ""} == {**theirs, "sid": ""}
    sid = mine["sid"]
    for route, body, method, path in (
            ("play.step", {"steps": 3}, "post", "/step"),
            ("play.inspect", {"x": 0.1, "y": 0.2, "label": 1}, "post", "/inspect"),
            ("play.weight", {"name": "w1.2.1", "value": 0.5}, "patch", "/weight"),
            ("play.step", {"steps": 1, "lr": 0.01}, "post", "/step"),
            ("play.get", {}, "get", ""), ("play.reset", {"init_seed": 3}, "post", "/reset"),
            ("play.inspect.stop", {}, "delete", "/inspect")):
        mine = run(route, {"sid": sid, **body}, sessions)["answer"]
        url = f"/api/play/{theirs['sid']}{path}"
        over_http = (client.request(method, url, json=body) if body
                     else client.request(method, url)).json()
        assert {**mine, "sid": ""} == {**over_http, "sid": ""}, route
    assert run("play.delete", {"sid": sid}, sessions)["answer"] == {"deleted": True}
    assert len(sessions) == 0


def test_older_names_are_read_and_the_config_is_canonical(client):
    """A link made before the names were the library's (ds=circle, opt=momentum) opens
    the same set-up: the data set 'disk', SGD with momentum 0.9."""
    old = {"samples": 40, "dataset": "circle", "optimizer": "momentum"}
    for config in (run("play.create", old)["answer"]["config"],
                   client.post("/api/play", json=old).json()["config"]):
        assert config == Experiment.from_dict(old).to_dict()
        assert (config["dataset"], config["optimizer"], config["momentum"]) == \
            ("disk", "sgd", 0.9)
    state = run("play.create", {**old, "hidden": [2]})["answer"]
    assert state["params"]["state"] == ["momentum"]


# ---------------------------------------------------------------------------------------
# errors are data
# ---------------------------------------------------------------------------------------


def test_each_kind_of_error_is_data_and_maps_to_its_status(client):
    cases = [
        ("walk", "/api/walk", {"preset": "square", "expr": "a = 1"}, "invalid", "preset"),
        ("walk", "/api/walk", {"preset": "nope"}, "not_found", "preset"),
        ("walk", "/api/walk", {"expr": "a = 2; b = a +* 3"}, "refused", None),
        ("walk.nudge", "/api/walk/nudge", {"preset": "square", "leaf": "f"}, "refused",
         None),
        ("play.create", "/api/play", {"hidden": [32, 32, 32]}, "refused", "hidden"),
        ("play.create", "/api/play", {"dataset": "plane", "loss": "hinge"}, "refused",
         "loss"),
        ("play.create", "/api/play", {"samples": 40, "weights": [0.5]}, "refused", None),
    ]
    for route, path, body, kind, field in cases:
        err = error(route, body)
        assert (err["kind"], err["field"]) == (kind, field), (body, err)
        r = client.post(path, json=body)
        assert r.status_code == STATUS[kind] and r.json()["error"] == err["message"]
        assert r.json().get("field") == err["field"], (body, r.json())  # the refused field


def test_missing_values_name_the_free_names():
    err = error("walk", {"expr": "tanh(x1*w1 + b)", "values": {"x1": 1}})
    assert err["kind"] == "refused" and err["free"] == ["x1", "w1", "b"]
    assert err["field"] == "values" and "w1, b" in err["message"]


def test_a_lost_session_is_said_as_such():
    sessions = LocalSessions()
    for route, extra in (("play.get", {}), ("play.step", {"steps": 1}),
                         ("play.lr", {"lr": 0.1}), ("play.reset", {}),
                         ("play.weight", {"name": "w1.1.1", "value": 1.0}),
                         ("play.inspect", {"x": 0, "y": 0}), ("play.inspect.stop", {}),
                         ("play.delete", {})):
        err = error(route, {"sid": "gone", **extra}, sessions)
        assert err["kind"] == "lost" and err["field"] == "sid", route
        assert "no playground session 'gone'" in err["message"]


def test_a_full_store_answers_busy_with_when_to_ask_again():
    from micrograd.web.server.sessions import SessionStore

    store = SessionStore(max_sessions=1, evict_after=60)
    assert run("play.create", {"samples": 40}, store)["ok"]
    err = error("play.create", {"samples": 40}, store)
    assert err["kind"] == "busy" and err["retry_after"] == 5 and "busy" in err["message"]
    assert STATUS["busy"] == 503


def test_requests_that_do_not_fit_their_fields_are_invalid():
    """Without HTTP nobody read the body through a schema: the handler reads it."""
    sid = run("play.create", {"samples": 40}, sessions := LocalSessions())["answer"]["sid"]
    cases = [
        ("play.step", {"sid": sid, "steps": 0}, "steps"),
        ("play.step", {"sid": sid, "steps": limits.MAX_STEPS_PER_REQUEST + 1}, "steps"),
        ("play.step", {"sid": sid, "steps": "2"}, "steps"),
        ("play.step", {"sid": sid, "colour": "red"}, None),
        ("play.lr", {"sid": sid}, "lr"),
        ("play.lr", {"sid": sid, "lr": math.inf}, "lr"),
        ("play.weight", {"sid": sid, "name": "w1.1.1", "value": 1e9}, "value"),
        ("play.inspect", {"sid": sid, "x": 0, "y": True}, "y"),
        ("walk", {"preset": "square", "assign": "yes"}, "assign"),
        ("walk", {"preset": "square", "values": {"a": "x"}}, "values"),
        ("walk", {"preset": "square", "values": [1]}, "values"),
        ("walk.order", {"preset": "diamond"}, "order"),
        ("walk.check", {"preset": "square", "answer": "6"}, "answer"),
        ("walk", [1, 2], None),
    ]
    for route, body, field in cases:
        err = error(route, body, sessions)
        assert (err["kind"], err["field"]) == ("invalid", field), (body, err)
    assert error("play.create", {"samples": 40, "step": -1})["field"] == "step"


@pytest.mark.parametrize("lr", [0, 0.0, -0.0, -5e-324, -0.5])
@pytest.mark.parametrize("route, method, path", [("play.lr", "patch", ""),
                                                 ("play.step", "post", "/step")])
def test_a_learning_rate_of_zero_or_less_is_refused_by_the_handler_and_over_http(
        client, route, method, path, lr):
    """The learning rate is greater than 0 (an Experiment's lr): at 0 training would
    stand still, each step a no-op. The session sets what it is given, so the request's
    bound is the only guard, on both routes that change it."""
    sessions = LocalSessions()
    sid = run("play.create", {"samples": 40, "lr": 0.1}, sessions)["answer"]["sid"]
    body = {"lr": lr} if route == "play.lr" else {"steps": 2, "lr": lr}
    err = error(route, {"sid": sid, **body}, sessions)
    assert (err["kind"], err["field"]) == ("invalid", "lr"), err
    assert err["message"] == f"lr: greater than 0, got {lr:g}", err["message"]
    # nothing changed: the rate and the step are as they were
    state = run("play.get", {"sid": sid}, sessions)["answer"]
    assert (state["step"], state["lr"]) == (0, 0.1)
    # the least rate above 0 is taken
    ok = run(route, {"sid": sid, **body, "lr": 5e-324}, sessions)["answer"]
    assert ok["lr"] == 5e-324
    # over HTTP: a 422 naming the field, the session as it was
    sid = client.post("/api/play", json={"samples": 40, "lr": 0.1}).json()["sid"]
    r = client.request(method, f"/api/play/{sid}{path}", json=body)
    assert r.status_code == 422 and r.json()["error"].startswith("lr"), r.json()
    state = client.get(f"/api/play/{sid}").json()
    assert (state["step"], state["lr"]) == (0, 0.1)
    assert error("play.create", {"colour": "red"})["kind"] == "refused"  # Experiment's
    assert error("no.such.route", {})["kind"] == "not_found"


# ---------------------------------------------------------------------------------------
# what a change implies (no session)
# ---------------------------------------------------------------------------------------


def test_a_change_answers_its_patch_as_over_http_and_the_patch_is_accepted(client):
    accepted = run("play.create", {"dataset": "spiral", "loss": "hinge", "samples": 40,
                                   "added": [[0.5, 0.5, 1]]})["answer"]["config"]
    body = {"setup": accepted, "field": "classes", "value": 3}
    out = run("play.change", body)["answer"]
    assert out == {"patch": {"classes": 3, "loss": "ce"}, "own": False}
    assert client.post("/api/play/change", json=body).json() == out
    assert run("play.create", {**accepted, **out["patch"]})["ok"]
    own = run("play.change", {**body, "field": "dataset", "value": "own"})["answer"]
    assert own["own"] is True and own["patch"]["points"] == []
    # a value of no field's kind is passed on: the set-up's check refuses it
    text = run("play.change", {**body, "value": None})["answer"]
    assert text == {"patch": {"classes": None}, "own": False}
    assert error("play.create", {**accepted, **text["patch"]})["field"] == "classes"


def test_a_change_that_does_not_fit_its_fields_is_refused_as_data(client):
    setup = Experiment().to_dict()
    cases = [
        ({"setup": setup, "field": "colour", "value": 1}, "invalid", "field"),
        ({"setup": setup, "field": "classes"}, "invalid", "value"),
        ({"field": "classes", "value": 3}, "invalid", "setup"),
        ({"setup": [], "field": "classes", "value": 3}, "invalid", "setup"),
        ({"setup": setup, "field": "classes", "value": 3, "x": 1}, "invalid", None),
        ({"setup": setup, "field": "classes", "value": {"k": 3}}, "invalid", "value"),
        ({"setup": setup, "field": "hidden", "value": [1] * 65}, "invalid", "value"),
        ({"setup": setup, "field": "dataset", "value": "x" * 201}, "invalid", "value"),
        ({"setup": setup, "field": "hidden", "value": [1, "2"]}, "invalid", "value"),
        ({"setup": setup, "field": "lr", "value": math.inf}, "invalid", "value"),
        ({"setup": {**setup, "classes": 9}, "field": "lr", "value": 1}, "refused", "setup"),
        ({"setup": {**setup, "colour": 1}, "field": "lr", "value": 1}, "refused", "setup"),
    ]
    for body, kind, field in cases:
        err = error("play.change", body)
        assert (err["kind"], err["field"]) == (kind, field), (body, err)
        # over HTTP, the schema made to match refuses each before the handler does
        # (JSON has no infinity: the text a lenient writer gives it)
        text = json.dumps(body).replace("Infinity", "1e999")
        r = client.post("/api/play/change", content=text,
                        headers={"Content-Type": "application/json"})
        assert r.status_code == 422, (body, r.status_code, r.json())
    ok = {"setup": setup, "field": "hidden", "value": [1] * 64}
    assert run("play.change", ok)["ok"] and client.post("/api/play/change",
                                                         json=ok).status_code == 200


# ---------------------------------------------------------------------------------------
# turns: one per step, and a driver may stop between them
# ---------------------------------------------------------------------------------------


def test_training_yields_once_per_step_and_stops_between_steps():
    sessions = LocalSessions()
    sid = run("play.create", {"samples": 40, "hidden": [2]}, sessions)["answer"]["sid"]
    job = dispatch("play.step", {"sid": sid, "steps": 4}, sessions)
    session = sessions.get(sid)
    turns = 0
    for _ in job:  # a turn per step, then the state (returned, not yielded)
        turns += 1
        assert session.step_count == turns
    assert turns == 4
    job = dispatch("play.step", {"sid": sid, "steps": 5}, sessions)
    next(job)
    next(job)
    job.close()  # a pause: the driver stops asking between two steps
    assert session.step_count == 6
    # every other handler is one turn
    for route, body in (("walk", {"preset": "square"}), ("play.get", {"sid": sid})):
        job = dispatch(route, body, sessions)
        with pytest.raises(StopIteration):
            next(job)


def test_local_sessions_drop_the_least_recently_used():
    sessions = LocalSessions(max_sessions=2)
    a, b = (run("play.create", {"samples": 40, "hidden": [2]}, sessions)["answer"]["sid"]
            for _ in range(2))
    assert run("play.get", {"sid": a}, sessions)["ok"]  # a is now the most recent
    run("play.create", {"samples": 40, "hidden": [2]}, sessions)
    assert error("play.get", {"sid": b}, sessions)["kind"] == "lost"
    assert run("play.get", {"sid": a}, sessions)["ok"] and len(sessions) == 2


def test_every_route_has_a_handler_and_a_documented_name():
    assert set(ROUTES) == {"meta", "walk", "walk.order", "walk.nudge", "walk.check",
                           "mistakes.list", "mistakes.run",
                           "play.change", "play.create", "play.get", "play.step",
                           "play.lr", "play.reset",
                           "play.weight", "play.inspect", "play.inspect.stop",
                           "play.delete", "play.csv.read", "play.csv.write",
                           "gpt.create", "gpt.step", "gpt.sample", "gpt.attention",
                           "gpt.walk", "gpt.walk.block", "gpt.delete"}
    assert set(STATUS) == set(KINDS)


# ---------------------------------------------------------------------------------------
# the pictures without NumPy are NumPy's
# ---------------------------------------------------------------------------------------


def test_rounding_is_numpys():
    rng = np.random.default_rng(0)
    values = np.concatenate([rng.uniform(-3, 3, 20000), np.arange(-400, 400) / 200 + 0.005,
                             np.arange(-400, 400) / 20000 + 0.00005,
                             [0.0, -0.0, 1e-320, -1e-320, 1e300, -1e301, 1.7e308]])
    for decimals in (2, 4):
        with np.errstate(over="ignore"):
            ref = np.round(values, decimals).tolist()
        got = [round_half_even(v, decimals) for v in values.tolist()]
        assert [(a, math.copysign(1, a)) for a in got] == \
            [(b, math.copysign(1, b)) for b in ref]
    assert math.isnan(round_half_even(math.nan, 2))


def test_halfway_cases_round_as_numpy_does():
    """Numbers whose product by 10^d lands on the other side of a half than their true
    decimal value (1.575 * 100 = 157.50000000000003): NumPy's way, not Python's round."""
    s = PlaySession(Experiment.from_dict({"samples": 40, "hidden": [1]}))
    tricky2 = [1.575, 1.905, 1.445, -0.015, 1.205, 0.125, -0.0001]
    tricky4 = [-0.26575, 0.01685, -0.17115, 0.95395, -0.35855, 0.00005]
    assert [round_half_even(v, 2) for v in tricky2] == np.round(tricky2, 2).tolist() \
        != [round(v, 2) for v in tricky2]
    b = pictures.boundary(s, tricky4)
    assert b["values"] == np.round(tricky4, 4).tolist() != [round(v, 4) for v in tricky4]


@pytest.mark.parametrize("setup", [
    {"loss": "mse"}, {"loss": "bce", "features": ["x1", "x2", "sin x1"]},
    {"dataset": "spiral", "classes": 3, "loss": "ce", "features": ["x1^2", "x2", "x1"]},
    {"loss": "hinge", "activation": "linear", "lr": 10.0, "hidden": [8, 8]},
], ids=["mse", "bce", "classes", "diverged"])
def test_the_pictures_are_the_ones_numpy_drew(setup):
    """The boundary and the pictures, drawn in plain Python, against the same rows drawn
    with NumPy as the server used to (tanh or clip, softmax, nan_to_num, round)."""
    s = PlaySession(Experiment.from_dict({"samples": 60, "hidden": [4], **setup}))
    s.train(30)
    rows = np.asarray(s.outputs_at(s.grid))
    b = pictures.boundary(s, s.scores_at(s.grid))
    with np.errstate(all="ignore"):
        if s.k == 1:
            z = rows[:, -1]
            c = np.tanh(z / 2) if s.loss_spec.name == "bce" else np.clip(z, -1.0, 1.0)
            want = ["NaN" if math.isnan(v) else v for v in np.round(c, 4).tolist()]
            assert b["values"] == pytest.approx(want, abs=1e-15, nan_ok=True)
        else:
            z = rows[:, -s.k:]
            e = np.exp(z - z.max(axis=1, keepdims=True))
            p = e / e.sum(axis=1, keepdims=True)
            assert b["classes"] == z.argmax(axis=1).tolist()
            assert b["values"] == np.round(p.max(axis=1), 4).tolist()
    cells = pictures.thumbnail_cells()
    at_cells = rows[cells]
    want = np.round(np.nan_to_num(at_cells, nan=0.0, posinf=1.0, neginf=-1.0), 2).T.tolist()
    scores, rounded = s.on_grid(cells)
    assert [col for layer in pictures.thumbnails(s, rounded) for col in layer] == want
    np.testing.assert_array_equal(scores, s.scores_at(s.grid))
    # the eager engine's rows round as the tracer's arrays do
    eager = PlaySession(s.experiment, traced=False)
    eager_rows = np.asarray(eager.outputs_at(eager.grid))
    eager_scores, eager_cells = eager.on_grid(cells)
    np.testing.assert_array_equal(eager_cells, np.round(eager_rows[cells], 2))
    np.testing.assert_array_equal(eager_scores, eager.scores_at(eager.grid))
    if setup.get("lr") == 10.0:
        assert s.diverged_at is not None and "NaN" in b["values"]


# ---------------------------------------------------------------------------------------
# a Python without FastAPI, pydantic, starlette, uvicorn or NumPy
# ---------------------------------------------------------------------------------------

BLOCKED = ("fastapi", "pydantic", "starlette", "uvicorn", "numpy")

_WITHOUT = textwrap.dedent("""
    import json, sys, threading

    BLOCKED = {blocked!r}

    class Refuse:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ModuleNotFoundError(f"No module named {{name!r}} (blocked)",
                                          name=name)
            return None

    if {block}:
        sys.meta_path.insert(0, Refuse())
    from micrograd.web.handlers import LocalSessions, dispatch, run_to_end

    sessions, out = LocalSessions(), {{}}
    for route, body in {requests!r}:
        if "sid" in body:
            body = dict(body, sid=out["play.create"]["answer"]["sid"])
        out[route] = run_to_end(dispatch(route, body, sessions))
    out["modules"] = sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED)
    out["threads"] = threading.active_count()
    print(json.dumps(out))
""")


def run_elsewhere(requests, block):
    code = _WITHOUT.format(blocked=BLOCKED, block=block, requests=requests)
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src") + os.pathsep
               + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


PLAY = [("play.create", {"samples": 60, "hidden": [3], "features": ["x1", "x2", "x1^2"],
                         "inspect": {"x": 0.2, "y": -0.4, "label": 1}}),
        ("play.step", {"sid": None, "steps": 3}),
        ("play.inspect", {"sid": None, "x": 0.5, "y": 0.5})]


def test_the_handlers_run_without_fastapi_pydantic_or_numpy(monkeypatch):
    """Where those packages cannot be imported (as in the browser's Python), the Walk
    and a Playground session answer in full (the session trains on the eager engine,
    to the same numbers as the eager engine here), and no thread is started."""
    out = run_elsewhere([("meta", {}), ("walk", {"preset": "lecture"}),
                         ("walk.check", {"preset": "lecture", "answer": 6}),
                         ("play.change", {"setup": {}, "field": "classes", "value": 3})]
                        + PLAY, block=True)
    assert out["modules"] == [] and out["threads"] == 1
    assert all(out[route]["ok"] for route in ("meta", "walk", "walk.check", "play.change",
                                              "play.create", "play.step",
                                              "play.inspect")), out
    grads = {n["name"]: n["grad"] for n in out["walk"]["answer"]["graph"]["nodes"]
             if n["leaf"]}
    assert grads == {"a": 6.0, "b": -4.0, "c": -2.0, "f": 4.0}
    assert out["walk.check"]["answer"]["correct"] is True
    assert out["play.step"]["answer"]["engine"] == "eager"
    assert out["play.step"]["answer"]["step"] == 3
    # the same requests here, the sessions told to train on the eager engine
    import micrograd.web.handlers.play as play_handlers

    monkeypatch.setattr(play_handlers, "PlaySession",
                        lambda *a, **k: PlaySession(*a, **k, traced=False))
    sessions, mine = LocalSessions(), {}
    for route, body in PLAY:
        if "sid" in body:
            body = dict(body, sid=mine["play.create"]["answer"]["sid"])
        mine[route] = run(route, body, sessions)
    for route, _ in PLAY:
        theirs, ours = out[route]["answer"], mine[route]["answer"]
        assert {**theirs, "sid": ""} == {**ours, "sid": ""}, route


def test_the_walk_imports_none_of_them_even_where_they_are():
    out = run_elsewhere([("walk", {"preset": "neuron"}), ("walk.nudge", {
        "preset": "neuron", "leaf": "w1"})], block=False)
    assert out["modules"] == [] and out["walk"]["ok"] and out["walk.nudge"]["ok"]


def test_importing_the_web_package_loads_no_web_framework():
    code = ("import sys, micrograd.web, micrograd.web.handlers; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            f"{BLOCKED!r}))")
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, check=True).stdout.strip()
    assert out == "[]"

"""The static site worker's Python side, on this Python: how a request becomes one JSON
answer (``micrograd.web.pyodide.calls``), the door (``micrograd.web.pyodide.door``: the
page's operations answered by the request handlers) against the engine, and that none of
it needs FastAPI.
The same code in Pyodide, in chromium, is tests/test_site_browser.py."""

import json
import math
import subprocess
import sys

import pytest

from micrograd.expr import evaluate
from micrograd.web.handlers import run_to_end
from micrograd.web.pyodide.door import Refusal, call
from micrograd.web.pyodide.calls import Call, entry_point


def answer(fn, name="x", request=None):
    call = Call(fn, name, json.dumps({} if request is None else request))
    text = call.step()
    assert text is not None  # a plain answer is ready at once
    return json.loads(text)


class Busy(Exception):
    kind = "busy"


@pytest.mark.parametrize("raised, kind, message", [
    (ValueError("bad leaf"), "refused", "bad leaf"),
    (TypeError("got str"), "refused", "got str"),
    (Busy("one at a time"), "busy", "one at a time"),
    (KeyError("n7"), "internal", "KeyError: 'n7'"),
    (ZeroDivisionError("division by zero"), "internal", "ZeroDivisionError: division by zero"),
])
def test_an_exception_is_an_error_answer_with_its_kind(raised, kind, message):
    def fn(name, request):
        raise raised

    assert answer(fn) == {"ok": False, "error": {"kind": kind, "message": message}}


def test_the_answer_carries_the_name_and_the_request_as_json_values():
    got = answer(lambda name, request: {"name": name, "echo": request}, "walk.x",
                 {"a": [1, 2.5, None, True], "b": "é"})
    assert got == {"ok": True, "data": {"name": "walk.x",
                                        "echo": {"a": [1, 2.5, None, True], "b": "é"}}}


@pytest.mark.parametrize("data", [math.nan, math.inf, {"x": -math.inf}, object()])
def test_data_json_cannot_carry_is_an_internal_error_not_invalid_json(data):
    got = answer(lambda name, request: data)
    assert got["ok"] is False and got["error"]["kind"] == "internal"


def test_a_job_runs_one_turn_per_step_and_returns_its_data():
    turns = []

    def fn(name, request):
        for i in range(request["n"]):
            turns.append(i)
            yield
        return {"turns": len(turns)}

    call = Call(fn, "job", json.dumps({"n": 3}))
    assert turns == []  # nothing runs before the first step
    for expected in ([0], [0, 1], [0, 1, 2]):
        assert call.step() is None
        assert turns == expected
    assert json.loads(call.step()) == {"ok": True, "data": {"turns": 3}}
    assert json.loads(call.step()) == {"ok": True, "data": {"turns": 3}}  # stays answered


def test_a_job_stopped_between_turns_cleans_up_and_says_stopped():
    cleaned = []

    def fn(name, request):
        try:
            while True:
                yield
        finally:
            cleaned.append(True)

    call = Call(fn, "job", "{}")
    assert call.step() is None and call.step() is None
    got = json.loads(call.close())
    assert got == {"ok": False, "error": {"kind": "stopped", "message": "stopped"}}
    assert cleaned == [True]


def test_a_job_that_fails_in_a_later_turn_answers_with_the_error():
    def fn(name, request):
        yield
        raise ValueError("the graph changed")

    call = Call(fn, "job", "{}")
    assert call.step() is None
    assert json.loads(call.step())["error"] == {"kind": "refused", "message": "the graph changed"}


@pytest.mark.parametrize("spec", ["os:system", "micrograd.engine", "micrograd:", "builtins:eval",
                                  "micrograd.web.pyodide.door:call; import os", 42])
def test_the_entry_point_is_a_function_of_micrograd_by_name_only(spec):
    with pytest.raises(ValueError, match="micrograd.module:function"):
        entry_point(spec)


def test_an_entry_point_that_is_not_a_function_is_refused():
    with pytest.raises(ValueError, match="no function 'SESSIONS'"):
        entry_point("micrograd.web.pyodide.door:SESSIONS")
    assert entry_point("micrograd.web.pyodide.door:call") is call


def through_the_worker(name, request):
    """The answer as the worker gets it: the door's job run turn by turn by Call."""
    job = Call(call, name, json.dumps(request))
    text = job.step()
    while text is None:
        text = job.step()
    return json.loads(text)


def leaf_grads(view):
    return {n["name"]: n["grad"] for n in view["graph"]["nodes"] if n["leaf"]}


def test_the_door_builds_the_lectures_walk():
    got = through_the_worker("walk", {"preset": "lecture"})
    assert got["ok"] is True
    assert leaf_grads(got["data"]) == {"a": 6.0, "b": -4.0, "c": -2.0, "f": 4.0}
    root = got["data"]["graph"]["root"]
    assert [n["data"] for n in got["data"]["graph"]["nodes"] if n["id"] == root] == [-8.0]


@pytest.mark.parametrize("source, values", [
    ("a = 2; b = -3; c = 10; f = -2; e = a*b; d = e + c; L = d*f", {"a": 0.5, "f": 3}),
    ("x1 = 2; x2 = 0; w1 = -3; w2 = 1; b = 6.8813735870195432; o = tanh(x1*w1 + x2*w2 + b)",
     {}),
    ("a = 2; b = a + 1; c = a*3; d = b*c", {"a": -1.25}),
])
def test_the_doors_grads_are_the_engines(source, values):
    prog = evaluate(source, values, override=True)
    prog.root.backward()
    got = leaf_grads(through_the_worker("walk", {"expr": source, "values": values})["data"])
    named = {name: g for name, g in got.items() if name in prog.names}  # not the constants
    assert named == {name: prog.names[name].grad for name in named}
    assert named and set(values) <= set(named)


@pytest.mark.parametrize("name, request_, error", [
    ("walk.nope", {}, {"kind": "unknown"}),
    ("walk.build", {"preset": "lecture"}, {"kind": "unknown"}),  # no route has that name
    ("walk", [], {"kind": "refused", "message": "a request is a JSON object, got list"}),
    ("walk", {"preset": "nope"}, {"kind": "not_found", "field": "preset"}),
    ("walk", {"expr": "a = 2; b = a *"}, {"kind": "refused", "field": None}),
    ("walk", {"expr": "tanh(x*w)"}, {"kind": "refused", "free": ["x", "w"]}),
    ("walk", {"preset": "lecture", "colour": 1}, {"kind": "invalid"}),
    ("play.step", {"sid": "gone", "steps": 1}, {"kind": "lost", "field": "sid"}),
])
def test_a_refusal_comes_back_with_the_handlers_error_data(name, request_, error):
    got = through_the_worker(name, request_)
    assert got["ok"] is False
    assert {k: got["error"].get(k) for k in error} == error, got


def test_one_set_of_sessions_lives_as_long_as_the_worker():
    made = through_the_worker("play.create", {"dataset": "xor", "hidden": [2]})
    sid = made["data"]["sid"]
    stepped = through_the_worker("play.step", {"sid": sid, "steps": 2})
    assert stepped["ok"] and stepped["data"]["step"] == made["data"]["step"] + 2
    assert through_the_worker("play.delete", {"sid": sid}) == {"ok": True,
                                                              "data": {"deleted": True}}
    assert through_the_worker("play.get", {"sid": sid})["error"]["kind"] == "lost"
    with pytest.raises(Refusal, match="no playground session"):  # driven without the worker
        run_to_end(call("play.get", {"sid": sid}))


def test_the_workers_python_imports_without_fastapi_or_numpy():
    # Pyodide has none of them: block them, as a missing package is blocked
    code = ("import sys\n"
            "for m in ('fastapi', 'pydantic', 'starlette', 'uvicorn', 'numpy'):\n"
            "    sys.modules[m] = None\n"
            "from micrograd.web.pyodide.calls import Call, entry_point\n"
            "fn = entry_point('micrograd.web.pyodide.door:call')\n"
            "c = Call(fn, 'walk', '{\"preset\": \"lecture\"}')\n"
            "t = c.step()\n"
            "while t is None: t = c.step()\n"
            "print(t[:11])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == '{"ok":true,'

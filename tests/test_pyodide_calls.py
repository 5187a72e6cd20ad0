"""The static site worker's Python side, on this Python: how a request becomes one JSON
answer (``micrograd.web.pyodide.calls``), the stand-in entry point
(``micrograd.web.pyodide.bridge``) against the engine, and that none of it needs FastAPI.
The same code in Pyodide, in chromium, is tests/test_site_browser.py."""

import json
import math
import subprocess
import sys

import pytest

from micrograd.expr import evaluate
from micrograd.web.pyodide.bridge import LECTURE, dispatch
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
                                  "micrograd.web.pyodide.bridge:dispatch; import os", 42])
def test_the_entry_point_is_a_function_of_micrograd_by_name_only(spec):
    with pytest.raises(ValueError, match="micrograd.module:function"):
        entry_point(spec)


def test_an_entry_point_that_is_not_a_function_is_refused():
    with pytest.raises(ValueError, match="no function 'LECTURE'"):
        entry_point("micrograd.web.pyodide.bridge:LECTURE")
    assert entry_point("micrograd.web.pyodide.bridge:dispatch") is dispatch


def leaf_grads(view):
    return {n["name"]: n["grad"] for n in view["graph"]["nodes"] if n["leaf"]}


def test_the_bridge_builds_the_lectures_walk_by_default():
    view = dispatch("walk.build", {})
    assert leaf_grads(view) == {"a": 6.0, "b": -4.0, "c": -2.0, "f": 4.0}
    root = view["graph"]["root"]
    assert [n["data"] for n in view["graph"]["nodes"] if n["id"] == root] == [-8.0]
    assert view["walk"]["mode"] == "correct" and len(view["walk"]["forward"]) == 3
    json.dumps(view, allow_nan=False)  # the answer travels as JSON


@pytest.mark.parametrize("source, values", [
    (LECTURE, {"a": 0.5, "f": 3}),
    ("x1 = 2; x2 = 0; w1 = -3; w2 = 1; b = 6.8813735870195432; o = tanh(x1*w1 + x2*w2 + b)",
     {}),
    ("a = 2; b = a + 1; c = a*3; d = b*c", {"a": -1.25}),
])
def test_the_bridges_grads_are_the_engines(source, values):
    prog = evaluate(source, values, override=True)
    prog.root.backward()
    got = leaf_grads(dispatch("walk.build", {"source": source, "values": values}))
    named = {name: g for name, g in got.items() if name in prog.names}  # not the constants
    assert named == {name: prog.names[name].grad for name in named}
    assert named and set(values) <= set(named)


@pytest.mark.parametrize("name, request_, kind, match", [
    ("walk.nope", {}, "unknown", "no request named 'walk.nope'; known: meta, walk.build"),
    ("walk.build", [], "refused", "a request is a JSON object, got list"),
    ("walk.build", {"source": 3}, "refused", "'source' must be a string, got int"),
    ("walk.build", {"source": "a = 2; b = a *"}, "refused", "column"),
    ("walk.build", {"source": "a" * 1001}, "refused", "1001 characters"),
    ("walk.build", {"values": {"a": True}}, "refused", "'a' must be a number, got bool"),
    ("walk.build", {"values": {"zz": 1}}, "refused", "no leaf named 'zz'"),
    ("walk.build", {"expr": "a"}, "refused", "not \\['expr'\\]"),
])
def test_the_bridge_refuses_what_it_cannot_answer(name, request_, kind, match):
    got = answer(dispatch, name, request_)
    assert got["ok"] is False and got["error"]["kind"] == kind
    assert __import__("re").search(match, got["error"]["message"]), got


def test_the_bridge_says_which_python_answers():
    got = answer(dispatch, "meta")["data"]
    assert got["python"] == sys.version.split()[0] and got["requests"] == ["meta", "walk.build"]


def test_the_workers_python_imports_without_fastapi_or_numpy():
    # Pyodide has none of them: block them, as a missing package is blocked
    code = ("import sys\n"
            "for m in ('fastapi', 'pydantic', 'starlette', 'uvicorn', 'numpy'):\n"
            "    sys.modules[m] = None\n"
            "from micrograd.web.pyodide.calls import Call, entry_point\n"
            "fn = entry_point('micrograd.web.pyodide.bridge:dispatch')\n"
            "print(Call(fn, 'walk.build', '{}').step()[:11])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == '{"ok":true,'

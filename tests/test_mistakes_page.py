"""The gallery of classic mistakes behind the page's two doors: ``mistakes.list`` and
``mistakes.run`` (``micrograd.web.handlers.mistakes``).

* each entry's answer is the gallery run directly (``micrograd.mistakes``): the same
  code, texts and numbers, and its Walk link opens a Walk that shows the same mistake;
* the HTTP door (``micrograd serve``'s app, its path from client.js's own table) and the
  static site's door (``web/pyodide/door.py``, called as the worker calls it) give the
  same JSON, refusals included;
* on Pyodide's Python in node (the browser's), every entry answers without ending the
  interpreter: the one that would overflow the WebAssembly stack says so instead of
  running, and the others give the numbers CPython gives.
"""

import json
import math
import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

with warnings.catch_warnings():  # starlette warns about httpx vs httpx2 at import time
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from micrograd import mistakes
from micrograd.walk_setup import WalkSetup
from micrograd.web.app import create_app
from micrograd.web.handlers import dispatch, run_to_end
from micrograd.web.pyodide.calls import Call, entry_point

ROOT = Path(__file__).resolve().parent.parent
CLIENT = ROOT / "src" / "micrograd" / "web" / "static" / "client.js"
NODE_RUNNER = ROOT / "tests" / "run_in_pyodide.mjs"
KEYS = [m.key for m in mistakes.GALLERY]


def handler(route, request):
    out = run_to_end(dispatch(route, request, None))
    assert out["ok"], out
    return out["answer"]


#: the one measured fact that depends on where it is measured: how deep the call stack
#: already is when the bisection starts (pytest's frames, a server's thread)
WHERE_MEASURED = "shallowest depth that fails"


def canonical(value):
    """JSON text with sorted keys, the depth the stack had left set aside (checked to be
    a depth just under the recursion limit)."""
    def strip(v):
        if isinstance(v, dict):
            if WHERE_MEASURED in v:
                depth, limit = v[WHERE_MEASURED], v["recursion limit"]
                assert isinstance(depth, int) and limit - 100 < depth < limit, v
            return {k: strip(x) for k, x in v.items() if k != WHERE_MEASURED}
        if isinstance(v, list):
            return [strip(x) for x in v]
        return v
    return json.dumps(strip(value), sort_keys=True, allow_nan=False)


# ---------------------------------------------------------------------------------------
# the handlers: the gallery's own entries, run
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("key", KEYS)
def test_each_entry_is_the_gallery_run_directly(key):
    entry = handler("mistakes.run", {"key": key})
    direct = mistakes.get(key).to_dict()
    assert canonical(entry["result"]) == canonical(direct["result"])
    for field in ("key", "title", "code", "why", "fix"):
        assert entry[field] == direct[field]
    assert entry["not_run"] is None  # this Python runs every entry
    # the learner's numbers, or its error, are there to show
    learner = entry["result"]["learner"]
    assert learner and all(o["error"] or o["grads"] for o in learner)


def test_the_list_is_every_entry_in_order_without_running_them():
    listed = handler("mistakes.list", {})["mistakes"]
    assert [e["key"] for e in listed] == KEYS
    for e in listed:
        assert "result" not in e
        assert e["code"] == mistakes.get(e["key"]).code
        assert e["not_run"] is None


@pytest.mark.parametrize("key,mode", [("assign", "assign"),
                                      ("recursive_backward", "recursive"),
                                      ("no_zero_grad", "no_zero_grad")])
def test_a_walk_link_opens_the_walk_showing_the_same_wrong_gradients(key, mode):
    entry = handler("mistakes.run", {"key": key})
    setup = WalkSetup.from_url(entry["walk"])
    assert setup.mode == mode
    doc = handler("walk", {"preset": setup.preset, "values": setup.values, mode: True})
    shown = {n["name"]: n["grad"] for n in doc["graph"]["nodes"] if n["leaf"]}
    learner = [o["grads"] for o in entry["result"]["learner"] if not o["error"]]
    # the Walk's graph holds the example's leaves, at the example's point
    assert any(shown == grads for grads in learner), (shown, learner)
    assert shown != entry["result"]["right"]["grads"]  # and it is the mistake shown


def test_only_the_entries_with_a_teaching_mode_link_to_the_walk():
    listed = handler("mistakes.list", {})["mistakes"]
    assert {e["key"]: e["walk"]["mode"] for e in listed if e["walk"]} == {
        "assign": "assign", "recursive_backward": "recursive", "no_zero_grad": "no_zero_grad"}


def test_refusals_are_data():
    out = run_to_end(dispatch("mistakes.run", {"key": "nope"}, None))
    assert out["error"]["kind"] == "not_found" and "assign" in out["error"]["message"]
    out = run_to_end(dispatch("mistakes.run", {}, None))
    assert out["error"]["kind"] == "invalid" and out["error"]["field"] == "key"
    out = run_to_end(dispatch("mistakes.run", {"key": 7}, None))
    assert out["error"]["kind"] == "invalid"
    out = run_to_end(dispatch("mistakes.list", {"key": "assign"}, None))
    assert out["error"]["kind"] == "invalid" and "'key'" in out["error"]["message"]


# ---------------------------------------------------------------------------------------
# both doors
# ---------------------------------------------------------------------------------------


def client_routes():
    """client.js's table for the gallery: operation -> (method, path for key 'KEY')."""
    text = CLIENT.read_text()
    table = text[text.index("const ROUTES = {"):]
    table = table[:table.index("};")]
    out = {}
    for name, method, path in re.findall(r'"(mistakes\.\w+)": \["(\w+)", \((?:r)?\) => '
                                         r'[`"]([^`"]+)[`"]\]', table):
        out[name] = (method, path.replace("${encodeURIComponent(r.key)}", "KEY"))
    return out


def through_http(client, routes, name, request):
    method, path = routes[name]
    r = client.request(method, "/" + path.replace("KEY", request.get("key", "")))
    return r.status_code, r.json()


def through_worker_door(name, request):
    call = entry_point("micrograd.web.pyodide.door:call")  # the worker's default entry
    job = Call(call, name, json.dumps(request))
    text = job.step()
    while text is None:
        text = job.step()
    return json.loads(text)


#: the handlers' error kinds -> the status the server sends for them
STATUS = {"invalid": 422, "refused": 400, "not_found": 404}


def test_client_js_names_both_operations():
    assert client_routes() == {"mistakes.list": ("GET", "api/mistakes"),
                               "mistakes.run": ("GET", "api/mistakes/KEY")}


def test_both_doors_give_the_same_answers():
    routes = client_routes()
    client = TestClient(create_app(), base_url="http://127.0.0.1:8000")
    log = [("mistakes.list", {})] + [("mistakes.run", {"key": k}) for k in KEYS]
    log.append(("mistakes.run", {"key": "no_such_mistake"}))
    for name, request in log:
        status, http = through_http(client, routes, name, request)
        worker = through_worker_door(name, request)
        if status == 200:
            assert worker["ok"], (name, request, worker)
            assert canonical(http) == canonical(worker["data"]), (name, request)
        else:
            assert not worker["ok"] and STATUS[worker["error"]["kind"]] == status
            assert http["error"] == worker["error"]["message"]
    assert status == 404  # the last one: no such mistake, through both doors


# ---------------------------------------------------------------------------------------
# the browser's Python
# ---------------------------------------------------------------------------------------

WORKER_SIDE = r"""
import json, sys
from micrograd.web.pyodide.calls import Call, entry_point

call = entry_point("micrograd.web.pyodide.door:call")
out = []
for name, request in json.loads(LOG_JSON):
    job = Call(call, name, json.dumps(request))
    text = job.step()
    while text is None:
        text = job.step()
    out.append(json.loads(text))
print(json.dumps({"platform": sys.platform, "answers": out}))
"""

BLOCK_TORCH = r"""
import sys

class Refuse:  # PyTorch as absent as in the browser's Python
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "torch":
            raise ModuleNotFoundError("No module named 'torch' (blocked)", name=name)

sys.meta_path.insert(0, Refuse())
"""


def run(args, stdin):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run(args, input=stdin, capture_output=True, text=True, timeout=600,
                          cwd=ROOT, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def numbers_alike(a, b, where):
    """The same outcome: equal values and grads (a float within 1e-12, relative: the
    two math libraries may round tanh differently in the last place), the same error
    type (the messages are each Python version's own)."""
    assert a["runs_on"] == b["runs_on"], where
    assert (a["error"] is None) == (b["error"] is None), (where, a, b)
    if a["error"]:
        assert a["error"]["type"] == b["error"]["type"], where
    assert close(a["value"], b["value"]) and set(a["grads"]) == set(b["grads"]), where
    assert all(close(a["grads"][k], b["grads"][k]) for k in a["grads"]), (where, a, b)


def close(x, y, rel=1e-12):
    if isinstance(x, float) and isinstance(y, float):
        return abs(x - y) <= rel * max(1.0, abs(x)) or (math.isnan(x) and math.isnan(y))
    return x == y


@pytest.fixture(scope="module")
def on_pyodide():
    """(the worker door's answers on Pyodide's Python, the same on this Python with
    PyTorch blocked)"""
    log = [["mistakes.list", {}]] + [["mistakes.run", {"key": k}] for k in KEYS]
    script = WORKER_SIDE.replace("LOG_JSON", repr(json.dumps(log)))
    pyodide = run(["node", str(NODE_RUNNER)], script)
    here = run([sys.executable, "-"], BLOCK_TORCH + script)
    return pyodide, here


@pytest.mark.slow  # Pyodide in node, or a long run: CI runs it, the quick run does not
def test_every_entry_answers_on_pyodide_without_ending_its_python(on_pyodide):
    pyodide, _ = on_pyodide
    assert pyodide["platform"] == "emscripten"
    assert len(pyodide["answers"]) == len(KEYS) + 1 and all(a["ok"] for a in pyodide["answers"])
    listed = {e["key"]: e for e in pyodide["answers"][0]["data"]["mistakes"]}
    ran = {a["data"]["key"]: a["data"] for a in pyodide["answers"][1:]}
    # the endless recursion through `+` is not run there, and the page is told why
    not_run = {k for k, e in ran.items() if e["not_run"]}
    assert not_run == {"radd_recursion"} == {k for k, e in listed.items() if e["not_run"]}
    assert ran["radd_recursion"]["result"] is None
    assert "WebAssembly stack" in ran["radd_recursion"]["not_run"]
    # the deep recursive sort does run there: a recursion of Python calls only
    deep = ran["deep_recursive_topo"]["result"]
    assert deep["learner"][0]["error"]["type"] == "RecursionError"
    assert deep["fixed"]["error"] is None


@pytest.mark.slow  # Pyodide in node, or a long run: CI runs it, the quick run does not
def test_on_pyodide_the_numbers_are_cpythons(on_pyodide):
    pyodide, here = on_pyodide
    assert here["platform"] != "emscripten"
    for p, h in zip(pyodide["answers"][1:], here["answers"][1:]):
        p, h = p["data"], h["data"]
        if p["not_run"]:
            continue
        where = p["key"]
        for field in ("code", "why", "fix", "walk", "title"):
            assert p[field] == h[field], (where, field)
        pr, hr = p["result"], h["result"]
        assert pr["example"] == hr["example"], where
        assert len(pr["learner"]) == len(hr["learner"]), where
        for a, b in zip(pr["learner"] + [pr["right"]], hr["learner"] + [hr["right"]]):
            numbers_alike(a, b, where)
        if hr["fixed"]:
            numbers_alike(pr["fixed"], hr["fixed"], where)
        assert set(pr["finite_differences"]) == set(hr["finite_differences"])
        # a last-place difference of tanh, divided by the differences' 2h = 2e-6
        assert all(close(pr["finite_differences"][k], v, 1e-9)
                   for k, v in hr["finite_differences"].items()), where
        assert set(pr["facts"]) == set(hr["facts"]), where

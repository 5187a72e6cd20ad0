"""One page, two doors: the same requests give the same JSON answers through HTTP
(``micrograd serve``'s app, FastAPI's TestClient) and through the static site's worker
(the request handlers called as ``pyodide_worker.js`` calls them, on Pyodide's Python in
node), floats bit for bit.

Both sides run the engine without NumPy (the browser's Python has none, so the served
side has it blocked too): what is compared is the doors, on one computation.
The HTTP side finds each operation's method and path in client.js's own table.
"""

import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CLIENT = ROOT / "src" / "micrograd" / "web" / "static" / "client.js"
NODE_RUNNER = ROOT / "tests" / "run_in_pyodide.mjs"

#: the recorded log: the client's operation names and requests; "$sid" is the session
#: the last play.create made (each door its own)
PLAY = {"dataset": "disk", "hidden": [4], "samples": 60, "lr": 0.1, "optimizer": "adam"}
LOG = [
    ("meta", {}),
    ("walk", {"preset": "lecture"}),
    ("walk.check", {"preset": "lecture", "values": {}, "answer": 6}),
    ("walk.check", {"preset": "lecture", "values": {}, "answer": -6}),
    ("walk.nudge", {"preset": "lecture", "values": {"a": 2.5}, "leaf": "a", "h": 1e-4}),
    ("walk.order", {"preset": "lecture", "values": {}, "order": ["n6", "n4", "n5", "n0",
                                                                "n1", "n2", "n3"]}),
    ("walk", {"preset": "lecture", "values": {"c": 7.25}, "assign": True}),
    ("walk", {"preset": "neuron"}),
    ("walk", {"preset": "diamond"}),
    ("walk", {"preset": "diamond", "recursive": True, "values": {"a": -1.5}}),
    ("walk.check", {"preset": "diamond", "values": {}, "answer": 15}),
    ("walk.check", {"preset": "diamond", "values": {}, "answer": 9}),
    ("walk.order", {"preset": "diamond", "values": {}, "order": ["n5", "n2", "n4", "n0"]}),
    ("walk.order", {"preset": "diamond", "values": {}, "order": ["n0", "n2", "n4", "n5"]}),
    ("walk.nudge", {"preset": "diamond", "values": {}, "leaf": "a", "h": 0.001}),
    ("walk", {"expr": "x = 0.5; y = exp(x*x) * x", "ask": "x", "of": "y"}),
    ("walk", {"expr": "tanh(x*w)"}),  # refused: names without values
    ("walk", {"preset": "nope"}),  # refused: no such preset
    ("walk", {"expr": "a = 2; b = a *"}),  # refused: does not parse
    ("play.create", PLAY),
    ("play.step", {"sid": "$sid", "steps": 1}),
    ("play.step", {"sid": "$sid", "steps": 1}),
    ("play.step", {"sid": "$sid", "steps": 1}),
    ("play.reset", {"sid": "$sid", "init_seed": 7}),
    ("play.step", {"sid": "unknown-session", "steps": 1}),  # lost
    ("play.change", {"setup": {**PLAY, "added": [[0.5, 0.5, -1]]}, "field": "loss",
                     "value": "ce"}),
    # a value the set-up's check refuses later, passed on
    ("play.change", {"setup": PLAY, "field": "classes", "value": 9}),
    ("walk", {"preset": "neuron", "rankdir": "TB", "stack": True}),  # a phone's
    # grads of inf, -inf and nan in the no-zero_grad mode's table (a, b, c)
    ("walk", {"expr": "a = 0; b = 0; c = -1; y = sqrt(a) - sqrt(b) + sqrt(c)",
              "mode": "no_zero_grad"}),
    ("walk.nudge", {"expr": "relu(a)", "values": {"a": 0}, "leaf": "a", "h": 1e-110}),
    ("walk.nudge", {"expr": "relu(a)", "values": {"a": 0}, "leaf": "a", "h": 1e-320}),
]

def routes():
    """client.js's table: operation -> (method, path with {sid})."""
    text = CLIENT.read_text()
    table = text[text.index("const ROUTES = {"):]
    table = table[:table.index("};")]
    out = {}
    for name, method, path in re.findall(r'"([\w.]+)": \["(\w+)", \(\) => "([^"]+)"\]', table):
        out[name] = (method, path)
    for name, method, tail in re.findall(r'"([\w.]+)": \["(\w+)", session\("([^"]*)"\)\]',
                                         table):
        out[name] = (method, "api/play/{sid}" + tail)
    return out


HTTP_SIDE = r"""
import json, sys
from fastapi.testclient import TestClient
from micrograd.web.app import create_app

log, routes = json.loads(sys.stdin.read())
client = TestClient(create_app(), base_url="http://127.0.0.1:8000")
sid, out = None, []
for name, request in log:
    request = {k: (sid if v == "$sid" else v) for k, v in request.items()}
    method, path = routes[name]
    path = "/" + path.replace("{sid}", request.pop("sid", ""))
    body = request if method in ("POST", "PATCH", "PUT") else None
    r = client.request(method, path, json=body)
    data = r.json()
    if r.status_code == 200:
        if name == "play.create":
            sid = data["sid"]
        out.append({"ok": True, "status": 200, "data": data})
    else:
        out.append({"ok": False, "status": r.status_code, "data": data})
print(json.dumps(out))
"""

BLOCK_NUMPY = r"""
import sys

class Refuse:  # NumPy as absent as in the browser's Python
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "numpy":
            raise ModuleNotFoundError("No module named 'numpy' (blocked)", name=name)

sys.meta_path.insert(0, Refuse())
"""

WORKER_SIDE = r"""
import json
from micrograd.web.pyodide.calls import Call, entry_point

call = entry_point("micrograd.web.pyodide.door:call")  # the worker's default entry
log = json.loads(LOG_JSON)
sid, out = None, []
for name, request in log:
    request = {k: (sid if v == "$sid" else v) for k, v in request.items()}
    job = Call(call, name, json.dumps(request))
    text = job.step()
    while text is None:  # the worker: one turn per task of its event loop
        text = job.step()
    answer = json.loads(text)
    if answer["ok"] and name == "play.create":
        sid = answer["data"]["sid"]
    out.append(answer)
import sys
print(json.dumps({"python": sys.version.split()[0], "platform": sys.platform,
                  "answers": out}))
"""

#: the handlers' error kinds -> the HTTP status the server sends for them
STATUS = {"invalid": 422, "refused": 400, "not_found": 404, "lost": 404, "busy": 503}


def as_page_reads(value):
    """The value as the page's JSON.parse gives it: one kind of number (the HTTP door's
    schema writes the integer caps of ``meta`` as 60.0, which is the number 60 in
    JavaScript); -0.0 stays -0.0, which JavaScript keeps apart."""
    if isinstance(value, dict):
        return {k: as_page_reads(v) for k, v in value.items()}
    if isinstance(value, list):
        return [as_page_reads(v) for v in value]
    if isinstance(value, float) and value.is_integer() and str(value) != "-0.0":
        return int(value)
    return value


def canonical(value, sid=None):
    """JSON text with sorted keys (floats as repr writes them: equal text, equal bits),
    the session id replaced (each door makes its own)."""
    text = json.dumps(as_page_reads(value), sort_keys=True, allow_nan=False)
    return text.replace(json.dumps(sid), '"$sid"') if sid else text


def differences(a, b, where=""):
    """Where two JSON values differ (paths), for the failure's message."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [d for k in sorted(set(a) | set(b))
                for d in differences(a.get(k), b.get(k), f"{where}.{k}")]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [d for i, (x, y) in enumerate(zip(a, b)) for d in differences(x, y, f"{where}[{i}]")]
    return [] if json.dumps(a) == json.dumps(b) else [f"{where}: {a!r} != {b!r}"]


def run(args, stdin):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run(args, input=stdin, capture_output=True, text=True, timeout=600,
                          cwd=ROOT, env=env)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def both():
    """(HTTP's answers, the worker door's on this Python, the worker door's on Pyodide)"""
    http = run([sys.executable, "-c", BLOCK_NUMPY + HTTP_SIDE], json.dumps([LOG, routes()]))
    script = WORKER_SIDE.replace("LOG_JSON", repr(json.dumps(LOG)))
    here = run([sys.executable, "-"], BLOCK_NUMPY + script)
    pyodide = run(["node", str(NODE_RUNNER)], script)
    return http, here, pyodide


def test_the_log_reads_client_js_routes_for_every_operation():
    assert set(routes()) >= {name for name, _ in LOG}
    assert routes()["play.lr"] == ("PATCH", "api/play/{sid}")


@pytest.mark.slow  # Pyodide in node, or a long run: CI runs it, the quick run does not
def test_the_worker_side_ran_on_pyodides_python(both):
    _, here, pyodide = both
    assert pyodide["platform"] == "emscripten" and pyodide["python"].startswith("3.14")
    assert here["platform"] != "emscripten"


def sid_of(answers):
    return next(a["data"]["sid"] for a in answers if a["ok"] and "sid" in a["data"])


def same_answers(http, answers, equal):
    """Each worker answer against HTTP's: data equal by ``equal``; a refusal with the
    status of its kind, the same sentence and free names (a lost session aside: the
    sentence says how long the server keeps sessions, where the page's worker keeps
    them as long as it lives)."""
    assert len(http) == len(answers) == len(LOG)
    http_sid, worker_sid = sid_of(http), sid_of(answers)
    for (name, request), h, w in zip(LOG, http, answers):
        assert h["ok"] == w["ok"], (name, request, h, w)
        if h["ok"]:
            equal(json.loads(canonical(h["data"], http_sid)),
                  json.loads(canonical(w["data"], worker_sid)), (name, request))
        else:  # the same kind of refusal, the same sentence, the same free names
            err = w["error"]
            assert h["status"] == STATUS[err["kind"]], (name, h, err)
            if err["kind"] != "lost":  # (a lost session's sentence names its store's rules)
                assert h["data"]["error"] == err["message"]
            assert h["data"].get("free") == err.get("free")


def bit_for_bit(a, b, where):
    assert canonical(a) == canonical(b), (where, differences(a, b)[:5])


@pytest.mark.slow  # Pyodide in node, or a long run: CI runs it, the quick run does not
def test_every_answer_is_the_same_json_through_both_doors_bit_for_bit(both):
    http, here, _ = both
    same_answers(http, here["answers"], bit_for_bit)


def floats(value):
    if isinstance(value, dict):
        return [x for k in sorted(value) for x in floats(value[k])]
    if isinstance(value, list):
        return [x for v in value for x in floats(v)]
    return [value] if isinstance(value, float) else []


@pytest.mark.slow  # Pyodide in node, or a long run: CI runs it, the quick run does not
def test_on_pyodides_python_too_but_for_the_last_bit_of_its_math_library(both):
    """Pyodide's libm (Emscripten's) and this machine's C library may round exp and tanh
    differently in the last place (and training steps carry such a difference on): the
    same answers, a float differing by at most 1e-12 (relative) where the math library
    enters, and exactly the same everywhere else (the lecture's graph and the diamond
    use no such function)."""
    http, _, pyodide = both
    ulps = []

    def close(a, b, where):
        no_floats = json.loads(json.dumps(a), parse_float=lambda t: 0.0)
        assert no_floats == json.loads(json.dumps(b), parse_float=lambda t: 0.0), where
        for x, y in zip(floats(a), floats(b)):
            if x != y:
                ulps.append((where[0], where[1].get("preset") or where[1].get("expr"),
                             abs(x - y) / math.ulp(x)))
                assert abs(x - y) <= 1e-12 * max(1.0, abs(x)), (where, x, y)

    same_answers(http, pyodide["answers"], close)
    exact = [(n, r) for (n, r), h in zip(LOG, http)
             if r.get("preset") in ("lecture", "diamond") and h["ok"]]
    assert exact and not [u for u in ulps if u[1] in ("lecture", "diamond")], ulps
    print(f"\nfloats differing in the last place on Pyodide: {len(ulps)}: {ulps[:6]}")


@pytest.mark.slow  # Pyodide in node, or a long run: CI runs it, the quick run does not
def test_the_log_holds_the_lectures_numbers_and_each_kind_of_answer(both):
    http = both[0]
    lecture = http[1]["data"]["graph"]["nodes"]
    assert {n["name"]: n["grad"] for n in lecture if n["leaf"]} == \
        {"a": 6.0, "b": -4.0, "c": -2.0, "f": 4.0}
    diamond = http[8]["data"]["graph"]["nodes"]
    assert [n["grad"] for n in diamond if n["name"] == "a"] == [15.0]
    assert [h["status"] for h in http if not h["ok"]] == [400, 404, 400, 404, 400]
    steps = [h["data"]["step"] for h in http[19:24]]
    assert steps == [0, 1, 2, 3, 0]


@pytest.mark.slow  # Pyodide in node, or a long run: CI runs it, the quick run does not
def test_unbounded_numbers_and_a_tiny_h_through_every_door(both):
    """inf, -inf and nan as the wire sends them (never null, never a failed answer), the
    nudge at a tiny h answered and a subnormal one refused, on both doors and on
    Pyodide's Python."""
    http, here, pyodide = both
    for answers in (http, here["answers"], pyodide["answers"]):
        table, nudged, refusal = answers[-3:]
        assert table["ok"] and nudged["ok"] and not refusal["ok"], (table, nudged, refusal)
        rows = {r["name"]: r for r in table["data"]["conventions"]["rows"]}
        for name, sent, text in [("a", "Infinity", "inf"), ("b", "-Infinity", "-inf"),
                                 ("c", "NaN", "nan")]:
            assert [rows[name][k] for k in ("one_pass", "micrograd", "pytorch")] \
                == [sent] * 3 and rows[name]["texts"]["micrograd"] == text, rows[name]
        assert (nudged["data"]["slope"], nudged["data"]["ok"]) == (0.5, False)
        message = refusal["data"]["error"] if "data" in refusal else refusal["error"]["message"]
        assert message.startswith("h must be a positive finite number, at least"), refusal

"""One name per route: the keys of ``micrograd.web.handlers.ROUTES`` are the names the
page's components call (``client.call(name, request)``), the names the HTTP routes carry
(their ``name``) and the names the static site's worker door dispatches, unchanged.

Every name the page calls is a route; every route is reached under its name through both
doors (HTTP: the client's URL table run against ``micrograd serve``'s app; the worker
door: the request handlers called as ``pyodide_worker.js`` calls them); nothing
translates one name into another on the way.
"""

import json
import re
import warnings
from pathlib import Path

import pytest

with warnings.catch_warnings():  # starlette warns about httpx vs httpx2 at import time
    warnings.simplefilter("ignore")
    from fastapi.routing import APIRoute
    from fastapi.testclient import TestClient

from micrograd.web.app import create_app
from micrograd.web.handlers import ROUTES
from micrograd.web.pyodide import door
from micrograd.web.pyodide.calls import Call, entry_point
from micrograd.web.routers import gpt, mistakes, page, play, walk

WEB = Path(__file__).resolve().parent.parent / "src" / "micrograd" / "web"
CLIENT = WEB / "static" / "client.js"
#: the page's modules: its components, the client, the static site's pages and worker
PAGE_JS = sorted((WEB / "static").glob("*.js")) + sorted((WEB / "pyodide").glob("*.js"))

#: the names the page called before it called the routes by their own names
OLD_NAMES = ["walk.build", "play.setLr", "play.setWeight", "play.inspectStop", "csv.read",
             "play.csv"]


def called_names():
    """Every name written out as the first argument of a call(...) or farewell(...) in the
    page's modules: {name: [file:line]}."""
    out = {}
    for path in PAGE_JS:
        for i, line in enumerate(path.read_text().splitlines(), 1):
            for name in re.findall(r'\b(?:call|farewell)\(\s*"([^"]*)"', line):
                out.setdefault(name, []).append(f"{path.name}:{i}")
    return out


def passed_on_names():
    """The call(...) and farewell(...) sites whose name is not written out: (file, arg)."""
    return [(path.name, arg) for path in PAGE_JS for line in path.read_text().splitlines()
            if not line.lstrip().startswith(("*", "/"))
            for arg in re.findall(r'\b(?:call|farewell)\(\s*([^"\s)][^,)]*)', line)]


def client_urls():
    """client.js's table: name -> (method, path as FastAPI writes it: {sid}, {key})."""
    text = CLIENT.read_text()
    table = text[text.index("const ROUTES = {"):]
    table = table[:table.index("};")]
    out = {}
    for name, method, path in re.findall(r'^  "([\w.]+)": \["(\w+)", (.*)\],$', table, re.M):
        fixed = re.fullmatch(r'\(\) => "([^"]+)"', path)
        keyed = re.fullmatch(r'\(r\) => `([^`]+)`', path)
        session = re.fullmatch(r'session\("([^"]*)"\)', path)
        gpt = re.fullmatch(r'gptSession\("([^"]*)"\)', path)
        assert fixed or keyed or session or gpt, (name, path)
        if fixed:
            out[name] = (method, "/" + fixed[1])
        elif keyed:
            out[name] = (method, "/" + re.sub(r"\$\{encodeURIComponent\(r\.(\w+)\)\}", r"{\1}",
                                              keyed[1]))
        elif gpt:
            out[name] = (method, "/api/gpt/{sid}" + gpt[1])
        else:
            out[name] = (method, "/api/play/{sid}" + session[1])
    return out


def http_routes():
    """The served app's API routes: name -> (method, path), from the feature routers."""
    out = {}
    for feature in (page, walk, play, mistakes, gpt):
        for route in feature.router.routes:
            if isinstance(route, APIRoute) and route.path.startswith("/api/"):
                (method,) = route.methods
                assert route.name not in out, route.name
                out[route.name] = (method, route.path)
    return out


# ---------------------------------------------------------------------------------------
# the names
# ---------------------------------------------------------------------------------------

def test_every_name_the_page_calls_is_a_route_of_the_handlers():
    called = called_names()
    assert {"walk", "walk.check", "play.lr", "play.weight", "play.inspect.stop",
            "play.csv.read", "play.csv.write", "mistakes.run", "meta"} <= set(called)
    unknown = {name: where for name, where in called.items() if name not in ROUTES}
    assert not unknown, f"names the page calls that no route has: {unknown}"


def test_a_call_without_a_name_written_out_passes_its_callers_name_on():
    # the client's own call(name, request) and the session's: nothing picks a name there
    assert {arg for _, arg in passed_on_names()} <= {"name", "bytes"}, passed_on_names()


def test_the_clients_url_table_names_each_route_once_by_its_own_name():
    names = re.findall(r'^  "([\w.]+)": \[', CLIENT.read_text(), re.M)
    assert sorted(names) == sorted(ROUTES)


def test_each_http_route_carries_the_name_of_its_handler_and_the_clients_url():
    assert http_routes() == client_urls()
    assert client_urls()["play.lr"] == ("PATCH", "/api/play/{sid}")
    assert client_urls()["mistakes.run"] == ("GET", "/api/mistakes/{key}")


def test_the_worker_door_translates_no_name():
    for name in ROUTES:  # each route by its own name (answered: the test below)
        door.call(name, {}).close()
    for name in OLD_NAMES:
        with pytest.raises(LookupError, match="no route named"):
            door.call(name, {})
    # the door keeps no table of names but the handlers' own
    tables = [v for v in vars(door).values() if isinstance(v, dict) and set(v) & set(ROUTES)]
    assert tables == [ROUTES]


def test_the_old_names_are_gone_from_the_client():
    assert not set(OLD_NAMES) & (set(client_urls()) | set(called_names()))


# ---------------------------------------------------------------------------------------
# every route through both doors
# ---------------------------------------------------------------------------------------

#: a request for every route; "$sid" is the session the last play.create made
LOG = [
    ("meta", {}),
    ("walk", {"preset": "lecture"}),
    ("walk.check", {"preset": "lecture", "values": {}, "answer": 6}),
    ("walk.order", {"preset": "diamond", "values": {}, "order": ["n5", "n2", "n4", "n0"]}),
    ("walk.nudge", {"preset": "lecture", "values": {}, "leaf": "a", "h": 1e-4}),
    ("mistakes.list", {}),
    ("mistakes.run", {"key": "assign"}),
    ("play.csv.read", {"text": "0.5,0.5,1\n-0.5,-0.5,-1\n0.25,0.75,1\n-0.75,-0.25,-1\n"}),
    ("play.change", {"setup": {"dataset": "disk", "loss": "hinge", "added": [[0.5, 0.5, -1]]},
                     "field": "loss", "value": "ce"}),
    ("play.create", {"dataset": "xor", "hidden": [2], "samples": 40}),
    ("play.get", {"sid": "$sid"}),
    ("play.step", {"sid": "$sid", "steps": 2}),
    ("play.lr", {"sid": "$sid", "lr": 0.05}),
    ("play.weight", {"sid": "$sid", "name": "w1.1.1", "value": 0.5}),
    ("play.inspect", {"sid": "$sid", "x": 0.1, "y": 0.2, "label": 1}),
    ("play.inspect.stop", {"sid": "$sid"}),
    ("play.reset", {"sid": "$sid", "init_seed": 3}),
    ("play.csv.write", {"sid": "$sid"}),
    ("play.delete", {"sid": "$sid"}),
    ("gpt.create", {"seed": 3, "steps": 20}),
    ("gpt.step", {"sid": "$sid", "steps": 2}),
    ("gpt.sample", {"sid": "$sid", "count": 3, "temperature": 0.7}),
    ("gpt.attention", {"sid": "$sid", "name": "emma"}),
    ("gpt.walk", {"sid": "$sid", "name": "emma", "position": 2}),
    ("gpt.walk.block", {"sid": "$sid", "name": "emma", "position": 2, "block": "b3",
                        "path": [1]}),
    ("gpt.delete", {"sid": "$sid"}),
]


def through_http(log):
    """Each request sent as the client's HTTP door sends it (its method and URL)."""
    client = TestClient(create_app(), base_url="http://127.0.0.1:8000")
    urls, sid, out = client_urls(), None, []
    for name, request in log:
        request = {k: (sid if v == "$sid" else v) for k, v in request.items()}
        method, path = urls[name]
        path = re.sub(r"\{(\w+)\}", lambda m, r=request: r.pop(m[1]), path)
        r = client.request(method, path, json=request if method in ("POST", "PATCH") else None)
        assert r.status_code == 200, (name, r.status_code, r.text[:300])
        data = r.json()
        if name in ("play.create", "gpt.create"):
            sid = data["sid"]
        out.append((sid, data))
    return out


def through_the_worker_door(log):
    """Each request as the static site's worker hands it to Python."""
    call = entry_point("micrograd.web.pyodide.door:call")
    sid, out = None, []
    for name, request in log:
        request = {k: (sid if v == "$sid" else v) for k, v in request.items()}
        job = Call(call, name, json.dumps(request))
        text = job.step()
        while text is None:  # the worker: one turn per task of its event loop
            text = job.step()
        answer = json.loads(text)
        assert answer["ok"], (name, answer)
        if name in ("play.create", "gpt.create"):
            sid = answer["data"]["sid"]
        out.append((sid, answer["data"]))
    return out


def same_json(value, sid):
    """JSON text with sorted keys, the session's id replaced (each door makes its own),
    whole floats as the page's JSON.parse reads them (the HTTP schema writes 60 as 60.0)."""
    def page_reads(v):
        if isinstance(v, dict):
            return {k: page_reads(x) for k, x in v.items()}
        if isinstance(v, list):
            return [page_reads(x) for x in v]
        return int(v) if isinstance(v, float) and v.is_integer() and str(v) != "-0.0" else v
    text = json.dumps(page_reads(value), sort_keys=True)
    return text.replace(json.dumps(sid), '"$sid"') if sid else text


def test_every_route_answers_under_its_name_through_both_doors_the_same():
    assert [name for name, _ in LOG] == list(dict.fromkeys(name for name, _ in LOG))
    assert {name for name, _ in LOG} == set(ROUTES)  # a new route: add its request here
    http, worker = through_http(LOG), through_the_worker_door(LOG)
    for (name, _), (hsid, h), (wsid, w) in zip(LOG, http, worker):
        if name == "gpt.step":  # a measure of time, each door's own
            assert h.pop("steps_per_second") > 0 and w.pop("steps_per_second") > 0
        assert same_json(h, hsid) == same_json(w, wsid), name

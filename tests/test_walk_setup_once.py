# ruff: noqa: F811  (the fixtures browser and server, imported, are the tests' arguments)
"""The Walk's set-up, declared once: its field names in one Python place (the request's
fields and schema are made from ``WalkSetup``'s), its mode texts in ``MODES`` and
``PRESETS``, the page reading the older mode keys and a link's syntax from
``WalkSetup.spec()``, the widget's default from ``WalkSetup``, and the walk's forward
through the op table."""

import inspect
import json
import re
import warnings
from dataclasses import fields, replace
from pathlib import Path

import pytest

with warnings.catch_warnings():  # starlette warns about httpx vs httpx2 at import time
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from micrograd import walk as walk_module
from micrograd import widget
from micrograd.expr import parse
from micrograd.walk_setup import MODES, OLD_MODE_KEYS, PRESETS, Preset, WalkSetup
from micrograd.web import create_app, schemas, walkview
from micrograd.web.handlers import LocalSessions, dispatch, run_to_end
from micrograd.web.handlers import walk as walk_handlers
from test_web_walk_browser import browser, open_walk, server  # noqa: F401 (fixtures)

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "micrograd"
STATIC = SRC / "web" / "static"
NAMES = [f.name for f in fields(WalkSetup)]


@pytest.fixture(scope="module")
def client():
    return TestClient(create_app())


def run(route, request):
    return run_to_end(dispatch(route, request, LocalSessions()))


# ---------------------------------------------------------------------------------------
# one Python place declares each field
# ---------------------------------------------------------------------------------------


def declares(text, name):
    """Whether Python ``text`` declares a field ``name``: a request's
    ``Field("name", ...)``, or a set-up's ``name: type = _f(...)`` (the Walk's) or
    ``= declare(...)`` (the Playground's)."""
    return re.search(rf"""\bField\(\s*["']{name}["']|^\s+{name}\s*:[^=\n]*=\s*"""
                     rf"""(?:_f|declare)\(""", text, re.M) is not None


#: another set-up's field of the same name: the Playground's training step
OTHERS = {("step", "web/handlers/play.py")}


@pytest.mark.parametrize("name", NAMES)
def test_each_walk_field_is_declared_in_one_python_module(name):
    found = sorted(p.relative_to(SRC).as_posix() for p in SRC.rglob("*.py")
                   if declares(p.read_text(encoding="utf-8"), name)
                   and (name, p.relative_to(SRC).as_posix()) not in OTHERS)
    assert found == ["walk_setup.py"]


def test_the_grep_sees_both_kinds_of_declaration():
    assert declares('WALK = (\n    Field("mode", "str", "correct"),\n)', "mode")
    assert declares("    mode: str = _f('choice', 'correct', 'mode', '')", "mode")
    assert declares("    mode: str = declare('choice', 'correct', 'mode', '')", "mode")
    assert not declares('    preset = setup_field("preset", default=None)', "preset")
    assert not declares('    modes: list = _f("choices", [], "", "")', "mode")


def test_the_request_fields_are_made_from_the_setups():
    """Each request field of the Walk with a WalkSetup name: its help, choices, caps
    and default from the declaration (the preset and expr of a request have none)."""
    spec = {f["name"]: f for f in WalkSetup.spec()["fields"]}
    asked = {f.name: f for f in walk_handlers.WALK}
    assert {"preset", "expr", "values", "mode", "ask", "of", "questions"} <= set(asked)
    for name in ("expr", "values", "mode", "ask", "of", "questions"):
        assert asked[name].description == spec[name]["help"], name
        assert asked[name].default == spec[name]["default"], name
    assert asked["mode"].choices == tuple(MODES)
    assert asked["values"].max_items == spec["values"]["max_len"]
    assert asked["questions"].choices == tuple(spec["questions"]["choices"])
    assert asked["expr"].max_length == spec["expr"]["max_len"]
    assert asked["preset"].default is None and asked["preset"].nullable
    # the HTTP schema, made from the same fields
    schema = schemas.WalkRequest.model_json_schema()["properties"]
    assert schema["mode"]["enum"] == list(MODES)
    assert schema["mode"]["description"] == spec["mode"]["help"]
    for key in OLD_MODE_KEYS:
        assert schema[key]["type"] == "boolean"
    step = walk_handlers.setup_field("step")  # a number's range, as declared
    assert (step.kind, step.ge, step.le, step.default) == ("int", 0, spec["step"]["max"], 0)
    # the other Walk requests read their graph from the same declarations
    for fields_ in (walk_handlers.CHECK, walk_handlers.ORDER, walk_handlers.NUDGE):
        assert fields_[:3] == walk_handlers.GRAPH


# ---------------------------------------------------------------------------------------
# the request takes `mode`; the older flags are read through OLD_MODE_KEYS
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("key", list(OLD_MODE_KEYS))
def test_an_older_requests_mode_flag_is_read_as_the_mode(client, key):
    mode = OLD_MODE_KEYS[key]
    by_mode = run("walk", {"preset": "lecture", "mode": mode})["answer"]
    assert by_mode["mode"] == mode
    for answer in (run("walk", {"preset": "lecture", key: True})["answer"],
                   client.post("/api/walk", json={"preset": "lecture", key: True}).json(),
                   client.post("/api/walk", json={"preset": "lecture", "mode": mode}).json()):
        assert answer == by_mode
    # a flag that is off says nothing; the same mode said twice is one mode
    assert run("walk", {"preset": "lecture", key: False})["answer"]["mode"] == "correct"
    assert run("walk", {"preset": "lecture", "mode": mode, key: True})["answer"] == by_mode


def test_the_static_sites_door_passes_the_mode_through():
    """The worker's door hands the request to the handlers as it is."""
    from micrograd.web.pyodide import door

    for body in ({"preset": "square", "mode": "assign"}, {"preset": "square", "assign": True}):
        doc = run_to_end(door.call("walk", body))
        assert doc["mode"] == "assign" and not doc["walk"]["ok"]


def test_two_modes_at_once_are_refused_naming_the_mode(client):
    for body in ({"preset": "square", "assign": True, "no_zero_grad": True},
                 {"preset": "square", "mode": "recursive", "assign": True}):
        err = run("walk", body)["error"]
        assert (err["kind"], err["field"]) == ("refused", "mode"), err
        assert "one teaching mode at a time" in err["message"]
        r = client.post("/api/walk", json=body)
        assert r.status_code == 400 and r.json() == {"error": err["message"],
                                                     "field": "mode"}


def test_an_unknown_mode_is_invalid(client):
    err = run("walk", {"preset": "square", "mode": "sideways"})["error"]
    assert (err["kind"], err["field"]) == ("invalid", "mode")
    assert client.post("/api/walk", json={"preset": "square", "mode": "sideways"}
                       ).status_code == 422


def test_walkview_takes_the_mode():
    doc = walkview.build(PRESETS["square"].expr, mode="assign")
    assert doc["mode"] == "assign" and doc["walk"]["grads"]["n0"] == 3.0
    assert "assign" not in inspect.signature(walkview.build_in_turns).parameters


# ---------------------------------------------------------------------------------------
# the answer says the set-up it shows; a link's texts are read by WalkSetup
# ---------------------------------------------------------------------------------------


def test_the_walk_answers_the_set_up_it_shows(client):
    doc = run("walk", {"preset": "lecture", "values": {"a": 3.0, "b": -3.0}, "step": 99,
                       "hide": ["order"]})["answer"]
    setup = doc["setup"]
    # the values the preset's text says already are left out; the text says the others
    assert setup["fields"] == WalkSetup(preset="lecture", values={"a": 3.0}, step=11,
                                        hide=["order"]).to_dict()
    assert setup["text"] == PRESETS["lecture"].expr.replace("a = 2", "a = 3")
    assert setup["notes"] == []
    assert client.post("/api/walk", json={"preset": "lecture", "values": {"a": 3.0}}
                       ).json()["setup"]["text"] == setup["text"]


def test_a_links_texts_are_read_as_the_page_reads_a_link(client):
    link = {"preset": "lecture", "v": "z:3,a:3", "mode": "up", "nozero": "1",
            "ask": "q", "step": "999", "hide": "order,grpah"}
    doc = run("walk", {"link": link})["answer"]
    fields_ = doc["setup"]["fields"]
    assert (fields_["values"], fields_["mode"], fields_["ask"], fields_["hide"]) == \
        ({"a": 3.0}, "no_zero_grad", None, ["order"])
    assert fields_["step"] == len(doc["walk"]["forward"]) + len(doc["walk"]["backward"])
    said = "\n".join(doc["setup"]["notes"])
    for word in ("'z'", "'up'", "'q'", "999", "'grpah'"):
        assert word in said, word
    assert client.post("/api/walk", json={"link": link}).json()["setup"] == doc["setup"]
    # a link or fields, not both; a link's graph that cannot be drawn is refused as ever
    err = run("walk", {"link": {}, "preset": "square"})["error"]
    assert (err["kind"], err["field"]) == ("invalid", "link")
    err = run("walk", {"link": {"expr": "tanh(x*w)", "v": "x:2"}})["error"]
    assert err["free"] == ["x", "w"]
    assert run("walk", {"link": {"preset": "nope"}})["answer"]["setup"]["fields"][
        "preset"] == WalkSetup().preset


# ---------------------------------------------------------------------------------------
# the mode texts are walk_setup's
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", [m for m in MODES if MODES[m].mistake])
def test_a_hint_names_the_mistake_in_the_modes_own_words(monkeypatch, mode):
    source = PRESETS["reused"].expr  # a = 3; b = a + a; c = b + b: dc/da = 4
    w = walk_module.walk(parse(source), mode=mode)
    wrong = w.grads[next(i for i, n in w.names.items() if n == "a")]
    assert wrong != 4.0
    assert MODES[mode].mistake in walkview.check(source, wrong)["hint"]
    monkeypatch.setitem(MODES, mode, replace(MODES[mode], mistake="the slip X"))
    assert "that is what the slip X gives" in walkview.check(source, wrong)["hint"]


def test_every_mistake_has_its_words_and_walkview_no_table():
    assert [m.key for m in MODES.values() if not m.mistake] == ["correct"]
    assert not hasattr(walkview, "_MISTAKES")


def test_a_presets_question_lead_is_its_own():
    diamond = PRESETS["diamond"]
    text = walkview.build(diamond.expr, preset=diamond)["question"]["text"]
    assert text == "On the diamond, in the right order, with a = 2, what is dd/da?"
    own = Preset("own", "own", diamond.expr, "a", question_lead="first of all,")
    assert walkview.build(own.expr, preset=own)["question"]["text"] == \
        "First of all, with a = 2, what is dd/da?"
    assert "diamond" not in inspect.getsource(walkview._question)


# ---------------------------------------------------------------------------------------
# the page reads a link's syntax and the older keys from WalkSetup.spec()
# ---------------------------------------------------------------------------------------


def test_the_spec_says_how_a_link_is_written(client):
    spec = {f["name"]: f for f in WalkSetup.spec()["fields"]}
    assert spec["mode"]["old_keys"] == OLD_MODE_KEYS
    assert (spec["values"]["sep"], spec["values"]["pair"]) == (",", ":")
    assert spec["hide"]["sep"] == spec["questions"]["sep"] == ","
    # the link the spec describes is the one to_url writes and from_url reads
    s = WalkSetup(preset="square", values={"a:b": 3.0, "c": -1.5}, hide=["graph", "order"])
    url = s.to_url()
    assert url["v"] == "a%3Ab:3,c:-1.5" and url["hide"] == "graph,order"
    assert WalkSetup.from_url(url) == s
    # an older link's every key opens its mode
    for key, mode in OLD_MODE_KEYS.items():
        assert WalkSetup.from_url({"preset": "square", key: "1"}).mode == mode
    meta = client.get("/api/meta").json()["walk"]
    assert json.loads(json.dumps(WalkSetup.spec())) == meta


def test_the_page_keeps_no_table_of_its_own():
    walk_js = (STATIC / "walk.js").read_text(encoding="utf-8")
    lesson_js = (STATIC / "walk_lesson.js").read_text(encoding="utf-8")
    for key in OLD_MODE_KEYS:  # the older keys come from the mode field's old_keys
        assert not re.search(rf"""["'`]?\b{key}\b["'`]?\s*:""", walk_js), key
    assert "OLD_MODE_KEY" not in walk_js and "nozero" not in walk_js
    for js in (walk_js, lesson_js):  # a link's separators come from the spec
        assert not re.search(r"""(split|join|lastIndexOf)\(\s*["'][,:]["']""", js)
    assert "modes()" not in walk_js  # the request says `mode`, not a flag per mode
    assert "mode: this.modeSelect.value" in walk_js


# ---------------------------------------------------------------------------------------
# the widget's default, the walk's forward
# ---------------------------------------------------------------------------------------


def test_the_widget_opens_the_walks_default():
    default = WalkSetup()
    m = widget.WalkModel()
    assert (m.preset, m.mode) == (default.preset, default.mode)
    for fn in (widget.WalkModel.__init__, widget.walk_widget):
        params = inspect.signature(fn).parameters
        assert params["what"].default is None and params["mode"].default is None
    assert widget.WalkModel(mode="assign").mode == "assign"


def test_the_walk_replays_through_the_op_tables_forward():
    root = parse("a = 2; b = a ** 3; c = b * a + relu(a - 5)")
    g = walk_module._Graph(root)
    a = next(n.id for n in g.nodes if n.name == "a")
    vals = walk_module.replay(root, {a: -1.5})
    assert vals[g.nodes[-1].id] == (-1.5) ** 3 * -1.5 + 0.0
    assert "has_arg" not in inspect.getsource(walk_module)


# ---------------------------------------------------------------------------------------
# the page sends `mode`, and opens an older link (a real Chromium)
# ---------------------------------------------------------------------------------------


@pytest.mark.browser
@pytest.mark.parametrize("link, mode", [("preset=lecture&nozero=1&v=a%3A3", "no_zero_grad"),
                                        ("preset=square&assign=1", "assign")])
def test_the_page_sends_the_mode_and_reads_older_links(browser, server, link, mode):
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    sent, errors = [], []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("request", lambda r: sent.append(json.loads(r.post_data))
            if r.url.endswith("/api/walk") and r.method == "POST" else None)
    try:
        open_walk(page, server, link)
        assert page.input_value("#w-mode") == mode
        page.wait_for_function(f"location.hash.includes('mode={mode}')")
        assert not any(f"{k}=1" in page.evaluate("location.hash") for k in OLD_MODE_KEYS)
        # the link's texts go to Python as they are (it reads the older key); every
        # request the page makes itself says `mode`
        assert sent and "link" in sent[0] and set(sent[0]["link"]) & set(OLD_MODE_KEYS)
        assert all(b["mode"] == mode for b in sent if "link" not in b)
        assert not any(set(b) & set(OLD_MODE_KEYS) for b in sent), sent
        if "v=" in link:
            assert page.input_value("#w-leaf-a") == "3"
        page.select_option("#w-mode", "correct")
        page.wait_for_function(f"!location.hash.includes('mode={mode}')")
        page.wait_for_function("document.querySelector('#w-mode').title"
                               f".startsWith({json.dumps(MODES['correct'].lesson[:20])})")
        assert sent[-1]["mode"] == "correct"
    finally:
        page.close()
    assert errors == []

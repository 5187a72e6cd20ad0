"""Your own data in and out: a CSV file of points read (every refusal names the line and
the field), written back with repr (the round trip gives the same floats), the data sets
of your own points, the caps sized for them, and the two doors (HTTP and the static
site's worker, on this Python and on Pyodide's) answering the same."""

import json
import math
import random
import re
import subprocess
import warnings
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from micrograd.expr import ExprError, parse
from micrograd.experiment import MAX_EDITS, MAX_PARAMETERS, MAX_SAMPLES
from micrograd.experiment.fields import MAX_COORD
from micrograd.experiment import Experiment, ExperimentError
from micrograd.points_csv import (MAX_CSV_CHARS, SHOWN_CHARS, PointsError, read_points,
                                  write_points)
from micrograd.web import create_app, limits
from micrograd.web.handlers import LocalSessions, dispatch, run_to_end
from micrograd.web.pyodide.calls import Call, entry_point
from micrograd.web.play_session import PlaySession

with warnings.catch_warnings():  # starlette warns about httpx vs httpx2 at import time
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

ROOT = Path(__file__).resolve().parent.parent

GOOD = "x1,x2,label\n0.5,0.5,1\n-0.5,-0.5,-1\n0.25,0.75,1\n-0.75,-0.25,-1\n"
#: the longest text a float of a point takes (repr), for the caps below
LONGEST = "-1.2345678901234567e-100"


def test_the_doc_example_and_a_file_read_back_give_the_same_floats():
    rng = random.Random(7)
    edge = [0.0, -0.0, 5e-324, -5e-324, 1e-300, 0.1, 1 / 3, 9.999999999999998, -MAX_COORD,
            MAX_COORD, 2.0 ** -1074, math.nextafter(MAX_COORD, 0)]
    pts = [[rng.uniform(-10, 10), rng.choice(edge), rng.choice([-1, 1])] for _ in range(300)]
    pts += [[a, b, 1] for a, b in zip(edge, reversed(edge))]
    text = write_points(pts, "label")
    got = read_points(text)
    assert got.column == "label" and got.classes is None
    # the same floats, bit for bit (the sign of zero too), and the same text again
    assert [[repr(v) for v in p] for p in got.points] == [[repr(float(a)), repr(float(b)), repr(c)]
                                                        for a, b, c in pts]
    assert write_points(got.points, "label") == text
    targets = [[rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1)] for _ in range(200)]
    targets.append([0.0, 0.0, -1.0])
    back = read_points(write_points(targets, "target"))
    assert back.column == "target" and back.points == targets
    assert [repr(p[2]) for p in back.points] == [repr(p[2]) for p in targets]


def test_a_header_is_optional_and_says_what_the_third_column_is():
    plain = "0.5,0.5,1\n-0.5,-0.5,-1\n"
    assert read_points(plain).points == [[0.5, 0.5, 1], [-0.5, -0.5, -1]]
    assert read_points(plain, column="target").column == "target"
    assert read_points(" X1 , X2 , Target \n0.1,0.2,0.3\n").column == "target"
    # a BOM, CRLF line ends, blank lines and spaces around the numbers are read
    got = read_points("\ufeffx1,x2,label\r\n\r\n 0.5 , 0.25 ,1\r\n\n-0.5,-0.25,-1\r\n")
    assert got.points == [[0.5, 0.25, 1], [-0.5, -0.25, -1]]
    assert read_points("0,0,0\n1,1,1\n", loss="bce").points == [[0.0, 0.0, 0], [1.0, 1.0, 1]]
    three = read_points("0,0,0\n1,1,2\n0.5,0.5,1\n", loss="ce")
    assert three.classes == 3 and [p[2] for p in three.points] == [0, 2, 1]


@pytest.mark.parametrize("text, kw, message, line, field", [
    ("", {}, "the file has no points", None, None),
    ("\n\n  \n", {}, "the file has no points", None, None),
    ("x1,x2,label\n", {}, "the file has no points", None, None),
    ("x1,x2,label\n0.5,0.5,1\n0.1,abc,1\n", {}, "line 3, field x2: 'abc' is not a number", 3, "x2"),
    ("x1,x2,label\n\n\n0.5,0.5,1\n1e5x,0,1\n", {},
     "line 5, field x1: '1e5x' is not a number", 5, "x1"),
    ("0.5,nan,1\n", {}, "line 1, field x2: 'nan' is not a finite number", 1, "x2"),
    ("0.5,0.5,inf\n", {}, "line 1, field label: 'inf' is not a finite number", 1, "label"),
    ("x1,x2,target\n0.5,0.5,-Infinity\n", {}, "line 2, field target: '-Infinity' is not a "
     "finite number", 2, "target"),
    ("1e999,0,1\n", {}, "line 1, field x1: '1e999' is too large for a float", 1, "x1"),
    ("0x10,0,1\n", {}, "line 1, field x1: '0x10' is not a number", 1, "x1"),
    ("1_000,0,1\n", {}, "line 1, field x1: '1_000' is not a number", 1, "x1"),
    ("0.5,0.5\n", {}, "line 1: 2 fields, expected 3 (x1, x2, label", 1, None),
    ("x1,x2,label\n0.5,0.5,1,7\n", {}, "line 2: 4 fields, expected 3", 2, None),
    ("0.5;0.5;1\n", {}, "line 1: 1 field, expected 3", 1, None),
    ("a,b,c\n0,0,1\n", {}, "line 1: a header names the fields x1, x2 and label or target", 1,
     None),
    ("0,0,1\nx1,x2,label\n", {}, "line 2, field x1: 'x1' is not a number", 2, "x1"),
    ("10.5,0,1\n", {}, "line 1, field x1: 10.5 lies outside [-10, 10]", 1, "x1"),
    ("-10.5,0,1\n", {}, "line 1, field x1: -10.5 lies outside [-10, 10]", 1, "x1"),
    ("0,-1e300,1\n", {}, "line 1, field x2: -1e+300 lies outside [-10, 10]", 1, "x2"),
    ("x1,x2,target\n0,0,0.5\n0,0,1.25\n", {}, "line 3, field target: 1.25 lies outside "
     "[-1, 1]", 3, "target"),
    # labels the loss refuses
    ("0,0,0\n", {}, "line 1, field label: 0 is not a label of the loss 'mse' (-1 or 1; for "
     "labels 0 and 1 choose the loss 'bce')", 1, "label"),
    ("0,0,1\n0,0,-1\n", {"loss": "bce"}, "line 2, field label: -1 is not a label of the loss "
     "'bce'", 2, "label"),
    ("0,0,0.5\n", {"loss": "hinge"}, "line 1, field label: 0.5 is not a label", 1, "label"),
    ("0,0,1.5\n", {"loss": "ce"}, "line 1, field label: 1.5 is not a class index (0 to 4)", 1,
     "label"),
    ("0,0,5\n", {"loss": "ce"}, "line 1, field label: 5 is not a class index", 1, "label"),
])
def test_every_refusal_names_the_line_and_the_field(text, kw, message, line, field):
    with pytest.raises(PointsError) as err:
        read_points(text, **kw)
    assert str(err.value).startswith(message), str(err.value)
    assert (err.value.line, err.value.field) == (line, field)


@pytest.mark.parametrize("text, kw, line, field, column, char", [
    ("\u0661,0.5,1\n", {}, 1, "x1", 1, "U+0661 ARABIC-INDIC DIGIT ONE"),
    ("0.5,\uff11,1\n", {}, 1, "x2", 5, "U+FF11 FULLWIDTH DIGIT ONE"),
    ("x1,x2,label\n0,0,1\n0.5, -\u0967,1\n", {}, 3, "x2", 7,
     "U+0967 DEVANAGARI DIGIT ONE"),
    ("0,0,1\u0660\n", {"loss": "ce"}, 1, "label", 6, "U+0660 ARABIC-INDIC DIGIT ZERO"),
    ("x1,x2,target\n0,0,0.\u0665\n", {}, 2, "target", 7,
     "U+0665 ARABIC-INDIC DIGIT FIVE"),
    ("1e\u0663,0,1\n", {}, 1, "x1", 3, "U+0663 ARABIC-INDIC DIGIT THREE"),
    ("\u00a00.5,0,1\n", {}, 1, "x1", 1, "U+00A0 NO-BREAK SPACE"),
    ("\u22120.5,0,1\n", {}, 1, "x1", 1, "U+2212 MINUS SIGN"),
])
def test_a_number_is_ascii_and_a_refusal_points_at_the_first_other_character(
        text, kw, line, field, column, char):
    """float() reads the digits of every script ('١' is 1.0); the expression language
    reads 0-9 only, and so does a file."""
    with pytest.raises(PointsError) as err:
        read_points(text, **kw)
    assert (err.value.line, err.value.field) == (line, field)
    message = str(err.value)
    assert message.startswith(f"line {line}, field {field}: "), message
    assert f"is not a number: column {column} holds {char}, not ASCII" in message, message


def test_the_ascii_forms_of_a_number_are_read():
    forms = {"0": 0.0, "-0": -0.0, "+1.5": 1.5, ".5": 0.5, "-.5": -0.5, "5.": 5.0,
             "1e-3": 1e-3, "-1E+1": -10.0, "2.5e0": 2.5, " \t0.25 \t": 0.25}
    text = "".join(f"{t},{t},1\n" for t in forms)
    got = read_points(text).points
    assert [repr(p[0]) for p in got] == [repr(v) for v in forms.values()]
    assert [repr(p[1]) for p in got] == [repr(v) for v in forms.values()]


@given(st.text(alphabet="0123456789.eE+-\u0661\uff15\u0968 ", min_size=1, max_size=8))
def test_a_field_read_is_a_number_of_the_expression_language(t):
    """What a file takes as a number, the expression language takes as the same number
    (a sign there is an operator); what the language refuses, a file refuses."""
    try:
        x = read_points(f"x1,x2,label\n{t},0,1\n").points[0][0]
    except PointsError as err:
        assert (err.line, err.field) == (2, "x1")
        stripped = t.strip(" ")
        if not stripped.isascii():  # pointed at
            assert "not ASCII" in str(err)
        return
    assert t.isascii()
    try:
        assert repr(parse(t.strip(" ")).data) == repr(x)
    except ExprError:
        pytest.fail(f"the file reads {t!r} as {x!r}, the expression language refuses it")


def test_a_long_field_is_quoted_short_and_said_to_be_cut_once():
    cases = [("0," + "9" * 2000 + ",1\n", "x2", 2000, "is too large for a float"),
             ("0,0," + "x" * 2000 + "\n", "label", 2000, "is not a number"),
             ("0,0,1" + "\u0661" * 2000 + "\n", "label", 2001, "is not a number: column 6")]
    S = LocalSessions()
    client = TestClient(create_app())
    for text, field, n, says in cases:
        with pytest.raises(PointsError) as err:
            read_points(text)
        message = str(err.value)
        # over HTTP and from the handler, that message whole: short, so nothing cuts it
        r = client.post("/api/play/csv", json={"text": text})
        assert r.status_code == 400 and r.json()["error"] == message, r.json()["error"][-120:]
        assert call("play.csv.read", {"text": text}, S)["error"]["message"] == message
        assert message.startswith(f"line 1, field {field}: "), message[:200]
        assert len(message) < 250, (len(message), message[:200])
        cut = f"... (the first {SHOWN_CHARS} of {n} characters) {says}"
        assert cut in message and message.count("characters)") == 1, message


def test_hostile_sizes_are_refused_before_anything_is_kept():
    row = f"{LONGEST},{LONGEST},{LONGEST}\n"
    full = "x1,x2,target\n" + row * MAX_SAMPLES
    assert len(full) <= MAX_CSV_CHARS  # the cap holds the longest file of MAX_SAMPLES points
    assert len(read_points(full).points) == MAX_SAMPLES
    with pytest.raises(PointsError, match=f"line {MAX_SAMPLES + 2}: more than {MAX_SAMPLES} "
                                          "points"):
        read_points("x1,x2,label\n" + "0,0,1\n" * (MAX_SAMPLES + 1))
    with pytest.raises(PointsError, match=f"at most {MAX_CSV_CHARS} are read"):
        read_points("0" * (MAX_CSV_CHARS + 1))
    with pytest.raises(TypeError, match="text must be str, got bytes"):
        read_points(GOOD.encode())
    with pytest.raises(ValueError, match="column must be one of label, target"):
        read_points(GOOD, column="y")
    with pytest.raises(ValueError, match="unknown loss"):
        read_points(GOOD, loss="nope")
    with pytest.raises(ValueError, match=r"points\[1\]: a point is \[x1, x2, label\]"):
        write_points([[0, 0, 1], [0, 0]])
    with pytest.raises(ValueError, match="finite numbers, got nan"):
        write_points([[0, math.nan, 1]])


def test_your_points_are_a_data_set_that_trains_and_its_link_carries_them():
    pts = read_points(GOOD).points
    exp = Experiment.from_dict({"dataset": "own", "points": pts, "train_ratio": 0.5})
    assert Experiment.from_url(exp.to_url()).to_dict() == exp.to_dict()
    s = PlaySession(exp)
    assert len(s.X_train) == 2 and len(s.X_test) == 2
    assert sorted(s.X_train + s.X_test) == sorted(p[:2] for p in pts)
    s.train(3)
    assert s.step_count == 3 and math.isfinite(s.metrics["train_loss"])
    # your points are your data set's only: too few, or given to a generated set
    for d, field, msg in [
        ({"dataset": "own"}, "points", "your data has 0 points: at train ratio 0.5 it needs "
                                       "at least 2 to train and 1 to test"),
        ({"dataset": "own", "points": pts[:3]}, "points", "your data has 3 points"),
        ({"points": pts}, "points", "your points are the data of the data sets 'own' and "
                                    "'own_regression'"),
        ({"dataset": "own_regression", "points": [[0, 0, 0.5]] * 3 + [[0, 0, 2]]}, "points",
         "a regression target lies in [-1, 1], got 2"),
        ({"dataset": "own", "points": pts, "removed": [4]}, "removed",
         "removed point 4 is not one of your 4 points"),
        ({"dataset": "own", "loss": "bce", "points": pts}, "points",
         "a point's class is 0 or 1 (the loss 'bce'), got -1"),
        ({"dataset": "own", "points": [[11, 0, 1]] + pts}, "points", "a point lies within"),
    ]:
        with pytest.raises(ExperimentError, match=re.escape(msg)) as e:
            Experiment.from_dict(d)
        assert e.value.field == field


def call(route, request, sessions):
    return run_to_end(dispatch(route, request, sessions))


def test_a_sessions_data_exported_and_imported_is_the_same_data_set():
    """Exported from a generated set with hand edits, imported as your own points: the
    same points in the same order, so the same split and the same file again."""
    S = LocalSessions()
    made = call("play.create", {"dataset": "moons", "samples": 90, "noise": 0.2, "seed": 3,
                                "added": [[0.25, -0.5, 1], [1.5, 0.125, -1]],
                                "removed": [0, 7]}, S)["answer"]
    out = call("play.csv.write", {"sid": made["sid"]}, S)["answer"]
    assert out["count"] == 90 and out["column"] == "label"
    got = call("play.csv.read", {"text": out["text"]}, S)["answer"]
    assert got["count"] == 90 and got["column"] == "label"
    mine = call("play.create", {"dataset": "own", "points": got["points"], "seed": 3}, S)["answer"]
    again = call("play.csv.write", {"sid": mine["sid"]}, S)["answer"]
    assert again["text"] == out["text"]
    key = lambda pts: sorted(tuple(p[:3]) for p in pts)  # noqa: E731
    for part in ("train", "test"):
        assert key(mine["points"][part]) == key(made["points"][part])
    # a regression set: targets, written with repr
    reg = call("play.create", {"dataset": "gaussians", "loss": "mse", "samples": 40}, S)["answer"]
    text = call("play.csv.write", {"sid": reg["sid"]}, S)["answer"]["text"]
    assert text.startswith("x1,x2,target\n")
    back = call("play.csv.read", {"text": text, "column": "label"}, S)["answer"]
    assert back["column"] == "target"  # the header decides
    mine = call("play.create", {"dataset": "own_regression", "points": back["points"]},
                S)["answer"]
    assert call("play.csv.write", {"sid": mine["sid"]}, S)["answer"]["text"] == text


def test_a_refused_file_is_an_answer_naming_the_line_and_the_field():
    S = LocalSessions()
    err = call("play.csv.read", {"text": "x1,x2,label\n0.5,0.5,1\n0.1,abc,1\n"}, S)["error"]
    assert err == {"kind": "refused", "field": "text",
                   "message": "line 3, field x2: 'abc' is not a number"}
    err = call("play.csv.read", {"text": "0" * (limits.MAX_CSV_CHARS + 1)}, S)["error"]
    assert err["kind"] == "invalid" and err["field"] == "text"
    assert f"at most {limits.MAX_CSV_CHARS} characters" in err["message"]


# ---------------------------------------------------------------------------------------
# the caps, sized for the largest data set
# ---------------------------------------------------------------------------------------


def test_the_body_cap_holds_the_largest_data_set_and_its_file():
    big = float(LONGEST)
    create = {"dataset": "own", "points": [[big, big, big]] * MAX_SAMPLES,
              "added": [[big, big, big]] * MAX_EDITS, "weights": [big] * MAX_PARAMETERS,
              "step": 10**9, "inspect": {"x": big, "y": big, "label": big}}
    assert len(json.dumps(create).encode()) < limits.MAX_BODY_BYTES
    row = f"{LONGEST},{LONGEST},{LONGEST}\n"
    text = ("x1,x2,target\n" + row * MAX_SAMPLES)[:limits.MAX_CSV_CHARS]
    assert len(json.dumps({"text": text, "column": "target", "loss": "mse"}).encode()) \
        < limits.MAX_BODY_BYTES
    assert limits.MAX_URL_POINTS == MAX_EDITS


def test_an_upload_over_the_cap_is_a_413_whatever_its_encoding():
    c = TestClient(create_app())
    over = json.dumps({"text": "0" * limits.MAX_BODY_BYTES}).encode()
    r = c.post("/api/play/csv", content=over, headers={"content-type": "application/json"})
    assert r.status_code == 413 and "cap" in r.json()["error"]

    def chunks():  # no length: counted as it arrives
        for i in range(0, len(over), 8192):
            yield over[i:i + 8192]

    r = c.post("/api/play/csv", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413 and "cap" in r.json()["error"]
    # under the body cap, over the file's: the field says so
    r = c.post("/api/play/csv", json={"text": "0" * (limits.MAX_CSV_CHARS + 1)})
    assert r.status_code == 422 and "text" in r.json()["error"]
    # the largest file is read
    row = "-1.2345678901234567,-1.2345678901234567,-0.2345678901234567\n"
    r = c.post("/api/play/csv", json={"text": "x1,x2,target\n" + row * MAX_SAMPLES})
    assert r.status_code == 200 and r.json()["count"] == MAX_SAMPLES


# ---------------------------------------------------------------------------------------
# both doors
# ---------------------------------------------------------------------------------------

LOG = [
    ("play.csv.read", {"text": GOOD}),
    ("play.csv.read", {"text": "x1,x2,label\n0.5,0.5,1\n0.1,abc,1\n"}),
    ("play.csv.read", {"text": "0,0,2\n1,1,0\n0.5,0.5,1\n", "loss": "ce"}),
    ("play.csv.read", {"text": "0,0,0.5\n", "column": "target"}),
    ("play.csv.read", {"text": "0,0,1\n", "column": "nope"}),
    ("play.create", {"dataset": "own", "points": [[0.5, 0.5, 1], [-0.5, -0.5, -1],
                                                  [0.25, 0.75, 1], [-0.75, -0.25, -1],
                                                  [0.1, 0.2, 1], [0.3, -0.4, -1]],
                     "hidden": [3], "samples": 10}),
    ("play.csv.write", {"sid": "$sid"}),
    ("play.create", {"dataset": "own", "points": [[0.5, 0.5, 1]]}),
    ("play.csv.write", {"sid": "gone"}),
]

WORKER = r"""
import json, sys
from micrograd.web.pyodide.calls import Call, entry_point
call = entry_point("micrograd.web.pyodide.door:call")
sid, out = None, []
for name, request in json.loads(LOG_JSON):
    request = {k: (sid if v == "$sid" else v) for k, v in request.items()}
    job = Call(call, name, json.dumps(request))
    text = job.step()
    while text is None:
        text = job.step()
    answer = json.loads(text)
    if answer["ok"] and name == "play.create":
        sid = answer["data"]["sid"]
    out.append(answer)
print(json.dumps({"platform": sys.platform, "answers": out}))
"""

STATUS = {"invalid": 422, "refused": 400, "not_found": 404, "lost": 404, "busy": 503}
ROUTES = {"play.csv.read": ("POST", "/api/play/csv"),
          "play.csv.write": ("GET", "/api/play/{sid}/csv"),
          "play.create": ("POST", "/api/play")}


def http_answers():
    c = TestClient(create_app())
    sid, out = None, []
    for name, request in LOG:
        request = {k: (sid if v == "$sid" else v) for k, v in request.items()}
        method, path = ROUTES[name]
        path = path.replace("{sid}", request.pop("sid", ""))
        r = c.request(method, path, json=request if method == "POST" else None)
        if r.status_code == 200 and name == "play.create":
            sid = r.json()["sid"]
        out.append((r.status_code, r.json()))
    return out


def same(http, worker):
    assert len(http) == len(worker) == len(LOG)
    sids = []
    for (name, _), (status, h), w in zip(LOG, http, worker):
        if status == 200:
            assert w["ok"], (name, w)
            if name == "play.create":
                sids.append((h["sid"], w["data"]["sid"]))
                continue  # a whole state: what the data files hold is compared below
            h, d = dict(h), dict(w["data"])
            if "sid" in h:
                assert (h.pop("sid"), d.pop("sid")) == sids[-1]
            assert json.dumps(h, sort_keys=True) == json.dumps(d, sort_keys=True), name
        else:
            err = w["error"]
            assert status == STATUS[err["kind"]], (name, status, err)
            # the same sentence (an invalid field is worded by each door's reader, a lost
            # session's by its store)
            if err["kind"] not in ("lost", "invalid"):
                assert h["error"] == err["message"]
            elif err["kind"] == "invalid":
                assert h["error"].startswith(err["field"] + ":")


@pytest.mark.slow  # Pyodide in node, or a long run: CI runs it, the quick run does not
def test_both_doors_answer_the_same_on_this_python_and_on_pyodides():
    http = http_answers()
    assert [s for s, _ in http] == [200, 400, 200, 200, 422, 200, 200, 400, 404]
    assert http[1][1]["error"] == "line 3, field x2: 'abc' is not a number"
    assert http[6][1]["text"].startswith("x1,x2,label\n0.5,0.5,1\n-0.5,-0.5,-1\n")
    here = []
    sid = None
    call_ = entry_point("micrograd.web.pyodide.door:call")
    for name, request in LOG:
        request = {k: (sid if v == "$sid" else v) for k, v in request.items()}
        job = Call(call_, name, json.dumps(request))
        text = job.step()
        while text is None:
            text = job.step()
        answer = json.loads(text)
        if answer["ok"] and name == "play.create":
            sid = answer["data"]["sid"]
        here.append(answer)
    same(http, here)
    script = WORKER.replace("LOG_JSON", repr(json.dumps(LOG)))
    proc = subprocess.run(["node", str(ROOT / "tests" / "run_in_pyodide.mjs")], input=script,
                          capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    pyodide = json.loads(proc.stdout.strip().splitlines()[-1])
    assert pyodide["platform"] == "emscripten"
    same(http, pyodide["answers"])

"""The worker's answers with their long float lists apart (calls.Call(floats=True), put
back by pyodide_client.js's placeFloats in node): the page reads the same values, bit
for bit, as from the whole JSON text."""

import base64
import json
import math
import struct
import subprocess
from array import array
from pathlib import Path

import pytest

from micrograd.experiment import Experiment
from micrograd.web.pyodide.calls import Call, split_floats

ROOT = Path(__file__).resolve().parent.parent
CLIENT = ROOT / "src" / "micrograd" / "web" / "pyodide" / "pyodide_client.js"

#: reads cases [{plain, split, floats (base64 of little-endian doubles)}] on stdin;
#: prints, per case, whether JSON.parse(plain) and placeFloats(split) are the same
#: values (numbers compared with Object.is: -0 is not 0)
COMPARE = """
import { placeFloats } from %s;
const same = (a, b) => {
  if (typeof a === "number" || typeof b === "number") return Object.is(a, b);
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return a === b;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a), kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k, i) => k === kb[i] && same(a[k], b[k]));
};
let input = "";
for await (const chunk of process.stdin) input += chunk;
const out = JSON.parse(input).map(({ plain, split, floats }) => {
  const bytes = Buffer.from(floats, "base64");
  const f = new Float64Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
  const placed = placeFloats(JSON.parse(split), f);
  return same(JSON.parse(plain), placed) && Array.isArray(placed.data.thumbnails || []);
});
console.log(JSON.stringify(out));
"""


def answers(data):
    """(the whole JSON text, the text with the floats apart, their bytes)."""
    plain = Call(lambda name, request: data, "x", "{}").step()
    call = Call(lambda name, request: data, "x", "{}", floats=True)
    split = call.step()
    return plain, split, call.floats.tobytes()


def placed_in_node(cases):
    script = COMPARE % json.dumps(CLIENT.as_uri())
    payload = [{"plain": p, "split": s, "floats": base64.b64encode(b).decode()}
               for p, s, b in cases]
    proc = subprocess.run(["node", "--input-type=module", "-e", script],
                          input=json.dumps(payload), capture_output=True, text=True,
                          timeout=120, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def state():
    from micrograd.web.play_pictures import follow, play_state
    from micrograd.web.play_session import PlaySession

    exp = Experiment.from_dict({"dataset": "circle", "samples": 250, "train_ratio": 0.8,
                                "hidden": [8, 8], "lr": 0.1})
    session = PlaySession(exp)
    follow(session, 0.3, 0.2)
    session.train(3)
    return play_state(session, history="last")


EDGES = {
    "zeros of both signs": [0.0, -0.0] * 20,
    "extremes": [5e-324, -5e-324, 1.7976931348623157e308, -1.7976931348623157e308] * 10,
    "digits": [0.1 + 0.2, 1 / 3, 2.0 ** -1074, 123456789.123456789] * 10,
    "nested": {"a": [[0.5] * 40, [1.5] * 2], "b": [{"c": [2.5] * 33}], "d": [3.5] * 31},
    "ints stay": [1] * 40, "mixed stays": [1.0] * 40 + [2], "bools stay": [True] * 40,
    "a list of floats alone": [0.25] * 64, "empty": [], "scalar": 0.5,
}


def test_a_playground_state_reads_the_same_and_most_numbers_leave_the_text(state):
    plain, split, floats = answers(state)
    assert placed_in_node([(plain, split, floats)]) == [True]
    # the pictures and the boundary: most of the numbers, out of the text
    assert len(floats) // 8 == 19 * 400 + 1600  # 2-8-8-1: 19 pictures, the boundary
    assert len(split) < len(plain) / 3
    places = json.loads(split)["floats"]
    assert [["boundary", "values"], 1600] in places
    assert [["thumbnails", 1, 0], 400] in places


def test_edge_values_read_the_same_bit_for_bit():
    cases = [answers(v) for v in EDGES.values()]
    assert placed_in_node(cases) == [True] * len(cases)
    moved = {name: len(b) // 8 for name, (_, _, b) in zip(EDGES, cases)}
    assert moved["ints stay"] == moved["mixed stays"] == moved["bools stay"] == 0
    assert moved["nested"] == 40 + 33 and moved["zeros of both signs"] == 40
    assert moved["a list of floats alone"] == 64
    # -0.0 crosses as itself
    _, _, b = cases[0]
    assert [math.copysign(1, x) for x in struct.unpack("<2d", b[:16])] == [1, -1]


def test_the_data_is_never_changed_and_non_finite_numbers_are_still_refused(state):
    before = json.dumps(state)
    split_floats(state, array("d"))
    assert json.dumps(state) == before
    bad = {"values": [1.0] * 40 + [math.nan]}
    plain, split, floats = answers(bad)
    assert plain == split and floats == b""
    assert json.loads(split)["error"]["kind"] == "internal"

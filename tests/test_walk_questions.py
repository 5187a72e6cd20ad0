"""The Walk's questions in sequence (a forward value, a local derivative, a gradient, one
path's share): each answer checked against PyTorch float64, computed apart from ours."""

import warnings

import pytest
import torch

with warnings.catch_warnings():  # starlette warns about httpx vs httpx2 at import time
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from micrograd.walk_setup import PRESETS
from micrograd.web import create_app
from micrograd.web.handlers import LocalSessions, dispatch, run_to_end

T = torch.float64


@pytest.fixture(scope="module")
def client():
    return TestClient(create_app())


def leaf(x):
    return torch.tensor(float(x), dtype=T, requires_grad=True)


def torch_graph(key):
    """The preset's named tensors, built statement by statement with torch ops (the
    presets use numbers, +, * and tanh only)."""
    names = {}

    def term(tok):
        tok = tok.strip()
        return names[tok] if tok in names else torch.tensor(float(tok), dtype=T)

    for stmt in PRESETS[key].expr.split(";"):
        name, rhs = (s.strip() for s in stmt.split("="))
        if rhs.startswith("tanh("):
            names[name] = torch.tanh(term(rhs[5:-1]))
        elif "+" in rhs:
            x, y = rhs.split("+")
            names[name] = term(x) + term(y)
        elif "*" in rhs:
            x, y = rhs.split("*")
            names[name] = term(x) * term(y)
        else:
            names[name] = leaf(rhs)
    return names


def grad_of(of, wrt):
    (g,) = torch.autograd.grad(of, wrt, retain_graph=True)
    return g.item()


def doc(key, **kw):
    out = run_to_end(dispatch("walk", {"preset": key, **kw}, LocalSessions()))
    assert out["ok"], out
    return out["answer"]


def check(key, kind, answer):
    out = run_to_end(dispatch("walk.check", {"preset": key, "kind": kind,
                                             "answer": answer}, LocalSessions()))
    assert out["ok"], out
    return out["answer"]


def torch_local(op, inputs, index):
    """d op(inputs) / d inputs[index], each input a fresh leaf (the node on its own)."""
    xs = [leaf(x) for x in inputs]
    out = {"+": lambda a, b: a + b, "*": lambda a, b: a * b,
           "tanh": lambda a: torch.tanh(a)}[op](*xs)
    return grad_of(out, xs[index])


#: one path's share, by PyTorch: every other use of the asked leaf sees it detached
PATH_SHARES = {
    # diamond, through c: d = (a.detach() + 1) * (a * 3)
    "diamond": lambda a: ((a.detach() + 1) * (a * 3), a),
    # a * a, through input 2 of f
    "square": lambda a: (a.detach() * a, a),
    # b = a + a, c = b + b, through input 2 of b
    "reused": lambda a: ((a.detach() + a) + (a.detach() + a), a),
}


@pytest.mark.parametrize("key", list(PRESETS))
def test_every_question_is_answered_by_the_engine_as_by_torch(key):
    view = doc(key)
    names = torch_graph(key)
    nodes = {n["id"]: n for n in view["graph"]["nodes"]}
    edges = {e["id"]: e for e in view["graph"]["edges"]}
    kinds = [q["kind"] for q in view["questions"]]
    assert kinds == ["value", "local", "grad"] + (["path"] if key in PATH_SHARES else [])
    for q in view["questions"]:
        # the question carries no number to copy: ids and words only
        assert set(q) == {"kind", "title", "text", "hint", "node", "edge", "of", "wrt"}
        if q["kind"] == "value":
            truth = names[nodes[q["node"]]["name"]].item()
        elif q["kind"] == "local":
            e = edges[q["edge"]]
            dst = nodes[e["dst"]]
            ins = [names[nodes[i]["name"]].item() if nodes[i]["label"]
                   else nodes[i]["data"] for i in dst["inputs"]]
            truth = torch_local(dst["op"], ins, e["index"])
        elif q["kind"] == "grad":
            truth = grad_of(names[nodes[q["of"]]["name"]], names[nodes[q["wrt"]]["name"]])
        else:
            out, a = PATH_SHARES[key](leaf(names[nodes[q["wrt"]]["name"]].item()))
            truth = grad_of(out, a)
        right = check(key, q["kind"], truth)
        assert right["correct"] and right["grad"] == pytest.approx(truth, rel=1e-12), (key, q)
        wrong = check(key, q["kind"], truth + 1.0)
        assert not wrong["correct"] and wrong["hint"] and wrong["grad"] is None


def test_the_diamonds_shares_add_up_to_its_gradient():
    # a feeds b (share 6) and c (share 9): the path question asks for c's, 9, and the
    # other share, 6, is not it (a learner who answers it is told how a share is made)
    assert check("diamond", "path", 9.0)["correct"]
    six = check("diamond", "path", 6.0)
    assert not six["correct"] and "grad[c]" in six["hint"]
    assert "sign" in check("diamond", "path", -9.0)["hint"]
    assert check("diamond", "grad", 15.0)["correct"]


def test_the_lectures_questions_read_as_the_lecture_asks_them():
    qs = {q["kind"]: q["text"] for q in doc("lecture")["questions"]}
    assert qs == {
        "value": "Forward: with a = 2, b = -3, what is e = a*b?",
        "local": "L = d*f: looking at this node alone, what is its local derivative ∂L/∂d?",
        "grad": "With a = 2, b = -3, c = 10, f = -2, what is dL/da?",
    }
    # a repeated input is named once, its use by position
    square = {q["kind"]: q["text"] for q in doc("square")["questions"]}
    assert square["value"] == "Forward: with a = 3, what is f = a*a?"
    assert square["local"].endswith("∂f/∂a (its input 1 of 2)?")
    assert square["path"].endswith("arrives through input 2 of f?")


def test_a_lesson_chooses_its_questions_and_the_order_stays_the_lectures():
    assert [q["kind"] for q in doc("diamond", questions=["path", "value"])["questions"]] \
        == ["value", "path"]
    assert doc("diamond", questions=[])["questions"] == []


def test_refusals_name_the_field_and_why(client):
    r = client.post("/api/walk/check", json={"preset": "lecture", "answer": 1,
                                             "kind": "nope"})
    assert r.status_code == 422 and r.json()["error"].startswith("kind:")
    r = client.post("/api/walk/check", json={"preset": "lecture", "answer": 1,
                                             "kind": "path"})
    assert r.status_code == 400 and "used twice" in r.json()["error"]
    r = client.post("/api/walk", json={"preset": "lecture", "questions": ["grad", "x"]})
    assert r.status_code == 422 and r.json()["error"].startswith("questions")


def test_the_http_door_sends_the_same_questions(client):
    for key in PRESETS:
        assert client.post("/api/walk", json={"preset": key}).json()["questions"] == \
            doc(key)["questions"]
    body = {"preset": "diamond", "kind": "path", "answer": 9}
    assert client.post("/api/walk/check", json=body).json() == check("diamond", "path", 9)

"""micrograd.expr: the safe expression language, its refusals, and a fuzz."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from micrograd.engine import Value
from micrograd.expr import (FUNCTIONS, MAX_DEPTH, MAX_LENGTH, MAX_NODES, ExprError, evaluate,
                            leaves, parse, parse_values, tokenize)
from micrograd.viz import trace

SEED002 = "a = 2; b = -3; c = 10; f = -2; e = a*b; d = e + c; L = d*f"
NEURON = {"x1": 2.0, "x2": 0.0, "w1": -3.0, "w2": 1.0, "b": 6.8813735870195432}


def test_seed002_program_builds_labelled_graph_with_torch_grads():
    import torch  # here, not at the top: the rest of the file runs on Pyodide too
    prog = evaluate(SEED002)
    L = prog.root
    assert L.label == "L" and L.data == -8.0
    assert sorted(prog.names) == ["L", "a", "b", "c", "d", "e", "f"]
    assert [n.label for n in trace(L)[0]] == ["a", "b", "e", "c", "d", "f", "L"]
    L.backward()
    t = {k: torch.tensor(v, dtype=torch.float64, requires_grad=True)
         for k, v in dict(a=2.0, b=-3.0, c=10.0, f=-2.0).items()}
    ((t["a"] * t["b"] + t["c"]) * t["f"]).backward()
    for k in "abcf":
        assert prog.names[k].grad == t[k].grad.item()


def test_single_expression_with_values_matches_torch():
    import torch  # here, not at the top: the rest of the file runs on Pyodide too
    o = parse("tanh(x1*w1 + x2*w2 + b)", NEURON)
    o.backward()
    t = {k: torch.tensor(v, dtype=torch.float64, requires_grad=True) for k, v in NEURON.items()}
    to = torch.tanh(t["x1"] * t["w1"] + t["x2"] * t["w2"] + t["b"])
    to.backward()
    assert o.data == pytest.approx(to.item(), rel=1e-15)
    leaves = {n.label: n.value for n in trace(o)[0] if n.leaf}
    for k in NEURON:
        assert leaves[k].grad == pytest.approx(t[k].grad.item(), rel=1e-12, abs=1e-15)
    assert leaves["w1"].grad == pytest.approx(1.0, rel=1e-6)  # seed 003: 0.5 * x1


@pytest.mark.parametrize("text, expected", [
    ("-a**2", lambda a, b, c: -(a ** 2)),
    ("2**3**2", lambda a, b, c: 2 ** (3 ** 2)),
    ("a - b - c", lambda a, b, c: (a - b) - c),
    ("a / b / c", lambda a, b, c: (a / b) / c),
    ("a * -b", lambda a, b, c: a * -b),
    ("-(a + b) * c", lambda a, b, c: -(a + b) * c),
    ("a + b * c ** 2", lambda a, b, c: a + b * c ** 2),
    ("a ** -1 + +b", lambda a, b, c: a ** -1 + b),
    ("(a)**(b)", lambda a, b, c: a ** b),
    ("2 * a - 3 / b + .5e1", lambda a, b, c: 2 * a - 3 / b + 5.0),
    ("- - a", lambda a, b, c: a),
    ("exp(a) * log(c) - sqrt(c) + abs(b) + sin(a) * cos(b)",
     lambda a, b, c: math.exp(a) * math.log(c) - math.sqrt(c) + abs(b) + math.sin(a) * math.cos(b)),
])
def test_precedence_and_values(text, expected):
    vals = {"a": 1.5, "b": -2.25, "c": 3.0}
    assert parse(text, vals).data == pytest.approx(expected(**vals), rel=1e-14)


@pytest.mark.parametrize("fn", sorted(FUNCTIONS))
def test_every_function_is_the_engine_op(fn):
    v = parse(f"y = {fn}(x)", {"x": 0.7})
    assert v.label == "y" and len(v._prev) == 1
    direct = getattr(Value(0.7), FUNCTIONS[fn].method)()  # x.tanh(), x.relu(), ...
    assert v.data == direct.data and v._fn is direct._fn is FUNCTIONS[fn]


def test_names_leaves_constants_and_exponents():
    f = parse("x*x", {"x": 3.0})
    assert f._prev[0] is f._prev[1] and f._prev[0].label == "x"
    assert parse("x**2", {"x": 3.0})._op == "**2"
    p = parse("x**y", {"x": 2.0, "y": 3.0})
    assert p._op == "**" and len(p._prev) == 2 and p.data == 8.0
    assert parse("x**-1", {"x": 4.0})._op == "**-1"
    b = evaluate("a = 2; b = a")
    assert b.names["a"] is b.names["b"] and b.root.label == "a"
    r = evaluate("a = 1\na = a + 1  # reassign\n\nc = (a\n  * 3)")
    assert r.root.data == 6.0 and r.names["a"].data == 2.0
    assert parse("x = 5; x", {"x": 1.0}).data == 5.0  # assignment wins over values
    assert parse("2").data == 2.0 and parse("-2.5").data == -2.5


REFUSALS = [
    ("1 +* 2", "unexpected '*'", 4),
    ("foo(3)", "unknown function 'foo'", 1),
    ("__import__('os')", "names starting with '__'", 1),
    ("y + 1", "undefined name 'y'", 1),
    ("x = 1; x + zz", "undefined name 'zz'", 12),
    ("", "empty expression", 1),
    ("  ;  \n ; ", "empty expression", 4),
    ("1 2", "unexpected number 2", 3),
    ("a = 1; a a", "unexpected name 'a'", 10),
    ("(1 + 2", "expected ')'", 7),
    ("1 + 2)", "unexpected ')'", 6),
    ("tanh", "is a function", 1),
    ("tanh(1, 2)", "takes one argument", 7),
    ("tanh = 2", "cannot assign to 'tanh'", 1),
    ("a = ", "nothing to assign", 5),
    ("a == 1", "unexpected '='", 4),
    ("1.2.3", "malformed number", 1),
    ("2x", "malformed number", 1),
    ("a.b", "unexpected character '.'", 2),
    ("'a'", "unexpected character", 1),
    ("a = [1]", "unexpected character '['", 5),
    ("x @ y", "unexpected character '@'", 3),
    ("lambda: 0", "unexpected character ':'", 7),
    ("a = 1\nb = a +\nc", "unexpected a new line", 8),
    ("é = 1", "unexpected character 'é'", 1),
    ("a\x00", "U+0000", 2),
    ("\u00b2", "unexpected character", 1),  # '²'.isdigit() is True: found by the fuzz
    ("1\u0661", "malformed number", 1),  # an Arabic-Indic digit after a number
]


@pytest.mark.parametrize("text, message, col", REFUSALS)
def test_refusals_point_at_the_character(text, message, col):
    with pytest.raises(ExprError) as info:
        parse(text, {})
    err = info.value
    assert isinstance(err, ValueError)
    assert message in err.message
    assert err.col == col
    lines = str(err).split("\n")
    assert lines[0].endswith(f"column {err.col}")
    snippet, caret = lines[1][2:], lines[2][2:]
    assert caret == " " * (len(caret) - 1) + "^"
    line_text = text.split("\n")[err.line - 1]
    # the caret stands under the character at pos (non-printables shown as '?')
    if err.pos < len(text) and text[err.pos] != "\n":
        shown = text[err.pos] if text[err.pos].isprintable() else "?"
        assert snippet[len(caret) - 1] == shown
    assert len(line_text) >= err.col - 1


def test_length_cap_refuses_a_megabyte_before_reading_it():
    text = "a" * (1 << 20)
    with pytest.raises(ExprError, match="1,048,576 characters long; the limit"):
        parse(text)
    # refused before a character is read (benchmarks/big_inputs.py times it): a
    # megabyte that opens with a character outside the grammar, or that would build a
    # graph over the node cap, gets the length's refusal, not the tokenizer's or the
    # parser's, and it points at the limit
    for big in ("@" + text, "a = 1; " + "a + " * (1 << 18) + "a"):
        with pytest.raises(ExprError, match="characters long; the limit") as info:
            parse(big)
        assert info.value.pos == MAX_LENGTH
    assert MAX_LENGTH == 100_000
    with pytest.raises(ExprError, match="limit"):
        parse("1+1", max_length=2)


@pytest.mark.parametrize("text", [
    "(" * 10_000 + "1" + ")" * 10_000,
    "-" * 10_000 + "1",
    "x" + "**x" * 10_000,
    "tanh(" * 10_000 + "1" + ")" * 10_000,
], ids=["parens", "unary", "power", "calls"])
def test_depth_cap_never_recursion_error(text):
    with pytest.raises(ExprError, match="nested too deeply") as info:
        parse(text, {"x": 1.0})
    assert info.value.col <= 5 * (MAX_DEPTH + 1) + 1  # found at the limit, not at the end


def test_depth_cap_allows_the_limit():
    assert parse("(" * MAX_DEPTH + "1" + ")" * MAX_DEPTH).data == 1.0
    assert parse("(" * 40 + "1" + ")" * 40, max_depth=40).data == 1.0
    with pytest.raises(ExprError):
        parse("(" * 41 + "1" + ")" * 41, max_depth=40)
    with pytest.raises(ExprError, match="nested too deeply"):
        parse("(" * (MAX_DEPTH + 1) + "1" + ")" * (MAX_DEPTH + 1))


def test_long_flat_chains_are_fine_and_node_cap_holds():
    v = parse("+".join(["x"] * 2000), {"x": 1.0})
    assert v.data == 2000.0
    with pytest.raises(ExprError, match="more than 5,000 graph nodes"):
        parse("+".join(["1"] * 3000))
    with pytest.raises(ExprError, match="more than 9 graph nodes"):
        parse("a = 1; b = a - a - a - a", max_nodes=9)  # 1 + 3*3 = 10 nodes
    prog = evaluate("a = 1; b = a - a")  # a leaf, then a + (a * -1): 1 + 3 nodes
    assert prog.nodes == len(trace(prog.root)[0]) == 4
    assert MAX_NODES == 5_000


def test_node_count_is_exact_for_the_constructs():
    for text in ["a = 2; b = -a; c = a / b; d = c ** 2; e = 2 ** d; f = tanh(e) - 1",
                 SEED002, "x*x + y/x - 3", "(x - y) * (x + 1) ** y"]:
        prog = evaluate(text, {"x": 1.5, "y": 0.5})
        assert prog.nodes == len(trace(prog.root)[0]), text


def test_values_are_checked():
    with pytest.raises(ValueError, match="bad name"):
        parse("x", {"x y": 1.0})
    with pytest.raises(ValueError, match="function"):
        parse("x", {"tanh": 1.0})
    with pytest.raises(TypeError, match="str"):
        parse("x", {"x": "1"})
    with pytest.raises(TypeError, match="bytes"):
        parse(b"x")
    assert parse_values("x=1, y=-2.5,z=+3e2") == {"x": 1.0, "y": -2.5, "z": 300.0}
    for bad in ("x", "x=", "x=abc", "__x=1", "1=2", "x=1e"):
        with pytest.raises(ExprError):
            parse_values(bad)


def test_tokenizer_never_sees_newlines_inside_parentheses():
    kinds = [t.kind for t in tokenize("(a\n+ b)\nc")]
    assert kinds == ["op", "name", "op", "name", "op", "nl", "name", "eof"]


# ---- fuzz: only ever our error ---------------------------------------------------------

ALPHABET = "abxy019.e+-*/()=;, \n\t_#'\"@[]{}<>!&|^%~`$\\:"
TOKENS = ["a", "b", "x", "1", "2.5", "1e3", ".5", "0", "+", "-", "*", "/", "**", "(", ")",
          "=", ";", ",", "\n", "tanh", "exp", "log", "sqrt", "relu", "foo", "__import__",
          "'os'", "1e999", "-", "(", ")", "**"]


def _check(text):
    try:
        out = parse(text, {"x": 0.5, "y": -2.0})
    except ExprError as err:
        assert str(err)
        assert 0 <= err.pos <= len(text)
        return
    assert isinstance(out, Value)


@settings(max_examples=300)
@given(st.text(alphabet=ALPHABET, max_size=60))
def test_fuzz_random_strings_only_raise_expr_error(text):
    _check(text)


@settings(max_examples=300)
@given(st.lists(st.sampled_from(TOKENS), max_size=40), st.sampled_from(["", " ", "  "]))
def test_fuzz_token_soup_only_raises_expr_error(tokens, sep):
    _check(sep.join(tokens))


@given(st.text(max_size=80))
def test_fuzz_any_unicode_only_raises_expr_error(text):
    _check(text)


@given(st.integers(1, 400), st.sampled_from(["(", "-", "tanh(", "x**", "+"]))
def test_fuzz_deep_nesting_never_recursion_error(n, opener):
    _check(opener * n + "x" + (")" * n if "(" in opener else ""))


# ---- override=True: values edit the leaves, as the web page's leaf edits do -------------

OVERRIDES = [
    ("a = 2; b = a*a", {"a": 5.0}),
    (SEED002, {"a": -1.5, "f": 3.0}),
    ("a = 2; b = a + 1; c = a*3; d = b*c", {"a": 0.25}),
    ("x = -2.5; y = tanh(x) + x**2", {"x": 0.5}),   # a negated constant is still a leaf
    ("a = 1; a = a + 1; c = a*3", {}),
    ("x1 = 2; x2 = 0; w1 = -3; w2 = 1; b = 6.8813735870195432; "
     "n = x1*w1 + x2*w2 + b; o = tanh(n)", {"w1": 1.0, "x2": 4.0, "b": -2.0}),
]


@pytest.mark.parametrize("text, values", OVERRIDES)
def test_override_matches_the_web_pages_leaf_edits(text, values):
    from micrograd.web.walkview import build

    prog = evaluate(text, values, override=True)
    prog.root.backward()
    view = build(text, values)
    g = view["graph"]
    root = next(n for n in g["nodes"] if n["id"] == g["root"])
    assert prog.root.data == root["data"]
    web_leaves = {n["name"]: (n["data"], n["grad"]) for n in g["nodes"]
                  if n["leaf"] and n["label"]}
    mine = {k: (v.data, v.grad) for k, v in leaves(prog.root).items()}
    assert mine == web_leaves
    for k, x in values.items():
        assert mine[k][0] == x


def test_override_against_hand_values_and_torch():
    import torch  # here, not at the top: the rest of the file runs on Pyodide too
    b = parse("a = 2; b = a*a", {"a": 5.0}, override=True)
    assert b.data == 25.0
    assert parse("a = 2; b = a*a", {"a": 5.0}).data == 4.0  # default: assignment wins
    prog = evaluate(SEED002, {"a": 0.5, "c": -4.0}, override=True)
    prog.root.backward()
    t = {k: torch.tensor(v, dtype=torch.float64, requires_grad=True)
         for k, v in dict(a=0.5, b=-3.0, c=-4.0, f=-2.0).items()}
    L = (t["a"] * t["b"] + t["c"]) * t["f"]
    L.backward()
    assert prog.root.data == L.item()
    for k in "abcf":
        assert prog.names[k].grad == t[k].grad.item()
    # free names still take their values, and may be mixed with overrides
    assert parse("y = 3; y*x", {"x": 2.0, "y": 4.0}, override=True).data == 8.0


@pytest.mark.parametrize("text, values, match", [
    ("a = 2; b = a*a", {"zz": 1.0}, r"no leaf named 'zz' in the expression \(leaves: a\)"),
    ("a = 2; b = a*a", {"b": 1.0}, r"'b' is computed by the expression, not a leaf"),
    ("a = 2; z = 5; b = a*a", {"z": 1.0}, r"no leaf named 'z'"),  # not in the graph
    ("tanh(x)", {"x": 1.0, "y": 2.0}, r"no leaf named 'y'"),
    ("a = 2; b = tanh(a)", {"b": 0.0}, r"'b' is computed"),
    ("2 + 3", {"a": 1.0}, r"leaves: none"),
])
def test_override_refuses_names_that_are_not_leaves(text, values, match):
    from micrograd.web.walkview import WalkViewError, build

    with pytest.raises(ValueError, match=match):
        evaluate(text, values, override=True)
    if "x" not in values:  # the page refuses the same names (it has no free names)
        with pytest.raises(WalkViewError, match=match):  # the same words as the command
            build(text, values)
    evaluate(text, {k: v for k, v in values.items() if k in ("x",)})  # default: ignored


def test_leaves_lists_labelled_leaves_only():
    root = parse("a = 2; b = a + 1; c = b*x", {"x": 3.0})
    assert sorted(leaves(root)) == ["a", "x"]  # not the constant 1, not b or c
    assert leaves(root)["a"].data == 2.0 and leaves(root)["x"].data == 3.0


def test_a_name_assigned_twice_is_not_an_editable_leaf():
    # which of the two leaves a value should edit is ambiguous: refused, never guessed
    from micrograd.expr import leaves
    from micrograd.web.walkview import WalkViewError, build

    text = "a = 2; c = a + 1; a = 4; d = a*c"
    prog = evaluate(text)
    assert prog.root.data == 12.0 and "a" not in leaves(prog.root)
    with pytest.raises(ValueError, match="assigned more than once"):
        evaluate(text, {"a": 4.0}, override=True)
    with pytest.raises(WalkViewError, match="assigned more than once"):
        build(text, {"a": 4.0})
    view = build(text)  # the page offers no editor for it, and the numbers stand
    assert view["leaves"] == []
    assert [n["data"] for n in view["graph"]["nodes"] if n["name"] == "d"] == [12.0]


@pytest.mark.parametrize("text, values", [
    ("a = 2; b = -3; c = 10; f = -2; e = a*b; d = e + c; L = d*f", {"a": 3.0, "f": 0.5}),
    ("x1 = 2; x2 = 0; w1 = -3; w2 = 1; b = 6.88; o = tanh(x1*w1 + x2*w2 + b)", {"x2": 1.5}),
    ("a = 2; b = a + 1; c = a * 3; d = b * c", {"a": -1.0}),
])
def test_override_agrees_with_an_independent_recomputation(text, values):
    # the reference: walk.replay recomputes the UNEDITED graph through the op table with
    # the named leaves changed; override must give the same number at every node
    from micrograd.expr import leaves
    from micrograd.walk import _Graph, replay

    base = evaluate(text).root
    g = _Graph(base)
    ids = {n.value: n.id for n in g.nodes}
    ref = replay(base, {ids[v]: values[name] for name, v in leaves(base).items()
                        if name in values}, _g=g)
    edited = evaluate(text, values, override=True).root
    g2 = _Graph(edited)
    got = {n.name: n.data for n in g2.nodes}
    want = {n.name: ref[n.id] for n in g.nodes}
    assert got == want


@pytest.mark.parametrize("big", [10**400, -10**400], ids=["plus", "minus"])
def test_a_huge_int_value_is_inf_like_value(big):
    from micrograd.engine import Value

    want = Value(big).data
    assert math.isinf(want) and (want > 0) == (big > 0)
    assert parse("x", {"x": big}).data == want
    assert parse("x * 2", {"x": big}).data == want
    assert parse("x = 1; y = x + 0", {"x": big}, override=True).data == want

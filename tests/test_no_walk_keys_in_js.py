"""The page's JavaScript names no key of the Walk's set-up: neither a field's name of
``WalkSetup`` nor its link name nor an older link's key of its mode is a string literal
of the page's modules (static/*.js, pyodide/*.js). The page reads them from the
catalogue (``meta.walk``: ``WalkSetup.spec()``), writes and reads a link by the fields'
description (static/setup_codec.js) and applies the set-up the Python side answers, so a
field is renamed, added or given a rule in Python alone.

The scanner is tests/js_literals.py's (a quoted string's text, a template literal's, a
quoted word inside either; comments and regular expressions are none). A word that only
has a key's letters is allowed where it stands: ``ALLOWED`` lists each such piece of
code, and why it is no key.
"""

import pytest
from js_literals import PAGE_JS, key_literals

from micrograd.walk_setup import WalkSetup

#: pieces of the page's code where a word has a key's letters and is no key: why
ALLOWED = {
    '$("preset")': "the Walk's part by its role: the preset menu",
    'data-role="preset"': "the same part, in the markup",
    '$("expr")': "the Walk's part by its role: the expression box",
    'data-role="expr"': "the same part, in the markup",
    '$("step")': "the Walk's part by its role: the box that says the current step",
    'data-role="step"': "the same part, in the markup",
    'data-ctl="values"': "a group of controls a lesson hides (WalkSetup's CONTROLS: the "
                         "leaf fields), a value of hide, not the field values",
    'class="expr"': "the expression box's style (app.css)",
    'setAttribute("aria-current", "step")': "ARIA's word for the current item of a "
                                            "sequence (the question shown)",
    # the Playground's own link key for the views a lesson hides: another set-up's key
    # of the same letters (the Walk's hide is WalkSetup's)
    'q.get("hide")': "the Playground's lesson link: the views it hides",
    'q.set("hide"': "the same, written",
    'q.delete("hide")': "the same, left out",
}


def keys():
    """Every key of the Walk's set-up: each field's name and link name, and the older
    link keys of its mode (WalkSetup.spec()'s fields)."""
    return {k for f in WalkSetup.spec()["fields"]
            for k in (f["name"], f["url"], *f.get("old_keys", {}))}


def test_the_keys_are_the_declarations():
    assert {"preset", "expr", "values", "v", "mode", "step", "ask", "of", "questions",
            "hide", "assign", "recursive", "no_zero_grad", "nozero"} <= keys()


def found_in(path):
    """The keys the file at ``path`` holds as literals, outside ALLOWED's pieces."""
    return key_literals(path, keys(), ALLOWED)


@pytest.mark.parametrize("path", PAGE_JS, ids=lambda p: p.name)
def test_no_key_of_the_walk_is_a_string_literal_of_the_page(path):
    assert found_in(path) == []


def test_every_allowed_piece_is_still_in_the_page():
    """An entry of ALLOWED whose code is gone goes too (the list shrinks with the code)."""
    text = "\n".join(p.read_text() for p in PAGE_JS)
    assert [piece for piece in ALLOWED if piece not in text] == []


@pytest.mark.parametrize("code, found", [
    ('q.get("v")', ["v"]),
    ("el.getAttribute('values')", ["values"]),
    ("const k = `nozero`;", ["nozero"]),
    ('const m = `<i data-x="hide">${x}</i>`;', ["hide"]),
    ('$("expr").value = 1;\nconst k = "expr";', ["expr"]),
    ("// the v key of a link\nx = f.url;", []),
])
def test_the_scan_finds_a_key_where_it_stands_and_only_there(tmp_path, code, found):
    path = tmp_path / "page.js"
    path.write_text(code)
    assert [line.split(": ", 1)[1].split("  |")[0] for line in found_in(path)] == \
        [repr(k) for k in found]

"""The page's JavaScript names no key of a set-up: neither the name of a field of the
Experiment nor its link name is a string literal of the page's modules (static/*.js,
pyodide/*.js). The page reads them from the catalogue (``meta.experiment``: the fields'
declarations, ``Experiment.spec()``; ``meta.play_fields``: the fields the Playground
handles by themselves), and what a change of a field implies from the Python side
(``play.change``), so a field is renamed, added or given a rule in Python alone.

A string literal here is a quoted string's text, a template literal's text (its ``${}``
left out), or a quoted word inside either (markup's ``value="..."``); comments and
regular expressions are none. A word that only has a key's letters (a click mode "add",
a field's kind "points") is allowed where it stands: ``ALLOWED`` lists each such piece
of code, and why it is no key.
"""

import pytest
from js_literals import PAGE_JS, key_literals

from micrograd.experiment import Experiment

#: pieces of the page's code where a word has a key's letters and is no key: why
ALLOWED = {
    'mode === "add"': "the plot's click mode that adds a point (the link key 'add' is "
                      "the points added)",
    'mode !== "add"': "the same click mode",
    '.value = "add"': "the same click mode, chosen for drawing your own points",
    '<option value="add">': "the same click mode, in the menu",
    'outputs === "classes"': "a loss's outputs: one per class (losses.LossSpec.outputs)",
    '? "regression" : "classes"': "a task (fields.task), not the number of classes",
    'text: "features"': "the header word over the network view's first column",
    'kind === "seed"': "the Walk: the step that seeds the backward pass (dL/dL = 1)",
    '$("k")': "the Walk: the counter's step shown (k of n)",
    '$("n")': "the Walk: the counter's number of steps",
    'data-role="k"': "the Walk: the counter's step shown, in its markup",
    'data-role="n"': "the Walk: the counter's number of steps, in its markup",
}


def keys():
    """Every field's name and link name, from the declarations (Experiment.spec())."""
    return {k for f in Experiment.spec()["fields"] for k in (f["name"], f["url"])}


def found_in(path):
    """The keys the file at ``path`` holds as literals, outside ALLOWED's pieces."""
    return key_literals(path, keys(), ALLOWED)


@pytest.mark.parametrize("path", PAGE_JS, ids=lambda p: p.name)
def test_no_key_of_a_set_up_is_a_string_literal_of_the_page(path):
    assert found_in(path) == []


def test_every_allowed_piece_is_still_in_the_page():
    """An entry of ALLOWED whose code is gone goes too (the list shrinks with the code)."""
    text = "\n".join(p.read_text() for p in PAGE_JS)
    assert [piece for piece in ALLOWED if piece not in text] == []


# ---------------------------------------------------------------------------------------
# the scanner: it finds a key wherever a literal holds it, and nowhere else
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("code, found", [
    ('f(x, "lr");', ["lr"]),
    ("f(x, 'hidden');", ["hidden"]),
    ("const a = `loss`;", ["loss"]),
    ("const a = `${x} and ${y}`;", []),
    ('const a = `<i data-f="ds">${x}</i>`;', ["ds"]),
    ('const a = `${g("seed")}`;', ["seed"]),
    ('const a = `${g(`${"k"}`)}lr`;', ["k"]),
    ('const t = "the learning rate lr";', []),
    ("// the lr field\nx = 1; /* \"lr\" */", []),
    ('x = /"lr"/.test(s);', []),
    ('x = a / 2; y = "loss";', ["loss"]),
    ('x = { lr: 1 }; y = cfg.lr;', []),
    ('x = "it\'s"; y = "seed";', ["seed"]),
])
def test_the_scanner_reads_literals_not_code_comments_or_regexes(tmp_path, code, found):
    path = tmp_path / "page.js"
    path.write_text(code)
    assert [line.split(": ", 1)[1].split("  |")[0] for line in found_in(path)] == \
        [repr(k) for k in found]


def test_an_allowed_piece_allows_only_where_it_stands(tmp_path):
    path = tmp_path / "page.js"
    path.write_text('if (mode === "add") go();\nconst k = "add";\n')
    assert [line.split(":")[1] for line in found_in(path)] == ["2"]

"""The house's size limits: no file over 600 lines, no function over 80, Python and the
page's JavaScript alike (``scripts/sizes.py`` measures them). Checked here for the whole
package; the JavaScript scanner is checked on snippets that could fool it."""

import importlib.util
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "micrograd"

_spec = importlib.util.spec_from_file_location("sizes", ROOT / "scripts" / "sizes.py")
sizes = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sizes)

#: the whole package is held to the limits
CHECKED = ["."]


@pytest.mark.parametrize("name", CHECKED)
def test_checked_modules_keep_the_limits(name):
    path = PACKAGE / name
    assert path.exists(), f"{name} is gone: update CHECKED"
    files, functions = sizes.measure_all([str(path)])
    assert files
    over = sizes.over_limits(files, functions)
    assert not over, ", ".join(f"{s.name} ({s.lines} lines)" for s in over)


def test_the_engine_reads_in_under_500_lines():
    """The first file a newcomer opens stays short: Value, its ops and backward()."""
    files, _ = sizes.measure_all([str(PACKAGE / "engine.py")])
    assert files[0].lines < 500, f"engine.py has {files[0].lines} lines"


def test_the_measure_counts_what_a_reader_scrolls_through(tmp_path):
    body = "\n".join(f"        x{i} = {i}" for i in range(79))
    source = textwrap.dedent('''\
        import functools


        class Box:
            @functools.cache
            def long(self):
        ''') + body + '\n\n\ndef outer():\n    def inner():\n        return 1\n    return inner\n'
    path = tmp_path / "m.py"
    path.write_text(source)
    files, functions = sizes.measure_all([str(tmp_path)])
    spans = {s.name.split(":")[1]: s.lines for s in functions}
    # the decorator, the def line and 79 lines of body: 81, one over the limit
    assert spans == {"Box.long": 81, "outer": 4, "outer.inner": 2}
    assert files[0].lines == len(source.splitlines())
    over = sizes.over_limits(files, functions)
    assert [s.name.split(":")[1] for s in over] == ["Box.long"]
    assert sizes.over_limits(files, functions, max_file=files[0].lines - 1)[0] == files[0]
    assert sizes.main([str(tmp_path), "--check"]) == 1
    assert sizes.main([str(tmp_path)]) == 0


def test_the_page_scripts_keep_the_file_limit():
    """The page's JavaScript is held to the same 600 lines a file as the Python."""
    scripts = sorted(PACKAGE.rglob("*.js")) + sorted(PACKAGE.rglob("*.mjs"))
    assert len(scripts) > 10, scripts
    over = [f"{p.relative_to(PACKAGE)} ({n} lines)" for p in scripts
            if (n := len(p.read_text().splitlines())) > 600]
    assert not over, ", ".join(over)


# ---------------------------------------------------------------------------------------
# JavaScript functions: the same 80 lines
# ---------------------------------------------------------------------------------------

def js_spans(source):
    return {name: last - first + 1 for name, first, last in sizes.js_functions(source)}


def test_a_planted_81_line_javascript_function_is_caught(tmp_path):
    body = "\n".join(f"    const x{i} = {i};" for i in range(79))
    long = "export class Box {\n  async long(a, b) {\n" + body + "\n  }\n}\n"
    fits = "function fits() {\n" + "\n".join(f"  f({i});" for i in range(78)) + "\n}\n"
    (tmp_path / "page.js").write_text(long + fits)
    files, functions = sizes.measure_all([str(tmp_path)])
    spans = {s.name.split(":")[1]: s.lines for s in functions}
    # the header, 79 lines of body and the closing brace: 81, one over the limit
    assert spans == {"Box.long": 81, "fits": 80}
    over = sizes.over_limits(files, functions)
    assert [s.name.split(":")[1] for s in over] == ["Box.long"]
    assert sizes.main([str(tmp_path), "--check"]) == 1
    assert sizes.main([str(tmp_path)]) == 0


#: braces a scanner could take for code: in strings, templates, regexes and comments
TRICKY = r"""// a comment with a brace } and function fake() {
/* a block comment
   } { function alsoFake() {
*/
const closer = "}";
function strings() {
  const a = "}";  // }
  const b = '\'}';
  const c = "{\
}";
  return a + b + c;
}
function templates(x) {
  const t = `a } b ${x ? `inner ${ {k: "}"}.k } }` : "{"} c {`;
  return t;
}
function regexes(s, a, b) {
  const r = /[/}]+\/{/g;
  if (/}/.test(s)) return 0;
  if (a / 2 > 1) { return b / 3; }
  return r.test(s);
}
const arrow = async (a) => {
  const o = { x: 1, y: { z: 2 } };
  return o;
};
const expr = function () {
  return 1;
};
const round = (x) => ({ x });
class View extends Base {
  static make() {
    return new View();
  }
  get size() {
    return 1;
  }
  handle(items) {
    if (items) {
      items.length = 0;
    } else if (items === null) {
      return;
    }
    items.forEach((i) => {
      i();
    });
  }
}
"""


def test_braces_in_strings_templates_regexes_and_comments_do_not_count():
    forEach = TRICKY.splitlines().index("    items.forEach((i) => {") + 1
    assert js_spans(TRICKY) == {
        "strings": 7, "templates": 4, "regexes": 6, "arrow": 4, "expr": 3,
        "View.make": 3, "View.size": 3, "View.handle": 10,
        f"View.handle.(arrow@{forEach})": 3,
    }


def test_nested_and_anonymous_functions_are_named_by_what_holds_them():
    source = textwrap.dedent("""\
        const port = (function () {
          "use strict";
          function inner() {
            return { load(text) {
              return text;
            } };
          }
          return inner();
        })();
        """)
    assert js_spans(source) == {"(function@1)": 9, "(function@1).inner": 5,
                                "(function@1).inner.load": 3}


def test_a_classic_scripts_wrapper_is_its_scope_not_a_function():
    """``(function () { ... })();`` around a whole script keeps its names out of the
    page's globals, as a module does: its functions are measured, it is not."""
    body = "\n".join(f"  var x{i} = {i};" for i in range(90))
    source = ("(function () {\n  \"use strict\";\n" + body
              + "\n  function say(text) {\n    return text;\n  }\n})();\n")
    assert js_spans(source) == {"say": 3}
    # called with arguments, or not the only statement: a function like any other
    assert "(function@1)" in js_spans(source.replace("})();", "})(window);"))
    assert "(function@1)" in js_spans(source + "start();\n")


def test_the_scanner_pairs_every_bracket_of_the_page_scripts():
    """Lost in a string or a regex, the scanner would leave brackets unpaired."""
    scripts = sorted(PACKAGE.rglob("*.js")) + sorted(PACKAGE.rglob("*.mjs"))
    for path in scripts:
        stack = []
        for token in sizes.js_tokens(path.read_text()):
            if token.text in ("(", "[", "{"):
                stack.append(token.text)
            elif token.text in (")", "]", "}"):
                assert stack and stack.pop() + token.text in ("()", "[]", "{}"), \
                    f"{path.name}:{token.line}"
        assert stack == [], path.name
    functions = [s for s in sizes.measure_all([str(PACKAGE)])[1] if ".js:" in s.name]
    assert len(functions) > 300


def test_a_division_taken_for_a_regex_keeps_the_lines_after_it_counted():
    """``x++ / 2`` reads as a regular expression opening, which never closes on its
    line: the line's end is not swallowed, and the functions after stay where they are."""
    source = ("function a(x) {\n  return x++ / 2;\n}\n"
              "function b(x) {\n  x--\n  / 2;\n  return x;\n}\n"
              "function c() {\n  return 3;\n}\n")
    assert [(n, f, last) for n, f, last in sizes.js_functions(source)] == [
        ("a", 1, 3), ("b", 4, 8), ("c", 9, 11)]

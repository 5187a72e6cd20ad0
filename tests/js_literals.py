"""What the tests of the page's JavaScript share: its modules, and the string literals of
a module (a quoted string's text, a template literal's text with its ``${}`` left out, a
quoted word inside either; comments and regular expressions are none), read with the
size scanner's tokens (scripts/sizes.py). Not a test module: the tests that no set-up key
is a literal of the page import it."""

import importlib.util
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WEB = ROOT / "src" / "micrograd" / "web"
PAGE_JS = sorted((WEB / "static").glob("*.js")) + sorted((WEB / "pyodide").glob("*.js"))

_spec = importlib.util.spec_from_file_location("sizes", ROOT / "scripts" / "sizes.py")
sizes = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(sizes)


def _quoted_end(source, i):
    """The index after the string opened by the quote at ``source[i]``."""
    m = re.compile(r"(['\"])(?:\\.|(?!\1)[^\\\n])*\1?").match(source, i)
    return m.end()


def _template(source, i):
    """From just after a template literal's backquote: (the index after its closing one,
    its text pieces as (start, text), the code of its ``${}`` left out)."""
    pieces, start = [], i
    while i < len(source):
        c = source[i]
        if c == "\\":
            i += 2
        elif c == "`":
            return i + 1, pieces + [(start, source[start:i])]
        elif source.startswith("${", i):
            pieces.append((start, source[start:i]))
            i = _code(source, i + 2)
            start = i
        else:
            i += 1
    return i, pieces + [(start, source[start:])]


def _code(source, i):
    """From just inside a template's ``${``: the index after the brace that closes it."""
    depth = 1
    while i < len(source) and depth:
        c = source[i]
        if c in "'\"":
            i = _quoted_end(source, i)
        elif c == "`":
            i, _ = _template(source, i + 1)
        else:
            depth += (c == "{") - (c == "}")
            i += 1
    return i


def literals(source):
    """The string literals of JavaScript ``source`` as (start, end, text): each quoted
    string's and template literal's text (start, end: its span in the source, quotes
    included; a template with ``${}`` is no one text), and each quoted word inside
    them."""
    out = []
    for token in sizes.js_tokens(source):
        if token.text != '"' or source[token.at] == "/":  # a regular expression
            continue
        at = token.at
        if source[at] == "`":
            _, pieces = _template(source, at + 1)
        else:
            pieces = [(at + 1, source[at + 1:_quoted_end(source, at) - 1])]
        if len(pieces) == 1:
            (start, text), = pieces
            out.append((start - 1, start + len(text) + 1, text))
        for start, text in pieces:
            for m in re.finditer(r"(['\"])(\w+)\1", text):
                out.append((start + m.start(), start + m.end(), m[2]))
    return out


def key_literals(path, names, allowed):
    """The literals of the file at ``path`` that are in ``names``, outside the pieces of
    code ``allowed`` lists: ["file:line: the literal  | the line"]."""
    source = path.read_text()
    spans = [(m.start(), m.end()) for piece in allowed
             for m in re.finditer(re.escape(piece), source)]
    found = []
    for start, end, text in literals(source):
        if text not in names or any(a <= start and end <= b for a, b in spans):
            continue
        line = source.count("\n", 0, start) + 1
        found.append(f"{path.name}:{line}: {text!r}  | "
                     f"{source.splitlines()[line - 1].strip()[:100]}")
    return found

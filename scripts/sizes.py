"""The longest files and functions of the package, Python and the page's JavaScript: the
house keeps a file under 600 lines and a function under 80.

    python scripts/sizes.py                  # the 10 longest files and functions of src/
    python scripts/sizes.py --top 25 src/micrograd/web
    python scripts/sizes.py --check          # exit 1 if anything is over the limits

A file's length is its number of lines. A Python function's (a method, a nested function)
is the span of its source from its first decorator to its last line, docstring and
comments included: what a reader scrolls through. Read with ``ast``, so nothing is
imported.

A JavaScript function's (``.js`` and ``.mjs``; a declaration, a function expression, an
arrow function with a block body, a method of a class or an object literal) runs from its
header to its closing brace. No JavaScript parser: a small scanner matches the braces of
the code, skipping strings, template literals (the code inside ``${...}`` is scanned as
code), regular expressions and comments. A ``/`` is taken for a division after a name, a
number, a string, ``)`` or ``]``, and for a regular expression elsewhere: right for the
code of this package, not for every program JavaScript allows.
"""

from __future__ import annotations

import argparse
import ast
import os
import sys
from typing import NamedTuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 80
JS_SUFFIXES = (".js", ".mjs")


class Span(NamedTuple):
    """One measured thing: ``path`` relative to the repository, ``name`` (the file's
    path, or ``module.py:Class.method``) and its length in lines."""

    lines: int
    name: str
    path: str


def source_files(root):
    """Every Python and JavaScript file under ``root`` (a folder or one file), sorted;
    ``node_modules``, ``__pycache__`` and hidden folders left out."""
    if os.path.isfile(root):
        return [root]
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in ("__pycache__", "node_modules")
                         and not d.startswith("."))
        found.extend(os.path.join(folder, f) for f in sorted(files)
                     if f.endswith((".py",) + JS_SUFFIXES))
    return found


def _functions(tree):
    """``(qualified name, node)`` of every function and method in ``tree``, nested ones
    included."""
    stack = [("", node) for node in tree.body]
    while stack:
        prefix, node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            name = prefix + node.name
            if not isinstance(node, ast.ClassDef):
                yield name, node
            stack.extend((name + ".", child) for child in node.body)
        else:
            stack.extend((prefix, child) for child in ast.iter_child_nodes(node))


def measure(path):
    """``(file span, [function spans])`` of one Python or JavaScript file."""
    with open(path, encoding="utf-8") as f:
        source = f.read()
    rel = os.path.relpath(path, ROOT)
    spans = []
    if path.endswith(JS_SUFFIXES):
        for name, first, last in js_functions(source):
            spans.append(Span(last - first + 1, f"{rel}:{name}", rel))
    else:
        for name, node in _functions(ast.parse(source, filename=path)):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            spans.append(Span(node.end_lineno - first + 1, f"{rel}:{name}", rel))
    return Span(len(source.splitlines()), rel, rel), spans


def measure_all(paths):
    """``(file spans, function spans)`` of every Python and JavaScript file under
    ``paths``, longest first."""
    files, functions = [], []
    for root in paths:
        for path in source_files(root):
            file_span, spans = measure(path)
            files.append(file_span)
            functions.extend(spans)
    return sorted(files, reverse=True), sorted(functions, reverse=True)


# ---------------------------------------------------------------------------------------
# JavaScript: a scanner that finds the braces of code (not of strings, templates, regular
# expressions or comments), then the functions by what stands before their opening brace
# ---------------------------------------------------------------------------------------

#: words after which a ``/`` starts a regular expression (elsewhere, after a name, a
#: number, ``)`` or ``]``, it divides)
_BEFORE_REGEX = {"return", "typeof", "instanceof", "in", "of", "new", "delete", "void",
                 "throw", "case", "do", "else", "yield", "await"}
#: words followed by ``( ... ) {`` that are statements, not methods
_STATEMENTS = {"if", "for", "while", "switch", "catch", "with", "function"}
#: words that may stand before a method's name
_MODIFIERS = {"static", "async", "get", "set", "*"}


class Token(NamedTuple):
    """A word, a number, ``=>``, one punctuation character, or ``"`` for a whole string,
    template or regular expression; ``line`` counted from 1, ``at`` its index in the
    source."""

    text: str
    line: int
    at: int


def _skip_quoted(source, i, quote):
    """The index after the string opened at ``source[i]`` (its quote)."""
    i += 1
    while i < len(source) and source[i] != quote and source[i] != "\n":
        i += 2 if source[i] == "\\" else 1
    return i + 1


def _skip_regex(source, i):
    """The index after the regular expression opened at ``source[i]`` (its ``/``) and
    its flags; a ``/`` inside ``[...]`` does not close it. One that does not close on its
    line was no regular expression (a division taken for one): its line's end is kept,
    so the lines after it are still counted."""
    i += 1
    in_class = False
    while i < len(source) and source[i] != "\n":
        c = source[i]
        if c == "\\":
            if source[i + 1:i + 2] == "\n":
                break
            i += 1
        elif c == "[":
            in_class = True
        elif c == "]":
            in_class = False
        elif c == "/" and not in_class:
            break
        i += 1
    if i >= len(source) or source[i] != "/":
        return i
    i += 1
    while i < len(source) and (source[i].isalnum() or source[i] in "_$"):
        i += 1
    return i


def _skip_template(source, i):
    """From inside a template literal at ``i``: ``(index, line count, opens)``: the index
    after its closing backquote (``opens`` False) or after a ``${`` (``opens`` True: code
    follows, up to the ``}`` that closes it)."""
    lines = 0
    while i < len(source):
        c = source[i]
        if c == "\\":
            lines += source[i + 1:i + 2] == "\n"
            i += 2
            continue
        if c == "`":
            return i + 1, lines, False
        if c == "$" and source[i + 1:i + 2] == "{":
            return i + 2, lines, True
        lines += c == "\n"
        i += 1
    return i, lines, False


def _divides(previous):
    """Whether a ``/`` after the token ``previous`` divides (True) or opens a regular
    expression (False)."""
    if previous is None:
        return False
    t = previous.text
    if t in (")", "]", '"'):
        return True
    return (t[0].isalnum() or t[0] in "_$#") and t not in _BEFORE_REGEX


def js_tokens(source):
    """The tokens of JavaScript ``source`` that matter to its shape: comments dropped,
    each string, template literal and regular expression one ``"`` token, the code inside
    a template's ``${...}`` scanned as code (its braces not tokens)."""
    tokens, line, i, n = [], 1, 0, len(source)
    braces = []  # for each open brace: True if it opened a template's ${
    while i < n:
        c = source[i]
        if c == "\n":
            line += 1
            i += 1
        elif c.isspace():
            i += 1
        elif source.startswith("//", i):
            end = source.find("\n", i)
            i = n if end < 0 else end
        elif source.startswith("/*", i):
            end = source.find("*/", i + 2)
            end = n if end < 0 else end + 2
            line += source.count("\n", i, end)
            i = end
        elif c in "'\"":
            tokens.append(Token('"', line, i))
            end = _skip_quoted(source, i, c)
            line += source.count("\n", i, end)  # a line continued by a backslash
            i = end
        elif c == "`" or (c == "}" and braces and braces[-1]):
            if c == "}":
                braces.pop()
            else:
                tokens.append(Token('"', line, i))
            i, lines, opens = _skip_template(source, i + 1)
            line += lines
            if opens:
                braces.append(True)
        elif c == "/" and not _divides(tokens[-1] if tokens else None):
            tokens.append(Token('"', line, i))
            i = _skip_regex(source, i)
        elif c.isalnum() or c in "_$#" or ord(c) > 127:
            j = i + 1
            while j < n and (source[j].isalnum() or source[j] in "_$" or ord(source[j]) > 127):
                j += 1
            tokens.append(Token(source[i:j], line, i))
            i = j
        elif source.startswith("=>", i):
            tokens.append(Token("=>", line, i))
            i += 2
        else:
            if c == "{":
                braces.append(False)
            elif c == "}" and braces:
                braces.pop()
            tokens.append(Token(c, line, i))
            i += 1
    return tokens


def _pairs(tokens):
    """``{index of an opening bracket: index of its closing one}`` (both ways), for
    ``()``, ``[]`` and ``{}``."""
    pairs, stack = {}, []
    for k, t in enumerate(tokens):
        if t.text in ("(", "[", "{"):
            stack.append(k)
        elif t.text in (")", "]", "}") and stack:
            opened = stack.pop()
            pairs[opened], pairs[k] = k, opened
    return pairs


def _word(token):
    return token is not None and (token.text[0].isalnum() or token.text[0] in "_$#")


def _named_by(tokens, k):
    """The name a function starting at token ``k`` is given by what stands before it
    (``name = ...``, ``name: ...``), or None."""
    if k >= 2 and tokens[k - 1].text in ("=", ":") and _word(tokens[k - 2]):
        return tokens[k - 2].text
    return None


def _with_async(tokens, k):
    """``k``, or the index of an ``async`` just before it."""
    return k - 1 if k > 0 and tokens[k - 1].text == "async" else k


def _arrow(tokens, pairs, k):
    """``(header index, name)`` of the arrow function whose ``=>`` is token ``k``."""
    params = k - 1
    if tokens[params].text == ")":
        params = pairs.get(params, params)
    start = _with_async(tokens, params)
    return start, _named_by(tokens, start) or f"(arrow@{tokens[start].line})"


def _after_parameters(tokens, pairs, k):
    """``(header index, name)`` of the function or method whose parameters' ``(`` is
    token ``k``, or None if that ``(...)`` is a statement's (``if``, ``for``, ...)."""
    before = tokens[k - 1] if k > 0 else None
    if before is None:
        return None
    if before.text == "function" or (before.text == "*" and k > 1
                                     and tokens[k - 2].text == "function"):
        keyword = k - 1 if before.text == "function" else k - 2
        start = _with_async(tokens, keyword)
        return start, _named_by(tokens, start) or f"(function@{tokens[start].line})"
    if before.text == "]":
        start, name = pairs.get(k - 1, k - 1), "[computed]"
    elif _word(before) and before.text not in _STATEMENTS:
        start, name = k - 1, before.text
    elif before.text == '"':
        start, name = k - 1, "(quoted)"
    else:
        return None
    if start > 0 and tokens[start - 1].text == "function":
        start = _with_async(tokens, start - 1)  # function name(...) {
        return start, name
    if start > 0 and tokens[start - 1].text == ".":
        return None  # a call: x.f(...) {  is no JavaScript
    while start > 0 and tokens[start - 1].text in _MODIFIERS:
        start -= 1
    return start, name


def _opened_by(tokens, pairs, k):
    """``(header index, name)`` of the function whose body's ``{`` is token ``k``, or
    None if that brace opens something else (a block, an object, a class)."""
    before = tokens[k - 1].text if k > 0 else ""
    if before == "=>":
        return _arrow(tokens, pairs, k - 1)
    if before == ")" and k - 1 in pairs:
        return _after_parameters(tokens, pairs, pairs[k - 1])
    return None


def _classes(tokens, pairs):
    """``[(name, first token, last token)]`` of every class body."""
    found = []
    for k, t in enumerate(tokens):
        if t.text != "class":
            continue
        name = tokens[k + 1].text if k + 1 < len(tokens) and _word(tokens[k + 1]) else None
        j = k + 1
        while j < len(tokens) and tokens[j].text != "{":
            j += 1
        if j in pairs:
            found.append((name if name and name != "extends" else "(class)", j, pairs[j]))
    return found


def _wraps_the_script(tokens, start, end):
    """Whether the function from token ``start`` to ``end`` is a whole script's wrapper:
    ``(`` before it, nothing but its call (``)``, ``(``, ``;``) after it."""
    return ([t.text for t in tokens[:start]] == ["("]
            and all(t.text in (")", "(", ";") for t in tokens[end + 1:]))


def js_functions(source):
    """``[(qualified name, first line, last line)]`` of every function of a JavaScript
    source: declarations, expressions, arrows with a block body, methods (of classes and
    object literals). A function runs from its header (``async``, ``static``, ``get``
    included) to its closing brace; a nested one is named after those around it
    (``Class.method.inner``). A function that wraps a whole classic script, called at
    once (``(function () { ... })();``), is that script's scope, as a module is Python's:
    not a function, its functions are the file's."""
    tokens = js_tokens(source)
    pairs = _pairs(tokens)
    spans = []  # (name, header token, body's first token, last token)
    for k, t in enumerate(tokens):
        if t.text == "{" and k in pairs:
            found = _opened_by(tokens, pairs, k)
            if found and not _wraps_the_script(tokens, found[0], pairs[k]):
                spans.append((found[1], found[0], k, pairs[k]))
    scopes = [(n, b, e) for n, _, b, e in spans] + _classes(tokens, pairs)
    out = []
    for name, start, _body, end in spans:
        around = sorted((b, n) for n, b, e in scopes if b < start and end <= e)
        qualified = ".".join([n for _, n in around] + [name])
        out.append((qualified, tokens[start].line, tokens[end].line))
    return out


def over_limits(files, functions, max_file=MAX_FILE_LINES, max_function=MAX_FUNCTION_LINES):
    """The spans over the limits: files first, then functions."""
    return ([s for s in files if s.lines > max_file]
            + [s for s in functions if s.lines > max_function])


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("paths", nargs="*", default=[os.path.join(ROOT, "src")],
                   help="folders or files to measure (default: src/)")
    p.add_argument("--top", type=int, default=10, help="how many of each to list")
    p.add_argument("--check", action="store_true",
                   help=f"exit 1 if a file is over {MAX_FILE_LINES} lines or a function "
                        f"over {MAX_FUNCTION_LINES}")
    args = p.parse_args(argv)
    files, functions = measure_all(args.paths)
    print(f"longest files (limit {MAX_FILE_LINES} lines):")
    for s in files[:args.top]:
        print(f"  {s.lines:6d}  {s.name}")
    print(f"longest functions (limit {MAX_FUNCTION_LINES} lines):")
    for s in functions[:args.top]:
        print(f"  {s.lines:6d}  {s.name}")
    over = over_limits(files, functions)
    if over:
        print(f"{len(over)} over the limits: " + ", ".join(s.name for s in over))
    return 1 if args.check and over else 0


if __name__ == "__main__":
    sys.exit(main())

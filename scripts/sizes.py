"""The longest files and functions of the package: the house keeps a Python file under
600 lines and a function under 80.

    python scripts/sizes.py                  # the 10 longest files and functions of src/
    python scripts/sizes.py --top 25 src/micrograd/web
    python scripts/sizes.py --check          # exit 1 if anything is over the limits

A file's length is its number of lines. A function's (a method, a nested function) is
the span of its source from its first decorator to its last line, docstring and comments
included: what a reader scrolls through. Read with ``ast``, so nothing is imported.
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


class Span(NamedTuple):
    """One measured thing: ``path`` relative to the repository, ``name`` (the file's
    path, or ``module.py:Class.method``) and its length in lines."""

    lines: int
    name: str
    path: str


def python_files(root):
    """Every ``.py`` file under ``root`` (a folder or one file), sorted."""
    if os.path.isfile(root):
        return [root]
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
        found.extend(os.path.join(folder, f) for f in sorted(files) if f.endswith(".py"))
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
    """``(file span, [function spans])`` of one Python file."""
    with open(path, encoding="utf-8") as f:
        source = f.read()
    rel = os.path.relpath(path, ROOT)
    tree = ast.parse(source, filename=path)
    spans = []
    for name, node in _functions(tree):
        first = min([node.lineno] + [d.lineno for d in node.decorator_list])
        spans.append(Span(node.end_lineno - first + 1, f"{rel}:{name}", rel))
    return Span(len(source.splitlines()), rel, rel), spans


def measure_all(paths):
    """``(file spans, function spans)`` of every Python file under ``paths``, longest
    first."""
    files, functions = [], []
    for root in paths:
        for path in python_files(root):
            file_span, spans = measure(path)
            files.append(file_span)
            functions.extend(spans)
    return sorted(files, reverse=True), sorted(functions, reverse=True)


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

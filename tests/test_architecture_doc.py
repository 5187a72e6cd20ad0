"""docs/architecture.md stays true to the tree: every path it names exists, and every
module of the package is placed in its layer diagram or its table.

A path is a span in backticks that looks like a file or a folder (`ops.py`,
`web/static/`, `commands/site_folder.py`, `.importlinter`), or such a word inside a
command in backticks (`node web-runtime/pytest-in-pyodide.mjs`). It is looked for under
src/micrograd/ first, then at the repository's root, then under any folder named before
it in the same paragraph, table row or list item (so `door.py` after `pyodide/`, in the
row of `web/`, is web/pyodide/door.py). `<name>`, `*` and `...` stand for any name: at
least one file must match. A lone word in backticks that starts with a dot names a
file (`.importlinter`): write an attribute with its object (`v.grad`), not `.grad`.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "micrograd"
DOC = ROOT / "docs" / "architecture.md"

#: names in backticks that are not files of the repository: what a run makes
MADE_BY_RUNS = {
    "site.json",  # written into the folder `micrograd site` builds
    ".venv",  # made by scripts/test.sh
}

_EXTENSIONS = ("py", "js", "mjs", "md", "html", "ipynb", "json", "toml", "sh", "css",
               "txt", "cfg", "png")
_PATH = re.compile(r"^\.?[\w<>*-][\w.<>*-]*(/[\w.<>*-]+)*/?$")
_EXT = re.compile(r"\.(%s)$" % "|".join(_EXTENSIONS))
_SPAN = re.compile(r"`([^`\n]+)`")
_PLACEHOLDER = re.compile(r"<[^<>/]*>|\.\.\.")


def _blocks(text):
    """The doc's paragraphs, table rows and list items, fenced code left out."""
    blocks, current, fenced = [], [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            continue
        starts_block = (not line.strip() or line.startswith("|")
                        or re.match(r"\s*([-*]|\d+\.)\s", line))
        if starts_block and current:
            blocks.append(" ".join(current))
            current = []
        if line.strip():
            current.append(line)
            if line.startswith("|"):
                blocks.append(line)
                current = []
    if current:
        blocks.append(" ".join(current))
    return blocks


def _path_words(span):
    """The words of a span in backticks that name files or folders."""
    words = span.split()
    found = []
    for word in words:
        word = word.strip("'\"(),;:")
        if not word or "//" in word or not _PATH.match(word):
            continue
        dotfile = len(words) == 1 and word.startswith(".") and word[1:2].isalpha()
        if "/" in word or _EXT.search(word) or dotfile:
            found.append(word)
    return found


def _matches(base, name):
    if _PLACEHOLDER.search(name) or "*" in name:
        pattern = _PLACEHOLDER.sub("*", name).rstrip("/")
        return [p for p in base.glob(pattern) if not name.endswith("/") or p.is_dir()]
    path = base / name
    if path.exists() and (path.is_dir() or not name.endswith("/")):
        return [path]
    return []


def missing_paths(text, roots=(PACKAGE, ROOT)):
    """The path names in ``text`` that match no file or folder (in order, each once)."""
    missing = []
    for block in _blocks(text):
        bases = list(roots)
        for span in _SPAN.findall(block):
            for name in _path_words(span):
                if name in MADE_BY_RUNS:
                    continue
                found = next((m for base in bases for m in _matches(base, name)), None)
                if found is None:
                    if name not in missing:
                        missing.append(name)
                elif found.is_dir() and found not in bases:
                    bases.append(found)  # a bare name after it may live there
    return missing


def placed_names(text):
    """The names the layer diagram (the first fenced block) and the table place."""
    names = set()
    diagram = re.search(r"```\n(.*?)```", text, re.S)
    if diagram:
        names.update(w for w in re.split(r"[\s|()]+", diagram.group(1)) if w)
    for line in text.splitlines():
        if line.startswith("|"):
            for span in _SPAN.findall(line):
                names.update(span.split())
    return {n.strip(",;:").removesuffix("/").removesuffix(".py") for n in names}


def package_modules(package=PACKAGE):
    """The package's top-level modules and subpackages, by name."""
    return sorted(p.stem for p in package.iterdir()
                  if (p.suffix == ".py" and p.stem != "__init__")
                  or (p.is_dir() and (p / "__init__.py").exists()))


def unplaced_modules(text, modules):
    placed = placed_names(text)
    return [m for m in modules if m not in placed]


# ---------------------------------------------------------------------------------------
# the doc itself
# ---------------------------------------------------------------------------------------


def test_every_path_the_doc_names_exists():
    assert missing_paths(DOC.read_text(encoding="utf-8")) == []


def test_every_module_is_placed_in_the_diagram_or_the_table():
    assert unplaced_modules(DOC.read_text(encoding="utf-8"), package_modules()) == []


def test_the_doc_names_paths_at_all():
    # the checker reads the doc's spans: an empty harvest would pass vacuously
    text = DOC.read_text(encoding="utf-8")
    names = [n for b in _blocks(text) for s in _SPAN.findall(b) for n in _path_words(s)]
    assert len(names) > 50
    assert {"ops.py", "web/", "commands/site_folder.py", "tests/opinfo.py",
            "trace/numpy_backend.py"} <= set(names)


# ---------------------------------------------------------------------------------------
# the checker, on small texts
# ---------------------------------------------------------------------------------------


def test_a_wrong_path_is_reported():
    text = ("| engine | `engine.py`, `engine_slow.py` | `Value`, `chain_rule.sweep` |\n\n"
            "Run `bash scripts/test.sh -m slow` or `node web-runtime/nowhere.mjs`.\n")
    assert missing_paths(text) == ["engine_slow.py", "web-runtime/nowhere.mjs"]


def test_a_wrong_folder_and_a_file_for_a_folder_are_reported():
    text = "`web/statics/`, `ops.py/`, `commands/`, `tests/opinfo.py`, `.importlinter`\n"
    assert missing_paths(text) == ["web/statics/", "ops.py/"]


def test_a_bare_name_resolves_under_a_folder_named_before_it_in_the_same_block():
    row = "| web | `web/` | `pyodide/`: the static site (`door.py`, `calls.py`) |\n"
    assert missing_paths(row) == []
    # in a block of its own, nothing places it
    assert missing_paths("`web/` is the web.\n\nThen `door.py`.\n") == ["door.py"]


def test_placeholders_need_a_match():
    assert missing_paths("`commands/<name>.py`, `scripts/...`, `benchmarks/*.py`") == []
    assert missing_paths("`commands/<name>.rs`") == ["commands/<name>.rs"]


def test_code_that_is_not_a_path_is_left_alone():
    text = ("`engine.affine`, `checks.as_float`, `from .engine import _name`, `x ** n`, "
            "`grad(m, g, *xs, out)`, `micrograd demo / train`, `MICROGRAD_NO_SKIP=1`\n")
    assert missing_paths(text) == []


def test_a_module_missing_from_diagram_and_table_is_reported():
    text = ("```\nengine        engine  chain_rule  trace/\n```\n\n"
            "| part | files |\n|---|---|\n| ops | `ops.py`, `viz/` |\n\n"
            "`walk.py` is named in prose only.\n")
    modules = ["engine", "chain_rule", "ops", "trace", "viz", "walk"]
    assert unplaced_modules(text, modules) == ["walk"]

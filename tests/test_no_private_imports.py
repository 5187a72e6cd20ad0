"""No module of the package reaches into another module's underscore-private names.

A leading underscore says "this module's own business": a module may change or drop
such a name without telling anyone. So no ``from micrograd.X import _name``, no
``from .X import _name``, and no ``X._name`` on another module bound by an import
(``from . import engine as _e; _e._affine``). Dunders (``__version__``) are public.
Importing a public name under a private alias (``from . import ops as _ops``) is fine.

The few crossings that remain are listed in ``SANCTIONED`` with the reason each stays;
a crossing not listed fails the test, and so does a listed one that is gone (the list
shrinks with the code).
"""

import ast
import textwrap
from pathlib import Path

from package_imports import absolute, module_name

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
PACKAGE = SRC / "micrograd"

#: (importing module, module imported from, name): why the crossing stays for now
SANCTIONED = {}


def _is_private(name):
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _is_module(dotted, src=SRC):
    base = src.joinpath(*dotted.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def _module_aliases(tree, here, is_package, src):
    """Every local name an import binds to a module of the package: name -> dotted."""
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] != "micrograd":
                    continue
                if a.asname:
                    aliases[a.asname] = a.name
                else:
                    aliases["micrograd"] = "micrograd"
        elif isinstance(node, ast.ImportFrom):
            base = absolute(here, is_package, node.module, node.level)
            if base.split(".")[0] != "micrograd":
                continue
            for a in node.names:
                dotted = f"{base}.{a.name}"
                if _is_module(dotted, src):
                    aliases[a.asname or a.name] = dotted
    return aliases


def _dotted(node, aliases):
    """``a.b.c`` as a dotted module path if ``a`` is a module alias, else None."""
    names = []
    while isinstance(node, ast.Attribute):
        names.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id not in aliases:
        return None
    return ".".join([aliases[node.id]] + names[::-1])


def crossings(path, src=SRC):
    """Each (importing module, other module, private name, line) in the file at ``path``."""
    here = module_name(path, src)
    is_package = path.name == "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            base = absolute(here, is_package, node.module, node.level)
            if base.split(".")[0] != "micrograd" or base == here:
                continue
            found += [(here, base, a.name, node.lineno) for a in node.names
                      if _is_private(a.name)]
        elif isinstance(node, ast.Import):
            for a in node.names:
                parts = a.name.split(".")
                if parts[0] == "micrograd" and any(_is_private(p) for p in parts):
                    found.append((here, a.name, a.name, node.lineno))
    aliases = _module_aliases(tree, here, is_package, src)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _is_private(node.attr):
            owner = _dotted(node.value, aliases)
            if owner is not None and _is_module(owner, src) and owner != here:
                found.append((here, owner, node.attr, node.lineno))
    return found


def _all_crossings():
    return [c for path in sorted(PACKAGE.rglob("*.py")) for c in crossings(path)]


def test_no_module_imports_another_modules_private_names():
    unexpected = [f"{here} uses {owner}.{name} (line {line})"
                  for here, owner, name, line in _all_crossings()
                  if (here, owner, name) not in SANCTIONED]
    assert not unexpected, "\n".join(unexpected)


def test_every_sanctioned_crossing_is_still_there():
    """An exception whose crossing is gone is taken off the list, not left as a hole."""
    seen = {(here, owner, name) for here, owner, name, _ in _all_crossings()}
    private = {k for k in SANCTIONED if _is_private(k[2])}
    assert private <= seen, f"no longer crossing, drop from SANCTIONED: {private - seen}"


def _write(root, rel, text):
    path = root.joinpath(*rel.split("/"))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


def test_the_scanner_finds_each_kind_of_crossing(tmp_path):
    """The check itself: every spelling of a crossing is caught, none of the fine ones."""
    _write(tmp_path, "micrograd/__init__.py", "")
    _write(tmp_path, "micrograd/engine.py", "_hidden = 1\nshown = 2\n")
    _write(tmp_path, "micrograd/sub/__init__.py", "from ..engine import _hidden\n")
    _write(tmp_path, "micrograd/sub/deep.py", "from .. import engine as e\nx = e._hidden\n")
    user = _write(tmp_path, "micrograd/user.py", """\
        import micrograd.engine
        import micrograd.engine as eng
        from micrograd.engine import _hidden
        from . import engine as _engine
        from .engine import shown, __doc__
        from micrograd import engine

        def f(v):
            from .engine import _hidden as h
            return (eng._hidden, _engine._hidden, engine.shown, micrograd.engine._hidden,
                    v._prev, _engine.__name__, h)
        """)
    own = _write(tmp_path, "micrograd/own.py", "from .own import _me\nimport micrograd.own as o\n"
                                               "x = o._me\n")
    found = sorted((owner, name, line) for _, owner, name, line in crossings(user, tmp_path))
    assert found == [("micrograd.engine", "_hidden", 3), ("micrograd.engine", "_hidden", 9),
                     ("micrograd.engine", "_hidden", 10), ("micrograd.engine", "_hidden", 10),
                     ("micrograd.engine", "_hidden", 10)]
    assert crossings(own, tmp_path) == []
    sub = crossings(tmp_path / "micrograd/sub/__init__.py", tmp_path)
    assert sub == [("micrograd.sub", "micrograd.engine", "_hidden", 1)]
    deep = crossings(tmp_path / "micrograd/sub/deep.py", tmp_path)
    assert deep == [("micrograd.sub.deep", "micrograd.engine", "_hidden", 2)]

"""No import cycle in the package, counting every import wherever it is written.

An import placed inside a function runs later than the module's own, so Python accepts
a cycle through it; but the two modules still need each other, and a reader cannot
understand (or move, or test) one without the other. So the graph here is read from the
source of every module of ``src/micrograd``, with each import counted where it stands:
at module level, inside a function or a method, under ``if TYPE_CHECKING:``, relative
(``from .x import y``, ``from .. import x``) or absolute (``import micrograd.x.y``,
``from micrograd.x import y``). ``from P import x`` is an edge to the submodule ``P.x``
when there is one, else to ``P`` itself. Importing a module also imports its parent
packages, whose ``__init__`` runs first: from a module outside package ``P``, an import
of ``P.sub`` is an edge to ``P`` too (``P/__init__`` importing that module back is a
cycle); from inside ``P`` it is not (a package importing its own submodules is no cycle).
An import of the package itself (``from . import name`` of a name it defines) is an edge.

An import inside a function that forms no cycle is fine: it keeps a heavy dependency
(NumPy, torch) out until it is needed. Imports whose module is computed at run time
(``importlib.import_module(f"...{name}")``) have no fixed target and are not read.
"""

import ast
import shutil
import textwrap
from pathlib import Path

import pytest

from package_imports import absolute, module_name

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"
PACKAGE = "micrograd"


class Edge:
    """One import statement: the module it brings in, and where it is written."""

    def __init__(self, target, path, line, scope):
        self.target, self.path, self.line, self.scope = target, path, line, scope

    def __str__(self):
        return f"{self.path}:{self.line} ({self.scope})"


def module_names(src, package):
    """Every module of ``package`` under ``src``: dotted name -> file."""
    return {module_name(path, src): path for path in sorted((src / package).rglob("*.py"))}


class _Imports(ast.NodeVisitor):
    """Collects the imports of one module with the scope each is written in."""

    def __init__(self, here, is_package, modules, path):
        self.here, self.is_package, self.modules, self.path = here, is_package, modules, path
        self.scope = []
        self.edges = []

    def _add(self, target, node):
        if target not in self.modules:
            return
        parts = target.split(".")
        parents = [".".join(parts[:k]) for k in range(1, len(parts))]
        # a parent package's __init__ runs first, unless this module is inside it
        outside = [p for p in parents if not (self.here + ".").startswith(p + ".")]
        seen = {(e.target, e.line) for e in self.edges}
        for t in [*outside, target]:
            if t in self.modules and t != self.here and (t, node.lineno) not in seen:
                scope = " > ".join(self.scope) if self.scope else "module level"
                self.edges.append(Edge(t, self.path, node.lineno, scope))
                seen.add((t, node.lineno))

    def _within(self, label, node):
        self.scope.append(label)
        self.generic_visit(node)
        self.scope.pop()

    def visit_FunctionDef(self, node):
        self._within(f"in {node.name}()", node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        self._within(f"in class {node.name}", node)

    def visit_If(self, node):
        if "TYPE_CHECKING" in ast.unparse(node.test):
            self.scope.append("under TYPE_CHECKING")
            for child in node.body:
                self.visit(child)
            self.scope.pop()
            for child in node.orelse:
                self.visit(child)
        else:
            self.generic_visit(node)

    def visit_Import(self, node):
        for alias in node.names:
            self._add(alias.name, node)

    def visit_ImportFrom(self, node):
        base = absolute(self.here, self.is_package, node.module, node.level)
        for alias in node.names:
            sub = f"{base}.{alias.name}"
            self._add(sub if sub in self.modules else base, node)


def import_graph(src, package=PACKAGE):
    """``{module: [Edge, ...]}`` for every module of ``package`` under ``src``, read
    from its source (nothing is imported)."""
    modules = module_names(src, package)
    graph = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        reader = _Imports(name, path.name == "__init__.py", modules,
                          path.relative_to(src).as_posix())
        reader.visit(tree)
        graph[name] = reader.edges
    return graph


def _components(succ):
    """The strongly connected components of ``succ`` with more than one module
    (Tarjan's algorithm, written as a loop)."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    for root in sorted(succ):
        if root in index:
            continue
        work = [(root, iter(sorted(succ[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == index[node]:
                    comp = set()
                    while True:
                        top = stack.pop()
                        on_stack.discard(top)
                        comp.add(top)
                        if top == node:
                            break
                    if len(comp) > 1:
                        out.append(comp)
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(succ[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return out


def _cycles_through(start, succ, allowed, found, limit):
    """Append to ``found`` every elementary cycle from ``start`` back to it through
    modules of ``allowed`` only (a depth-first walk over simple paths)."""
    path = [start]
    todo = [iter(sorted(succ[start] & (allowed | {start})))]
    while todo and len(found) < limit:
        nxt = next(todo[-1], None)
        if nxt is None:
            todo.pop()
            path.pop()
        elif nxt == start:
            found.append(path + [start])
        elif nxt not in path:
            path.append(nxt)
            todo.append(iter(sorted(succ[nxt] & (allowed | {start}))))


def find_cycles(graph, limit=200):
    """Every elementary cycle of the graph, each as a list of modules starting at its
    smallest name and ending where it starts (at most ``limit`` per component)."""
    succ = {m: {e.target for e in edges} for m, edges in graph.items()}
    cycles = []
    for comp in sorted(_components(succ), key=min):
        found = []
        for start in sorted(comp):
            # cycles through ``start`` and modules after it only, so each is found once
            _cycles_through(start, succ, {m for m in comp if m > start}, found, limit)
        cycles.extend(found)
    return cycles


def describe(graph, cycle):
    """A cycle as a chain of modules, then the import statement behind each link."""
    lines = [" -> ".join(cycle)]
    for a, b in zip(cycle, cycle[1:]):
        for e in graph[a]:
            if e.target == b:
                lines.append(f"    {a} -> {b}: {e}")
    return "\n".join(lines)


def test_the_package_has_no_import_cycle():
    graph = import_graph(SRC)
    cycles = find_cycles(graph)
    if cycles:
        report = "\n".join(describe(graph, c) for c in cycles)
        pytest.fail(f"{len(cycles)} import cycle(s):\n{report}", pytrace=False)


def test_the_graph_reads_imports_inside_functions():
    # the program builds its NumPy executor on first use: an import inside a function,
    # counted as an edge, and allowed because nothing there imports the program back
    graph = import_graph(SRC)
    lazy = [e for e in graph["micrograd.trace.program"] if e.target == "micrograd.trace.runtime"]
    assert lazy and all(e.scope != "module level" for e in lazy)
    assert len(graph) > 100 and sum(map(len, graph.values())) > 300


# a cycle planted in a copy of the package, in each way an import can be written: the
# module planted into, what is written there, and cycles the graph must then show (as
# find_cycles gives them: from the smallest name round to it); every new cycle runs
# through the planted import
PLANTED = {
    "inside a method, relative": (
        "experiment/fields.py",
        """
        class Later:
            def read(self):
                from .links import from_dict
                return from_dict
        """,
        [["micrograd.experiment.fields", "micrograd.experiment.links",
          "micrograd.experiment.fields"]]),
    "a backend importing its program back": (
        "trace/runtime.py",
        """
        from .program import Program
        """,
        [["micrograd.trace.program", "micrograd.trace.runtime", "micrograd.trace.program"],
         ["micrograd.trace.program", "micrograd.trace.torch_backend",
          "micrograd.trace.runtime", "micrograd.trace.program"]]),
    "under TYPE_CHECKING": (
        "trace/ir.py",
        """
        from typing import TYPE_CHECKING
        if TYPE_CHECKING:
            from .program import Program
        """,
        [["micrograd.trace.ir", "micrograd.trace.program", "micrograd.trace.ir"]]),
    "from . import a submodule": (
        "trace/ir.py",
        """
        def later():
            from . import passes
            return passes
        """,
        [["micrograd.trace.ir", "micrograd.trace.passes", "micrograd.trace.ir"]]),
    "absolute dotted import": (
        "ops.py",
        """
        def later():
            import micrograd.engine
            return micrograd.engine
        """,
        [["micrograd.engine", "micrograd.ops", "micrograd.engine"]]),
    "from the package's name, a submodule": (
        "trace/ir.py",
        """
        def later():
            from micrograd.trace import program
            return program
        """,
        [["micrograd.trace.ir", "micrograd.trace.program", "micrograd.trace.ir"]]),
    "through a package's __init__": (
        "experiment/__init__.py",
        """
        from ..points_csv import read_points
        """,
        [["micrograd.experiment", "micrograd.points_csv", "micrograd.experiment"]]),
    "a name of a package's __init__": (
        "experiment/build.py",
        """
        def later():
            from . import Experiment
            return Experiment
        """,
        [["micrograd.experiment", "micrograd.experiment.build", "micrograd.experiment"]]),
}


@pytest.mark.parametrize("name", list(PLANTED))
def test_a_planted_cycle_is_found(tmp_path, name):
    where, code, expected = PLANTED[name]
    shutil.copytree(SRC / PACKAGE, tmp_path / PACKAGE)
    before = find_cycles(import_graph(tmp_path))
    assert not [c for c in expected if c in before]
    target = tmp_path / PACKAGE / where
    target.write_text(target.read_text(encoding="utf-8") + textwrap.dedent(code),
                      encoding="utf-8")
    graph = import_graph(tmp_path)
    new = [c for c in find_cycles(graph) if c not in before]
    report = "\n".join(describe(graph, c) for c in new)
    assert [c for c in expected if c in new] == expected, report
    assert all(f"{PACKAGE}/{where}:" in describe(graph, c) for c in new), report


def test_every_cycle_of_a_component_is_named():
    # two cycles through one module, and a third component apart
    code = {
        "a": "from . import b\nfrom . import c\n",
        "b": "def f():\n    from . import a\n",
        "c": "from .b import f\n",
        "d": "import pkg.e\n",
        "e": "from pkg import d\n",
        "f": "from . import a\n",
    }
    graph = {f"pkg.{m}": [] for m in code}
    with_files = {}
    for m, text in code.items():
        reader = _Imports(f"pkg.{m}", False, graph, f"pkg/{m}.py")
        reader.visit(ast.parse(text))
        with_files[f"pkg.{m}"] = reader.edges
    assert find_cycles(with_files) == [
        ["pkg.a", "pkg.b", "pkg.a"], ["pkg.a", "pkg.c", "pkg.b", "pkg.a"],
        ["pkg.d", "pkg.e", "pkg.d"]]

"""The house's size limits: no Python file over 600 lines, no function over 80
(``scripts/sizes.py`` measures them). Checked here for the whole package."""

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

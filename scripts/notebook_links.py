"""Write the notebooks' links to the page: for each notebook of
``micrograd.web.notebook_links.STOPS``, a markdown cell after each stop's cell, its text
``page_cell(stop)`` (the static site's link and the served page's). Idempotent: the
cells it wrote before (ids ``page-after-...``) are replaced; every other cell is left as
it is. Each file is read again right before it is written, and written only if it
changes (nbformat's own layout, so a diff shows the new cells alone). The student's
``exercises.ipynb`` is made from the teacher's copy, as ``micrograd notebooks student``
makes it (``micrograd.student.make_student``), never written by hand.

    python scripts/notebook_links.py            # write
    python scripts/notebook_links.py --check    # exit 1 if a notebook is not up to date
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from micrograd.student import make_student  # noqa: E402
from micrograd.web.notebook_links import STOPS, cell_id, page_cell  # noqa: E402

NOTEBOOKS = ROOT / "notebooks"
PREFIX = "page-after-"
#: the student's copy: made from the teacher's
STUDENT, TEACHER = "exercises", "exercises_solutions"


def with_links(nb, stops):
    """``nb`` (a notebook node) with its page cells as ``stops`` say, in place."""
    nb.cells = [c for c in nb.cells if not c.get("id", "").startswith(PREFIX)]
    for stop in stops:
        at = next((i for i, c in enumerate(nb.cells) if c.get("id") == stop.after), None)
        if at is None:
            raise SystemExit(f"no cell {stop.after!r} in this notebook")
        cell = nbformat.v4.new_markdown_cell(page_cell(stop))
        cell.id = cell_id(stop)
        nb.cells.insert(at + 1, cell)
    return nb


def main(argv):
    check = "--check" in argv
    stale = []
    for name, stops in STOPS.items():
        if name == STUDENT:
            continue
        path = NOTEBOOKS / f"{name}.ipynb"
        before = path.read_text(encoding="utf-8")
        nb = with_links(nbformat.reads(before, as_version=4), stops)
        after = nbformat.writes(nb) + "\n"
        if after == before:
            continue
        stale.append(name)
        if check:
            continue
        if path.read_text(encoding="utf-8") != before:  # changed meanwhile: do it again
            raise SystemExit(f"{path} changed while this ran; run it again")
        path.write_text(after, encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)}")
    if _student(check):
        stale.append(STUDENT)
    if check and stale:
        print("not up to date: " + ", ".join(stale))
        return 1
    return 0


def _student(check):
    """Make the student's copy from the teacher's (``check``: only compare); whether it
    was not up to date."""
    import tempfile

    path = NOTEBOOKS / f"{STUDENT}.ipynb"
    with tempfile.TemporaryDirectory() as tmp:
        made = Path(tmp) / path.name
        make_student(NOTEBOOKS / f"{TEACHER}.ipynb", made)
        after = made.read_text(encoding="utf-8")
    if after == path.read_text(encoding="utf-8"):
        return False
    if not check:
        path.write_text(after, encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)}")
    return True


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

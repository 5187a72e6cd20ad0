"""The student's copy of a teacher's notebook: every solution replaced by a stub.

    >>> from micrograd.student import student_notebook
    >>> cell = {"cell_type": "code", "outputs": [], "execution_count": 1, "metadata": {},
    ...         "source": "def double(x):\\n    ### BEGIN SOLUTION\\n    return 2 * x\\n"
    ...                   "    ### END SOLUTION\\nanswer = 42  ### SOLUTION"}
    >>> print(student_notebook({"cells": [cell]})["cells"][0]["source"])
    def double(x):
        # your code here
        raise NotImplementedError("write your answer here")
    answer = None  # your answer

The teacher marks each solution in a code cell: a block between ``### BEGIN SOLUTION``
and ``### END SOLUTION`` inside a function becomes ``raise NotImplementedError``; a line
``name = answer  ### SOLUTION`` becomes ``name = None``. Every output is cleared. The
exercise checks (``micrograd.exercises``) then report each unanswered exercise instead
of failing with a traceback. ``make_student(src, dst)`` writes the copy of a notebook
file (``micrograd notebooks student SRC DST``).
"""

from __future__ import annotations

import json
import os

from .files import atomic_open

__all__ = ["StudentNotebookError", "make_student", "student_notebook"]

BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
INLINE = "### SOLUTION"
STUB = 'raise NotImplementedError("write your answer here")'


class StudentNotebookError(ValueError):
    """The teacher's notebook cannot be turned into a student's (a marker misplaced)."""


def _strip_solutions(source, where):
    """The source of one code cell with its solutions replaced (``where`` names the cell
    in an error)."""
    lines = source.split("\n")
    out, i = [], 0
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if stripped == BEGIN:
            indent = line[:len(line) - len(line.lstrip())]
            if not indent:
                raise StudentNotebookError(
                    f"{where}: a solution block at the top level of a cell; put it inside "
                    "a function (the student's version raises NotImplementedError there)")
            i = _block_end(lines, i, where) + 1
            out.append(f"{indent}# your code here")
            out.append(f"{indent}{STUB}")
            continue
        if stripped == END:
            raise StudentNotebookError(f"{where}: {END} without {BEGIN}")
        if line.rstrip().endswith(INLINE):
            code = line.rstrip()[:-len(INLINE)].rstrip().rstrip("#").rstrip()
            if "=" not in code:
                raise StudentNotebookError(
                    f"{where}: {INLINE} marks an assignment 'name = answer', got {code!r}")
            line = f"{code.split('=', 1)[0].rstrip()} = None  # your answer"
        out.append(line)
        i += 1
    return "\n".join(out)


def _block_end(lines, begin, where):
    """The index of the ``END`` line of the solution block opened at ``begin``."""
    for j in range(begin + 1, len(lines)):
        if lines[j].strip() == END:
            return j
        if lines[j].strip() == BEGIN:
            raise StudentNotebookError(f"{where}: {BEGIN} inside another block")
    raise StudentNotebookError(f"{where}: {BEGIN} without {END}")


def _cell_source(cell):
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def student_notebook(nb):
    """A copy of the notebook dict ``nb`` with every solution replaced by a stub and
    every output cleared. Raises StudentNotebookError if there is no solution at all."""
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise StudentNotebookError("not a Jupyter notebook: no list of cells")
    cells, changed = [], 0
    for k, cell in enumerate(nb["cells"]):
        cell = dict(cell)
        if cell.get("cell_type") == "code":
            src = _cell_source(cell)
            new = _strip_solutions(src, f"cell {k}")
            changed += new != src
            cell["source"] = new
            cell["outputs"] = []
            cell["execution_count"] = None
        cells.append(cell)
    if not changed:
        raise StudentNotebookError(f"no solutions found: mark them with {BEGIN} / {END} "
                                   f"or '= answer  {INLINE}'")
    out = dict(nb)
    out["cells"] = cells
    return out


def make_student(src, dst):
    """Write the student's version of the teacher's notebook ``src`` to ``dst`` and
    return ``dst``. The file is written atomically (``micrograd.files``): an error or an
    interruption leaves ``dst`` as it was."""
    src, dst = os.fspath(src), os.fspath(dst)
    try:
        with open(src, encoding="utf-8") as f:
            nb = json.load(f)
    except json.JSONDecodeError as err:
        raise StudentNotebookError(f"{src} is not a notebook (invalid JSON: {err})") from None
    out = student_notebook(nb)
    with atomic_open(dst, example="student.ipynb") as f:
        json.dump(out, f, indent=1, ensure_ascii=False)
        f.write("\n")
    return dst

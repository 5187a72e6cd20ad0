"""micrograd.student: the student's copy of a teacher's notebook, from Python and from
``micrograd notebooks student``."""

import doctest
import json
import subprocess
import sys

import pytest
from notebook_runner import NOTEBOOKS, ROOT

from micrograd import student
from micrograd.student import StudentNotebookError, make_student, student_notebook

TEACHER = NOTEBOOKS / "exercises_solutions.ipynb"
STUDENT = NOTEBOOKS / "exercises.ipynb"


def test_the_module_example_prints_what_it_says():
    assert doctest.testmod(student).failed == 0


def test_committed_student_notebook_is_generated_from_the_teachers():
    teacher = json.loads(TEACHER.read_text())
    assert student_notebook(teacher) == json.loads(STUDENT.read_text())
    student = STUDENT.read_text()
    assert "BEGIN SOLUTION" not in student and "### SOLUTION" not in student
    assert "math.cos(3 * b)" in TEACHER.read_text() and "math.cos(3 * b)" not in student


def run_cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "micrograd", "notebooks", *args],
                          check=False, capture_output=True, text=True, cwd=cwd,
                          env={"PYTHONPATH": str(ROOT / "src"), "PATH": ""})


def test_cli_writes_the_student_version(tmp_path):
    dst = tmp_path / "student.ipynb"
    r = run_cli("student", str(TEACHER), str(dst))
    assert r.returncode == 0 and r.stdout.strip() == f"wrote {dst}"
    assert dst.read_text() == STUDENT.read_text()
    assert [p.name for p in tmp_path.iterdir()] == ["student.ipynb"]  # no temp file left


def test_cli_refusals(tmp_path):
    r = run_cli("student", str(tmp_path / "nope.ipynb"), str(tmp_path / "x.ipynb"))
    assert r.returncode == 2 and "no such notebook" in r.stderr and not r.stdout
    r = run_cli("student", str(TEACHER), str(TEACHER))
    assert r.returncode == 2 and "DST is SRC" in r.stderr
    r = run_cli("student", str(TEACHER), str(tmp_path / "missing" / "x.ipynb"))
    assert r.returncode == 1 and "does not exist" in r.stderr
    bad = tmp_path / "bad.ipynb"
    bad.write_text("{not json")
    r = run_cli("student", str(bad), str(tmp_path / "x.ipynb"))
    assert r.returncode == 2 and "invalid JSON" in r.stderr and "Traceback" not in r.stderr
    r = run_cli("--help")
    assert r.returncode == 0 and "student" in r.stdout


def nb_with(*sources):
    return {"cells": [{"cell_type": "code", "source": s, "outputs": [1],
                       "execution_count": 3, "metadata": {}} for s in sources],
            "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def test_student_version_rules():
    out = student_notebook(nb_with(
        "def f(x):\n    ### BEGIN SOLUTION\n    return 2 * x\n    ### END SOLUTION\n",
        "answer = 42  ### SOLUTION\nprint(answer)"))
    assert out["cells"][0]["source"] == ('def f(x):\n    # your code here\n    '
                                         'raise NotImplementedError("write your answer '
                                         'here")\n')
    assert out["cells"][1]["source"] == "answer = None  # your answer\nprint(answer)"
    assert all(c["outputs"] == [] and c["execution_count"] is None for c in out["cells"])
    with pytest.raises(StudentNotebookError, match="top level"):
        student_notebook(nb_with("### BEGIN SOLUTION\nx = 1\n### END SOLUTION"))
    with pytest.raises(StudentNotebookError, match="without ### END"):
        student_notebook(nb_with("def f():\n    ### BEGIN SOLUTION\n    return 1"))
    with pytest.raises(StudentNotebookError, match="END SOLUTION without"):
        student_notebook(nb_with("def f():\n    return 1\n    ### END SOLUTION"))
    with pytest.raises(StudentNotebookError, match="no solutions found"):
        student_notebook(nb_with("print(1)"))
    with pytest.raises(StudentNotebookError, match="assignment"):
        student_notebook(nb_with("print(1)  ### SOLUTION"))
    with pytest.raises(StudentNotebookError, match="no list of cells"):
        student_notebook({"cells": "x"})


def test_a_nested_block_is_refused():
    with pytest.raises(StudentNotebookError, match="BEGIN SOLUTION inside another block"):
        student_notebook(nb_with("def f():\n    ### BEGIN SOLUTION\n    ### BEGIN SOLUTION\n"
                                 "    ### END SOLUTION"))


def test_a_failed_copy_leaves_the_old_file_and_no_temporary(tmp_path):
    dst = tmp_path / "student.ipynb"
    dst.write_text("old")
    bad = tmp_path / "bad.ipynb"
    bad.write_text(json.dumps(nb_with("print(1)")))  # no solution in it
    with pytest.raises(StudentNotebookError, match="no solutions found"):
        make_student(bad, dst)
    assert dst.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.ipynb", "student.ipynb"]
    with pytest.raises(IsADirectoryError, match="student.ipynb"):
        make_student(TEACHER, tmp_path)  # a folder as the target: a file name is asked for
    assert make_student(TEACHER, dst) == str(dst)
    assert dst.read_text() == STUDENT.read_text()

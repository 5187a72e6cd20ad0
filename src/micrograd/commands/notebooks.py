"""``micrograd notebooks``: tools for the lecture's notebooks.

    micrograd notebooks student notebooks/exercises_solutions.ipynb notebooks/exercises.ipynb

``student SRC DST`` writes the student's version of a teacher's notebook: the code
between ``### BEGIN SOLUTION`` and ``### END SOLUTION`` (inside a function) becomes
``raise NotImplementedError``, a line ``name = answer  ### SOLUTION`` becomes
``name = None``, and every output is cleared (``micrograd.student``). The exercise checks
(``micrograd.exercises``) then report each unanswered exercise instead of failing with
a traceback. DST is written atomically; it may not be SRC.
Exit codes: 0 written, 2 bad input (the message says what), 1 DST cannot be written.
"""

from __future__ import annotations

import os
import sys

REQUIRES = ()  # the notebook is JSON: the standard library reads and writes it


def add_parser(subparsers):
    from argparse import RawDescriptionHelpFormatter

    p = subparsers.add_parser(
        "notebooks", help="make the student's version of an exercise notebook",
        description=__doc__, formatter_class=RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    s = sub.add_parser("student", help="write the student's version (no solutions)",
                       description="Write the student's version of a teacher's notebook.")
    s.add_argument("src", metavar="SRC", help="the teacher's notebook (.ipynb)")
    s.add_argument("dst", metavar="DST", help="where to write the student's notebook")
    p.set_defaults(func=run)


def _fail(msg, code=2):
    print(f"micrograd notebooks: error: {msg}", file=sys.stderr)
    return code


def run(args):
    from ..student import StudentNotebookError, make_student

    if not os.path.isfile(args.src):
        return _fail(f"no such notebook: {args.src!r}")
    if os.path.abspath(args.src) == os.path.abspath(args.dst):
        return _fail("DST is SRC: the solutions would be lost; give another file")
    folder = os.path.dirname(os.path.abspath(args.dst))
    if not os.path.isdir(folder):
        return _fail(f"cannot write {args.dst!r}: the folder {folder!r} does not exist", 1)
    try:
        make_student(args.src, args.dst)
    except StudentNotebookError as err:
        return _fail(str(err))
    except UnicodeDecodeError:
        return _fail(f"{args.src!r} is not a notebook (not UTF-8 text)")
    except OSError as err:
        return _fail(f"cannot write {args.dst!r}: {err.strerror or err}", 1)
    print(f"wrote {args.dst}")
    return 0

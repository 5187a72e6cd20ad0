"""The ``--runner`` option of ``micrograd demo`` and ``micrograd train``: how one batch's
loss and gradients are computed, the library's ``fit(runner=...)`` and
``micrograd.train_runners`` ("engine" is ``micrograd.engine`` only).

``--engine`` is the option's old name: still accepted, the same option with the same
choices and the same run, left out of ``--help`` (the help of ``--runner`` names it).
"""

from __future__ import annotations

import argparse

from ..train_runners import RUNNERS  # the names get_runner takes

__all__ = ["RUNNERS", "add_runner_option"]


def add_runner_option(group, text):
    """``--runner {auto,eager,traced}`` (default auto) in ``group`` (a parser or an
    argument group), and its old name ``--engine``, hidden, into the same ``runner``."""
    group.add_argument("--runner", choices=RUNNERS, default="auto",
                       help=f"{text} (--engine is its old name, still accepted)")
    group.add_argument("--engine", choices=RUNNERS, default="auto", dest="runner",
                       help=argparse.SUPPRESS)

"""Shared test set-up: hypothesis profiles, and no skipping in CI.

With ``MICROGRAD_NO_SKIP=1`` (set by ``.ci/run``) a skipped test fails the whole run, so a
missing reference (torch, chromium) can never pass silently.

The ``torch`` and ``np`` fixtures import PyTorch and NumPy when a test asks for them, not
when its file is collected: the engine's files then run, but for those tests, where
neither exists (Pyodide's Python; its runner leaves out the tests that ask for them). A
test that asks for one where it is missing fails with the ImportError; it is never skipped.
"""

import os
import re

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("ci", derandomize=True, deadline=None, max_examples=60,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev", deadline=None, max_examples=60,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))


def pytest_sessionfinish(session, exitstatus):
    if os.environ.get("MICROGRAD_NO_SKIP") != "1":
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = len(reporter.stats.get("skipped", [])) if reporter else 0
    if skipped:
        if reporter:
            reporter.write_line(f"FAILED: {skipped} test(s) skipped; CI allows no skips",
                                red=True)
        session.exitstatus = 1


#: a predicate already written as a function: ``() => ...``, ``(x) => ...``, ``function``
_FUNCTION = re.compile(r"\s*(?:async\s+)?(?:function\b|\([^()]*\)\s*=>|[\w$]+\s*=>)")


def _predicates_as_functions():
    """Playwright runs a ``wait_for_function`` predicate given as an expression through
    the page's own ``eval``, which the served page's Content-Security-Policy forbids (it
    allows no 'unsafe-eval'); a predicate given as a function is called instead. So a
    test's expression is handed on as the function that returns it: the same predicate,
    and the page keeps its real policy."""
    try:
        from playwright.sync_api import Frame, Page
    except ImportError:  # Pyodide's Python runs the engine's tests: no browser there
        return
    for cls in (Page, Frame):
        wait = cls.wait_for_function
        if getattr(wait, "as_function", False):
            continue

        def wait_as_function(self, expression, *args, _wait=wait, **kwargs):
            if isinstance(expression, str) and not _FUNCTION.match(expression):
                expression = f"() => ({expression})"
            return _wait(self, expression, *args, **kwargs)

        wait_as_function.as_function = True
        cls.wait_for_function = wait_as_function


_predicates_as_functions()


@pytest.fixture(scope="session")
def torch():
    """PyTorch, imported by the test that asks for it."""
    import torch

    return torch


@pytest.fixture(scope="session")
def np():
    """NumPy, imported by the test that asks for it."""
    import numpy

    return numpy

"""The static site's Python door: the page's calls answered by the request handlers.

The worker (``pyodide_worker.js``) calls :func:`call` for every message
``{id, name, request}`` the page's client (``static/client.js``) sends::

    >>> from micrograd.web.handlers import run_to_end
    >>> from micrograd.web.pyodide.door import call
    >>> graph = run_to_end(call("walk", {"preset": "lecture"}))["graph"]
    >>> sorted(n["grad"] for n in graph["nodes"] if n["leaf"])
    [-4.0, -2.0, 4.0, 6.0]

``name`` is a route of ``micrograd.web.handlers`` (a key of its ``ROUTES``: the name the
client calls and the HTTP routes carry too), dispatched as it is; the answer is the job's
answer, the same JSON values ``micrograd serve`` sends. One ``LocalSessions`` holds the
Playground sessions for the worker's life. A refusal is raised as :class:`Refusal`,
which carries the handler's error data (``kind``, ``message``, ``field``, ``free``...)
for ``micrograd.web.pyodide.calls`` to send as it is.
"""

from __future__ import annotations

from ..handlers import ROUTES, LocalSessions, dispatch

__all__ = ["Refusal", "call"]

#: the Playground sessions of this Python (one page's worker: one user)
SESSIONS = LocalSessions()


class UnknownRoute(LookupError):
    kind = "unknown"


class Refusal(Exception):
    """A request the handlers answered with an error: ``error`` is their error data."""

    def __init__(self, error):
        super().__init__(error["message"])
        self.kind = error["kind"]
        self.error = error


def call(name, request):
    """The job answering the route ``name`` (a generator: a turn per ``next``)."""
    if not isinstance(name, str) or name not in ROUTES:
        raise UnknownRoute(f"no route named {name!r}; routes: {', '.join(ROUTES)}")
    if not isinstance(request, dict):
        raise TypeError(f"a request is a JSON object, got {type(request).__name__}")
    return _answer(name, request)


def _answer(route, request):
    outcome = yield from dispatch(route, request, SESSIONS)
    if not outcome["ok"]:
        raise Refusal(outcome["error"])
    return outcome["answer"]

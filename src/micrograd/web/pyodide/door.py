"""The static site's Python door: the page's operations answered by the request handlers.

The worker (``pyodide_worker.js``) calls :func:`call` for every message
``{id, name, request}`` the page's client (``static/client.js``) sends::

    >>> from micrograd.web.handlers import run_to_end
    >>> from micrograd.web.pyodide.door import call
    >>> graph = run_to_end(call("walk.build", {"preset": "lecture"}))["graph"]
    >>> sorted(n["grad"] for n in graph["nodes"] if n["leaf"])
    [-4.0, -2.0, 4.0, 6.0]

``name`` is one of the client's operation names (:data:`OPERATIONS`, the same as the
HTTP door's), mapped to a route of ``micrograd.web.handlers``; the answer is the job's
answer, the same JSON values ``micrograd serve`` sends. One ``LocalSessions`` holds the
Playground sessions for the worker's life. A refusal is raised as :class:`Refusal`,
which carries the handler's error data (``kind``, ``message``, ``field``, ``free``...)
for ``micrograd.web.pyodide.calls`` to send as it is.
"""

from __future__ import annotations

from ..handlers import LocalSessions, dispatch

__all__ = ["OPERATIONS", "Refusal", "call"]

#: the client's operation name -> the handlers' route
OPERATIONS = {
    "meta": "meta",
    "walk.build": "walk",
    "walk.check": "walk.check",
    "walk.order": "walk.order",
    "walk.nudge": "walk.nudge",
    "mistakes.list": "mistakes.list",
    "mistakes.run": "mistakes.run",
    "play.create": "play.create",
    "play.get": "play.get",
    "play.step": "play.step",
    "play.setLr": "play.lr",
    "play.reset": "play.reset",
    "play.setWeight": "play.weight",
    "play.inspect": "play.inspect",
    "play.inspectStop": "play.inspect.stop",
    "play.delete": "play.delete",
    "csv.read": "play.csv.read",
    "play.csv": "play.csv.write",
}

#: the Playground sessions of this Python (one page's worker: one user)
SESSIONS = LocalSessions()


class UnknownOperation(LookupError):
    kind = "unknown"


class Refusal(Exception):
    """A request the handlers answered with an error: ``error`` is their error data."""

    def __init__(self, error):
        super().__init__(error["message"])
        self.kind = error["kind"]
        self.error = error


def call(name, request):
    """The job answering the operation ``name`` (a generator: a turn per ``next``)."""
    route = OPERATIONS.get(name) if isinstance(name, str) else None
    if route is None:
        raise UnknownOperation(f"no operation named {name!r}; operations: "
                               f"{', '.join(OPERATIONS)}")
    if not isinstance(request, dict):
        raise TypeError(f"a request is a JSON object, got {type(request).__name__}")
    return _answer(route, request)


def _answer(route, request):
    outcome = yield from dispatch(route, request, SESSIONS)
    if not outcome["ok"]:
        raise Refusal(outcome["error"])
    return outcome["answer"]

"""Errors as data: what a handler's job answers when it does not answer the request.

A job never raises for a request it refuses: it returns ``{"ok": False, "error": {...}}``
(see ``micrograd.web.handlers``), the error a plain dict::

    {"kind": "refused", "message": "this network has 1601 parameters; the cap is 1500",
     "field": "hidden"}

``kind`` says what happened, so a driver needs no status code to act on it:

* ``invalid``: the request does not fit its fields (a missing field, a wrong type, a
  number out of range, an unknown key); over HTTP a 422;
* ``refused``: a well-formed request that micrograd refuses (an expression that does not
  parse, a network over a cap, an edit of a parameter it does not have); a 400;
* ``not_found``: a named thing that does not exist (a preset, a route); a 404;
* ``lost``: the playground session is gone (expired, evicted, a restarted server): make
  it again from the set-up; a 404;
* ``busy``: every session place is in use: ask again after ``retry_after`` seconds; a 503;
* ``unavailable``: the server is shutting down (``micrograd serve``'s turns are closed,
  ``web/server/schedule.py``): ask again after ``retry_after`` seconds; a 503.

``field`` names the request field at fault when there is one (else None); the walk adds
``free`` (the names an expression uses without values) when values are missing.
Messages quote at most a short piece of what the client sent (:func:`clip`).
"""

from __future__ import annotations

from ... import checks
from .. import limits

KINDS = ("invalid", "refused", "not_found", "lost", "busy", "unavailable")


class Failure(Exception):
    """Raised inside a handler, returned by its job as error data (never seen outside)."""

    def __init__(self, kind, message, field=None, **extra):
        if kind not in KINDS:
            raise ValueError(f"unknown error kind {kind!r}; kinds: {', '.join(KINDS)}")
        super().__init__(message)
        self.kind, self.message, self.field, self.extra = kind, message, field, extra

    def data(self):
        return {"kind": self.kind, "message": cut_message(self.message),
                "field": self.field, **self.extra}


class StoreFull(RuntimeError):
    """Every session place is taken by a session in use (a store's ``create``/``room``
    raise it; the job answers ``busy``)."""


def clip(text, n=limits.CLIP_CHARS):
    """``checks.clip`` at the web's length: what a client sent, quoted short."""
    return checks.clip(text, n)


def cut_message(msg, n=limits.MAX_ERROR_CHARS):
    """An error message of at most ``n`` characters: a longer one is cut and says how
    long it was. A message cut once is not cut again (every layer may cut what it sends,
    and the count stays the original's)."""
    if len(msg) <= n:
        return msg
    note = f" ... (message cut: {len(msg)} characters)"
    return msg[:max(n - len(note), 0)] + note

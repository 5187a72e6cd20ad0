"""Time limits on a connection, below the application: uvicorn's h11 protocol, with a clock.

uvicorn closes a keep-alive connection that stays idle between requests
(``timeout_keep_alive``), but a connection that opens and sends nothing, or sends half
its headers, or half its body, is kept open for ever: a handful of such clients
(slowloris) hold the server's connections. ``TimedH11Protocol`` gives every request a
deadline: from the connection's opening (or the first byte of the next request on a
kept-alive connection) to the request's last byte. A client too slow gets a 408 and the
connection is closed. The time the server then spends answering is not counted.

It also notes when each request has arrived whole (``time.perf_counter``: when the
event loop read its last byte), in the request's ASGI scope
(``scope["state"][timing.ARRIVAL]``): a request's wait for its turn is counted from there
(``web/server/timing.py``), the time a slow client takes to send it is not.

    >>> protocol = timed_protocol(request_timeout=10.0)   # uvicorn.Config(http=protocol)
"""

from __future__ import annotations

import json
import time

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from .timing import ARRIVAL


def _timeout_response(seconds):
    body = json.dumps({"error": f"request timeout: the request did not arrive complete "
                                f"within {seconds:g} s"}).encode()
    return (b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n"
            b"content-length: " + str(len(body)).encode() + b"\r\nconnection: close\r\n\r\n"
            + body)


#: the client's side of the connection once its request has arrived whole
_RECEIVED = (h11.DONE, h11.MUST_CLOSE, h11.CLOSED)


class TimedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol with a deadline on receiving each request."""

    request_timeout = 10.0

    def connection_made(self, transport):
        self._deadline = None
        super().connection_made(transport)
        self._arm()

    def data_received(self, data):
        super().data_received(data)
        if self.conn.their_state in _RECEIVED or self.transport.is_closing():
            self._disarm()           # the request is all here: the clock stops
            state = self.scope.get("state") if self.scope is not None else None
            if isinstance(state, dict):
                state.setdefault(ARRIVAL, time.perf_counter())
        else:
            self._arm()              # part of a request: the clock runs (if not already)

    def connection_lost(self, exc):
        self._disarm()
        super().connection_lost(exc)

    def on_response_complete(self):
        super().on_response_complete()
        # the next request, if any, starts its clock with its first byte (data_received);
        # until then uvicorn's keep-alive timeout governs the idle connection
        if self.conn.their_state is not h11.SEND_BODY:
            self._disarm()

    def _arm(self):
        if self._deadline is None:
            self._deadline = self.loop.call_later(self.request_timeout, self._expired)

    def _disarm(self):
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expired(self):
        self._deadline = None
        if self.transport.is_closing() or self.conn.their_state in _RECEIVED:
            return
        # headers still incomplete (IDLE: any cycle is the previous request's), or a body
        # still coming with no answer begun: say why before hanging up
        answering = (self.conn.their_state is h11.SEND_BODY and self.cycle is not None
                     and self.cycle.response_started)
        if not answering:
            self.transport.write(_timeout_response(self.request_timeout))
        self.transport.close()


def timed_protocol(request_timeout):
    """A ``TimedH11Protocol`` class whose requests must arrive within ``request_timeout``
    seconds (uvicorn builds one protocol object per connection from the class)."""
    if not request_timeout > 0:
        raise ValueError(f"request_timeout must be positive, got {request_timeout!r}")
    return type("TimedH11Protocol", (TimedH11Protocol,),
                {"request_timeout": float(request_timeout)})

"""The server's front door: what a request must be before any route sees it.

An ASGI middleware (``Guard``) in front of the FastAPI app refuses, with a JSON
``{"error": ...}`` message and nothing else computed:

* a ``Host`` that is not this server (400): a page on another site can point its own
  name at 127.0.0.1 (DNS rebinding) and would otherwise drive the server as if it were
  the page. Accepted: the address the connection arrived on and ``localhost``, with the
  port (plus any names given to ``create_app(allowed_hosts=...)``);
* a write (POST, PATCH, PUT, DELETE) whose ``Origin`` is another site (403);
* any request to ``/api/`` that a browser says came from another site (403): its
  ``Sec-Fetch-Site`` is neither ``same-origin`` nor ``none`` (typed or bookmarked), or
  its ``Origin`` is another site. A GET costs work too (a gallery entry runs its
  learner's code), and an ``<img>`` on another site sends no ``Origin`` header at all,
  only ``Sec-Fetch-Site: cross-site``. A request with neither header (curl, a script)
  is not a browser's and goes on. The page itself may still be opened from a link;
  framing it is the answer headers' job (``web/server/headers.py``);
* a body over ``limits.MAX_BODY_BYTES`` (413), whatever its ``Content-Encoding``: what
  is *read* is counted, whatever the ``Content-Length`` says or whether the body is
  chunked, and reading stops at the cap (a declared length over the cap is refused
  before reading);
* a compressed body within the cap (``Content-Encoding`` other than identity, in any
  case, alone or in a list, 415): a small gzip body can inflate to any size, so none is
  accepted. The size is judged first, so an oversized request gets 413 whatever its
  encoding.

Errors never echo more than a short piece of what the client sent (``clip``).
"""

from __future__ import annotations

import json

from ... import urltext
from .. import limits
from ..handlers.errors import clip, cut_message

__all__ = ["Guard", "split_host", "clip", "cut_message"]

_WRITES = frozenset({"POST", "PUT", "PATCH", "DELETE"})
#: what a browser's ``Sec-Fetch-Site`` says of a request this server's page made, or
#: one the user typed (``none``); ``same-site`` is another port or name of the same site
_OWN_FETCH = frozenset({b"same-origin", b"none"})
_API = "/api/"


def split_host(value):
    """``'name:port'`` / ``'[::1]:port'`` / ``'name'`` -> (name lowercased, port or None);
    None when it is not a host at all."""
    value = value.strip().lower()
    if not value:
        return None
    if value.startswith("["):
        end = value.find("]")
        if end < 0:
            return None
        name, rest = value[1:end], value[end + 1:]
        if not rest:
            return name, None
        if not rest.startswith(":"):
            return None
        port = rest[1:]
    elif value.count(":") == 1:
        name, port = value.split(":")
    elif ":" in value:
        return None  # an IPv6 address needs brackets in a Host header
    else:
        return value, None
    if not (urltext.WHOLE_NUMBER.fullmatch(port) and len(port) <= 5):
        return None
    return name, int(port)


def _compressed(scope):
    """The request's ``Content-Encoding`` when it names any coding but identity (every
    such header, each a comma-separated list, any case and spacing), else None."""
    values = [v.decode("latin-1") for k, v in scope.get("headers", ())
              if k.lower() == b"content-encoding"]
    codings = [c.strip().lower() for v in values for c in v.split(",")]
    if all(c in ("", "identity") for c in codings):
        return None
    return ", ".join(v.strip() for v in values)


async def _send_error(send, status, message, *, close=False):
    body = json.dumps({"error": cut_message(message)}).encode()
    headers = [(b"content-type", b"application/json"),
               (b"content-length", str(len(body)).encode())]
    if close:  # the client may still be sending: do not read the rest, hang up after this
        headers.append((b"connection", b"close"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class Guard:
    """ASGI middleware: the Host/Origin checks and the body cap described above."""

    def __init__(self, app, *, allowed_hosts=(), max_body=None):
        self.app = app
        self.extra_hosts = frozenset(h.lower().strip("[]") for h in allowed_hosts)
        self.max_body = limits.MAX_BODY_BYTES if max_body is None else max_body

    # -- who may ask --------------------------------------------------------------------

    def _host_ok(self, name, port, server):
        """``name:port`` names this server: its own address or localhost, its port."""
        if server is None:  # a Unix socket: only the names
            return name in {"localhost"} | self.extra_hosts
        own_name, own_port = str(server[0]).lower().strip("[]"), server[1]
        if port is None:
            port = 80
        if own_port is not None and port != own_port:
            return False
        return name in {own_name, "localhost"} | self.extra_hosts

    def _check_host(self, headers, server):
        raw = headers.get(b"host")
        if raw is None:
            return "refused: the request has no Host header"
        value = raw.decode("latin-1")
        parsed = split_host(value)
        if parsed is None or not self._host_ok(*parsed, server):
            where = (f"http://{server[0]}:{server[1]}/ or http://localhost:{server[1]}/"
                     if server else "http://localhost/")
            return (f"refused: Host {clip(value)} is not this server (a protection "
                    f"against DNS rebinding); open the page as {where}")
        return None

    def _check_origin(self, headers, server):
        raw = headers.get(b"origin")
        if raw is None:  # not a browser, or a same-origin request of an old browser
            return None
        value = raw.decode("latin-1")
        scheme, sep, rest = value.partition("://")
        parsed = split_host(rest) if sep and scheme in ("http", "https") else None
        if parsed is not None:
            name, port = parsed
            if port is None:
                port = 443 if scheme == "https" else 80
            if self._host_ok(name, port, server):
                return None
        return (f"refused: a request from another site (Origin {clip(value)}); only this "
                "server's own page may change its state or ask it for work")

    @staticmethod
    def _check_fetch_site(headers):
        raw = headers.get(b"sec-fetch-site")
        if raw is None or raw.strip().lower() in _OWN_FETCH:
            return None
        return (f"refused: a request from another site (Sec-Fetch-Site "
                f"{clip(raw.decode('latin-1'), 20)}); only this server's own page may ask "
                "it for work")

    # -- the ASGI entry -----------------------------------------------------------------

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {}
        for k, v in scope.get("headers", ()):
            headers.setdefault(k.lower(), v)
        server = scope.get("server")
        problem = self._check_host(headers, server)
        if problem:
            await _send_error(send, 400, problem, close=True)
            return
        api = scope.get("path", "").startswith(_API)
        if scope["method"] in _WRITES or api:
            problem = self._check_origin(headers, server)
            if problem is None and api:
                problem = self._check_fetch_site(headers)
            if problem:
                await _send_error(send, 403, problem, close=True)
                return
        declared = headers.get(b"content-length")
        if declared is not None:
            if not declared.isdigit() or len(declared) > 18:
                await _send_error(send, 400, f"invalid Content-Length "
                                             f"{clip(declared.decode('latin-1'), 20)}",
                                  close=True)
                return
            if int(declared) > self.max_body:
                await _send_error(send, 413, self._too_big(f"of {int(declared)} bytes"),
                                  close=True)
                return
        body = await self._read_body(receive, send)
        if body is None:
            return  # refused as too big, or the client left
        encoding = _compressed(scope)
        if encoding is not None:  # within the cap (judged above), but compressed
            await _send_error(send, 415, f"refused: a compressed body (Content-Encoding "
                                         f"{clip(encoding, 20)}); send plain JSON",
                              close=True)
            return
        replayed = False

        async def replay():
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _read_body(self, receive, send):
        """The whole body, counting what arrives (chunked or not) and stopping at the cap:
        None once the request is answered 413, or when the client left."""
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None  # the client left: nothing to answer
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                await _send_error(send, 413, self._too_big("over the cap"), close=True)
                return None
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)

    def _too_big(self, what):
        return (f"request body {what}; the cap is {self.max_body} bytes "
                f"({self.max_body // 1024} KiB)")

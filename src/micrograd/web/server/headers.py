"""What every answer of ``micrograd serve`` tells the browser about where it may be used.

A page on another site could otherwise frame the served page with a Playground link:
the page's own script, running in the frame, passes every Origin check (it *is* this
server's page) and each frame opens a training session. So every answer says:

* ``Content-Security-Policy``: scripts, styles, pictures, fonts and requests come from
  this server only (no inline script or style attribute in markup, no other host:
  the page promises nothing from anywhere else), ``frame-ancestors 'self'``: only this
  server's own pages may frame it;
* ``X-Frame-Options: SAMEORIGIN``, the same for browsers that predate
  ``frame-ancestors``;
* ``X-Content-Type-Options: nosniff``: an answer is only what its type says (a JSON
  error is never run as a script);
* ``Referrer-Policy: same-origin``: a link out of the page does not carry its state.

The static site (``micrograd site``) sends none of these: a static host sends its own
headers, and its walks are framed on purpose by lessons on other sites
(docs/hosting.md says which headers a host may add).
"""

from __future__ import annotations

__all__ = ["CONTENT_SECURITY_POLICY", "HEADERS", "SecurityHeaders"]

#: the policy of every answer: nothing from another host, nothing inline, framed only by
#: this server's own pages (the favicon is an empty ``data:`` picture)
CONTENT_SECURITY_POLICY = "; ".join((
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'self'",
))

HEADERS = (
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-frame-options", b"SAMEORIGIN"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
)
_NAMES = frozenset(name for name, _ in HEADERS)


class SecurityHeaders:
    """ASGI middleware: ``HEADERS`` on every HTTP answer, the guard's refusals included
    (it wraps the guard), in place of any the app set itself."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                kept = [(k, v) for k, v in message.get("headers", ())
                        if k.lower() not in _NAMES]
                message = {**message, "headers": kept + list(HEADERS)}
            await send(message)

        await self.app(scope, receive, send_with_headers)

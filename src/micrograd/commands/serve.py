"""``micrograd serve``: the interactive page (walk a graph; train a network live).

    micrograd serve                 # http://127.0.0.1:8000/ (this machine only)
    micrograd serve --port 0        # any free port; the address is printed
    micrograd serve --open          # and open it in the web browser
    micrograd serve --host 0.0.0.0  # reachable from the network (no authentication!)
    micrograd serve --host 0.0.0.0 --allow-host mybox.local   # and opened by that name

Requests must name this server in their Host header (its address or localhost, with the
port): a page on another site cannot reach it by pointing a name at it (DNS rebinding).
A request must arrive complete within --request-timeout seconds, an idle kept-alive
connection is closed after --keep-alive seconds, and at most --max-connections are
served at once (more get a 503). The other caps are in docs/web.md.

The page has two parts: the Walk (step a graph forward and backward, node by node) and
the Playground (train a small network on 2-D data and watch its decision boundary).
Every number on the page is computed by micrograd in this Python process; the page only
draws. Needs the ``serve`` extra: ``pip install -e '.[serve]'``.
"""

from __future__ import annotations

import os
import sys

#: optional packages this command needs (checked by micrograd.cli before it runs)
REQUIRES = ("fastapi", "uvicorn", "pydantic", "numpy")


def add_parser(subparsers):
    p = subparsers.add_parser(
        "serve", help="serve the interactive page (graph walk and training playground)",
        description=__doc__, formatter_class=_raw_formatter())
    p.add_argument("--host", default="127.0.0.1",
                   help="address to bind (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8000,
                   help="port to bind (default 8000; 0 picks a free port)")
    p.add_argument("--open", action="store_true",
                   help="open the page in the default web browser")
    p.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                   help="another name the page may be opened by (repeatable); the "
                        "address and localhost are always accepted")
    p.add_argument("--request-timeout", type=float, default=10.0, metavar="SECONDS",
                   help="a request's headers and body must arrive within this time "
                        "(default 10)")
    p.add_argument("--keep-alive", type=float, default=5.0, metavar="SECONDS",
                   help="close a connection idle this long between requests (default 5)")
    p.add_argument("--max-connections", type=int, default=200, metavar="N",
                   help="connections served at once; more get a 503 (default 200)")
    p.add_argument("--timing", action="store_true",
                   help="report how long requests wait for their turns: a Server-Timing "
                        "header on every answer and GET /api/debug/turns (for "
                        "benchmarks/serve_latency.py)")
    p.add_argument("--log-level", default="warning",
                   choices=["critical", "error", "warning", "info", "debug"],
                   help="server log level (default warning)")
    p.set_defaults(func=run)
    return p


def _raw_formatter():
    import argparse

    return argparse.RawDescriptionHelpFormatter


def _url(host, port):
    shown = host
    if host in ("0.0.0.0", ""):
        shown = "127.0.0.1"
    elif host == "::":
        shown = "[::1]"
    elif ":" in host:
        shown = f"[{host}]"
    return f"http://{shown}:{port}/"


#: NumPy's BLAS runs on one thread in the server (unless the environment says otherwise):
#: the server's work is many small matrix products taken in turns, where BLAS threads
#: only contend with each other and with the event loop, and wait for busy cores. Set
#: before NumPy is first imported, which is when BLAS reads them.
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def _one_blas_thread():
    if "numpy" not in sys.modules:
        for name in BLAS_THREADS:
            os.environ.setdefault(name, "1")


def run(args):
    import socket

    if not 0 <= args.port <= 65535:
        print(f"micrograd serve: --port must be in 0..65535, got {args.port}", file=sys.stderr)
        return 2
    for flag, value in (("--request-timeout", args.request_timeout),
                        ("--keep-alive", args.keep_alive)):
        if not 0 < value <= 3600:  # also refuses nan
            print(f"micrograd serve: {flag} must be in (0, 3600] seconds, got {value}",
                  file=sys.stderr)
            return 2
    if args.max_connections < 1:
        print(f"micrograd serve: --max-connections must be at least 1, got "
              f"{args.max_connections}", file=sys.stderr)
        return 2
    _one_blas_thread()
    try:
        import uvicorn

        from ..web import create_app
        from ..web.server.connection import timed_protocol
    except ModuleNotFoundError as err:
        print(f"micrograd serve needs the 'serve' extra ({err.name} is missing): "
              "pip install -e '.[serve]' in the project's folder", file=sys.stderr)
        return 1

    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((args.host, args.port))
    except OSError as err:
        sock.close()
        print(f"micrograd serve: cannot bind {args.host}:{args.port}: {err.strerror or err}",
              file=sys.stderr)
        return 1
    # NOTE: without TCP_NODELAY (inherited by the accepted connections) the end of each
    # keep-alive answer is held until the client's delayed ACK comes (Nagle's rule), a
    # wait far longer than a step's round trip.
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.listen(128)
    port = sock.getsockname()[1]
    url = _url(args.host, port)
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"warning: listening on {args.host}: anyone who can reach this machine can "
              "use the page (there is no authentication)", file=sys.stderr)
    print(f"micrograd serve: {url}  (Ctrl-C to stop)", flush=True)

    config = uvicorn.Config(create_app(allowed_hosts=args.allow_host, timing=args.timing),
                            log_level=args.log_level, access_log=False,
                            http=timed_protocol(args.request_timeout),
                            timeout_keep_alive=args.keep_alive,
                            limit_concurrency=args.max_connections)
    server = uvicorn.Server(config)
    if args.open:
        import threading
        import webbrowser

        threading.Timer(0.5, webbrowser.open, args=(url,)).start()
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
    return 0

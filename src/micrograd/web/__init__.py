"""``micrograd serve``: the local web page (the Walk and the Playground).

``create_app()`` builds the FastAPI application (``micrograd serve`` runs it on uvicorn;
it needs the ``serve`` extra: fastapi, uvicorn, numpy). The requests themselves are
answered by ``micrograd.web.handlers``, which need none of these: importing this package
or the handlers imports no web framework (``create_app`` is loaded when first named).

The parts: ``app`` (the factory), ``routers/`` (one per feature: page, walk, play),
``schemas`` (the HTTP schemas, made from the handlers' field declarations),
``handlers/`` (the requests as plain data in, plain data out), ``pyodide/`` (the static
site's worker side), ``walkview`` (the Walk's
document), ``play_session`` and ``play_pictures`` (a Playground session, and what the page
draws of it), ``server/`` (the guard, the connection deadlines, the turn scheduler, the
session store) and ``limits`` (the caps).
"""

__all__ = ["create_app"]


def __getattr__(name):
    if name == "create_app":
        from .app import create_app

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

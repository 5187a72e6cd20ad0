"""``micrograd serve``: the local web page (the Walk and the Playground).

``create_app()`` builds the FastAPI application; ``micrograd serve`` runs it on uvicorn.
It needs the ``serve`` extra (fastapi, uvicorn, numpy) and is imported when first asked
for, so that the parts of this package that need only the standard library (the static
site's worker side, ``micrograd.web.pyodide``) import where FastAPI is not (Pyodide).
"""

__all__ = ["create_app"]


def __getattr__(name):
    if name == "create_app":
        from .app import create_app

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

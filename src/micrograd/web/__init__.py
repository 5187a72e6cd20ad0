"""``micrograd serve``: the local web page (the Walk and the Playground).

``create_app()`` builds the FastAPI application; ``micrograd serve`` runs it on uvicorn.
Importing this package needs the ``serve`` extra (fastapi, uvicorn, numpy).
"""

from .app import create_app

__all__ = ["create_app"]

"""The static site's Python side (``micrograd site``): what the page's module Web Worker
runs in Pyodide.

* ``calls``: how the worker calls Python: one request to an entry point, answered as
  JSON; a job (a generator) is run one turn at a time, so that the worker's event loop
  can take other messages between turns;
* ``door``: the worker's entry point: the page's calls answered by the request handlers
  (``micrograd.web.handlers``) under the names the client calls (their ``ROUTES``), with
  one ``LocalSessions`` for the worker's life.

The worker itself (``pyodide_worker.js``), the page's side of it (``pyodide_client.js``),
the ``file://`` notice (``file_check.js``) and a check page live beside these files;
``micrograd site`` writes them into the site. Standard library only: nothing here may
need NumPy, FastAPI or threads, which Pyodide does not have.
"""

"""The HTTP routes, one router per feature: ``page`` (the page and ``/api/meta``),
``walk`` (``/api/walk...``), ``play`` (``/api/play...``) and ``mistakes``
(``/api/mistakes...``).

A route reads its body through the schema (``micrograd.web.schemas``: the 422 answers
and the OpenAPI page), hands the request as plain data to its handler's job
(``micrograd.web.handlers``), has the job run in turns (``web/server/schedule.py``) and
maps the outcome to HTTP (``answers.respond``: the error kinds to today's statuses).
"""

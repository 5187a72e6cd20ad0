"""The server's protections, in front of and behind the routes: ``guard`` (Host and
Origin checks, the body cap), ``connection`` (a deadline on every request's arrival),
``schedule`` (the handlers' jobs in turns: the walk on a work thread of its own, the
sessions in rotation on another), ``timing`` (what ``--timing`` reports) and ``sessions`` (the
bounded store of Playground sessions). The caps they hold are in ``web/limits.py``."""

"""The ``micrograd`` command line: ``micrograd --help`` lists the commands.

Each command lives in its own module of ``micrograd.commands`` and provides
``add_parser(subparsers)``, which registers the command and sets ``func`` to a function
``run(args) -> int``, and optionally ``REQUIRES`` (or a function ``requires(args)``):
the optional packages it needs (a missing one is named with the pip extra that installs
it, before any work). Command
modules import their heavy dependencies (NumPy, matplotlib, ...) inside ``run``, so
``micrograd --help`` stays fast and works on the core install.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from . import __version__

#: the commands, in the order ``--help`` lists them
COMMANDS = ("demo", "train", "graph", "serve", "notebooks")


def build_parser():
    parser = argparse.ArgumentParser(
        prog="micrograd",
        description="A scalar-valued autograd engine and neural-network library.",
        epilog="Run 'micrograd COMMAND --help' for the options of a command.",
    )
    parser.add_argument("--version", action="version", version=f"micrograd {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"micrograd.commands.{name}")
        except ModuleNotFoundError as err:
            if err.name == f"micrograd.commands.{name}":
                continue  # that command is not part of this build
            raise
        module.add_parser(sub)
    return parser


#: optional packages -> the pip extra that installs them
EXTRAS = {"numpy": "demo", "matplotlib": "demo", "tqdm": "demo", "PIL": "demo",
          "fastapi": "serve", "uvicorn": "serve", "pydantic": "serve", "sklearn": "digits"}


def _missing(modules):
    """The first of ``modules`` that is not installed, or None."""
    from importlib.util import find_spec

    for name in modules:
        if name in sys.modules:
            if sys.modules[name] is None:  # import of it blocked (as ``python -X`` tests do)
                return name
            continue
        try:
            if find_spec(name) is None:
                return name
        except (ImportError, ValueError):
            return name
    return None


def _needs(command, name):
    extra = EXTRAS.get(name, "all")
    print(f"micrograd {command}: needs the package {name!r}, which is not installed; "
          f"install it with: pip install 'micrograd[{extra}]'", file=sys.stderr)
    return 1


#: NumPy's BLAS in one thread: the traced path multiplies small matrices, where a pool
#: of BLAS threads costs 10-100x more than it saves (measured in benchmarks/trace.py)
_SINGLE_THREAD = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def main(argv=None):
    for var in _SINGLE_THREAD:  # before any command imports NumPy; the user's value wins
        os.environ.setdefault(var, "1")
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    # a command names the optional packages it needs (REQUIRES, or requires(args) when
    # they depend on its options): refuse before any work
    module = sys.modules.get(args.func.__module__)
    requires = getattr(module, "requires", None)
    requires = requires(args) if requires else getattr(module, "REQUIRES", ())
    missing = _missing(requires)
    if missing:
        return _needs(args.command, missing)
    try:
        return args.func(args) or 0
    except ModuleNotFoundError as err:  # an optional package needed on a rarer path
        top = (err.name or "").split(".")[0]
        if top not in EXTRAS:
            raise
        return _needs(args.command, top)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

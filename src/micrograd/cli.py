"""The ``micrograd`` command line: ``micrograd --help`` lists the commands.

Each command lives in its own module of ``micrograd.commands`` and provides
``add_parser(subparsers)``, which registers the command and sets ``func`` to a function
``run(args) -> int``, and optionally ``REQUIRES`` (or a function ``requires(args)``):
the optional packages it needs (a missing one is named with the pip extra that installs
it, before any work), and ``CTRL_C = True`` for a command that trains.

Ctrl-C: the first line of ``main`` installs a ``micrograd.interrupts.CtrlC`` SIGINT
handler that holds presses (a flag) and acts on them at safe points, so that no Ctrl-C,
however many and whenever, ends in a traceback: through the imports and the parsing a
press is held, and ends the run with 130 just before the command starts. A command that
trains (``CTRL_C = True``) keeps the handler: it trains under it, writes its files
whole, and calls ``micrograd.interrupts.checkpoint()`` where a held press may stop it;
the other commands get Python's own handler back when they start. Once the command has
returned, ``micrograd`` ignores presses while the process exits. Nothing is installed
when this module is imported (a program or a notebook importing it keeps its Ctrl-C):
only ``main`` does, and it puts the previous handler back when called from Python.
What runs before ``main``'s first line (the interpreter's start and the import of
``micrograd`` and this module, which import no more than they must) keeps Python's own
handler: docs/training.md gives that window.

Exit codes common to all commands: 130 after Ctrl-C; 1 when the output cannot be
written (one line names why, e.g. a full disk); 141 when the reader of the output went
away (``micrograd graph ... | head -1``). Command modules import their heavy
dependencies (NumPy, matplotlib, ...) inside ``run``, so ``micrograd --help`` stays fast
and works on the core install.
"""

from __future__ import annotations

import os
import signal
import sys

from . import __version__
from . import interrupts as _interrupts

#: the commands, in the order ``--help`` lists them
COMMANDS = ("demo", "train", "gpt", "graph", "serve", "notebooks", "site")


def build_parser():
    import argparse
    import importlib

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
          f"install it with: pip install -e '.[{extra}]' in the project's folder",
          file=sys.stderr)
    return 1


#: NumPy's BLAS in one thread: the traced path multiplies small matrices, where a pool
#: of BLAS threads waiting for busy cores costs far more than it saves
_SINGLE_THREAD = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def main(argv=None):
    # first of all: from here on a press is held, and acted on at safe points
    guard, previous = _interrupts.install_ctrl_c(mode="hold")
    try:
        return _main(argv, guard, previous)
    except KeyboardInterrupt:  # a press held through the start, acted on before the
        return _interrupted()  # command ran (or Python's handler, given back to it)
    finally:
        if previous is not None:
            if argv is None:  # the real process, about to exit: a late press must not
                # kill it in the middle of its exit (SIG_IGN survives the interpreter's
                # own clean-up, which resets a Python-level handler to the default)
                signal.signal(signal.SIGINT, signal.SIG_IGN)
            else:  # called from Python (the tests): leave the handler as it was
                signal.signal(signal.SIGINT, previous)


def _main(argv, guard, previous):
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
    if not getattr(module, "CTRL_C", False) and previous is not None:
        signal.signal(signal.SIGINT, previous)  # Python's own handler for this command
    guard.checkpoint()  # a press held so far stops here, before any work
    return _run(args, guard)


def _interrupted():
    print("interrupted", file=sys.stderr)
    return 130


def _run(args, guard=None):
    """Run the command; turn the interruptions and write errors into exit codes.

    Once the command is done (or interrupted), a press is only counted (the guard's
    "ignore" mode): a late Ctrl-C cannot raise in the middle of the exit."""
    try:
        code = args.func(args) or 0
        sys.stdout.flush()  # a full disk or a closed pipe shows here, not at exit
        _finished(guard)
        if guard is not None and guard.pending and code == 0:  # held, never acted on
            return _interrupted()
    except ModuleNotFoundError as err:
        _finished(guard)  # an optional package needed on a rarer path
        top = (err.name or "").split(".")[0]
        if top not in EXTRAS:
            raise
        return _needs(args.command, top)
    except KeyboardInterrupt:
        _finished(guard)
        return _interrupted()
    except BrokenPipeError:  # `micrograd graph ... --steps | head -1`: the reader left
        _drop_stdout()
        return 141  # 128 + SIGPIPE, the status of a Unix tool killed by a closed pipe
    except OSError as err:  # stdout on a full disk, or a file a command did not expect
        if err.filename is None:
            _drop_stdout()
            print(f"micrograd {args.command}: error: cannot write the output: "
                  f"{err.strerror or err}", file=sys.stderr)
        else:
            from .files import error_line

            print(f"micrograd {args.command}: error: {error_line(err)}", file=sys.stderr)
        return 1
    return code


def _finished(guard):
    if guard is not None and guard.active:
        guard.mode = "ignore"


def _drop_stdout():
    """Point stdout at /dev/null, so that the interpreter's own flush at exit does not
    fail again (and print a traceback) on what is still buffered."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no real stdout (captured, closed)
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

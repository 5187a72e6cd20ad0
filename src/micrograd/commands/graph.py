"""``micrograd graph``: draw an expression's graph, or walk its backward pass step by step.

    micrograd graph "a = 2; b = -3; c = 10; f = -2; e = a*b; d = e + c; L = d*f" -o graph.svg
    micrograd graph "tanh(x1*w1 + x2*w2 + b)" --values x1:2,x2:0,w1:-3,w2:1,b:6.8814 -o n.png
    micrograd graph "a = 2; b = a + 1; c = a*3; d = b*c" --steps
    micrograd graph "a = 2; b = a + 1; c = a*3; d = b*c" --order d,a,b,c
    micrograd graph --preset square --steps --mode assign
    micrograd graph --preset lecture --values a:3
    micrograd graph "x = 3; y = x**2 + 2*x" --nudge x

The output format follows the file's suffix: .svg, .png, .dot (or .gv), .json.
--steps (and a --mode) prints the walk one line a step (a repeat visit of the recursive
mode says which path it is), then what the mode does to this graph, as the web page says.
The graph (an expression or --preset), --values and --mode are the Walk's set-up, as
the web page and its links have them (micrograd.walk_setup.WalkSetup: their choices,
their help and the values' syntax, name:value as in a link's v=, name=value too).
--values gives the names the expression uses without assigning them, and edits the
leaves it assigns ("a = 2; b = a*a" --values a:5 gives b = 25, as on the web page); a
name that is not a leaf of the expression is refused. Limits: --passes at most 100;
the expression at most 100,000 characters, 100 levels of nesting, 5,000 graph nodes.
Exit codes: 0 done, 2 bad input (the message says what), 1 the output cannot be written.
"""

from __future__ import annotations

import argparse
import sys

from .arg_types import finite_float, nonneg_float, whole

FORMATS = {".svg": "svg", ".png": "png", ".dot": "dot", ".gv": "dot", ".json": "json"}

#: at most this many backward passes for --mode no_zero_grad: the lesson needs 2 or 3,
#: and each pass prints one line per node (up to 5,000 nodes)
MAX_PASSES = 100


def passes_count(text):
    """``--passes``: a whole number from 1 to MAX_PASSES."""
    n = whole(text)
    if not 1 <= n <= MAX_PASSES:
        raise argparse.ArgumentTypeError(f"must be between 1 and {MAX_PASSES}, got {n}")
    return n


def _declared(name):
    """A Walk set-up field's declaration as the command line reads it (its ``cli=``)."""
    from dataclasses import fields

    from ..setup_field import declared
    from ..walk_setup import WalkSetup

    return declared(next(f for f in fields(WalkSetup) if f.name == name), "cli")


def _setup_help(name, table=None, default=False):
    """A Walk set-up field's help on the command line, from its declaration: its label,
    its help, its choices with their titles (``table``: PRESETS or MODES), its default."""
    f = _declared(name)
    text = f"{f['label']}: {f['help']}"
    if table is not None:
        text += "; " + "; ".join(v.title if v.title.startswith(f"{k}:") else
                                 f"{k}: {v.title}" for k, v in table.items())
    if default:
        text += f" (default: {f['default']})"
    return text.replace("%", "%%")  # argparse formats help with %


def add_parser(subparsers):
    from argparse import RawDescriptionHelpFormatter

    from ..walk_setup import LINK_PAIR, LINK_SEP, MODES, PRESETS

    p = subparsers.add_parser(
        "graph", help="draw an expression's graph (SVG, PNG, DOT, JSON) or walk it",
        description=__doc__, formatter_class=RawDescriptionHelpFormatter)
    p.add_argument("expr", metavar="EXPR", nargs="?",
                   help=_setup_help("expr") + " (names from --values; or --preset)")
    p.add_argument("--preset", choices=_declared("preset")["choices"], metavar="NAME",
                   help=_setup_help("preset", PRESETS))
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write the drawing here; the suffix picks the format "
                        "(.svg .png .dot .gv .json)")
    p.add_argument("--values", metavar=f"NAME{LINK_PAIR}NUM{LINK_SEP}...", default="",
                   help=_setup_help("values") + f", e.g. x1{LINK_PAIR}2{LINK_SEP}w1"
                        f"{LINK_PAIR}-3 (or x1=2): names the expression uses without "
                        "assigning, or assigned constants to replace (every name must "
                        "be a leaf)")
    p.add_argument("--no-grad", action="store_true",
                   help="do not run backward; draw data only")
    p.add_argument("--rankdir", choices=("LR", "TB"), default="LR",
                   help="left to right (default) or top to bottom")
    p.add_argument("--steps", action="store_true",
                   help="print the forward and backward walk, one line per step")
    p.add_argument("--order", metavar="NAMES",
                   help="walk the backward pass in this visit order (labels or ids, "
                        "comma-separated) and print what was lost")
    p.add_argument("--mode", choices=_declared("mode")["choices"],
                   default=_declared("mode")["default"],
                   help=_setup_help("mode", MODES, default=True))
    p.add_argument("--passes", type=passes_count, default=None,
                   help=f"number of backward passes for --mode no_zero_grad, 1 to "
                        f"{MAX_PASSES} (default 2)")
    p.add_argument("--nudge", metavar="NAMES",
                   help="nudge these leaves by h and compare the slope with the grad")
    p.add_argument("-H", "--h", type=finite_float, default=1e-4, dest="h",
                   help="the nudge size for --nudge (default 1e-4)")
    p.add_argument("--central", action="store_true",
                   help="--nudge with the central difference (f(x+h) - f(x-h)) / 2h "
                        "(error O(h^2)) instead of the lecture's one-sided one (error O(h))")
    p.add_argument("--tol", type=nonneg_float, default=None,
                   help="--nudge agrees when |slope - grad| <= tol * (1 + |grad|) plus "
                        "rounding (default: 2h one-sided, 2h^2 central)")
    p.set_defaults(func=run)
    return p


def _setup(args):
    """The Walk set-up the arguments say: the graph (EXPR or --preset, exactly one), the
    values read as the declaration writes them (its ``cli`` pairs: name:value and
    name=value) and the mode, checked with the command line's overrides (no cap on the
    expression but the language's). ``WalkSetupError`` if refused."""
    from ..walk_setup import WalkSetup, WalkSetupError, parse_values

    values = parse_values(args.values, key="--values", pairs=_declared("values")["pairs"])
    setup = WalkSetup(preset=args.preset, expr=args.expr, values=values, mode=args.mode)
    try:
        return setup.check(surface="cli")
    except WalkSetupError as err:
        if err.field == "preset":  # the Walk's words, the command line's names
            raise WalkSetupError("give an expression (EXPR) or --preset, not both and not "
                                 "neither", "preset") from None
        raise


def _fail(msg, code=2):
    print(f"micrograd graph: error: {msg}", file=sys.stderr)
    return code


def _check_output(path):
    """A message if ``path`` cannot be written (checked before any work), else None."""
    import os

    from ..files import check_target, error_line

    try:
        check_target(path, example="graph.svg")
    except OSError as err:
        return error_line(err)
    folder = os.path.dirname(os.path.realpath(path))
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"cannot write {path!r}: no permission to write in {folder!r}"
    return None


def _print_walk(root, mode, args):
    """The walk, one line a step (a node the recursive mode visits once per path says
    which visit it is: ``visit b = a + a (again: path 2 of 2)``), then, unless the visit
    order is the user's (--order), what the mode does to this graph and, where nothing
    goes wrong on it, the preset where it does: the sentence the Walk page and the widget
    show (``micrograd.walk_explain``)."""
    from .. import walk_explain
    from ..walk import format_walk, walk

    w = walk(root, order=args.order, mode=mode, passes=args.passes)
    print(format_walk(walk_explain.label_repeats(w), forward=args.steps))
    if not args.order:
        said = walk_explain.explain(root, w)
        print(said["text"])
        if said["offer"]:
            print(f"{said['offer']['label']}: micrograd graph --preset "
                  f"{said['offer']['preset']} --mode {mode}")


def run(args):
    import os

    from ..expr import ExprError, evaluate
    from ..files import error_line, write_text
    from ..graph import fmt
    from ..walk import WalkError, nudge
    from ..walk_setup import WalkSetup, WalkSetupError

    fmt_out = None
    if args.output:
        fmt_out = FORMATS.get(os.path.splitext(args.output)[1].lower())
        if fmt_out is None:
            return _fail(f"unknown output suffix in {args.output!r}; use one of "
                         f"{', '.join(FORMATS)}")
        problem = _check_output(args.output)
        if problem:
            return _fail(problem, 1)
    try:
        setup = _setup(args)
    except WalkSetupError as err:
        return _fail(str(err))
    try:
        prog = evaluate(setup.source, setup.values, override=True)
    except ExprError as err:
        print(f"micrograd graph: error: {err}", file=sys.stderr)
        return 2
    except ValueError as err:  # a --values name that is not a leaf
        return _fail(f"--values: {err}")
    root = prog.root
    if not args.no_grad:
        root.backward()
    if fmt_out == "png":  # a PNG too large to read is refused before any other output
        from ..viz.layout import layout
        from ..viz.png import GraphTooLargeError, png_scale, render_png

        lay = layout(root, rankdir=args.rankdir, show_grad=not args.no_grad)
        try:
            png_scale(lay)
        except GraphTooLargeError as err:
            return _fail(str(err))
    walked = setup.mode != WalkSetup().mode  # another mode asks for the walk
    try:
        if args.steps or args.order or walked or args.passes is not None:
            _print_walk(root, setup.mode, args)
        for name in (args.nudge or "").split(","):
            if name.strip():
                print(nudge(root, name.strip(), h=args.h, central=args.central,
                            tol=args.tol).text)
    except (WalkError, ValueError) as err:
        return _fail(str(err))
    if fmt_out is not None:
        from .. import viz

        show = not args.no_grad
        try:
            if fmt_out == "png":
                render_png(lay, args.output)
            else:
                render = {"svg": viz.to_svg, "dot": viz.to_dot, "json": viz.to_json}[fmt_out]
                text = render(root, rankdir=args.rankdir, show_grad=show)
                write_text(args.output, text, example="graph.svg")
        except OSError as err:
            return _fail(error_line(err, args.output), 1)
        nodes, edges = viz.nodes_and_edges(root)
        print(f"wrote {args.output} ({fmt_out}: {len(nodes)} values, {len(edges)} edges)")
    elif not (args.steps or args.order or args.nudge or walked):
        name = root.label or "result"
        print(f"{name} = {fmt(root.data)}")
        if not args.no_grad:
            from ..viz import nodes_and_edges

            leaves = [n for n in nodes_and_edges(root)[0] if n.leaf and n.label]
            if leaves:
                print("grads: " + ", ".join(f"{n.label}={fmt(n.grad)}" for n in leaves))
    return 0

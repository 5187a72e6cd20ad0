"""One engine, one workload, one process: what ``benchmarks/engine.py`` starts.

    python -I benchmarks/engine_worker.py ours|published|baseline demo|loop STEPS [--root DIR]

prints one line of JSON: the loss of every step, the CPU seconds of the timed part, the
seconds the cyclic collector spent inside it (from ``gc.callbacks``), the file the
engine was imported from. ``--root`` is put first on ``sys.path`` (ours: this
checkout's ``src/``; the baseline: this project's ``src/`` exported at a revision);
without it ``micrograd`` comes from the interpreter's site-packages (the published
package in the side environment). ``-I`` keeps the script's folder, the user's
site-packages and ``PYTHONPATH`` out of the path, so each engine sees only its own
``micrograd``; the worker checks where it came from anyway.

Workloads: ``demo`` runs ``moons_demo_cells.py`` cell by cell in one namespace with the
clock around its training cell; ``loop`` runs ``lecture_loop.py`` with the clock around
its training loop. Only the standard library is needed for ``loop``: the same module runs
on Pyodide's Python (``engine_in_pyodide.mjs`` calls :func:`run`). The baseline's demo
builds micrograd's network even where that revision's ``MLP`` defaulted to the lecture's
(:func:`notebook_mlp`; the JSON's ``note`` says so).
"""

import contextlib
import gc
import importlib.util
import inspect
import io
import json
import math
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
STEP_LINE = re.compile(r"^step (\d+) loss (\S+), accuracy", re.M)


def _cpu_clock():
    """CPU seconds of this process. On Pyodide in node, ``time.process_time`` is the
    wall clock (WebAssembly has no CPU clock), which on a loaded machine counts other
    jobs' turns: node's own ``process.cpuUsage()`` counts the process's CPU time."""
    if sys.platform == "emscripten":
        try:
            from js import process

            process.cpuUsage()
        except (ImportError, AttributeError):
            return time.process_time

        def node_cpu():
            used = process.cpuUsage()
            return (used.user + used.system) / 1e6
        return node_cpu
    return time.process_time


cpu = _cpu_clock()


class GCClock:
    """CPU seconds spent in the cyclic collector and collections by generation."""

    def __init__(self):
        self.seconds = 0.0
        self.collections = [0, 0, 0]
        self._start = None

    def __call__(self, phase, info):
        if phase == "start":
            self._start = cpu()
        elif self._start is not None:
            self.seconds += cpu() - self._start
            self.collections[info["generation"]] += 1
            self._start = None


@contextlib.contextmanager
def clocked():
    """CPU time of the block and of the collector inside it: ``[seconds, GCClock]``."""
    clock = GCClock()
    clock.tracked = len(gc.get_objects())  # what a full collection walks, at the start
    out = [0.0, clock]
    gc.callbacks.append(clock)
    t0 = cpu()
    try:
        yield out
    finally:
        out[0] = cpu() - t0
        gc.callbacks.remove(clock)


def load_engine(engine, root):
    """Import ``micrograd.engine`` from ``root`` (or site-packages) and say from where."""
    if root:
        sys.path.insert(0, os.path.abspath(root))
    import micrograd.engine

    where = os.path.realpath(micrograd.engine.__file__)
    inside = root and where.startswith(os.path.realpath(root) + os.sep)
    if root and not inside:
        raise SystemExit(f"{engine}: micrograd.engine came from {where}, not from {root}")
    if not root and "site-packages" not in where.split(os.sep):
        raise SystemExit(f"{engine}: micrograd.engine came from {where}, "
                         "not from the environment's site-packages")
    if engine == "published" and not hasattr(micrograd.engine.Value, "tanh"):
        micrograd.engine.Value.tanh = lecture_tanh
    return where


def lecture_tanh(self):
    """The lecture's ``tanh`` method, given to micrograd 0.1.0's ``Value`` (which has
    none): one node whose backward closure adds ``(1 - t**2) * out.grad``."""
    Value = type(self)
    t = math.tanh(self.data)
    out = Value(t, (self,), "tanh")

    def _backward():
        self.grad += (1 - t**2) * out.grad
    out._backward = _backward
    return out


def module_from(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def cells(path):
    """``[(name, code)]`` of a script split at its ``# %% [name]`` lines."""
    out, name, lines = [], None, []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if line.startswith("# %%"):
                if name is not None:
                    out.append((name, "".join(lines)))
                name = line.partition("[")[2].partition("]")[0] or f"line {n}"
                lines = ["\n"] * n  # keep line numbers for tracebacks
            elif name is not None:
                lines.append(line)
    if name is not None:
        out.append((name, "".join(lines)))
    return out


def notebook_mlp(MLP):
    """``(MLP, note)``: an ``MLP`` that builds the notebook's ``MLP(2, [16, 16, 1])`` as
    micrograd means it (relu hidden layers, a linear output, zero biases). A baseline
    revision whose ``MLP`` defaults to the lecture's network (tanh everywhere, random
    biases) is asked for micrograd's with its own flags, ``nonlin=True,
    bias_init="zero"``, drawing the same weights from ``random`` (the losses check that
    both engines train the same network); any other ``MLP`` is used as it is."""
    try:
        default = inspect.signature(MLP).parameters["activation"].default
    except (KeyError, TypeError, ValueError):
        return MLP, None
    if default != "tanh":
        return MLP, None

    def micrograd_network(nin, nouts, **kwargs):
        return MLP(nin, nouts, **{"nonlin": True, "bias_init": "zero", **kwargs})
    return micrograd_network, ("its MLP defaults to tanh with random biases: the "
                               "notebook's model built with nonlin=True, bias_init='zero'")


def run_demo(steps, script, adapt_mlp=False):
    namespace = {"__name__": "__main__", "STEPS": steps}
    printed = io.StringIO()
    timed = note = None
    with contextlib.redirect_stdout(printed):
        for name, code in cells(script):
            compiled = compile(code, script, "exec")
            if name == "training":
                with clocked() as timed:
                    exec(compiled, namespace)
            else:
                exec(compiled, namespace)
            if name == "engine" and adapt_mlp:
                namespace["MLP"], note = notebook_mlp(namespace["MLP"])
    if timed is None:
        raise SystemExit(f"{script} has no [training] cell")
    losses = [float(v) for k, v in STEP_LINE.findall(printed.getvalue())]
    import matplotlib
    import numpy
    import sklearn

    versions = {"numpy": numpy.__version__, "scikit-learn": sklearn.__version__,
                "matplotlib": matplotlib.__version__}
    return losses, timed, versions, note


def run_loop(steps, path):
    loop = module_from(path, "lecture_loop")
    xs, ys = loop.make_data()
    network = loop.make_network()
    gc.collect()
    with clocked() as timed:
        losses = loop.train(network, xs, ys, steps)
    return losses, timed, {}


def run(engine, workload, steps, root=None, bench_dir=HERE):
    if not gc.isenabled():
        raise SystemExit("the cyclic collector is off: the benchmark runs with it on")
    where = load_engine(engine, root)
    note = None
    if workload == "demo":
        losses, (seconds, clock), versions, note = run_demo(
            steps, os.path.join(bench_dir, "moons_demo_cells.py"), engine == "baseline")
    else:
        losses, (seconds, clock), versions = run_loop(
            steps, os.path.join(bench_dir, "lecture_loop.py"))
    if len(losses) != steps:
        raise SystemExit(f"{engine} {workload}: {len(losses)} losses for {steps} steps")
    return {"engine": engine, "workload": workload, "steps": steps,
            "python": sys.version.split()[0], "platform": sys.platform,
            "engine_file": where, "losses": losses, "seconds": seconds,
            "gc_seconds": clock.seconds, "gc_collections": clock.collections,
            "gc_tracked_at_start": clock.tracked,
            "gc_threshold": list(gc.get_threshold()), "versions": versions,
            "note": note}


def main(argv=None):
    args = list(sys.argv[1:] if argv is None else argv)
    root = None
    if "--root" in args:
        i = args.index("--root")
        root = args[i + 1]
        del args[i:i + 2]
    engine, workload, steps = args
    if engine not in ("ours", "published", "baseline") or workload not in ("demo", "loop"):
        raise SystemExit(__doc__.split("\n\n")[1])
    print(json.dumps(run(engine, workload, int(steps), root)))


if __name__ == "__main__":
    main()

"""The engine benchmark's worker processes, started and checked.

One call runs one engine on one workload in a fresh process (``engine_worker.py`` under a
side environment's CPython, or ``engine_in_pyodide.mjs`` under node), and returns what the
worker measured, after checking that it imported the engine it was meant to.
``check_losses`` holds every run of one interpreter and workload to the same losses.
"""

import json
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(os.path.dirname(HERE), "src")
WORKER = os.path.join(HERE, "engine_worker.py")
PYODIDE_RUNNER = os.path.join(HERE, "engine_in_pyodide.mjs")
TOLERANCE = 1e-12  # relative difference allowed between two runs' loss at one step
# one thread for NumPy's BLAS: on a shared machine a thread pool waiting for busy cores
# adds CPU time that is neither engine's
SINGLE_THREAD = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
                 "MKL_NUM_THREADS": "1"}


def _environment():
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env.update(SINGLE_THREAD, MPLBACKEND="Agg")
    return env


def _result(cmd, what):
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, env=_environment(),
                              check=False)
    except OSError as exc:
        raise SystemExit(f"{what}: cannot start {cmd[0]} ({exc})") from None
    if done.returncode != 0:
        raise SystemExit(f"{what} failed (exit {done.returncode}):\n{done.stderr[-4000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _same_file(a, b):
    return os.path.realpath(a) == os.path.realpath(b)


def cpython_workers(venv, steps, baseline_src=None):
    """``run(engine, workload)`` under the side environment ``venv``'s interpreter:
    ``ours`` from this checkout's ``src/``, ``published`` from the environment's
    site-packages, ``baseline`` from ``baseline_src`` (a revision's exported ``src/``)."""
    roots = {"ours": SRC, "baseline": baseline_src}

    def run(engine, workload):
        root = roots.get(engine)
        if engine == "baseline" and not root:
            raise ValueError("the baseline engine needs baseline_src")
        cmd = [venv["python_exe"], "-I", WORKER, engine, workload, str(steps)]
        if root:
            cmd += ["--root", root]
        what = f"{engine} {workload} under {venv['python_exe']}"
        result = _result(cmd, what)
        expected = (os.path.join(root, "micrograd", "engine.py") if root
                    else venv["micrograd"])
        if not _same_file(result["engine_file"], expected):
            raise SystemExit(f"{what} imported {result['engine_file']}, not {expected}")
        return result

    return run


def node_version():
    try:
        return subprocess.run(["node", "--version"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as exc:
        raise SystemExit(f"--pyodide needs node on the PATH ({exc})") from None


def pyodide_workers(pyodide_dir, venv, steps, baseline_src=None):
    """``(label, run)``: ``run(engine, "loop")`` on Pyodide's Python in node. Ours is
    this checkout's package; the published one is the side environment's hash-checked
    copy of micrograd 0.1.0 (a pure-Python wheel: the same files on any Python); the
    baseline the package in ``baseline_src``."""
    node_version()
    packages = {"ours": os.path.join(SRC, "micrograd"),
                "published": os.path.dirname(venv["micrograd"])}
    if baseline_src:
        packages["baseline"] = os.path.join(baseline_src, "micrograd")
    version = _result(["node", PYODIDE_RUNNER, pyodide_dir, "--version"],
                      f"starting Pyodide from {pyodide_dir}")

    def run(engine, workload):
        cmd = ["node", PYODIDE_RUNNER, pyodide_dir, packages[engine], HERE, engine,
               workload, str(steps)]
        result = _result(cmd, f"{engine} {workload} on Pyodide")
        if not result["engine_file"].startswith("/engine/micrograd/"):
            raise SystemExit(f"{engine} on Pyodide imported {result['engine_file']}")
        return result

    return f"pyodide {version['pyodide']} (Python {version['python']})", run


def _relative(a, b):
    return abs(a - b) / max(abs(a), abs(b)) if a != b else 0.0


def check_losses(rounds, label, workload):
    """Every run so far (both engines, every round) against the first: the same loss
    at every step to ``TOLERANCE`` relative, or the benchmark stops. Returns the
    largest relative difference seen."""
    reference = rounds[0]["ours"]["losses"]
    worst = 0.0
    for k, got in enumerate(rounds):
        for engine, result in got.items():
            losses = result["losses"]
            if len(losses) != len(reference):
                raise SystemExit(f"{label} {workload}: {engine} ran {len(losses)} steps, "
                                 f"not {len(reference)}")
            for step, (a, b) in enumerate(zip(reference, losses)):
                rel = _relative(a, b)
                if not rel <= TOLERANCE:
                    raise SystemExit(
                        f"MISMATCH ({label} {workload}, round {k + 1}, {engine}) at step "
                        f"{step}: loss {b!r}, ours in round 1 {a!r}, relative {rel:.1e}")
                worst = max(worst, rel)
    return worst

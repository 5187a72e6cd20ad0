"""Drive the page's JavaScript executor (web/static/lowered/executor.js) in node, for tests.

``run_in_node(jobs)`` sends lowered programs and calls to ``tests/run_lowered.mjs`` in one
node process and returns the executor's primitive list and the results, with every float64
carried bit for bit (base64 of the bytes). node is part of the test set-up (as chromium
is): without it these tests fail, saying so.
"""

import base64
import json
import shutil
import subprocess
from pathlib import Path

import numpy as np

DRIVER = Path(__file__).with_name("run_lowered.mjs")


def b64(a):
    return base64.b64encode(np.ascontiguousarray(a, dtype="<f8").tobytes()).decode()


def unb64(s):
    return np.frombuffer(base64.b64decode(s), dtype="<f8").copy()


def call(fn, X, mode="evaluate", params=None):
    """One call of a lowered function on the rows of ``X`` (B x inputs); ``mode``
    "evaluate" (forward), "grad" (forward and backward) or "step" (and the update)."""
    c = {"fn": fn, "X": b64(np.asarray(X, dtype=np.float64).ravel()), "mode": mode}
    if params is not None:
        c["params"] = b64(params)
    return c


def run_in_node(jobs, timeout=600):
    """``jobs``: [(wire, [call, ...]), ...]. Returns (the executor's ``{"prims": [names],
    "arity": {name: operands}}``, per job a list of results: ``{"outputs": [array, ...],
    "value": float or None, "grads": array, "params": array}``); a call the executor
    refused is ``{"error": message}``."""
    node = shutil.which("node")
    assert node, "node (20 or later) is part of the test set-up: apt-get install nodejs"
    payload = json.dumps({"jobs": [{"program": w, "calls": c} for w, c in jobs]},
                         allow_nan=False)
    done = subprocess.run([node, str(DRIVER)], input=payload, capture_output=True, text=True,
                          timeout=timeout, check=False)
    assert done.returncode == 0, f"node failed: {done.stderr[-2000:]}"
    out = json.loads(done.stdout)
    results = []
    for job in out["results"]:
        rs = []
        for r in job:
            if "error" in r:
                rs.append(r)
                continue
            rs.append({"outputs": [unb64(o) for o in r["outputs"]],
                       "value": None if r["value"] is None else float(unb64(r["value"])[0]),
                       "grads": unb64(r["grads"]), "params": unb64(r["params"])})
        results.append(rs)
    return {"prims": out["prims"], "arity": out["arity"]}, results

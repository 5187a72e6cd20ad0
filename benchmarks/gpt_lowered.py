"""The traced GPT lowered for the page's JavaScript executor, node by node and group by group.

    PYTHONPATH=src python benchmarks/gpt_lowered.py [--rounds 5] [--steps 20]

The GPT of ``micrograd gpt --runner traced`` (``micrograd.gpt.traced.TracedRun`` on
``Run.start(seed=42)``: microgpt's 16 dimensions, 4 heads, 1 layer, 16 positions) with
its Adam, lowered two ways and run by ``web/static/lowered/executor.js`` in node (one
name a step: B = 1):

* ``per-node``: ``micrograd.trace.lower``, every node of the graph its own
  instructions (what the Playground runs);
* ``grouped``: ``micrograd.trace.lowering_groups.lower_groups``, the compiler's
  batched groups (the NumPy executor's steps and row layout), a few instructions each
  over the group's rows.

Printed: the time to lower each and its wire (instructions, MB of JSON); the loss of the
first step of each, checked equal to the NumPy executor's (1e-12 relative); then rounds
of ``--steps`` steps of each in one node process, in turn (wall time), each round on a
fresh copy of the weights; the median ms a step with [smallest-largest], and the ratio to
the per-node program in the same run. The load average at the start and the end.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from micrograd.gpt.train import Run  # noqa: E402
from micrograd.gpt.traced import TracedRun  # noqa: E402
from micrograd.trace import lower  # noqa: E402
from micrograd.trace.lowering_groups import lower_groups  # noqa: E402

EXECUTOR = ROOT / "src" / "micrograd" / "web" / "static" / "lowered" / "executor.js"

# node: load each program, check its first loss, then time rounds of steps in turn
NODE_DRIVER = r"""
import { readFileSync } from "node:fs";
import { load } from %s;
const [files, X, rounds, steps] = JSON.parse(readFileSync(0, "utf8"));
const x = Float64Array.from(X);
const programs = files.map((f) => readFileSync(f, "utf8"));
const first = programs.map((text) => load(text).step("loss", x));
const ms = programs.map(() => []);
for (let k = 0; k < rounds; k++) {
  programs.forEach((text, j) => {
    const r = load(text);
    r.step("loss", x);  // compiled, warm
    const t0 = performance.now();
    for (let s = 0; s < steps; s++) r.step("loss", x);
    ms[j].push((performance.now() - t0) / steps);
  });
}
console.log(JSON.stringify({ first, ms }));
"""


def load():
    return "%.2f %.2f %.2f" % os.getloadavg()


def instructions(wire):
    fn = wire["functions"]["loss"]
    return {k: len(fn.get(k, ())) for k in ("forward", "backward", "update")}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--name", default="olivia", help="the name every step trains on")
    args = ap.parse_args()
    node = shutil.which("node")
    if not node:
        sys.exit("node (20 or later) is needed")
    version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout
    print(f"node {version.strip()}, {os.cpu_count()} CPUs; load average at start: {load()}",
          flush=True)
    run = Run.start(seed=42)
    t0 = time.perf_counter()
    traced = TracedRun(run)
    print(f"recorded in {time.perf_counter() - t0:.1f} s: {traced.loss.per_sample!r}",
          flush=True)
    inputs = traced.inputs(args.name)
    P = traced.loss.param_values()
    want, _ = traced.loss.loss_and_grads(P, *[[x] for x in inputs])
    ways = {}
    with tempfile.TemporaryDirectory() as tmp:
        files = []
        for label, fn in (("per-node", lower), ("grouped", lower_groups)):
            t0 = time.perf_counter()
            lowered = fn(traced.loss, optimizer=traced.optimizer)
            took = time.perf_counter() - t0
            text = lowered.to_json()
            path = Path(tmp) / f"{label}.json"
            path.write_text(text)
            files.append(str(path))
            ways[label] = (took, len(text), instructions(lowered.wire))
            print(f"{label:9s} lowered in {took:5.1f} s: {len(text) / 1e6:5.2f} MB of JSON, "
                  f"instructions {ways[label][2]}", flush=True)
        X = [x for part in inputs for x in part]
        driver = NODE_DRIVER % json.dumps(EXECUTOR.as_uri())
        done = subprocess.run([node, "--input-type=module", "-e", driver],
                              input=json.dumps([files, X, args.rounds, args.steps]),
                              capture_output=True, text=True, check=False)
    if done.returncode:
        sys.exit(done.stderr[-3000:])
    out = json.loads(done.stdout)
    for label, got in zip(ways, out["first"]):
        if not math.isclose(got, want, rel_tol=1e-12):
            sys.exit(f"{label}: the first loss {got!r} is not NumPy's {want!r}")
    print(f"first loss on {args.name!r}: {want!r} (NumPy), equal in both (1e-12)")
    base = statistics.median(out["ms"][0])
    print(f"{args.rounds} rounds of {args.steps} steps, wall time:")
    for label, ms in zip(ways, out["ms"]):
        med = statistics.median(ms)
        print(f"  {label:9s} {med:8.2f} ms a step [{min(ms):.2f}-{max(ms):.2f}], "
              f"{1000 / med:7.1f} steps a second, {base / med:6.1f}x per-node")
    print(f"load average at end: {load()}")


if __name__ == "__main__":
    main()

"""A small mutation campaign: does the test suite notice a small, realistic bug?

    python scripts/mutate.py                 # every mutant in scripts/mutants.py
    python scripts/mutate.py --only nudge    # those whose name contains "nudge"
    python scripts/mutate.py --list

Each mutant replaces one exact piece of source text (which must occur exactly once in
its file) and names the test files that should notice. For each mutant, one at a time:
apply it, run those tests (pytest -x, in a subprocess, with this checkout's src first on
the path), restore the file byte for byte. A mutant is *killed* when the tests fail and
*survives* when they pass; the score is killed / total. The file is restored even on
Ctrl-C. Run it on a clean checkout: it edits src/ in place while it runs.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_mutants():
    spec = importlib.util.spec_from_file_location(
        "mutants", os.path.join(ROOT, "scripts", "mutants.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.MUTANTS


def run_tests(tests, timeout):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"))
    argv = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *tests]
    try:
        r = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        return False, "timeout (counted as killed)"
    last = (r.stdout.strip().splitlines() or [""])[-1]
    return r.returncode == 0, last


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", default="", help="run the mutants whose name contains this")
    p.add_argument("--list", action="store_true", help="list the mutants and exit")
    p.add_argument("--timeout", type=float, default=600, help="seconds per mutant")
    args = p.parse_args(argv)
    mutants = [m for m in load_mutants() if args.only in m["name"]]
    if args.list:
        for m in mutants:
            print(f"{m['name']:<44} {m['file']}")
        return 0
    survived = []
    for k, m in enumerate(mutants, 1):
        path = os.path.join(ROOT, m["file"])
        with open(path, "rb") as f:
            original = f.read()
        text = original.decode("utf-8")
        count = text.count(m["old"])
        if count != 1:
            print(f"[{k}/{len(mutants)}] {m['name']}: the text occurs {count} times in "
                  f"{m['file']}, not once; fix the mutant")
            return 2
        t0 = time.perf_counter()
        try:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text.replace(m["old"], m["new"]))
            passed, last = run_tests(m["tests"], args.timeout)
        finally:
            with open(path, "wb") as f:
                f.write(original)
        verdict = "SURVIVED" if passed else "killed"
        print(f"[{k}/{len(mutants)}] {verdict:<8} {m['name']} ({time.perf_counter() - t0:.0f} s"
              f"; {last})", flush=True)
        if passed:
            survived.append(m["name"])
    n = len(mutants)
    print(f"\nscore: {n - len(survived)}/{n} killed"
          + (f"; survived: {', '.join(survived)}" if survived else ""))
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main())

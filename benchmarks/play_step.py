"""Where a Playground step's time goes on the Python side: training, the metrics, the
drawing (the state the page gets), and the whole request through its handler's job.

    PYTHONPATH=src python benchmarks/play_step.py               # traced (NumPy), ~30 s
    PYTHONPATH=src python benchmarks/play_step.py --eager       # the eager engine only, as
                                                                # a Python without NumPy
                                                                # (the page's set-ups only)
    PYTHONPATH=src python benchmarks/play_step.py --rounds 5

For each set-up (the page's 2-9-1 and 2-8-8-1 on 200 points, and the largest the caps
allow) it times, in interleaved rounds, CPU time per call (``time.process_time``: on a
shared machine a wall clock mostly measures the other jobs):

* ``train``: one optimizer step (the baseline: the other figures are ratios to it);
* ``record``: the metrics on the train and test sets;
* ``draw``: ``play_pictures.play_state`` (boundary, pictures, zero lines, network,
  parameter table);
* ``request``: the handler's job for ``play.step`` with one step (all of the above,
  plus reading the request), as ``micrograd serve`` or a page's worker runs it.

Reports the median over the rounds (and the spread: the lowest and highest round).
"""

import argparse
import statistics
import time

from micrograd.experiment import Experiment
from micrograd.web.handlers import LocalSessions, dispatch, run_to_end
from micrograd.web.play_pictures import play_state
from micrograd.web.play_session import PlaySession

SETUPS = {
    "2-9-1, 200 points": {"samples": 200, "hidden": [9]},
    "2-8-8-1, 200 points": {"samples": 200, "hidden": [8, 8]},
    "largest (2,000 points, 32-32-8)": {"samples": 2000, "train_ratio": 0.9,
                                        "hidden": [32, 32, 8], "dataset": "spiral"},
}


def cpu_ms(fn, calls):
    t = time.process_time()
    for _ in range(calls):
        fn()
    return (time.process_time() - t) / calls * 1e3


def parts(session, sessions, sid):
    return {
        "train": lambda: session.train(1, record=False),
        "record": lambda: session.train(0),
        "draw": lambda: play_state(session, history="last"),
        "request": lambda: run_to_end(dispatch("play.step", {"sid": sid, "steps": 1},
                                               sessions)),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--eager", action="store_true", help="train and draw on the eager "
                    "engine (what a Python without NumPy runs)")
    args = ap.parse_args()
    sessions = LocalSessions()
    cases = {}
    for name, setup in SETUPS.items():
        if args.eager and name.startswith("largest"):
            continue  # about 11 s a step on the eager engine
        session = PlaySession(Experiment.from_dict(setup), traced=not args.eager)
        sid = sessions.create(session)
        cases[name] = parts(session, sessions, sid)
    times = {name: {part: [] for part in fns} for name, fns in cases.items()}
    for _ in range(args.rounds):  # interleaved: every set-up and part once a round
        for name, fns in cases.items():
            calls = 2 if name.startswith("largest") else 20
            for part, fn in fns.items():
                times[name][part].append(cpu_ms(fn, calls))
    engine = "eager engine" if args.eager else "traced (NumPy)"
    print(f"CPU ms per call, median of {args.rounds} rounds [lowest, highest]; {engine}")
    for name, by_part in times.items():
        base = statistics.median(by_part["train"])
        print(f"  {name}")
        for part, ts in by_part.items():
            med = statistics.median(ts)
            print(f"    {part:8s} {med:9.2f}  [{min(ts):.2f}, {max(ts):.2f}]"
                  f"  {med / base:6.1f} x train")


if __name__ == "__main__":
    main()

"""The mutants of scripts/mutate.py: small, realistic bugs in the modules that handle
files, Ctrl-C, the fit loop, optimizers, losses, the nudge check, PNGs and gradcheck,
each with the tests that should notice it. ``old`` must occur exactly once in ``file``."""

T_IO = ["tests/test_io.py"]
T_TRAIN = ["tests/test_train.py"]
T_CTRL_C = ["tests/test_ctrl_c.py"]
T_OPTIM = ["tests/test_optim.py"]
T_WALK = ["tests/test_walk.py", "tests/test_cli_graph.py"]
T_GRAPH = ["tests/test_cli_graph.py"]
T_MUT = ["tests/test_mutants.py"]


def mutant(name, file, old, new, tests):
    return {"name": name, "file": file, "old": old, "new": new, "tests": tests}


MUTANTS = [
    # ---- the list (the tests of tests/test_mutants.py) ----
    mutant("gradcheck rtol ten times looser", "src/micrograd/gradcheck.py",
           'def gradcheck(f, inputs, eps=1e-6, atol=1e-5, rtol=1e-3,',
           'def gradcheck(f, inputs, eps=1e-6, atol=1e-5, rtol=1e-2,', T_MUT),
    mutant("gradcheck_report rtol ten times looser", "src/micrograd/gradcheck.py",
           'def gradcheck_report(f, inputs, eps=1e-6, atol=1e-5, rtol=1e-3,',
           'def gradcheck_report(f, inputs, eps=1e-6, atol=1e-5, rtol=1e-2,', T_MUT),
    mutant("gradcheck_report atol ten times looser", "src/micrograd/gradcheck.py",
           'def gradcheck_report(f, inputs, eps=1e-6, atol=1e-5, rtol=1e-3,',
           'def gradcheck_report(f, inputs, eps=1e-6, atol=1e-4, rtol=1e-3,', T_MUT),
    mutant("gradcheck_report rtol ten times tighter", "src/micrograd/gradcheck.py",
           'def gradcheck_report(f, inputs, eps=1e-6, atol=1e-5, rtol=1e-3,',
           'def gradcheck_report(f, inputs, eps=1e-6, atol=1e-5, rtol=1e-4,', T_MUT),
    mutant("walk: unvisited amount without the local derivative", "src/micrograd/walk.py",
           "zip(g.in_edges[nid], contributions_at(v, grads[v]))",
           "zip(g.in_edges[nid], [grads[v]] * 2)",
           T_MUT),
    # ---- files ----
    mutant("files: new files 0600", "src/micrograd/files.py",
           "fd = os.open(tmp, flags, 0o666)", "fd = os.open(tmp, flags, 0o600)", T_IO),
    mutant("files: existing file's mode not kept", "src/micrograd/files.py",
           "            if keep is not None:\n                os.fchmod(fd, keep)\n",
           "            pass\n", T_IO),
    mutant("files: symlink replaced, not written through", "src/micrograd/files.py",
           "        os.replace(tmp, real)\n", "        os.replace(tmp, path)\n", T_IO),
    mutant("files: non-regular targets accepted", "src/micrograd/files.py",
           "        if not stat.S_ISREG(st.st_mode):", "        if False:", T_IO),
    mutant("files: temporary left after an error", "src/micrograd/files.py",
           "        try:\n            os.unlink(tmp)\n        except FileNotFoundError:\n"
           "            pass\n", "", T_IO),
    mutant("io: file cap off by one", "src/micrograd/io.py",
           "    if len(raw) > max_bytes:", "    if len(raw) >= max_bytes:", T_IO),
    mutant("io: parameter count without biases", "src/micrograd/io.py",
           "count = sum((a + 1) * b for a, b in pairwise(sizes))",
           "count = sum(a * b for a, b in pairwise(sizes))", T_IO),
    # ---- Ctrl-C and fit ----
    mutant("ctrl-c: second press raises anywhere", "src/micrograd/interrupts.py",
           "        if self.hit and self.window:", "        if self.hit:", T_TRAIN),
    mutant("ctrl-c: the step is never a window", "src/micrograd/train.py",
           "                with sigint.interruptible():  # the only place",
           "                if True:  # the only place", T_TRAIN),
    mutant("ctrl-c: abandoned step keeps its partial grads", "src/micrograd/train.py",
           "                run.optimizer.zero_grad()  # the abandoned step's partial "
           "gradients\n", "", T_TRAIN),
    mutant("ctrl-c: cut evaluation not recorded", "src/micrograd/train.py",
           "        return (math.nan, math.nan)  # no evaluation after a second Ctrl-C",
           "        return None", T_TRAIN),
    mutant("ctrl-c: interrupted first step records an epoch", "src/micrograd/train.py",
           "        if not seen.samples:  # interrupted before the epoch's first step ended\n"
           "            raise KeyboardInterrupt\n", "", T_TRAIN),
    mutant("ctrl-c: ignored SIGINT taken over", "src/micrograd/interrupts.py",
           "            or current is not signal.default_int_handler):",
           "            or current is None):", T_TRAIN),
    mutant("history: uneven lists not evened out", "src/micrograd/train.py",
           "        hist._even_out()  # an interrupt", "        pass  # an interrupt", T_TRAIN),
    mutant("fit: a partly foreign optimizer accepted", "src/micrograd/train.py",
           "    if foreign:\n", "    if foreign == len(optimizer.params):\n", T_TRAIN),
    mutant("fit: ce accepted on one output", "src/micrograd/train.py",
           "    if n < 2:\n", "    if n < 1:\n", T_TRAIN),
    mutant("fit: minibatches never shuffled", "src/micrograd/train.py",
           "        self.rng.shuffle(self.order)\n", "", T_TRAIN),
    mutant("fit: a callback's stop overridden by the next", "src/micrograd/train.py",
           "            stop = bool(cb(epoch, logs, model)) or stop",
           "            stop = bool(cb(epoch, logs, model))", T_TRAIN),
    mutant("fit: the old keyword engine= ignored", "src/micrograd/train.py",
           "        raise TypeError(\"give runner= only (engine= is its old name), not both\")\n"
           "    return engine\n", "        raise TypeError(\"give runner= only (engine= is its "
           "old name), not both\")\n    return runner\n", ["tests/test_train_runners.py"]),
    mutant("train command: exit 0 after Ctrl-C", "src/micrograd/commands/train.py",
           "    return 130 if _interrupted(hist, ctrl_c) else 0\n\n\ndef _interrupted",
           "    return 0\n\n\ndef _interrupted", T_CTRL_C),
    mutant("train command: history written abortable", "src/micrograd/commands/train.py",
           '    ctrl_c.mode = "defer"  # the results are written whole',
           '    ctrl_c.mode = "raise"  # the results are written whole', T_CTRL_C),
    mutant("cli: late presses not ignored at exit", "src/micrograd/cli.py",
           "                signal.signal(signal.SIGINT, signal.SIG_IGN)", "                pass",
           T_CTRL_C),
    mutant("cli: closed pipe exits 0", "src/micrograd/cli.py",
           "        return 141  # 128 + SIGPIPE", "        return 0  # 128 + SIGPIPE", T_GRAPH),
    # (left out: dropping cli._drop_stdout is equivalent on CPython 3.11, which discards
    # the buffer after a failed flush; it stays, as Python's docs on SIGPIPE advise)
    # ---- optimizers and losses ----
    mutant("adam: eps = 0 accepted", "src/micrograd/optim.py",
           '_check_number(eps, "eps", 0.0, low_open=True)', '_check_number(eps, "eps")',
           T_OPTIM),
    mutant("optim: Value grads used as they are", "src/micrograd/optim.py",
           "                if isinstance(g, Value):  # a Value: its number\n"
           "                    g = g.data\n", "                if isinstance(g, Value):\n"
           "                    out.append(g)\n                    continue\n", T_OPTIM),
    mutant("sgd: momentum buffer committed before the write", "src/micrograd/optim.py",
           "        buf = list(self.buf)\n", "        buf = self.buf\n", T_OPTIM),
    mutant("adam: step counted before the write", "src/micrograd/optim.py",
           "        t = self.steps + 1\n", "        self.steps += 1\n        t = self.steps\n",
           T_OPTIM),
    mutant("accuracy: regression targets counted", "src/micrograd/losses.py",
           "            return float(\"nan\")  # not class labels: accuracy is not defined",
           "            pass", ["tests/test_losses.py", "tests/test_train.py"]),
    mutant("accuracy: class index K accepted", "src/micrograd/losses.py",
           "    return float(y).is_integer() and 0 <= y < k",
           "    return float(y).is_integer() and 0 <= y <= k", ["tests/test_losses.py"]),
    mutant("expr: -10**400 gives +inf", "src/micrograd/expr.py",
           'out[k] = float("inf") if v > 0 else float("-inf")', 'out[k] = float("inf")',
           ["tests/test_expr.py"]),
    # ---- the nudge check and PNGs ----
    mutant("nudge: tolerance ten times looser", "src/micrograd/walk.py",
           "NUDGE_TOL = 2.0", "NUDGE_TOL = 20.0", T_WALK),
    mutant("nudge: central tolerance O(h)", "src/micrograd/walk.py",
           "    tol = float(NUDGE_TOL * (h * h if central else h) if tol is None else tol)",
           "    tol = float(NUDGE_TOL * h if tol is None else tol)", T_WALK),
    mutant("nudge: a subnormal h accepted", "src/micrograd/walk.py",
           "    if not (h >= _NORMAL and math.isfinite(h)):",
           "    if not (h > 0 and math.isfinite(h)):", T_WALK),
    mutant("nudge: no rounding floor below the smallest normal float", "src/micrograd/walk.py",
           "    allowed = tol * (1 + abs(grad)) + _ROUNDING * (max(abs(f_plus), _NORMAL)\n"
           "                                                   + max(abs(f0), _NORMAL)) / width",
           "    allowed = tol * (1 + abs(grad)) + _ROUNDING * (abs(f_plus)\n"
           "                                                   + abs(f0)) / width", T_WALK),
    mutant("nudge: infinite slope may agree", "src/micrograd/walk.py",
           "    ok = math.isfinite(slope) and not lost and err <= allowed",
           "    ok = not lost and err <= allowed", T_WALK),
    mutant("nudge: h below x's precision may agree", "src/micrograd/walk.py",
           "    ok = math.isfinite(slope) and not lost and err <= allowed",
           "    ok = math.isfinite(slope) and err <= allowed", T_WALK),
    mutant("conventions: rows not through the wire", "src/micrograd/walk_setup.py",
           '"note": CONVENTIONS_NOTE, "rows": encode(rows)}',
           '"note": CONVENTIONS_NOTE, "rows": rows}', ["tests/test_walk_modes_conventions.py"]),
    mutant("png: illegible text accepted", "src/micrograd/viz/png.py",
           "MIN_TEXT_PX = 6.0", "MIN_TEXT_PX = 0.1", T_GRAPH),
    mutant("png: no cap on the longer side", "src/micrograd/viz/png.py",
           "    fit = min(scale, MAX_SIDE / max(w, h), math.sqrt(MAX_PIXELS / (w * h)))",
           "    fit = min(scale, math.sqrt(MAX_PIXELS / (w * h)))", T_GRAPH),
]

// The executor port: the JavaScript side of a session that trains through a lowered
// program, next to Pyodide in the static site's worker (a Playground session's, through
// micrograd.web.lowered_play; a GPT tab's, through micrograd.web.gpt_runners: `train`).
//
// Python (micrograd.web.lowered_play) compiles the session's traced loss once, lowers it
// into the primitives of the one table (micrograd/trace/prims.py) and hands the program
// and the session's data here; this port runs it with the page's executor
// (static/lowered/executor.js) over Float64Arrays and hands back numbers. It knows no
// calculus and no Playground: programs, tables of rows, and the executor's calls.
//
//   import { load } from "./static/lowered/executor.js";
//   const port = executorPort(load);   // given to Python: lowered_play.install(port)
//
// Numbers cross as Float64Arrays (a Python buffer arrives as a PyProxy whose buffer is
// copied; a Float64Array returned is read by Python as a buffer): every bit kept, nan
// and -0 too. `timing()` gives the milliseconds spent inside the executor since the
// last call (what the benchmark reports as the executor's share of a step).

/** A copy of numbers as a Float64Array: from a Float64Array, a Python buffer (a PyProxy),
 * a Python list or a plain array. */
function f64(x) {
  if (x instanceof Float64Array) return x.slice();
  if (x && typeof x.getBuffer === "function") {
    const b = x.getBuffer("f64");
    try {
      return b.data.slice();
    } finally {
      b.release();
    }
  }
  if (x && typeof x.toJs === "function") return Float64Array.from(x.toJs());
  return Float64Array.from(x);
}

/** A program's table `key`: all its rows, or those picked (row indices), row after row. */
function rows(p, key, pick) {
  const t = p.tables.get(key);
  if (!t) throw new Error(`no table ${JSON.stringify(key)}`);
  if (pick === null || pick === undefined) return t.X;
  const idx = f64(pick);
  const w = t.width;
  const X = new Float64Array(idx.length * w);
  for (let i = 0; i < idx.length; i++) X.set(t.X.subarray(idx[i] * w, idx[i] * w + w), i * w);
  return X;
}

/** The time spent inside the executor: `timed(f)` runs f and adds its milliseconds to
 * `sinceLast` (read and cleared by the port's timing()) and to `total`. */
function executorClock() {
  const clock = { sinceLast: 0, total: 0 };
  clock.timed = (f) => {
    const t0 = performance.now();
    try {
      return f();
    } finally {
      const ms = performance.now() - t0;
      clock.sinceLast += ms;
      clock.total += ms;
    }
  };
  return clock;
}

/** One forward and backward pass of the loss `fn` over X: [the loss, then its gradient]. */
function lossAndGrads(executor, fn, X) {
  const { value } = executor.run(fn, X, { backward: true });
  const out = new Float64Array(1 + executor.grads.length);
  out[0] = value;
  out.set(executor.grads, 1);
  return out;
}

/** A training step of the loss `fn` over one row X at the rate lr: forward and backward,
 * then, only when the loss is finite, the optimizer's update (its state's lr set first).
 * The loss, or NaN with the parameters and the optimizer's state unchanged. */
function trainStep(executor, fn, X, lr) {
  const { value } = executor.run(fn, X, { backward: true });
  if (!Number.isFinite(value)) return NaN;
  executor.state.lr[0] = lr;
  executor.update(fn, 1);
  return value;
}

/** Outputs (B numbers each) one after another in one Float64Array. */
function concatenated(outs) {
  const B = outs.length ? outs[0].length : 0;
  const out = new Float64Array(outs.length * B);
  outs.forEach((o, j) => out.set(o, j * B));
  return out;
}

export function executorPort(load) {
  const programs = new Map();
  let next = 1;
  const clock = executorClock();
  const program = (id) => {
    const p = programs.get(id);
    if (!p) throw new Error(`no lowered program ${id}`);
    return p;
  };

  return {
    /** Load a lowered program (its JSON text): an id. */
    load(text) {
      const id = next++;
      programs.set(id, { executor: clock.timed(() => load(String(text))), tables: new Map() });
      return id;
    },
    /** Forget a program and its tables. */
    drop(id) {
      programs.delete(id);
    },
    /** Keep a table of rows (numbers row by row, `width` a row) under `key`. */
    table(id, key, values, width) {
      const X = f64(values);
      if (!Number.isInteger(width) || width < 1 || X.length % width) {
        throw new Error(`table ${key}: ${X.length} numbers are not rows of ${width}`);
      }
      program(id).tables.set(String(key), { X, width });
    },
    /** Put numbers into the parameters. */
    setParams(id, values) {
      const p = program(id);
      clock.timed(() => p.executor.setParams(f64(values)));
    },
    /** Forward and backward of the loss `fn` over the table's rows (all, or those
     * picked): [the batch's loss, then d loss / d each parameter]. */
    grad(id, fn, key, pick) {
      const p = program(id);
      const X = rows(p, key, pick);
      return clock.timed(() => lossAndGrads(p.executor, fn, X));
    },
    /** One training step of the loss `fn` (a program lowered with its optimizer) on
     * one row of inputs, `values`, at the learning rate `lr`: the loss, the parameters
     * and the optimizer's state updated; or NaN (a loss not finite), nothing updated. */
    train(id, fn, values, lr) {
      const p = program(id);
      const X = f64(values);
      return clock.timed(() => trainStep(p.executor, fn, X, Number(lr)));
    },
    /** A copy of the parameters (after the steps trained here). */
    params(id) {
      return program(id).executor.params.slice();
    },
    /** The outputs of `fn` at every row of the table (or at `values`, rows of its
     * inputs, when key is null), from output `first` on (negative: from the end): one
     * Float64Array, output after output (B each). */
    evaluate(id, fn, key, values, first = 0) {
      const p = program(id);
      const X = key === null || key === undefined ? f64(values) : rows(p, key, null);
      return clock.timed(() => concatenated(p.executor.evaluate(fn, X).slice(first)));
    },
    /** Milliseconds spent in the executor since the port was made. */
    get executorMs() {
      return clock.total;
    },
    /** Milliseconds spent in the executor since the last call. */
    timing() {
      const ms = clock.sinceLast;
      clock.sinceLast = 0;
      return ms;
    },
  };
}

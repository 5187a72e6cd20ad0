// The Playground's runner port: the JavaScript side of a session that trains through a
// lowered program, next to Pyodide in the static site's worker.
//
// Python (micrograd.web.play_runner) compiles the session's traced loss once, lowers it
// into the primitives of the one table (micrograd/trace/prims.py) and hands the program
// and the session's data here; this port runs it with the page's runner
// (static/runner/runner.js) over Float64Arrays and hands back numbers. It knows no
// calculus and no Playground: programs, tables of rows, and the runner's calls.
//
//   import { load } from "./static/runner/runner.js";
//   const port = runnerPort(load);     // given to Python: play_runner.install(port)
//
// Numbers cross as Float64Arrays (a Python buffer arrives as a PyProxy whose buffer is
// copied; a Float64Array returned is read by Python as a buffer): every bit kept, nan
// and -0 too. `timing()` gives the milliseconds spent inside the runner since the last
// call (what the benchmark reports as the runner's share of a step).

export function runnerPort(load) {
  const programs = new Map();
  let next = 1;
  let runnerMs = 0;
  let runnerTotal = 0;

  const f64 = (x) => {  // a copy, as a Float64Array
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
  };
  const program = (id) => {
    const p = programs.get(id);
    if (!p) throw new Error(`no lowered program ${id}`);
    return p;
  };
  const rows = (p, key, pick) => {  // the table's rows, or those picked (indices)
    const t = p.tables.get(key);
    if (!t) throw new Error(`no table ${JSON.stringify(key)}`);
    if (pick === null || pick === undefined) return t.X;
    const idx = f64(pick);
    const w = t.width;
    const X = new Float64Array(idx.length * w);
    for (let i = 0; i < idx.length; i++) X.set(t.X.subarray(idx[i] * w, idx[i] * w + w), i * w);
    return X;
  };
  const timed = (f) => {
    const t0 = performance.now();
    try {
      return f();
    } finally {
      const ms = performance.now() - t0;
      runnerMs += ms;
      runnerTotal += ms;
    }
  };

  return {
    /** Load a lowered program (its JSON text): an id. */
    load(text) {
      const id = next++;
      programs.set(id, { runner: timed(() => load(String(text))), tables: new Map() });
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
      timed(() => p.runner.setParams(f64(values)));
    },
    /** Forward and backward of the loss `fn` over the table's rows (all, or those
     * picked): [the batch's loss, then d loss / d each parameter]. */
    grad(id, fn, key, pick) {
      const p = program(id);
      const X = rows(p, key, pick);
      return timed(() => {
        const { value } = p.runner.run(fn, X, { backward: true });
        const out = new Float64Array(1 + p.runner.grads.length);
        out[0] = value;
        out.set(p.runner.grads, 1);
        return out;
      });
    },
    /** The outputs of `fn` at every row of the table (or at `values`, rows of its
     * inputs, when key is null), from output `first` on (negative: from the end): one
     * Float64Array, output after output (B each). */
    evaluate(id, fn, key, values, first = 0) {
      const p = program(id);
      const X = key === null || key === undefined ? f64(values) : rows(p, key, null);
      return timed(() => {
        const outs = p.runner.evaluate(fn, X).slice(first);
        const B = outs.length ? outs[0].length : 0;
        const out = new Float64Array(outs.length * B);
        outs.forEach((o, j) => out.set(o, j * B));
        return out;
      });
    },
    /** Milliseconds spent in the runner since the port was made. */
    get runnerMs() {
      return runnerTotal;
    },
    /** Milliseconds spent in the runner since the last call. */
    timing() {
      const ms = runnerMs;
      runnerMs = 0;
      return ms;
    },
  };
}

/* The executor of lowered micrograd programs: a traced model's forward pass, its backward
 * pass and its optimizer's update, over Float64Arrays, outside Python.
 *
 * Python writes the program (micrograd.trace.lower: every op's forward and its one
 * derivative rule, from micrograd's op table, lowered into the primitives of ONE table,
 * micrograd/trace/prims.py). This module implements exactly those primitives (KERNELS:
 * a test holds the two lists equal) and runs the instructions in order; it knows no
 * calculus, so it cannot drift from the engine.
 *
 *   import { load } from "./executor.js";
 *   const r = load(wire);                       // the JSON text or its parsed object
 *   const loss = r.step("loss", X);             // forward, backward, update; X: B rows
 *   const [score] = r.evaluate("probe", grid);  // outputs, one Float64Array each
 *   r.params, r.grads, r.state.m                // live Float64Arrays
 *
 * Numbers follow IEEE 754 as NumPy does, where JavaScript's Math differs from C: pow
 * is C99's (pow(1, nan) = 1 and pow(-1, +-inf) = 1, where Math.pow gives NaN); sign is
 * written with comparisons (micrograd's sign(-0) = sign(nan) = 0, where Math.sign keeps
 * -0 and NaN). An ES module with no dependencies and no globals.
 */

/* C99 pow: JavaScript's Math.pow differs only for a base of +1 (any exponent, nan too)
 * and a base of -1 with an infinite exponent, where C gives 1. */
const cpow = (x, y) =>
  (x === 1 || (x === -1 && (y === Infinity || y === -Infinity))) ? 1 : Math.pow(x, y);

/* IEEE round to integral, ties to even (C's rint under the default rounding mode):
 * Math.round rounds ties up, so a tie that lands on an odd number steps back one. The
 * sign of a zero is kept (Math.round(-0.4) is -0); inf and nan pass through. */
const rint = (x) => {
  const r = Math.round(x);
  return (r - x === 0.5 && r % 2 !== 0) ? r - 1 : r;
};

/* The row primitives (micrograd.trace.lowering_groups, wire version 2): buffers are
 * rows, of w numbers (B, one per sample) or of one number. kernel(out, operands, n, w):
 * each operand [array, its row width] (an index list or a list of factors: width 1),
 * out written in rows of w. A row of one number read into a row of w is broadcast; added
 * into a row of one number (scatter_add), a row of w is added as its total. */
const ROW_KERNELS = {
  gather: (o, [[a, wa], [idx]], n, w) => {
    for (let r = 0; r < idx.length; r++) {
      const s = idx[r] * wa, d = r * w;
      if (wa === w) for (let b = 0; b < w; b++) o[d + b] = a[s + b];
      else o.fill(a[s], d, d + w);
    }
  },
  scatter_add: (o, [[a, wa], [idx]], n, w) => {
    const k = a.length / wa, fan = idx.length / k;
    for (let r = 0; r < k; r++) {
      const s = r * wa;
      if (wa === w) {
        for (let j = r * fan; j < (r + 1) * fan; j++) {
          const d = idx[j] * w;
          for (let b = 0; b < w; b++) o[d + b] += a[s + b];
        }
      } else {
        let t = a[s];
        for (let b = 1; b < wa; b++) t += a[s + b];
        for (let j = r * fan; j < (r + 1) * fan; j++) o[idx[j]] += t;
      }
    }
  },
  wscatter_add: (o, [[a, wa], [idx], [c]], n, w) => {
    const k = a.length / wa, fan = idx.length / k;
    for (let r = 0; r < k; r++) {
      for (let j = r * fan; j < (r + 1) * fan; j++) {
        const d = idx[j] * w, f = c[j];
        for (let b = 0; b < w; b++) o[d + b] += f * a[r * wa + b];
      }
    }
  },
  sum_rows: (o, [[a, wa], [idx]], n, w) => {
    const k = o.length / w, fan = idx.length / k;
    for (let r = 0; r < k; r++) {
      const d = r * w, s0 = idx[r * fan] * wa;
      for (let b = 0; b < w; b++) o[d + b] = a[s0 + b];
      for (let j = r * fan + 1; j < (r + 1) * fan; j++) {
        const s = idx[j] * wa;
        for (let b = 0; b < w; b++) o[d + b] += a[s + b];
      }
    }
  },
  wsum_rows: (o, [[a, wa], [idx], [c]], n, w) => {
    const k = o.length / w, fan = idx.length / k;
    for (let r = 0; r < k; r++) {
      const d = r * w, s0 = idx[r * fan] * wa, f0 = c[r * fan];
      for (let b = 0; b < w; b++) o[d + b] = f0 * a[s0 + b];
      for (let j = r * fan + 1; j < (r + 1) * fan; j++) {
        const s = idx[j] * wa, f = c[j];
        for (let b = 0; b < w; b++) o[d + b] += f * a[s + b];
      }
    }
  },
  // dense*: `at` (from compile) is idx[0] when the index list counts up by one (a layer's
  // weights, row by row), else -1: the weights are then read without the list
  dense: (o, [[x, wx], [W], [idx]], n, w, at) => {  // x: m rows (of one number: broadcast)
    const k = o.length / w, m = x.length / wx, step = wx === w ? 1 : 0;
    for (let r = 0; r < k; r++) {
      const d = r * w, row = r * m;
      if (w === 1) {  // one number a row: a dot product, left to right
        let t = (at >= 0 ? W[at + row] : W[idx[row]]) * x[0];
        for (let j = 1; j < m; j++) t += (at >= 0 ? W[at + row + j] : W[idx[row + j]]) * x[j * wx];
        o[d] = t;
        continue;
      }
      for (let j = 0; j < m; j++) {
        const v = at >= 0 ? W[at + row + j] : W[idx[row + j]], s = j * wx;
        if (j === 0) for (let b = 0; b < w; b++) o[d + b] = v * x[s + b * step];
        else for (let b = 0; b < w; b++) o[d + b] += v * x[s + b * step];
      }
    }
  },
  dense_dw: (o, [[g, wg], [x, wx], [idx]], n, w, at) => {
    const k = g.length / wg, m = idx.length / k, step = wx === wg ? 1 : 0;
    for (let r = 0; r < k; r++) {
      const row = r * m;
      if (wg === 1) {
        const gr = g[r];
        if (at >= 0) for (let j = 0; j < m; j++) o[at + row + j] += gr * x[j * wx];
        else for (let j = 0; j < m; j++) o[idx[row + j]] += gr * x[j * wx];
        continue;
      }
      for (let j = 0; j < m; j++) {
        const s = j * wx;
        let t = g[r * wg] * x[s];
        for (let b = 1; b < wg; b++) t += g[r * wg + b] * x[s + b * step];
        o[idx[row + j]] += t;
      }
    }
  },
  dense_dx: (o, [[g, wg], [W], [idx]], n, w, at) => {
    const k = g.length / wg, m = o.length / w;
    for (let r = 0; r < k; r++) {
      const row = r * m, s = r * wg;
      if (w === 1) {
        const gr = g[r];
        if (r === 0) for (let j = 0; j < m; j++) o[j] = (at >= 0 ? W[at + j] : W[idx[j]]) * gr;
        else for (let j = 0; j < m; j++) o[j] += (at >= 0 ? W[at + row + j] : W[idx[row + j]]) * gr;
        continue;
      }
      for (let j = 0; j < m; j++) {
        const v = W[idx[row + j]], d = j * w;
        if (r === 0) for (let b = 0; b < w; b++) o[d + b] = v * g[s + b];
        else for (let b = 0; b < w; b++) o[d + b] += v * g[s + b];
      }
    }
  },
};

/* prim -> kernel(out, operands, n): writes out[0..n) from operands, each [array, stride]
 * (stride 0: one element, broadcast). One line of semantics each, as in prims.py. */
export const KERNELS = Object.freeze({
  const: (o, [[v]], n) => { o.fill(v, 0, n); },
  copy: (o, [[a, sa]], n) => { for (let i = 0; i < n; i++) o[i] = a[i * sa]; },
  neg: (o, [[a, sa]], n) => { for (let i = 0; i < n; i++) o[i] = -a[i * sa]; },
  abs: (o, [[a, sa]], n) => { for (let i = 0; i < n; i++) o[i] = Math.abs(a[i * sa]); },
  add: (o, [[a, sa], [b, sb]], n) => { for (let i = 0; i < n; i++) o[i] = a[i * sa] + b[i * sb]; },
  sub: (o, [[a, sa], [b, sb]], n) => { for (let i = 0; i < n; i++) o[i] = a[i * sa] - b[i * sb]; },
  mul: (o, [[a, sa], [b, sb]], n) => {
    if (sa === 0 && sb === 1) { const x = a[0]; for (let i = 0; i < n; i++) o[i] = x * b[i]; return; }
    if (sa === 1 && sb === 1) { for (let i = 0; i < n; i++) o[i] = a[i] * b[i]; return; }
    for (let i = 0; i < n; i++) o[i] = a[i * sa] * b[i * sb];
  },
  div: (o, [[a, sa], [b, sb]], n) => { for (let i = 0; i < n; i++) o[i] = a[i * sa] / b[i * sb]; },
  sqrt: (o, [[a, sa]], n) => { for (let i = 0; i < n; i++) o[i] = Math.sqrt(a[i * sa]); },
  exp: (o, [[a, sa]], n) => { for (let i = 0; i < n; i++) o[i] = Math.exp(a[i * sa]); },
  log: (o, [[a, sa]], n) => { for (let i = 0; i < n; i++) o[i] = Math.log(a[i * sa]); },
  log1p: (o, [[a, sa]], n) => { for (let i = 0; i < n; i++) o[i] = Math.log1p(a[i * sa]); },
  tanh: (o, [[a, sa]], n) => { for (let i = 0; i < n; i++) o[i] = Math.tanh(a[i * sa]); },
  sin: (o, [[a, sa]], n) => { for (let i = 0; i < n; i++) o[i] = Math.sin(a[i * sa]); },
  cos: (o, [[a, sa]], n) => { for (let i = 0; i < n; i++) o[i] = Math.cos(a[i * sa]); },
  pow: (o, [[a, sa], [b, sb]], n) => { for (let i = 0; i < n; i++) o[i] = cpow(a[i * sa], b[i * sb]); },
  rint: (o, [[a, sa]], n) => { for (let i = 0; i < n; i++) o[i] = rint(a[i * sa]); },
  lt: (o, [[a, sa], [b, sb]], n) => { for (let i = 0; i < n; i++) o[i] = a[i * sa] < b[i * sb] ? 1 : 0; },
  le: (o, [[a, sa], [b, sb]], n) => { for (let i = 0; i < n; i++) o[i] = a[i * sa] <= b[i * sb] ? 1 : 0; },
  gt: (o, [[a, sa], [b, sb]], n) => { for (let i = 0; i < n; i++) o[i] = a[i * sa] > b[i * sb] ? 1 : 0; },
  ge: (o, [[a, sa], [b, sb]], n) => { for (let i = 0; i < n; i++) o[i] = a[i * sa] >= b[i * sb] ? 1 : 0; },
  eq: (o, [[a, sa], [b, sb]], n) => { for (let i = 0; i < n; i++) o[i] = a[i * sa] === b[i * sb] ? 1 : 0; },
  select: (o, [[c, sc], [a, sa], [b, sb]], n) => {
    for (let i = 0; i < n; i++) o[i] = c[i * sc] !== 0 ? a[i * sa] : b[i * sb];
  },
  sum: (o, xs, n) => {  // left to right, element by element (out may be an operand)
    // operand by operand into a row of partial sums: each element's additions in the
    // same order, so the same bits
    const acc = xs.some(([a], j) => j > 0 && a === o) ? new Float64Array(n) : o;
    const [a0, s0] = xs[0];
    if (s0 === 1) { if (acc !== a0) acc.set(a0.subarray(0, n)); } else acc.fill(a0[0], 0, n);
    for (let j = 1; j < xs.length; j++) {
      const [a, sa] = xs[j];
      if (sa === 1) for (let i = 0; i < n; i++) acc[i] += a[i];
      else { const x = a[0]; for (let i = 0; i < n; i++) acc[i] += x; }
    }
    if (acc !== o) o.set(acc);
  },
  total: (o, [[a]]) => {  // one number: a's elements added left to right
    let s = a.length ? a[0] : 0;
    for (let i = 1; i < a.length; i++) s += a[i];
    o[0] = s;
  },
  ...ROW_KERNELS,
});

/** The primitives this executor implements (the names of KERNELS). */
export const PRIMS = Object.freeze(Object.keys(KERNELS));

/** Operands per primitive: a count, or -1 (one or more); const reads a number. */
export const ARITY = Object.freeze({
  const: 0, copy: 1, neg: 1, abs: 1, rint: 1, sqrt: 1, exp: 1, log: 1, log1p: 1, tanh: 1, sin: 1,
  cos: 1, total: 1, add: 2, sub: 2, mul: 2, div: 2, pow: 2, lt: 2, le: 2, gt: 2, ge: 2,
  eq: 2, select: 3, sum: -1, gather: 2, scatter_add: 2, wscatter_add: 3, sum_rows: 2,
  wsum_rows: 3, dense: 3, dense_dw: 3, dense_dx: 3,
});

const FORMAT = "micrograd-lowered";
const VERSIONS = [1, 2];  // 2: the grouped lowering (rows, index lists, ROW_KERNELS)

/** A number as the wire writes it: a JSON number, or "inf", "-inf", "nan". */
function decode(x) {
  if (typeof x === "number") return x;
  if (x === "inf") return Infinity;
  if (x === "-inf") return -Infinity;
  if (x === "nan") return NaN;
  throw new Error(`not a number of the wire: ${JSON.stringify(x)}`);
}

function filled(size, init, what) {
  if (!Number.isInteger(size) || size < 0) throw new Error(`${what}: bad size ${size}`);
  const a = new Float64Array(size);
  if (init !== undefined) {
    if (!Array.isArray(init) || init.length !== size) {
      throw new Error(`${what}: init must be ${size} numbers`);
    }
    for (let i = 0; i < size; i++) a[i] = decode(init[i]);
  }
  return a;
}

/** Load a lowered program (the JSON text or its parsed object): a LoweredExecutor. */
export function load(wire) {
  return new LoweredExecutor(typeof wire === "string" ? JSON.parse(wire) : wire);
}

export class LoweredExecutor {
  constructor(wire) {
    if (!wire || wire.format !== FORMAT || !VERSIONS.includes(wire.version)) {
      throw new Error(`not a lowered program of format ${FORMAT} version ${VERSIONS.join(" or ")}`);
    }
    this.version = wire.version;
    const n = wire.params.size;
    /** the parameters and their gradients (the last backward's), live */
    this.params = filled(n, wire.params.init, "params");
    this.grads = new Float64Array(n);
    /** the optimizer's state by name (t: steps taken, lr, and its vectors), live */
    this.state = {};
    this.globals = new Map([["P", this.params], ["G", this.grads]]);
    for (const [name, s] of Object.entries(wire.state || {})) {
      if (this.globals.has(name)) throw new Error(`state ${name} is declared twice`);
      this.state[name] = filled(s.size, s.init, `state ${name}`);
      this.globals.set(name, this.state[name]);
    }
    this.optimizer = wire.optimizer || null;
    this.functions = wire.functions;
    this.frames = new Map();  // "name/B" -> the compiled function for a batch of B
    for (const name of Object.keys(this.functions)) this.frame(name, 1);  // checks it
  }

  /** Copy numbers into the parameters (an array or Float64Array of params.length). */
  setParams(values) {
    if (values.length !== this.params.length) {
      throw new Error(`setParams: ${this.params.length} numbers expected, got ${values.length}`);
    }
    this.params.set(values);
  }

  /** Forward over a batch: X holds B rows of the function's inputs (a Float64Array,
   * row by row). Returns {outputs: a Float64Array of B per output, value: the loss
   * (a loss function) or null}. {backward: true} also fills grads; {update: true}
   * (after backward) applies the optimizer. */
  run(name, X, { backward = false, update = false } = {}) {
    const fn = this.functions[name];
    if (!fn) throw new Error(`no function ${JSON.stringify(name)} in this program`);
    const k = fn.inputs;
    if (!(X instanceof Float64Array)) throw new TypeError("X must be a Float64Array");
    const B = k ? X.length / k : 1;
    if (!Number.isInteger(B) || B < 1) {
      throw new Error(`X holds ${X.length} numbers: not a whole number of rows of ${k}`);
    }
    const f = this.frame(name, B);
    for (let j = 0; j < k; j++) {
      const col = f.inputs[j];
      for (let i = 0; i < B; i++) col[i] = X[i * k + j];
    }
    for (const op of f.forward) op();
    if (backward || update) {
      if (!f.backward) throw new Error(`function ${name} is not a loss: it has no backward`);
      for (const op of f.backward) op();
    }
    if (update) {
      if (!f.update) throw new Error(`function ${name} was lowered without an optimizer`);
      for (const op of f.update) op();
    }
    return { outputs: f.outputs.map((o) => o.slice()), value: f.value ? f.value[0] : null };
  }

  /** One training step on the batch X: forward, backward, update; the loss before it. */
  step(name, X) {
    return this.run(name, X, { backward: true, update: true }).value;
  }

  /** The optimizer's update after a backward of `name` over B rows (run with
   * {backward: true}): what step does last, apart, so a caller can look at the loss
   * first and leave the parameters as they are. */
  update(name, B = 1) {
    const f = this.frame(name, B);
    if (!f.update) throw new Error(`function ${name} was lowered without an optimizer`);
    for (const op of f.update) op();
  }

  /** The function's outputs on X (one Float64Array per output). */
  evaluate(name, X) {
    return this.run(name, X).outputs;
  }

  /* The function compiled for a batch of B: its buffers and one closure per
   * instruction, each reading and writing fixed arrays. */
  frame(name, B) {
    const key = `${name}/${B}`;
    let f = this.frames.get(key);
    if (f) return f;
    if (this.frames.size > 16) this.frames.clear();  // batch sizes come and go
    const fn = this.functions[name];
    const where = (what) => `function ${name}: ${what}`;
    const { bufs, widths } = this.buffers(fn, B, where);
    const inputs = [];
    const rowsOf = fn.inputs_at === undefined ? null : bufs.get(fn.inputs_at);
    if (fn.inputs_at !== undefined && (!rowsOf || widths.get(fn.inputs_at) !== B
        || rowsOf.length < fn.inputs * B)) {
      throw new Error(where(`inputs_at ${JSON.stringify(fn.inputs_at)}: no rows of B for them`));
    }
    for (let j = 0; j < fn.inputs; j++) {
      const col = rowsOf ? rowsOf.subarray(j * B, (j + 1) * B) : new Float64Array(B);
      inputs.push(col);
      if (!rowsOf) bufs.set(`in${j}`, col);
    }
    const operand = (r) => this.operand(r, bufs, widths, where);
    const compile = (ins, at) => this.compile(ins, at, operand, where);
    const section = (code, what) =>
      code ? code.map((ins, i) => compile(ins, `${what}[${i}]`)) : null;
    f = {
      inputs,
      forward: section(fn.forward, "forward"),
      backward: section(fn.backward, "backward"),
      update: section(fn.update, "update"),
      outputs: fn.outputs.map((r) => operand(r)[0]),
      value: fn.value === undefined ? null : operand(fn.value)[0],
    };
    this.frames.set(key, f);
    return f;
  }

  /* A function's buffers for a batch of B, and the width of each one's rows: B for a
   * size written with B ("B", "kB": k rows of B), else 1. Version 2's index lists and
   * factors are buffers too (Int32Array, Float64Array), read by name. */
  buffers(fn, B, where) {
    const bufs = new Map([["B", Float64Array.of(B)]]);
    const widths = new Map([["B", 1]]);
    for (let j = 0; j < fn.inputs; j++) widths.set(`in${j}`, B);
    const declare = (b, a, w) => {
      if (bufs.has(b) || this.globals.has(b)) throw new Error(where(`buffer ${b} declared twice`));
      bufs.set(b, a);
      widths.set(b, w);
    };
    for (const [b, size] of Object.entries(fn.buffers)) {
      const rows = typeof size === "string" && this.version >= 2 ? /^(\d*)B$/.exec(size) : null;
      if (size === "B" || rows) {
        declare(b, new Float64Array((rows && rows[1] !== "" ? Number(rows[1]) : 1) * B), B);
      } else {
        if (!Number.isInteger(size) || size < 0) throw new Error(where(`buffer ${b}: bad size ${size}`));
        declare(b, new Float64Array(size), 1);
      }
    }
    for (const [b, list] of Object.entries(fn.indices || {})) {
      if (!Array.isArray(list) || !list.every((i) => Number.isInteger(i) && i >= 0)) {
        throw new Error(where(`index list ${b}: not a list of indices`));
      }
      declare(b, Int32Array.from(list), 1);
    }
    for (const [b, list] of Object.entries(fn.coefs || {})) {
      if (!Array.isArray(list)) throw new Error(where(`factors ${b}: not a list`));
      declare(b, Float64Array.from(list, decode), 1);
    }
    return { bufs, widths };
  }

  /* An operand: [array, the width of its rows]. A name; [name, i], one element of a
   * vector; or (version 2) [name, r0, r1], the rows r0..r1 of a buffer. */
  operand(r, bufs, widths, where) {
    if (!Array.isArray(r)) {
      const a = bufs.get(r) || this.globals.get(r);
      if (!a) throw new Error(where(`no buffer ${JSON.stringify(r)}`));
      return [a, bufs.has(r) ? widths.get(r) : 1];
    }
    const [b, i, end] = r;
    const a = bufs.get(b) || this.globals.get(b);
    const w = bufs.has(b) ? widths.get(b) : 1;
    if (r.length === 3 && this.version >= 2) {
      if (!a || !Number.isInteger(i) || !Number.isInteger(end) || i < 0 || end < i
          || end * w > a.length) {
        throw new Error(where(`no rows ${JSON.stringify(r)}`));
      }
      return [a.subarray(i * w, end * w), w];
    }
    if (r.length !== 2 || !a || !Number.isInteger(i) || i < 0 || i >= a.length) {
      throw new Error(where(`no element ${JSON.stringify(r)}`));
    }
    return [a.subarray(i, i + 1), 1];
  }

  /* One instruction as a closure over its arrays, its operands checked once. */
  compile(ins, at, operand, where) {
    const [prim, out, ...args] = ins;
    const kernel = KERNELS[prim];
    if (!kernel || (ROW_KERNELS[prim] && this.version < 2)) {
      throw new Error(where(`unknown primitive ${JSON.stringify(prim)} at ${at}`));
    }
    const arity = prim === "const" ? 1 : ARITY[prim];  // const: its number
    if (arity >= 0 ? args.length !== arity : args.length < 1) {
      throw new Error(where(`${prim} with ${args.length} operands at ${at}`));
    }
    const [o, w] = operand(out);
    const n = o.length;
    if (prim === "const") {
      const v = decode(args[0]);
      return () => kernel(o, [[v]], n);
    }
    if (ROW_KERNELS[prim]) {
      const xs = args.map(operand);
      const bad = checkRows(prim, o, w, xs);
      if (bad) throw new Error(where(`${prim} at ${at}: ${bad}`));
      const idx = xs[xs.length - 1][0];
      const from = prim.startsWith("dense") && idx.every((v, t) => v === idx[0] + t) ? idx[0] : -1;
      return () => kernel(o, xs, n, w, from);
    }
    const xs = args.map((r) => {
      const [a] = operand(r);
      if (prim !== "total" && a.length !== n && a.length !== 1) {
        throw new Error(where(`${prim} at ${at}: an operand of ${a.length} for ${n}`));
      }
      return [a, a.length === 1 ? 0 : 1];
    });
    if (prim === "total" && n !== 1) throw new Error(where(`total at ${at} into ${n}`));
    return () => kernel(o, xs, n);
  }
}

/* What is wrong with a row instruction's operands (out o of rows of w), or null: the
 * rows must divide evenly and every index must fall inside the rows it names. */
function checkRows(prim, o, w, xs) {
  const inside = (idx, rows) => idx.every((i) => i < rows) ? null : `an index past ${rows} rows`;
  const [[a, wa], [b]] = xs;
  const idx = prim.startsWith("dense") ? xs[2][0] : b;  // dense*: [x or g, W or x, idx]
  const c = prim.startsWith("w") ? xs[2][0] : null;
  switch (prim) {
    case "gather":
      if (idx.length * w !== o.length || (wa !== w && wa !== 1)) return "rows do not match";
      return inside(idx, a.length / wa);
    case "scatter_add": case "wscatter_add": {
      const k = a.length / wa;
      if (!Number.isInteger(k) || k === 0 || idx.length % k || (wa !== w && (w !== 1 || c))
          || (c && c.length !== idx.length)) return "rows do not match";
      return inside(idx, o.length / w);
    }
    case "sum_rows": case "wsum_rows": {
      const k = o.length / w;
      if (wa !== w || k === 0 || idx.length % k || (c && c.length !== idx.length)) {
        return "rows do not match";
      }
      return inside(idx, a.length / wa);
    }
    case "dense": case "dense_dx": {  // [x or g, W, idx]
      const k = prim === "dense" ? o.length / w : a.length / wa;
      const m = prim === "dense" ? a.length / wa : o.length / w;
      if (!Number.isInteger(k) || !Number.isInteger(m) || idx.length !== k * m
          || (wa !== w && (prim === "dense_dx" || wa !== 1))) return "rows do not match";
      return inside(idx, b.length);
    }
    default: {  // dense_dw: [g, x, idx] into a vector
      const [x, wx] = xs[1];
      const k = a.length / wa, m = x.length / wx;
      if (!Number.isInteger(k) || idx.length !== k * m || (wx !== wa && wx !== 1) || w !== 1) {
        return "rows do not match";
      }
      return inside(idx, o.length);
    }
  }
}

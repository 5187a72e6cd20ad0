// Runs lowered micrograd programs with the page's JavaScript executor, for the tests.
//
//   node tests/run_lowered.mjs < jobs.json > results.json
//
// stdin: {"jobs": [{"program": <wire>, "calls": [call, ...]}, ...]} where a call is
//   {"fn": name, "X": <base64 float64>, "mode": "evaluate" | "grad" | "step",
//    "params": <base64 float64> (optional: set before the call)}
// stdout: {"prims": [...], "arity": {...}, "results": [[{"outputs": [<b64>...], "value": <b64>,
//   "grads": <b64>, "params": <b64>}, ...], ...]} (failures: {"error": message}).
// Float64 arrays travel as base64 of their bytes, so every bit (-0, nan) arrives.
import { ARITY, PRIMS, load } from "../src/micrograd/web/static/lowered/executor.js";

const b64 = (a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString("base64");
const f64 = (s) => {
  const bytes = Buffer.from(s, "base64");
  return new Float64Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
};

function call(r, c) {
  if (c.params !== undefined) r.setParams(f64(c.params));
  const X = f64(c.X);
  const opts = { backward: c.mode !== "evaluate", update: c.mode === "step" };
  const { outputs, value } = r.run(c.fn, X, opts);
  return {
    outputs: outputs.map(b64),
    value: value === null ? null : b64(Float64Array.of(value)),
    grads: b64(r.grads),
    params: b64(r.params),
  };
}

let text = "";
for await (const chunk of process.stdin) text += chunk;
const { jobs } = JSON.parse(text);
const results = jobs.map((job) => {
  let r;
  try {
    r = load(job.program);
  } catch (e) {
    return [{ error: String(e.message || e) }];
  }
  return job.calls.map((c) => {
    try {
      return call(r, c);
    } catch (e) {
      return { error: String(e.message || e) };
    }
  });
});
process.stdout.write(JSON.stringify({ prims: PRIMS, arity: ARITY, results }));

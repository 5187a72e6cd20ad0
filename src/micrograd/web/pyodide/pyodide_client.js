// The page's side of the static site's Python (pyodide_worker.js, a module Web Worker
// running micrograd in Pyodide): start it, follow its loading, call it.
//
//   import { startPython } from "./pyodide_client.js";
//   const python = startPython({ onProgress: (text) => ... });
//   const meta = await python.ready;                  // {python, micrograd, seconds, ...}
//   const data = await python.call("walk.build", {}); // a PythonError if refused
//
// A call resolves with the answer's data, or rejects with a PythonError whose kind says
// why (a handler's kind: "invalid", "refused", "not_found", "lost", "busy"; or
// "unknown", "stopped", "internal", "unavailable", "load"; `.error` is the whole error); an
// AbortSignal given as {signal} stops its job between two turns. Relative URLs only:
// the site works under any path. No globals.

export class PythonError extends Error {
  constructor(error) {
    super(error.message);
    this.name = "PythonError";
    this.kind = error.kind;
    this.error = error;  // all of it: a handler's refusal adds field, free...
  }
}

/** Put an answer's long float lists back (the worker sends them apart, as one
 * Float64Array `floats`; the answer's "floats" lists their places: [path, count]),
 * each as an Array of the same numbers; returns the answer as JSON.parse would have
 * read it whole. */
export function placeFloats(answer, floats) {
  const places = answer.floats;
  delete answer.floats;
  if (!places) return answer;
  let at = 0;
  for (const [path, n] of places) {
    const keys = ["data", ...path];
    let holder = answer;
    for (const key of keys.slice(0, -1)) holder = holder[key];
    holder[keys[keys.length - 1]] = Array.from(floats.subarray(at, at + n));
    at += n;
  }
  if (at !== floats.length) throw new Error(`${floats.length} floats sent, ${at} placed`);
  return answer;
}

// A page opened from a file (file://) cannot start a module worker or load WebAssembly.
export function servedFromFile() {
  return location.protocol === "file:";
}

export function startPython({ root = new URL("./", import.meta.url), entry, onProgress } = {}) {
  const url = new URL("pyodide_worker.js", root);
  if (entry) url.searchParams.set("entry", entry);
  const worker = new Worker(url, { type: "module" });
  const pending = new Map();
  let nextId = 1;
  let settle;
  const ready = new Promise((resolve, reject) => { settle = { resolve, reject }; });

  function failAll(error) {
    settle.reject(error);
    for (const { reject } of pending.values()) reject(error);
    pending.clear();
  }

  worker.onmessage = (event) => {
    const m = event.data;
    if ("progress" in m) {
      if (onProgress) onProgress(m.progress);
    } else if ("ready" in m) {
      settle.resolve(m.ready);
    } else if ("failed" in m) {
      failAll(new PythonError(m.failed));
    } else if (pending.has(m.id)) {
      const { resolve, reject } = pending.get(m.id);
      pending.delete(m.id);
      // an answer comes as its JSON text (and its long float lists apart)
      const answer = "text" in m ? placeFloats(JSON.parse(m.text), m.floats) : m;
      if (answer.ok) resolve(answer.data);
      else reject(new PythonError(answer.error));
    }
  };
  // the worker's module did not load (a missing file, a browser without module workers)
  worker.onerror = (event) => {
    event.preventDefault();
    failAll(new PythonError({ kind: "load", message: event.message || "the worker did not start" }));
  };

  function call(name, request = {}, { signal } = {}) {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      worker.postMessage({ id, name, request });
      if (signal) signal.addEventListener("abort", () => worker.postMessage({ stop: id }), { once: true });
    });
  }

  return { ready, call, terminate: () => worker.terminate() };
}

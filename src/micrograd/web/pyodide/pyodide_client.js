// The page's side of the static site's Python (pyodide_worker.js, a module worker
// running micrograd in Pyodide): start it (or join it), follow its loading, call it.
//
//   import { startPython } from "./pyodide_client.js";
//   const python = startPython({ onProgress: (text) => ... });
//   const python = startPython({ shared: "lesson 5f3a..." });  // join the pages named so
//   const meta = await python.ready;                  // {python, micrograd, seconds, ...}
//   const data = await python.call("walk", {}); // a PythonError if refused
//
// A call resolves with the answer's data, or rejects with a PythonError whose kind says
// why (a handler's kind: "invalid", "refused", "not_found", "lost", "busy"; or
// "unknown", "stopped", "internal", "unavailable", "load"; `.error` is the whole error); an
// AbortSignal given as {signal} stops its job between two turns. Relative URLs only:
// the site works under any path. No globals.
//
// With `shared` (a name), the worker is a module SharedWorker of that name: every page
// of the site's origin that gives the same name (the frames of one lesson) talks to one
// Python, each on its own port. Where the browser has no SharedWorker (or no module
// one), a dedicated worker of this page's own is started instead: the same answers.

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

/** The worker: {worker, port, shared}; a SharedWorker named `shared` where there is one. */
function openWorker(url, shared) {
  if (shared && typeof SharedWorker === "function") {
    try {
      const worker = new SharedWorker(url, { type: "module", name: `micrograd ${shared}` });
      return { worker, port: worker.port, shared: true };
    } catch (err) {
      // refused at once: a worker of this page's own, below
    }
  }
  const worker = new Worker(url, { type: "module" });
  return { worker, port: worker, shared: false };
}

/** Tell a shared worker when this page is gone: on pagehide (unless the page may come
 *  back from the back-forward cache) and, should that never run, by a Web Lock held for
 *  the page's life, which the worker asks for (the browser releases it with the page). */
function farewells(port) {
  window.addEventListener("pagehide", (event) => {
    if (!event.persisted) port.postMessage({ bye: true });
  });
  if (!(navigator.locks && crypto.getRandomValues)) return;
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  const lock = `micrograd page ${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
  navigator.locks.request(lock, () => {
    port.postMessage({ hello: { lock } });
    return new Promise(() => {});  // held until the page is gone
  }).catch(() => {});
}

export function startPython({ root = new URL("./", import.meta.url), entry, onProgress, shared } = {}) {
  const url = new URL("pyodide_worker.js", root);
  if (entry) url.searchParams.set("entry", entry);
  const pending = new Map();
  let nextId = 1;
  let settle;
  const ready = new Promise((resolve, reject) => { settle = { resolve, reject }; });
  let link;           // {worker, port, shared}
  let heard = false;  // the worker has spoken
  const unheard = []; // what was sent to a shared worker before it spoke

  function send(message) {
    if (link.shared && !heard) unheard.push(message);
    link.port.postMessage(message);
  }

  function failAll(error) {
    settle.reject(error);
    for (const { reject } of pending.values()) reject(error);
    pending.clear();
  }

  function hear(event) {
    const m = event.data;
    heard = true;
    unheard.length = 0;
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
  }

  // the worker's module did not load (a missing file, a browser without module
  // workers); or the browser would not start a shared worker here (a frame of another
  // site, its storage blocked): then a worker of this page's own gets what was sent
  function fail(event) {
    event.preventDefault();
    if (link.shared && !heard) {
      connect(openWorker(url, null));
      for (const message of unheard.splice(0)) link.port.postMessage(message);
      return;
    }
    failAll(new PythonError({ kind: "load", message: event.message || "the worker did not start" }));
  }

  function connect(opened) {
    link = opened;
    link.port.onmessage = hear;
    link.worker.onerror = fail;
    if (link.shared) farewells(link.port);
  }
  connect(openWorker(url, shared));

  function call(name, request = {}, { signal } = {}) {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      pending.set(id, { resolve, reject });
      send({ id, name, request });
      if (signal) signal.addEventListener("abort", () => send({ stop: id }), { once: true });
    });
  }

  function terminate() {
    if (!link.shared) return link.worker.terminate();
    link.port.postMessage({ bye: true });  // the shared worker is left to its other pages
    link.port.close();
  }

  return { ready, call, terminate, get shared() { return link.shared; } };
}

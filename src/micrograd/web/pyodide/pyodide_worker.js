// The static site's Python: a module Web Worker that runs micrograd in Pyodide.
//
// Started by the page (pyodide_client.js) as
//   new Worker(new URL("pyodide_worker.js", siteRoot), { type: "module" })
// optionally with "?entry=micrograd.module:function" to name the Python entry point
// (default below). Everything is loaded from the worker's own folder, by relative URLs:
// Pyodide's runtime from ./pyodide/, micrograd's sources from ./micrograd.zip, unpacked
// into Pyodide's file system. Nothing comes from another host.
//
// Messages (the page's side is pyodide_client.js):
//   page -> worker   {id, name, request}          call the entry point: name(request)
//                    {stop: id}                   stop that call's job between two turns
//   worker -> page   {progress: "loading Python"} while starting (then "loading
//                                                  micrograd", "importing micrograd")
//                    {ready: {python, platform, micrograd, entry, seconds}}
//                    {failed: {kind: "load", message}}   Python could not start
//                    {id, text, floats?}   text: the answer as JSON, {"ok": true,
//                                  "data": ...} or {"ok": false, "error": {kind,
//                                  message, field?...}}; floats: a Float64Array of the
//                                  answer's long float lists, their places in the text's
//                                  "floats" (micrograd.web.pyodide.calls), put back by
//                                  pyodide_client.js
//                    {id, ok: false, error: {kind, message}}   refused before Python
// Calls made before Python is ready wait for it. A call whose entry point returns a job
// (a generator) runs one turn per task of this worker's event loop, so other messages
// (a stop, another call) are taken between turns. micrograd.web.pyodide.calls says how
// Python's answers and errors become these messages.

import { loadPyodide } from "./pyodide/pyodide.mjs";
import { load as loadProgram } from "./static/runner/runner.js";
import { runnerPort } from "./play_runner.js";

const DEFAULT_ENTRY = "micrograd.web.pyodide.door:call";
const SOURCES = "micrograd.zip";
const HOME = "/home/pyodide/site";
// JSON nested deeper than this is refused before Python reads it: Python's JSON decoder
// recurses once per level, and thousands of levels overflow the WebAssembly stack.
const MAX_DEPTH = 64;

const entry = new URL(self.location.href).searchParams.get("entry") || DEFAULT_ENTRY;
const running = new Set();  // the ids of the calls in progress
const stops = new Set();    // ... and of those asked to stop

function post(message, transfer = []) {
  self.postMessage(message, transfer);
}

// The answer's long float lists (a Python array('d')) as a Float64Array of its own, or
// null when there are none.
function takeFloats(call) {
  const floats = call.floats;
  if (!floats || typeof floats.getBuffer !== "function") return null;
  try {
    if (!floats.length) return null;
    const b = floats.getBuffer("f64");
    try {
      return b.data.slice();
    } finally {
      b.release();
    }
  } finally {
    floats.destroy();
  }
}

async function start() {
  const started = performance.now();
  post({ progress: "loading Python" });
  const sources = fetch(new URL(SOURCES, import.meta.url)).then((response) => {
    if (!response.ok) throw new Error(`${SOURCES}: HTTP ${response.status}`);
    return response.arrayBuffer();
  });  // fetched while Python loads
  sources.catch(() => {});  // (reported below, once awaited)
  const pyodide = await loadPyodide({ indexURL: new URL("./pyodide/", import.meta.url).href });
  post({ progress: "loading micrograd" });
  pyodide.unpackArchive(await sources, "zip", { extractDir: HOME });
  post({ progress: "importing micrograd" });
  pyodide.runPython(`import sys; sys.path.insert(0, ${JSON.stringify(HOME)})`);
  const calls = pyodide.pyimport("micrograd.web.pyodide.calls");
  // the Playground's sessions train through the runner, here beside Python
  const port = runnerPort(loadProgram);
  pyodide.pyimport("micrograd.web.play_runner").install(port);
  self.micrograd = { port, busyMs: 0 };  // what benchmarks/static_play.py reads
  const fn = calls.entry_point(entry);
  const ready = JSON.parse(calls.describe(entry));
  ready.seconds = Math.round(performance.now() - started) / 1000;
  post({ ready });
  return { calls, fn };
}

const python = start();
python.catch((err) => post({ failed: { kind: "load", message: String(err && err.message || err) } }));

// One task of the event loop: lets the messages that arrived meanwhile be handled.
const channel = new MessageChannel();
const waiting = [];
channel.port1.onmessage = () => waiting.shift()();
function nextTurn() {
  return new Promise((resolve) => {
    waiting.push(resolve);
    channel.port2.postMessage(null);
  });
}

function tooDeep(value) {
  const stack = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop();
    if (v === null || typeof v !== "object") continue;
    if (depth > MAX_DEPTH) return true;
    for (const child of Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

function refuse(id, kind, message) {
  post({ id, ok: false, error: { kind, message } });
}

async function answer(id, name, request) {
  if (typeof name !== "string" || name.length > 100) {
    return refuse(id, "refused", "a message is {id, name, request} with a name (a string)");
  }
  const body = request === undefined ? {} : request;
  if (tooDeep(body)) return refuse(id, "refused", `the request is nested over ${MAX_DEPTH} levels deep`);
  let py;
  try {
    py = await python;
  } catch (err) {
    return refuse(id, "unavailable", `Python did not start: ${err && err.message || err}`);
  }
  const call = py.calls.Call(py.fn, name, JSON.stringify(body), true);
  running.add(id);
  try {
    let t0 = performance.now();
    let text = call.step();
    while (text === undefined) {
      self.micrograd.busyMs += performance.now() - t0;
      await nextTurn();
      t0 = performance.now();
      text = stops.has(id) ? call.close() : call.step();
    }
    // the answer as its JSON text: one string crosses to the page, where one JSON.parse
    // builds it (cheaper than cloning the object tree of a Playground state), and its
    // long float lists as one Float64Array, moved, not copied
    const floats = takeFloats(call);
    self.micrograd.busyMs += performance.now() - t0;  // Python's time (and the runner's)
    post(floats ? { id, text, floats } : { id, text }, floats ? [floats.buffer] : []);
  } finally {
    running.delete(id);
    stops.delete(id);
    call.destroy();
  }
}

self.onmessage = (event) => {
  const message = event.data || {};
  if ("stop" in message) {
    if (running.has(message.stop)) stops.add(message.stop);
    return;
  }
  answer(message.id, message.name, message.request).catch((err) =>
    refuse(message.id, "internal", String(err && err.message || err)));
};

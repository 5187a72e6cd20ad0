// The static site's Python: a module worker that runs micrograd in Pyodide.
//
// Started by the page (pyodide_client.js) as a dedicated worker
//   new Worker(new URL("pyodide_worker.js", siteRoot), { type: "module" })
// or, for the walks of a lesson (one frame per walk), as a shared one
//   new SharedWorker(url, { type: "module", name })
// to which every frame of the lesson connects: one Python answers them all, each
// connection on its own port. Optionally "?entry=micrograd.module:function" names the
// Python entry point (default below). Everything is loaded from the worker's own folder,
// by relative URLs: Pyodide's runtime from ./pyodide/, micrograd's sources from
// ./micrograd.zip, unpacked into Pyodide's file system. Nothing comes from another host.
//
// Messages (the page's side is pyodide_client.js), on a connection's port (a dedicated
// worker has one connection: itself):
//   page -> worker   {id, name, request}          call the entry point: name(request)
//                    {stop: id}                   stop that call's job between two turns
//                    {hello: {lock}}              this page holds the Web Lock `lock`
//                                                 until it is gone (a shared worker)
//                    {bye: true}                  this page is going away
//   worker -> page   {progress: "loading Python"} while starting (then "loading
//                                                  micrograd", "importing micrograd");
//                                                  a late connection gets the last one
//                    {ready: {python, platform, micrograd, entry, seconds, shared}}
//                    {failed: {kind: "load", message}}   Python could not start
//                    {id, text, floats?}   text: the answer as JSON, {"ok": true,
//                                  "data": ...} or {"ok": false, "error": {kind,
//                                  message, field?...}}; floats: a Float64Array of the
//                                  answer's long float lists, their places in the text's
//                                  "floats" (micrograd.web.pyodide.calls), put back by
//                                  pyodide_client.js
//                    {id, ok: false, error: {kind, message}}   refused before Python
// Ids are a connection's own: two frames may both send id 1. Calls made before Python
// is ready wait for it. A call whose entry point returns a job (a generator) runs one
// turn per task of this worker's event loop, so other messages (a stop, another call,
// another connection's call) are taken between turns. A port has no close event: a
// connection ends when its page says bye (pagehide) or, should it never say so (a
// crash, a frame removed), when the Web Lock it holds is released; its jobs then stop at
// their next turn and its answers are dropped. micrograd.web.pyodide.calls says how
// Python's answers and errors become these messages.

import { loadPyodide } from "./pyodide/pyodide.mjs";
import { load as loadProgram } from "./static/lowered/executor.js";
import { executorPort } from "./executor_port.js";

const DEFAULT_ENTRY = "micrograd.web.pyodide.door:call";
const SOURCES = "micrograd.zip";
const HOME = "/home/pyodide/site";
// JSON nested deeper than this is refused before Python reads it: Python's JSON decoder
// recurses once per level, and thousands of levels overflow the WebAssembly stack.
const MAX_DEPTH = 64;

const entry = new URL(self.location.href).searchParams.get("entry") || DEFAULT_ENTRY;
const SHARED = typeof SharedWorkerGlobalScope === "function" && self instanceof SharedWorkerGlobalScope;

/** One page's link to this worker: its port, its calls in progress and those asked to
 *  stop (by the page's ids). */
class Connection {
  constructor(port) {
    this.port = port;
    this.running = new Set();
    this.stops = new Set();
    this.closed = false;
  }

  post(message, transfer = []) {
    if (!this.closed) this.port.postMessage(message, transfer);
  }

  /** The page is gone: its jobs stop at their next turn, nothing more is sent. */
  close() {
    this.closed = true;
    connections.delete(this);
    for (const id of this.running) this.stops.add(id);
    if (this.port !== self) this.port.close();
  }
}

const connections = new Set();
let status = null;  // the last word on Python's start, told to every later connection

function broadcast(message) {
  status = message;
  for (const connection of connections) connection.post(message);
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

/** The smallest WebAssembly module (its header alone). A host whose
 *  Content-Security-Policy forbids compiling WebAssembly makes Pyodide's own start wait
 *  for ever, with only a warning in the console: compiling this first turns that into a
 *  failure that says what the host must allow. */
const EMPTY_MODULE = new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);

function checkWebAssembly() {
  try {
    new WebAssembly.Module(EMPTY_MODULE);
  } catch (err) {
    throw new Error("this site's host forbids WebAssembly, which Python needs: its " +
      "Content-Security-Policy must allow 'wasm-unsafe-eval' in script-src " +
      `(the browser said: ${err && err.message || err})`);
  }
}

async function start() {
  const started = performance.now();
  broadcast({ progress: "loading Python" });
  checkWebAssembly();
  const sources = fetch(new URL(SOURCES, import.meta.url)).then((response) => {
    if (!response.ok) throw new Error(`${SOURCES}: HTTP ${response.status}`);
    return response.arrayBuffer();
  });  // fetched while Python loads
  sources.catch(() => {});  // (reported below, once awaited)
  const pyodide = await loadPyodide({ indexURL: new URL("./pyodide/", import.meta.url).href });
  broadcast({ progress: "loading micrograd" });
  pyodide.unpackArchive(await sources, "zip", { extractDir: HOME });
  broadcast({ progress: "importing micrograd" });
  pyodide.runPython(`import sys; sys.path.insert(0, ${JSON.stringify(HOME)})`);
  const calls = pyodide.pyimport("micrograd.web.pyodide.calls");
  // the Playground's sessions train through the executor, here beside Python
  const port = executorPort(loadProgram);
  pyodide.pyimport("micrograd.web.lowered_play").install(port);
  self.micrograd = { port, busyMs: 0 };  // what benchmarks/static_play.py reads
  const fn = calls.entry_point(entry);
  const ready = JSON.parse(calls.describe(entry));
  ready.seconds = Math.round(performance.now() - started) / 1000;
  ready.shared = SHARED;
  broadcast({ ready });
  return { calls, fn };
}

const python = start();
python.catch((err) => broadcast({ failed: { kind: "load", message: String(err && err.message || err) } }));

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

function refuse(connection, id, kind, message) {
  connection.post({ id, ok: false, error: { kind, message } });
}

async function answer(connection, id, name, request) {
  if (typeof name !== "string" || name.length > 100) {
    return refuse(connection, id, "refused", "a message is {id, name, request} with a name (a string)");
  }
  const body = request === undefined ? {} : request;
  if (tooDeep(body)) {
    return refuse(connection, id, "refused", `the request is nested over ${MAX_DEPTH} levels deep`);
  }
  let py;
  try {
    py = await python;
  } catch (err) {
    return refuse(connection, id, "unavailable", `Python did not start: ${err && err.message || err}`);
  }
  if (connection.closed) return;  // asked by a page that has gone meanwhile
  const call = py.calls.Call(py.fn, name, JSON.stringify(body), true);
  const { running, stops } = connection;
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
    self.micrograd.busyMs += performance.now() - t0;  // Python's time (and the executor's)
    connection.post(floats ? { id, text, floats } : { id, text }, floats ? [floats.buffer] : []);
  } finally {
    running.delete(id);
    stops.delete(id);
    call.destroy();
  }
}

/** Follow the page's Web Lock: the browser releases it when the page is gone. */
function watch(connection, lock) {
  if (typeof lock !== "string" || lock.length > 200 || !(self.navigator && navigator.locks)) return;
  navigator.locks.request(lock, () => connection.close()).catch(() => {});
}

function listen(connection) {
  connections.add(connection);
  connection.port.onmessage = (event) => {
    const message = event.data || {};
    if ("stop" in message) {
      if (connection.running.has(message.stop)) connection.stops.add(message.stop);
    } else if ("bye" in message) {
      connection.close();
    } else if ("hello" in message) {
      watch(connection, message.hello && message.hello.lock);
    } else {
      answer(connection, message.id, message.name, message.request).catch((err) =>
        refuse(connection, message.id, "internal", String(err && err.message || err)));
    }
  };
  if (status) connection.post(status);
}

if (SHARED) {
  self.onconnect = (event) => listen(new Connection(event.ports[0]));
} else {
  listen(new Connection(self));
}

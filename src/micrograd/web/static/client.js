/* The page's one way to its Python side, through one of two doors.
 *
 *   const client = pageClient();                 // the door this page was served with:
 *   const client = httpClient();                 // micrograd serve, over HTTP
 *   const client = workerClient({onProgress});   // the static site: Python in a worker
 *   const doc = await client.call("walk", { preset: "diamond" });
 *   client.farewell("play.delete", { sid });     // the tab is closing: sent, never awaited
 *   client.onConnection = (down, message) => ...;
 *
 * A client is any object with `call(name, request) -> Promise<data>` and
 * `farewell(name, request)`; both doors answer the same calls with the same JSON values
 * (tests/test_site_doors.py replays one log of requests through both). A call's name is
 * the name of its route in the Python side's request handlers (the keys of
 * micrograd.web.handlers.ROUTES, the names of the HTTP routes too): the worker door
 * hands it on as it is, the HTTP door finds its URL below. The requests are the JSON
 * bodies (docs/web.md lists them); a session's calls carry its `sid` in the request:
 *
 *   meta                {}                                    -> the page's catalogue
 *   walk                {preset | expr, values?, ask?, of?, mode?, questions?, rankdir?, stack?, stagger?}
 *   walk.check          {preset | expr, values, ask?, of?, answer}
 *   walk.order          {preset | expr, values, order: [node id]}
 *   walk.nudge          {preset | expr, values, leaf, h}
 *   mistakes.list       {}                                    -> {mistakes: [entry]}
 *   mistakes.run        {key}                                 -> an entry, run now
 *   play.change         {setup, field, value}  -> {patch, own}: what a change implies
 *   play.create         {...set-up, weights?, step?, inspect?: {x, y, label}} -> state
 *   play.get            {sid}                                  -> state
 *   play.step           {sid, steps, lr?}                      -> state
 *   play.lr             {sid, lr}                              -> {sid, lr}
 *   play.reset          {sid, init_seed}                       -> state
 *   play.weight         {sid, name, value}                     -> state
 *   play.inspect        {sid, x, y, label}                     -> state
 *   play.inspect.stop   {sid}                                  -> state
 *   play.delete         {sid}                                  -> {deleted: true}
 *   play.csv.write      {sid}                      -> {text, column, count}: the data as CSV
 *   play.csv.read       {text, column?, loss?}     -> {points, column, classes, count}
 *   gpt.create          {seed?, steps?}                    -> a GPT run: {sid, step, runner...}
 *   gpt.step            {sid, steps}        -> {step, losses, mean, steps_per_second, runner...}
 *   gpt.sample          {sid, count, temperature}          -> {samples: [{name, in_list}], new}
 *   gpt.attention       {sid, name?, temperature?}         -> {name, tokens, heads}
 *   gpt.walk            {sid, name?, position?, temperature?} -> one position's graph
 *                       folded: {boxes, edges, note, loss, graph_nodes...}
 *   gpt.walk.block      {sid, name, position, block, path, rankdir...} -> a box unfolded:
 *                       {kind: "nodes", graph} or {kind: "parts", boxes, edges}
 *   gpt.delete          {sid}                              -> {deleted: true}
 *
 * A failure is a ClientError: `.kind` is one of KINDS, `.message` is the Python side's
 * sentence, `.field` names the refused field where the answer says which, `.data` holds
 * the answer's other fields (for instance the free names of an expression: `.data.free`).
 *   lost     the session is gone (idle expiry, eviction, a restart): make it again
 *   busy     every place is taken; ask again later
 *   refused  the request was read and refused (a bad value, an unknown name)
 *   down     no answer at all
 *   bug      the Python side failed: a bug to report
 *   stopped  the call's job was stopped by its AbortSignal (the worker door only)
 * By default `down` and `busy` are not thrown: the client says so through onConnection
 * and asks again (down: after 0.5 s, 1 s, 2 s, then every 4 s; busy: after the time the
 * server names), so a caller never sees "Failed to fetch".
 *
 * SessionHandle (below) is the page's handle on one Playground session (the session
 * itself lives on the Python side), on any client: its id, its re-creation when it is
 * lost, and the farewell when the page closes.
 */

export const KINDS = ["lost", "busy", "refused", "down", "bug", "stopped"];

export class ClientError extends Error {
  constructor(kind, message, { field = null, data = null } = {}) {
    super(message);
    this.name = "ClientError";
    this.kind = kind;
    this.field = field;
    this.data = data;
  }
}

/* ------------------------------------------------------------------ the HTTP door */

/** a path on one session: it carries the session's sid (a 404 there: the session is lost) */
const session = (tail) => Object.assign((r) => `api/play/${encodeURIComponent(r.sid)}${tail}`,
                                        { session: true });
/** a path on one GPT session (a 404 there: the session is lost) */
const gptSession = (tail) => Object.assign((r) => `api/gpt/${encodeURIComponent(r.sid)}${tail}`,
                                           { session: true });
/** route name -> [HTTP method, path from the request]: the URLs of web/routers, each
 *  under the name its route carries there */
const ROUTES = {
  "meta": ["GET", () => "api/meta"],
  "walk": ["POST", () => "api/walk"],
  "walk.check": ["POST", () => "api/walk/check"],
  "walk.order": ["POST", () => "api/walk/order"],
  "walk.nudge": ["POST", () => "api/walk/nudge"],
  "mistakes.list": ["GET", () => "api/mistakes"],
  "mistakes.run": ["GET", (r) => `api/mistakes/${encodeURIComponent(r.key)}`],
  "play.change": ["POST", () => "api/play/change"],
  "play.create": ["POST", () => "api/play"],
  "play.get": ["GET", session("")],
  "play.step": ["POST", session("/step")],
  "play.lr": ["PATCH", session("")],
  "play.reset": ["POST", session("/reset")],
  "play.weight": ["PATCH", session("/weight")],
  "play.inspect": ["POST", session("/inspect")],
  "play.inspect.stop": ["DELETE", session("/inspect")],
  "play.delete": ["DELETE", session("")],
  "play.csv.write": ["GET", session("/csv")],
  "play.csv.read": ["POST", () => "api/play/csv"],
  "gpt.create": ["POST", () => "api/gpt"],
  "gpt.step": ["POST", gptSession("/step")],
  "gpt.sample": ["POST", gptSession("/sample")],
  "gpt.attention": ["POST", gptSession("/attention")],
  "gpt.walk": ["POST", gptSession("/walk")],
  "gpt.walk.block": ["POST", gptSession("/walk/block")],
  "gpt.delete": ["DELETE", gptSession("")],
};

const NAMES = Object.keys(ROUTES);
/** the calls on one session: a 404 there means the session is lost */
const SESSION_CALLS = new Set(NAMES.filter((n) => ROUTES[n][1].session));

/** A call's request as an HTTP request: method, path, JSON body (if any). */
function toHttp(name, request) {
  const route = ROUTES[name];
  if (!route) throw new ClientError("bug", `no route named ${name}; routes: ${NAMES.join(", ")}`);
  const [method, path] = route;
  const req = request || {};
  if (method === "GET" || method === "DELETE") return { method, path: path(req), body: undefined };
  const { sid, ...body } = req;  // the sid is in the path, not the body
  return { method, path: path(req), body };
}

/** A field named at the head of the server's refusal ("lr: Input should be ..."). */
function fieldOf(data) {
  if (data && typeof data.field === "string") return data.field;
  const m = data && typeof data.error === "string" && /^([A-Za-z_][\w.]*): /.exec(data.error);
  return m ? m[1] : null;
}

/** An HTTP answer that is not a success, as an error of one kind. */
function toError(name, status, data) {
  const message = (data && data.error) || `HTTP ${status}`;
  const { error, ...rest } = data || {};
  const extra = { data: rest };
  if (status === 404 && SESSION_CALLS.has(name)) return new ClientError("lost", message, extra);
  if (status === 503) return new ClientError("busy", message, extra);
  if (status >= 500) return new ClientError("bug", message, extra);
  return new ClientError("refused", message, { ...extra, field: fieldOf(data) });
}

/** This page's token, made once per page load and sent with every request: the server
 *  runs a page's requests in one lane of its own (web/routers/answers.py) */
const PAGE_TOKEN = Array.from(crypto.getRandomValues(new Uint8Array(16)),
                              (b) => b.toString(16).padStart(2, "0")).join("");
const PAGE_HEADER = "X-Micrograd-Page";

/** The client of `micrograd serve`. `base`: where its routes are (default: beside the
 *  folder this module was served from, so a page at any path finds them). */
export function httpClient({ base = new URL("../", import.meta.url).href, retry = true,
                             retryMs = [500, 1000, 2000, 4000] } = {}) {
  const client = {
    down: false,
    /** called with (down, message) when the server stops or starts answering */
    onConnection: null,

    async call(name, request) {
      const { method, path, body } = toHttp(name, request);
      const opts = { method, headers: { [PAGE_HEADER]: PAGE_TOKEN } };
      if (body !== undefined) {
        opts.headers["Content-Type"] = "application/json";
        opts.body = JSON.stringify(body);
      }
      const url = new URL(path, base).href;
      let res, data = null;
      for (let attempt = 0; ; attempt++) {
        try {
          res = await fetch(url, opts);
        } catch (e) {  // no answer at all: the server is stopped or restarting
          const message = "The micrograd server is not answering (stopped?).";
          if (!retry) throw new ClientError("down", message);
          const wait = retryMs[Math.min(attempt, retryMs.length - 1)];
          changed(true, `${message} Retrying every ${wait / 1000} s (attempt ${attempt + 1}); ` +
            `start it again with "micrograd serve" and the page carries on.`);
          await sleep(wait);
          continue;
        }
        try { data = await res.json(); } catch (e) { data = null; }
        const after = Number(res.headers.get("Retry-After"));
        if (res.status === 503 && after > 0 && retry) {  // busy: it says when to come back
          changed(true, `The server is busy: ${(data && data.error) || "503"}. ` +
            `Asking again in ${after} s.`);
          await sleep(Math.min(after, 30) * 1000);
          continue;
        }
        break;
      }
      if (client.down) changed(false, "");
      if (!res.ok) throw toError(name, res.status, data);
      return data;
    },

    /** A request that outlives the page (the tab is closing): sent once, never awaited. */
    farewell(name, request) {
      try {
        const { method, path } = toHttp(name, request);
        fetch(new URL(path, base).href, { method, keepalive: true,
                                          headers: { [PAGE_HEADER]: PAGE_TOKEN } }).catch(() => {});
      } catch (e) { /* closing */ }
    },
  };
  function changed(down, message) {
    client.down = down;
    if (client.onConnection) client.onConnection(down, message);
  }
  return client;
}

function sleep(ms) { return new Promise((r) => setTimeout(r, ms)); }

/* ------------------------------------------------------- a handle on a Playground session */

/**
 * The page's handle on one Playground session, through a client.
 *   const s = new SessionHandle(client, { restore, restored });
 *   await s.create(body)            // play.create; the session it replaces is dropped
 *   await s.call("play.step", {steps: 1})   // the sid is added
 *   s.drop()                        // the page closes: a farewell
 * A session found lost is made again from `restore()` (the body of a play.create: the
 * set-up, the last weights and step, the followed point), `restored(state, lost)` is told
 * (`lost`: the state last seen before), and the request is asked again once. Requests
 * that find it lost at the same time share one re-creation.
 */
export class SessionHandle {
  constructor(client, { restore, restored } = {}) {
    this.client = client;
    this.restore = restore;
    this.restored = restored;
    this.sid = null;
    this.recovering = null;
  }

  /** A new session; on success the old one is deleted. A refusal leaves the old alone. */
  async create(body) {
    const old = this.sid;
    const s = await this.client.call("play.create", body);
    if (old && old !== s.sid) this.client.call("play.delete", { sid: old }).catch(() => {});
    this.sid = s.sid;
    return s;
  }

  async call(name, request) {
    const sid = this.sid;
    try {
      return await this.client.call(name, { ...request, sid });
    } catch (e) {
      if (e.kind !== "lost" || !this.restore) throw e;
      // made again already (by another request), or now
      if (this.sid !== sid || await this.recover()) {
        return await this.client.call(name, { ...request, sid: this.sid });
      }
      throw e;
    }
  }

  recover() {
    if (!this.recovering) this.recovering = this._recreate().finally(() => { this.recovering = null; });
    return this.recovering;
  }

  async _recreate() {
    const body = this.restore();
    let s;
    try {
      s = await this.client.call("play.create", body);
    } catch (e) {
      throw new ClientError(e.kind, "could not re-create the session: " + e.message,
                            { field: e.field, data: e.data });
    }
    this.sid = s.sid;
    if (this.restored) this.restored(s, body);
    return true;
  }

  /** the page is closing: free the session now (idle expiry would, later) */
  drop() { if (this.sid) this.client.farewell("play.delete", { sid: this.sid }); }
}

/* ------------------------------------------------------------------ the worker door */

/** Which door this page was served with: "pyodide" when the page says so (`micrograd
 *  site` writes `<meta name="micrograd-door" content="pyodide">` into its index.html),
 *  else "http". */
export function pageDoor(doc = document) {
  const tag = doc.querySelector('meta[name="micrograd-door"]');
  return tag && tag.content === "pyodide" ? "pyodide" : "http";
}

/** The client of the door this page was served with (options go to that door). */
export function pageClient(options = {}) {
  return pageDoor() === "pyodide" ? workerClient(options) : httpClient(options);
}

/** an error kind of the handlers (micrograd.web.handlers.errors) or of the worker ->
 *  the client's kind, as the HTTP door maps their statuses */
const WORKER_KINDS = {
  invalid: "refused", refused: "refused", not_found: "refused", lost: "lost", busy: "busy",
  stopped: "stopped", load: "down", unavailable: "down", unknown: "bug", internal: "bug",
};

/** A worker's error as the HTTP door would give it: same kind, message, field, data. */
function workerError(name, error) {
  const { kind, message = "", field = null } = error || {};
  let mine = WORKER_KINDS[kind] || "bug";
  if (kind === "not_found" && SESSION_CALLS.has(name)) mine = "lost";  // a 404 on a session
  const data = error && "free" in error ? { free: error.free } : {};
  return new ClientError(mine, message, { field: field || fieldOf({ error: message }), data });
}

/** One Python per site folder (and shared name), shared by every client and component
 *  of the page. */
const PYTHONS = new Map();

function sitePython(root, shared) {
  const key = `${root}\n${shared || ""}`;
  if (!PYTHONS.has(key)) {
    const listeners = [];
    const started = import(new URL("pyodide_client.js", root).href).then(({ startPython }) =>
      startPython({ root: new URL(root), shared,
                    onProgress: (text) => listeners.forEach((f) => f(text)) }));
    PYTHONS.set(key, { started, listeners });
  }
  return PYTHONS.get(key);
}

/** The client of the static site: every call goes to micrograd's request handlers in
 *  Pyodide, in the site's module worker (pyodide_worker.js, one per page and site
 *  folder, shared). `root`: the site's folder (default: the one above this module's).
 *  `shared`: a name; the pages giving the same one (the frames of a lesson) share one
 *  Python, in a SharedWorker where the browser has one (pyodide_client.js).
 *  `onProgress(text)` hears the worker's loading messages; `ready` resolves with what
 *  the worker says once Python is up ({python, micrograd, seconds...}). */
export function workerClient({ root = new URL("../", import.meta.url).href, shared, onProgress } = {}) {
  const python = sitePython(root, shared);
  if (onProgress) python.listeners.push(onProgress);
  const client = {
    door: "pyodide",
    down: false,
    onConnection: null,
    ready: python.started.then((worker) => worker.ready),

    async call(name, request, { signal } = {}) {
      let worker;
      try {
        worker = await python.started;
        await worker.ready;
      } catch (e) {
        const message = `Python did not start in this page: ${e.message}`;
        client.down = true;
        if (client.onConnection) client.onConnection(true, message);
        throw new ClientError("down", message);
      }
      try {
        return await worker.call(name, request || {}, { signal });
      } catch (e) {
        throw workerError(name, { ...(e.error || {}), kind: e.kind || "internal",
                                  message: e.message });
      }
    },

    farewell(name, request) {
      client.call(name, request).catch(() => {});
    },
  };
  client.ready.catch(() => {});
  return client;
}

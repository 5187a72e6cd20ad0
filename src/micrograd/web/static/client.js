/* micrograd serve: the one module that talks to the engine.
 *
 * Every number the page shows comes through `api`. Today it is an HTTP call to the local
 * Python server; a page with no server (the same engine in the browser through Pyodide)
 * replaces this file alone.
 *
 * A server that does not answer (stopped, restarting) is said so on the page, and the
 * request is tried again (0.5 s, 1 s, 2 s, then every 4 s) until it answers: a caller
 * never sees "Failed to fetch". A busy server (503 with Retry-After: every playground
 * place taken) is said so too, and asked again after the time it names. Refusals (4xx)
 * and errors (other 5xx) are thrown at once, with the server's message and the status.
 */
"use strict";

const Client = {
  down: false,
  /** called with (down, message) when the server stops or starts answering */
  onConnection: null,
  retryMs: [500, 1000, 2000, 4000],
};

function connectionChanged(down, message) {
  Client.down = down;
  const el = document.getElementById("conn");
  if (el) { el.textContent = message || ""; el.hidden = !down; }
  if (Client.onConnection) Client.onConnection(down, message);
}

async function api(method, path, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  let res, data = null;
  for (let attempt = 0; ; attempt++) {
    try {
      res = await fetch(path, opts);
    } catch (e) {  // no answer at all: the server is stopped or restarting
      const wait = Client.retryMs[Math.min(attempt, Client.retryMs.length - 1)];
      connectionChanged(true, `The micrograd server is not answering (stopped?). ` +
        `Retrying every ${wait / 1000} s (attempt ${attempt + 1}); start it again with ` +
        `"micrograd serve" and the page carries on.`);
      await new Promise((r) => setTimeout(r, wait));
      continue;
    }
    try { data = await res.json(); } catch (e) { data = null; }
    const after = Number(res.headers.get("Retry-After"));
    if (res.status === 503 && after > 0) {  // busy: it says when to come back
      connectionChanged(true, `The server is busy: ${(data && data.error) || "503"}. ` +
        `Asking again in ${after} s.`);
      await new Promise((r) => setTimeout(r, Math.min(after, 30) * 1000));
      continue;
    }
    break;
  }
  if (Client.down) connectionChanged(false, "");
  if (!res.ok) {
    const err = new Error((data && data.error) || `HTTP ${res.status}`);
    err.status = res.status;
    err.data = data;
    throw err;
  }
  return data;
}

/** A request that outlives the page (the tab is closing): sent once, never awaited. */
function apiFarewell(method, path) {
  try { fetch(path, { method, keepalive: true }).catch(() => {}); } catch (e) { /* closing */ }
}

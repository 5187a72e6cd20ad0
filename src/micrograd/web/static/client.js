/* micrograd serve: the one module that talks to the engine.
 *
 * Every number the page shows comes through `api`. Today it is an HTTP call to the local
 * Python server; a page with no server (the same engine in the browser through Pyodide)
 * replaces this file alone.
 */
"use strict";

async function api(method, path, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  const res = await fetch(path, opts);
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  if (!res.ok) {
    const err = new Error((data && data.error) || `HTTP ${res.status}`);
    err.status = res.status;
    err.data = data;
    throw err;
  }
  return data;
}

/* micrograd serve: helpers shared by the Walk and the Playground (drawing, number
 * formats, status line, URL state). The page draws and never computes: every number shown
 * (data, grad, local derivatives, losses, accuracies, the decision boundary, weights)
 * arrives from the Python engine through client.js. Formatting a number for display is
 * the only arithmetic done here.
 */
"use strict";

const $ = (id) => document.getElementById(id);
const SVGNS = "http://www.w3.org/2000/svg";

function svg(tag, attrs, parent) {
  const el = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, v);
  if (parent) parent.appendChild(el);
  return el;
}

/** A number as the Playground shows it: 6 significant digits, no trailing zeros. (The
 * Walk writes only texts the server formatted.) */
function fmt(x) {
  if (x === null || x === undefined) return "·";
  if (typeof x === "string") return x;  // "NaN", "Infinity" arrive as strings
  if (!isFinite(x)) return String(x);
  if (x === 0) return "0";
  const a = Math.abs(x);
  if (a >= 1e6 || a < 1e-4) return x.toExponential(4);
  return String(Number(x.toPrecision(6)));
}

function status(msg) { $("status").textContent = msg || ""; }

/* ------------------------------------------------------------------ URL state */

const url = {
  read() { return new URLSearchParams(location.hash.replace(/^#/, "")); },
  write(params) {
    const p = url.read();
    for (const [k, v] of Object.entries(params)) {
      if (v === null || v === undefined || v === "") p.delete(k); else p.set(k, String(v));
    }
    history.replaceState(null, "", "#" + p.toString());
    url.current = location.hash;
  },
  /** like write, as a new entry of the browser's history (back returns to the old state) */
  push(params) {
    const p = url.read();
    for (const [k, v] of Object.entries(params)) {
      if (v === null || v === undefined || v === "") p.delete(k); else p.set(k, String(v));
    }
    const hash = "#" + p.toString();
    if (hash === location.hash) return;
    history.pushState(null, "", hash);
    url.current = location.hash;
  },
  current: location.hash,  // the URL as the page itself last wrote it
};


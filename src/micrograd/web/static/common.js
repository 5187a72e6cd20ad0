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

/** A number as shown on the page: 6 significant digits, no trailing zeros. */
function fmt(x) {
  if (x === null || x === undefined) return "·";
  if (typeof x === "string") return x;  // "NaN", "Infinity" arrive as strings
  if (!isFinite(x)) return String(x);
  if (x === 0) return "0";
  const a = Math.abs(x);
  if (a >= 1e6 || a < 1e-4) return x.toExponential(4);
  return String(Number(x.toPrecision(6)));
}

/** A number as the graph's records show it (the engine's layout measured this format). */
function fmt4(x) {
  if (x === null || x === undefined) return "·";
  if (typeof x === "string") return x;
  const a = Math.abs(x);
  if (a !== 0 && (a >= 1e7 || a < 1e-4)) return x.toExponential(3);
  return x.toFixed(4);
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
  },
};


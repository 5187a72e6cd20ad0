/* The GPT tab's pictures, as SVG: the loss curve and each head's attention as a heat map.
 * They only draw: every number (each loss, each mean, each weight) arrives from the
 * Python side; the page scales them to the picture and writes them with format.js. */

import { fmt, fmtShort } from "./format.js";
import { svg } from "./svg.js";

const H = 240, LEFT = 44, RIGHT = 8, TOP = 10, BOTTOM = 28;

/** The x axis's end: the first of 20, 50, 100, 200, 500, 1000... past the steps done
 *  (so the first steps are not a sliver of a long run), at most the run's end. */
function xEnd(done, steps) {
  for (let k = 10; ; k *= 10) {
    for (const m of [2, 5, 10]) if (k * m >= done) return Math.min(k * m, steps);
  }
}

/** The loss of every step (`losses`: [step, loss] rows) and the handler's mean of the
 *  last ones as it was after each request (`means`: [step, mean] rows), in a run of
 *  `steps` steps: x from step 0 (to xEnd), y from 0 to the largest loss. */
export function drawCurve(box, losses, means, steps) {
  box.replaceChildren();
  // as wide as it is shown (its text stays 11 px on a phone), 600 where it is not laid out
  const W = Math.round(box.getBoundingClientRect().width) || 600;
  box.setAttribute("viewBox", `0 0 ${W} ${H}`);
  const top = Math.max(1, ...losses.map((r) => r[1]).filter(Number.isFinite));
  const end = xEnd(losses.length ? losses[losses.length - 1][0] : 0, steps);
  const X = (s) => LEFT + (s / Math.max(1, end)) * (W - LEFT - RIGHT);
  const Y = (v) => TOP + (1 - Math.min(v, top) / top) * (H - TOP - BOTTOM);
  svg("rect", { x: LEFT, y: TOP, width: W - LEFT - RIGHT, height: H - TOP - BOTTOM,
                class: "frame" }, box);
  const label = (x, y, text, anchor = "start", cls = "axis") =>
    (svg("text", { x, y, "text-anchor": anchor, class: cls }, box).textContent = text);
  label(LEFT - 4, TOP + 10, fmtShort(top), "end");
  label(LEFT - 4, H - BOTTOM, "0", "end");
  label(LEFT, H - 8, "step 0");
  label(W - RIGHT, H - 8, `step ${end}${end < steps ? ` (of ${steps})` : ""}`, "end");
  const line = (rows, cls) => {
    const pts = rows.filter((r) => Number.isFinite(r[1])).map((r) => `${X(r[0]).toFixed(1)},${Y(r[1]).toFixed(1)}`);
    if (pts.length) svg("polyline", { points: pts.join(" "), class: cls }, box);
  };
  line(losses, "each");
  line(means, "mean");
}

/** Attention weights 0..1 as a colour: white to dark blue. */
function shade(w) {
  const t = Math.max(0, Math.min(1, w));
  const mix = (a, b) => Math.round(a + (b - a) * t);
  return `rgb(${mix(255, 16)},${mix(255, 64)},${mix(255, 160)})`;
}

/** One head's matrix (rows the queries, null after the query) as a grid with the
 *  letters (`tokens`) along both axes; its cells' titles give the weights. */
function headGrid(matrix, tokens, title) {
  const n = tokens.length, cell = 22, pad = 26;
  const side = pad + n * cell;
  const root = svg("svg", { viewBox: `0 0 ${side + 2} ${side + 2}`, width: side + 2, height: side + 2,
                            class: "gpthead", role: "img",
                            "aria-label": `${title}: where each position of ${tokens.slice(1).join("") || "the empty name"} looks` });
  svg("title", {}, root).textContent = title;
  const short = (t) => (t === "<BOS>" ? "·" : t);
  tokens.forEach((t, i) => {
    const c = pad + i * cell + cell / 2;
    svg("text", { x: c, y: pad - 6, "text-anchor": "middle", class: "tok" }, root).textContent = short(t);
    svg("text", { x: pad - 6, y: c + 4, "text-anchor": "end", class: "tok" }, root).textContent = short(t);
  });
  matrix.forEach((row, i) => row.forEach((w, j) => {
    const r = svg("rect", { x: pad + j * cell, y: pad + i * cell, width: cell, height: cell,
                            class: w === null ? "masked" : "cell" }, root);
    if (w !== null) r.setAttribute("fill", shade(w));
    svg("title", {}, r).textContent = w === null ? `${short(tokens[i])} cannot look ahead`
      : `${short(tokens[i])} (position ${i}) → ${short(tokens[j])} (position ${j}): ${fmt(w)}`;
  }));
  return root;
}

/** Every head's grid (`heads`: [layer][head] matrices), each under its name. */
export function drawHeads(box, heads, tokens) {
  box.replaceChildren();
  heads.forEach((layer, li) => layer.forEach((matrix, h) => {
    const fig = document.createElement("figure");
    const title = heads.length > 1 ? `layer ${li + 1}, head ${h + 1}` : `head ${h + 1}`;
    fig.append(headGrid(matrix, tokens, title));
    const cap = document.createElement("figcaption");
    cap.textContent = title;
    fig.append(cap);
    box.append(fig);
  }));
}

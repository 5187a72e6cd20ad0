/* micrograd serve: a neuron of the Walk's graph folded into one box (GraphView's folding).
 *
 * A folded neuron is one box where its output's op node and record were (the title line
 * above, the output's cells inside); its other nodes and the edges between them are
 * hidden, and each edge from outside into the neuron is drawn dashed to the box. Each
 * function takes the GraphView whose neurons, folded set and layers it draws into.
 * Also the legend under a Walk's drawing (drawLegend: what each colour of a node or an
 * edge means, each swatch drawn with the graph's own class).
 */

import { curve, svg } from "./svg.js";

/** one button a neuron in the view's toolbar: fold it, or open it again */
export function foldButtons(view) {
  view.folds.textContent = "";
  for (const nr of view.neurons) {
    const b = document.createElement("button");
    b.type = "button"; b.dataset.fold = nr.id;
    b.addEventListener("click", () => view.fold(nr.id));
    view.folds.appendChild(b);
  }
  foldLabels(view);
}

export function foldLabels(view) {
  for (const b of view.folds.querySelectorAll("button")) {
    const nr = view.neurons.find((x) => x.id === b.dataset.fold);
    const on = view.folded.has(nr.id);
    b.textContent = (on ? "open " : "fold ") + nr.title;
    b.setAttribute("aria-pressed", on ? "true" : "false");
  }
}

function foldBox(view, nr) {
  const out = view.byId[nr.output];
  const cells = view.lastState && view.lastState.cells;
  const texts = (cells && cells[out.id]) || out.cells;
  const title = `${nr.title} (${nr.members.length} nodes, folded)`;
  const left = out.op_box ? Math.min(out.op_box.x, out.box.x) : out.box.x;
  const right = out.box.x + out.box.w;
  const w = Math.max(right - left, title.length * 7.2 + 16);
  const x = right - w, y = out.box.y - 20, h = out.box.h + 24;
  const g = svg("g", { class: "fold", "data-neuron": nr.id, tabindex: "0", role: "button",
                        "aria-label": `${title}: ${texts.join(", ")}; press Enter to open` },
                 view.foldLayer);
  svg("rect", { x, y, width: w, height: h, rx: 6 }, g);
  const t1 = svg("text", { x: x + w / 2, y: y + 15, "text-anchor": "middle", class: "lbl" }, g);
  t1.textContent = title;
  const t2 = svg("text", { x: x + w / 2, y: y + h - 9, "text-anchor": "middle" }, g);
  t2.textContent = texts.join("  ");
  return [x, y + h / 2];
}

/** every folded neuron's box, its members hidden, the edges into it dashed to the box */
export function drawFolds(view) {
  if (!view.graph) return;
  const hidden = new Set(), into = {};
  view.foldLayer.textContent = "";
  for (const nr of view.neurons) {
    if (!view.folded.has(nr.id)) continue;
    for (const id of nr.members) hidden.add(id);
    const at = foldBox(view, nr);
    for (const id of nr.members) into[id] = at;
  }
  for (const n of view.graph.nodes) view.nodeEls[n.id].style.display = hidden.has(n.id) ? "none" : "";
  for (const e of view.graph.edges) {
    view.edgeEls[e.id].style.display = hidden.has(e.dst) ? "none" : "";
    if (hidden.has(e.dst) && !hidden.has(e.src)) {
      svg("path", { d: curve([e.points[0], into[e.dst]]), class: "foldedge",
                    "marker-end": `url(#${view.arrow})` }, view.foldLayer);
    }
  }
}

/** what the node and edge classes a Walk sets look like here (app.css styles them): the
 *  class, and what it says; each swatch is drawn with the same class as the graph */
export const LEGEND = [
  ["node done-fwd", "data computed"],
  ["node done-bwd", "grad computed"],
  ["node current", "this step's node"],
  ["node contrib", "gets a share of grad now"],
  ["edge active", "edge of this step"],
  ["node const", "a constant"],
];

/** the legend under the drawing: a swatch and a few words per class, wrapping */
export function drawLegend() {
  const box = document.createElement("div");
  box.className = "gv-legend";
  box.setAttribute("role", "note");
  box.setAttribute("aria-label", "what the colours of the graph mean");
  for (const [cls, text] of LEGEND) {
    const item = document.createElement("span");
    item.className = "gv-key";
    item.dataset.key = cls;
    // the swatch is an <svg> of the class itself (no <g class="node">: the graph's own
    // nodes are the only such groups in the view)
    const sw = svg("svg", { class: "gv-swatch " + cls, width: "24", height: "14", "aria-hidden": "true" }, item);
    if (cls.startsWith("edge")) svg("path", { class: "vis", d: "M 1 7 H 23" }, sw);
    else svg("rect", { x: "2", y: "2", width: "20", height: "10" }, svg("g", { class: "record" }, sw));
    item.append(text);
    box.appendChild(item);
  }
  return box;
}

/* The no-zero_grad mode's two conventions side by side: micrograd 0.1.0 (interior grads
 * add up too, and are pushed on) beside PyTorch and this package (only this pass's
 * gradient flows; the leaves add up), each with every node's grad after the first pass
 * and after the second. A cell is marked where its grad is wrong after the last pass
 * (not the one-pass gradient: Python's row.wrong), with the legend Python gives.
 *
 *   drawConventions(box, doc.conventions);   // null: the box is hidden
 *
 * `conventions` is micrograd.walk_setup.compare_conventions as the Python side sent it:
 * every text and every number here is Python's (the numbers come from
 * micrograd.walk_modes, each convention's pass run twice on one table of grads).
 */

import { el } from "./dom.js";

export function drawConventions(box, conv) {
  box.textContent = "";
  box.hidden = !conv;
  if (!conv) return;
  box.appendChild(el("h2", { text: conv.title }));
  const sides = el("div", { class: "conv-sides" });
  for (const c of conv.conventions) {
    const head = el("tr", {}, el("th", { scope: "col", text: "node" }),
                    el("th", { scope: "col", text: conv.columns.one_pass }),
                    el("th", { scope: "col", text: conv.columns[c.key] }));
    const body = el("tbody");
    for (const row of conv.rows) {
      // a grad that is wrong after the last pass (Python says which)
      const wrong = row.wrong.includes(c.key);
      body.appendChild(el("tr", { "data-node": row.id },
        el("th", { scope: "row", text: row.name + (row.leaf ? " (leaf)" : "") }),
        el("td", { "data-col": "one_pass", text: row.texts.one_pass }),
        el("td", { "data-col": c.key, class: wrong ? "wrong" : "", text: row.texts[c.key] })));
    }
    sides.appendChild(el("div", { class: "conv-side", "data-convention": c.key },
      el("h3", { text: c.title }), el("p", { class: "conv-rule", text: c.rule }),
      el("table", { class: "conv-table" }, el("thead", {}, head), body)));
  }
  box.appendChild(el("p", { class: "conv-legend" }, el("span", { class: "conv-swatch wrong", "aria-hidden": "true" }),
                     " " + conv.legend));
  box.appendChild(sides);
  box.appendChild(el("p", { class: "conv-note", text: conv.note }));
}

/* The no-zero_grad mode's two conventions side by side: micrograd's published engine
 * (interior grads add up too, and are pushed on) beside PyTorch's and ours (only this
 * pass's gradient flows; the leaves add up), each with every node's grad after the first
 * pass and after the second.
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
  const keys = conv.conventions.map((c) => c.key);
  const sides = el("div", { class: "conv-sides" });
  for (const c of conv.conventions) {
    const head = el("tr", {}, el("th", { scope: "col", text: "node" }),
                    el("th", { scope: "col", text: conv.columns.one_pass }),
                    el("th", { scope: "col", text: conv.columns[c.key] }));
    const body = el("tbody");
    for (const row of conv.rows) {
      // where the conventions part ways, the numbers are marked in both
      const differ = keys.some((k) => row[k] !== row[c.key]);
      body.appendChild(el("tr", { "data-node": row.id },
        el("th", { scope: "row", text: row.name + (row.leaf ? " (leaf)" : "") }),
        el("td", { "data-col": "one_pass", text: row.texts.one_pass }),
        el("td", { "data-col": c.key, class: differ ? "differ" : "", text: row.texts[c.key] })));
    }
    sides.appendChild(el("div", { class: "conv-side", "data-convention": c.key },
      el("h3", { text: c.title }), el("p", { class: "conv-rule", text: c.rule }),
      el("table", { class: "conv-table" }, el("thead", {}, head), body)));
  }
  box.appendChild(sides);
  box.appendChild(el("p", { class: "conv-note", text: conv.note }));
}

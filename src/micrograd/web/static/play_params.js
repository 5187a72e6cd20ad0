/* The Playground's parameter table: each weight and bias with its value, the grad of the
 * last step's loss, the optimizer's state and the last update. Built when the network's
 * shape changes, its cells rewritten every step (only those whose text changed). */

import { fmt } from "./format.js";

export class ParamTable {
  constructor(table) {
    this.table = table;
    this.key = null;
  }

  /** params: {state: [names of the optimizer's state], rows: [[name, value, grad,
   *  [state...], last update]]} */
  draw(t) {
    const tbl = this.table;
    const key = JSON.stringify([t.state, t.rows.map((r) => r[0])]);
    if (key !== this.key) {
      this.key = key;
      tbl.tHead.innerHTML = "";
      const hr = tbl.tHead.insertRow();
      for (const h of ["parameter", "value", "grad"].concat(t.state, ["last update"])) {
        const th = document.createElement("th"); th.scope = "col"; th.textContent = h; hr.appendChild(th);
      }
      const body = tbl.tBodies[0]; body.innerHTML = "";
      for (const r of t.rows) {
        const tr = body.insertRow(); tr.dataset.name = r[0];
        const th = document.createElement("th"); th.scope = "row"; th.textContent = r[0]; tr.appendChild(th);
        for (let k = 0; k < 3 + t.state.length; k++) tr.insertCell();
      }
    }
    const body = tbl.tBodies[0];
    t.rows.forEach((r, i) => {
      const cells = body.rows[i].cells;
      const vals = [r[1], r[2]].concat(r[3], [r[4]]);
      vals.forEach((v, k) => {
        const c = cells[k + 1], text = fmt(v);
        if (c.textContent !== text) c.textContent = text;
        c.dataset.value = String(v);
      });
    });
  }
}

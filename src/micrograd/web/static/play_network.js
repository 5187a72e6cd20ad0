/* The Playground's network view: the input features (toggles), the hidden layers with
 * + and - buttons, the outputs; a small picture of each neuron's output over the plane;
 * the links by width and colour, each weight and bias editable. The structure is built
 * when the network's shape changes; each step only updates it. */

import { el } from "./dom.js";
import { fmt } from "./format.js";
import { drawThumb } from "./play_plot.js";
import { svg } from "./svg.js";

export class NetworkView {
  /**
   * @param part      the component's part(role) lookup (net, edit, edit-name, ...)
   * @param inputs    the set-up's field of input features (the catalogue's: its
   *                  `choices`, every feature in the order the view shows them, and its
   *                  `group`, which a lesson link may hide)
   * @param actions   {toggleFeature(name), neurons(layer, delta), setWeight(name, text),
   *                   hidden(group), mark(input, message)}
   */
  constructor(part, inputs, actions) {
    this.$ = part;
    this.features = inputs.choices;
    this.group = inputs.group;
    this.act = actions;
    this.key = null;
    this.editing = null;
    this.state = null;
    part("edit-set").onclick = () => this.setWeight();
    part("edit-value").addEventListener("keydown", (ev) => { if (ev.key === "Enter") this.setWeight(); });
    part("edit-close").onclick = () => { part("edit").hidden = true; this.editing = null; };
  }

  /** the next draw lays the view out again (the box's width changed) */
  invalidate() { this.key = null; }

  draw(s, discrete) {
    this.state = s;
    const net = s.network;
    const key = JSON.stringify([net.sizes, net.features]);
    if (key !== this.key) this.build(s);
    this.key = key;
    let wmax = 0;
    for (const layer of net.layers) for (const row of layer.w) for (const w of row) if (typeof w === "number") wmax = Math.max(wmax, Math.abs(w));
    if (wmax === 0) wmax = 1;
    net.layers.forEach((layer, li) => layer.w.forEach((row, j) => row.forEach((w, i) => {
      const line = this.links[li][j][i], num = typeof w === "number" ? w : 0;
      const stroke = num >= 0 ? "#2f6fdf" : "#e0662f", width = (0.6 + 6 * Math.abs(num) / wmax).toFixed(2);
      if (line.getAttribute("stroke") !== stroke) line.setAttribute("stroke", stroke);
      if (line.getAttribute("stroke-width") !== width) line.setAttribute("stroke-width", width);
      line.dataset.value = String(w);  // its label and tooltip are written when it is focused or hovered
    })));
    // the pictures: features (active ones), hidden neurons, outputs
    const th = s.thumbnails;
    this.cells.forEach((col, li) => col.forEach((cell, j) => {
      const vals = li === 0 ? th[0][net.features.indexOf(cell.feature)] : th[li][j];
      if (vals) drawThumb(cell.canvas, vals, discrete); else cell.canvas.getContext("2d").clearRect(0, 0, 20, 20);
      if (li > 0) cell.node.dataset.value = String(net.layers[li - 1].b[j]);
    }));
    if (this.editing) this.$("edit-name").dataset.value = String(this.paramValue(this.editing));
  }

  paramValue(name) {
    const row = this.state.params.rows.find((r) => r[0] === name);
    return row ? row[1] : null;
  }

  /** lay the view out again for the network's shape: the links, the cells, the headers */
  build(s) {
    const net = s.network, box0 = this.$("net");
    box0.textContent = "";
    const layout = this.layout(net, box0);
    box0.style.height = layout.H + "px";
    const sv = svg("svg", { width: layout.W, height: layout.H, class: "links", "aria-hidden": "false" }, box0);
    this.links = this.buildLinks(net, layout, sv);
    this.cells = this.buildCells(net, layout, box0);
    this.buildHeaders(net, layout, box0);
    if (this.act.built) this.act.built();
  }

  /** where everything goes: a column of cells a layer (every feature first), each cell's
   * top-left corner, the cells' size, the view's size */
  layout(net, box0) {
    const narrow = box0.clientWidth < 500;
    const box = narrow ? 30 : 40, gap = narrow ? 10 : 14;
    const cols = [this.features.map((f) => ({ feature: f }))];
    for (let li = 1; li < net.sizes.length; li++) cols.push(Array.from({ length: net.sizes[li] }, () => ({})));
    const rows = Math.max(...cols.map((c) => c.length));
    const top = 34, H = top + rows * (box + gap) + 10;
    const W = Math.max(box0.clientWidth || 500, 200);
    const xs = cols.map((_, ci) => 6 + (ci * (W - box - 12)) / Math.max(1, cols.length - 1));
    const pos = cols.map((col, ci) => col.map((_, j) => [xs[ci], top + j * (box + gap)]));
    return { box, cols, xs, pos, W, H };
  }

  /** the links from the active features / previous layer into each neuron:
   * [layer][neuron][input] */
  buildLinks(net, { box, pos }, sv) {
    const featPos = net.features.map((f) => pos[0][this.features.indexOf(f)]);
    return net.layers.map((layer, li) => {
      const from = li === 0 ? featPos : pos[li];
      return layer.w.map((row, j) => row.map((w, i) =>
        this.link(sv, `w${li + 1}.${j + 1}.${i + 1}`, from[i], pos[li + 1][j], box)));
    });
  }

  /** one link, a line from cell to cell: named, its weight said when it is focused or
   * hovered, its editor opened by a click or Enter */
  link(sv, name, [xa, ya], [xb, yb], box) {
    const line = svg("line", { x1: xa + box, y1: ya + box / 2, x2: xb, y2: yb + box / 2,
      "stroke-opacity": 0.8, tabindex: this.act.hidden("network") ? -1 : 0, role: "button", class: "link" }, sv);
    svg("title", {}, line);
    line.dataset.name = name;
    const describe = () => {
      const v = Number(line.dataset.value);
      line.setAttribute("aria-label", `${name} = ${fmt(v)}; press Enter to edit`);
      line.firstChild.textContent = `${name} = ${line.dataset.value}`;
    };
    line.setAttribute("aria-label", `${name}; press Enter to edit`);
    line.addEventListener("focus", describe);
    line.addEventListener("mouseenter", describe);
    line.addEventListener("click", () => this.edit(name));
    line.addEventListener("keydown", (ev) => { if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); this.edit(name); } });
    return line;
  }

  /** the cells: feature toggles, neurons (with their bias), outputs; each with its
   * picture */
  buildCells(net, { box, cols, pos }, box0) {
    return cols.map((col, ci) => col.map((c, j) => {
      const [x, y] = pos[ci][j];
      const node = el("button", { type: "button", class: "cell" });
      node.style.left = x + "px"; node.style.top = y + "px";
      node.style.width = node.style.height = box + "px";
      const canvas = el("canvas", { width: "20", height: "20" });
      node.appendChild(canvas);
      if (ci === 0) this.featureCell(node, net, c.feature); else this.neuronCell(node, ci, j);
      box0.appendChild(node);
      return { node, canvas, feature: c.feature };
    }));
  }

  /** an input feature's cell: a toggle, pressed when the feature is on */
  featureCell(node, net, feature) {
    const on = net.features.includes(feature);
    node.classList.add("feature"); node.classList.toggle("off", !on);
    node.setAttribute("aria-pressed", String(on));
    node.setAttribute("aria-label", `input feature ${feature}: ${on ? "on" : "off"}`);
    node.dataset.ctl = this.group;
    node.dataset.feature = feature;
    node.appendChild(el("span", { class: "flabel", text: feature }));
    node.onclick = () => this.act.toggleFeature(feature);
    if (this.act.hidden(this.group)) node.disabled = true;
  }

  /** neuron j of layer ci's cell (hidden or output): it opens the editor of its bias */
  neuronCell(node, ci, j) {
    const name = `b${ci}.${j + 1}`;
    node.dataset.name = name;
    node.setAttribute("aria-label", `neuron ${ci}.${j + 1}: edit its bias ${name}`);
    const describe = () => { node.title = `${name} = ${node.dataset.value}`; };
    node.addEventListener("mouseenter", describe);
    node.onclick = () => this.edit(name);
    if (this.act.hidden("network")) node.disabled = true;
  }

  /** a header over each column: "features", - and + for a hidden layer's neurons, the
   * outputs' count */
  buildHeaders(net, { cols, xs }, box0) {
    for (let li = 1; li < cols.length; li++) {
      const head = el("div", { class: "layerhead" });
      head.style.left = (xs[li] - 8) + "px"; head.dataset.ctl = "network";
      if (li === cols.length - 1) { head.textContent = net.sizes[li] > 1 ? `${net.sizes[li]} outputs` : "output"; }
      else {
        const mk = (t, d, lab) => {
          const b = el("button", { type: "button", text: t, "aria-label": lab });
          b.onclick = () => this.act.neurons(li - 1, d);
          head.appendChild(b);
        };
        mk("−", -1, `one neuron fewer in hidden layer ${li}`);
        mk("+", +1, `one neuron more in hidden layer ${li}`);
      }
      box0.appendChild(head);
    }
    const fh = el("div", { class: "layerhead", text: "features" }); fh.style.left = "0px";
    box0.appendChild(fh);
  }

  /** open the editor of one weight or bias */
  edit(name) {
    if (this.act.hidden("network")) return;
    this.editing = name;
    this.$("edit").hidden = false;
    this.$("edit-name").textContent = name;
    const v = this.paramValue(name), input = this.$("edit-value");
    input.value = typeof v === "number" ? fmt(v) : "";
    this.act.mark(input, null);
    input.focus();
  }

  async setWeight() {
    const name = this.editing; if (!name) return;
    const input = this.$("edit-value");
    const value = input.value.trim() === "" ? NaN : Number(input.value);
    await this.act.setWeight(name, value, input);
  }
}

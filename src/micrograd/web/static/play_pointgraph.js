/* The Playground's one-point graph: the whole computational graph of one followed point
 * (micrograd.viz's layout), stepped forward (data from the leaves to the root) and
 * backward (grad from the root to the leaves). The layout comes once per structure; the
 * numbers every step, written into the nodes in view (the others when they scroll in). */

import { fmt, fmtCell } from "./format.js";
import { svg, curve } from "./svg.js";

const NO_POINT = "click a point of the plot (or a data point) to follow it";

export class PointGraph {
  /** @param part  the component's part(role) lookup: gbox, gbar, gsum, g-pos, g-* buttons */
  constructor(part) {
    this.$ = part;
    this.graph = null;   // the drawn graph: {key, nodes, n, values, view}
    this.pos = null;     // the position stepped to (null: all of it, 2N)
    part("g-start").onclick = () => this.stepTo("start");
    part("g-back").onclick = () => this.stepTo(-1);
    part("g-fwd").onclick = () => this.stepTo(+1);
    part("g-all").onclick = () => this.stepTo("all");
    const box = part("gbox");
    let queued = false;  // the nodes that come into view get their numbers
    box.addEventListener("scroll", () => {
      if (queued || !this.graph) return;
      queued = true;
      requestAnimationFrame(() => { queued = false; this.measure(); this.showValues(); });
    });
  }

  clear() {
    if (!this.graph) return;
    this.graph = null; this.$("gbox").textContent = ""; this.$("gbar").hidden = true;
    this.$("gsum").textContent = NO_POINT;
  }

  /** A new point's graph starts at its end (all steps shown). */
  restart() { this.pos = null; }

  /** Draw the Python side's laid-out graph, or update its numbers: `g.layout` (viz's
   *  JSON) when the structure is new, `g.values` ([data, grad] per node) every time. */
  draw(g) {
    const box = this.$("gbox");
    if (g.layout || !this.graph || this.graph.key !== g.key) {
      if (!g.layout) return;  // numbers for a structure not drawn yet: wait for the layout
      box.textContent = "";
      const L = g.layout;
      const root = svg("svg", { width: L.width, height: L.height, viewBox: `0 0 ${L.width} ${L.height}`, class: "pgraph" }, box);
      for (const e of L.edges) svg("path", { d: curve(e.points), class: "pedge" }, root);
      const nodes = L.nodes.map((n) => this.node(root, n));
      this.graph = { key: g.key, nodes, n: L.nodes.length };
      this.$("gbar").hidden = false;
      // start at the root (the right end): the output, or the point's loss
      const top = L.nodes.find((n) => n.id === L.root);
      if (top) {
        box.scrollLeft = Math.max(0, top.box.x + top.box.w + 20 - box.clientWidth);
        box.scrollTop = Math.max(0, top.box.y - box.clientHeight / 2);
      }
      this.measure();
    }
    this.graph.values = g.values;
    const where = g.label === null ? `the point (${fmt(g.x[0])}, ${fmt(g.x[1])})`
      : `the data point (${fmt(g.x[0])}, ${fmt(g.x[1])}) with label ${g.label}`;
    this.$("gsum").textContent = `${where}: ${g.n} nodes; root ${g.root} = ${fmt(g.output)}`;
    this.showValues();
  }

  node(root, n) {
    if (n.op_box) {
      const ob = n.op_box;
      svg("ellipse", { cx: ob.x + ob.w / 2, cy: ob.y + ob.h / 2, rx: ob.w / 2, ry: ob.h / 2, class: "pop" }, root);
      const t = svg("text", { x: ob.x + ob.w / 2, y: ob.y + ob.h / 2 + 4, "text-anchor": "middle", class: "poptext" }, root);
      t.textContent = n.op;
      if (n.op_edge.length >= 2) {
        const [a, b] = [n.op_edge[0], n.op_edge[n.op_edge.length - 1]];
        svg("path", { d: `M ${a[0]} ${a[1]} L ${b[0]} ${b[1]}`, class: "pedge" }, root);
      }
    }
    const b = n.box;
    const gn = svg("g", { class: "pnode" + (n.leaf ? " leaf" : ""), transform: `translate(${b.x},${b.y})`, "data-name": n.name, "data-id": n.id }, root);
    svg("rect", { width: b.w, height: b.h, rx: 3 }, gn);
    const lens = n.cells.map((c) => 2 + c.length), total = lens.reduce((x, y) => x + y, 0);
    let x = 0; const texts = [];
    n.cells.forEach((c, i) => {
      const w = (b.w * lens[i]) / total;
      if (i > 0) svg("line", { x1: x, y1: 0, x2: x, y2: b.h, class: "sep" }, gn);
      const t = svg("text", { x: x + w / 2, y: b.h / 2 + 4, "text-anchor": "middle" }, gn);
      t.textContent = c;
      texts.push(t);
      x += w;
    });
    const n0 = n.cells.length - 2;  // the data and grad cells are the last two
    const title = svg("title", {}, gn);  // exact numbers, written when hovered
    gn.addEventListener("mouseenter", () => { title.textContent = `${n.name}: data ${gn.dataset.data || "·"}, grad ${gn.dataset.grad || "·"}`; });
    return { g: gn, data: texts[n0], grad: texts[n0 + 1], box: b };
  }

  /** Forward fills data from the leaves to the root (node order), backward fills grad
   *  from the root to the leaves; position 0..2N. */
  showValues() {
    const G = this.graph; if (!G || !G.values) return;
    const N = G.n, pos = this.pos === null ? 2 * N : this.pos;
    // texts are rewritten for the nodes in the box's view (and a margin); the others when
    // they scroll into it: the numbers of the whole graph are in the nodes' data- attributes
    const v = G.view || this.measure(), m = 200;  // the view, measured on scroll only
    const vx0 = v[0] - m, vx1 = v[0] + v[2] + m, vy0 = v[1] - m, vy1 = v[1] + v[3] + m;
    G.nodes.forEach((nd, i) => {
      const [d, gr] = G.values[i];
      const hasData = i < Math.min(pos, N), hasGrad = pos > N && i >= N - (pos - N);
      const b = nd.box;
      if (b.x + b.w >= vx0 && b.x <= vx1 && b.y + b.h >= vy0 && b.y <= vy1) {
        const td = "data " + (hasData ? fmtCell(d) : "·"), tg = "grad " + (hasGrad ? fmtCell(gr) : "·");
        if (nd.td !== td) { nd.data.textContent = td; nd.td = td; }
        if (nd.tg !== tg) { nd.grad.textContent = tg; nd.tg = tg; }
      }
      nd.g.dataset.data = hasData ? String(d) : ""; nd.g.dataset.grad = hasGrad ? String(gr) : "";
      const cur = pos < 2 * N && (pos <= N ? i === pos - 1 : i === N - (pos - N));
      if (cur !== nd.cur) { nd.g.classList.toggle("cur", cur); nd.cur = cur; }
    });
    this.$("g-pos").textContent = pos <= N ? `forward ${pos} / ${N}` : `backward ${pos - N} / ${N}`;
  }

  /** The box's scroll position and size (read after a scroll, not at each step: reading
   *  them right after the DOM changed would force a layout). */
  measure() {
    const box = this.$("gbox");
    const v = [box.scrollLeft, box.scrollTop, box.clientWidth, box.clientHeight];
    if (this.graph) this.graph.view = v;
    return v;
  }

  stepTo(d) {
    const G = this.graph; if (!G) return;
    const N = G.n, pos = this.pos === null ? 2 * N : this.pos;
    const p = d === "start" ? 0 : d === "all" ? 2 * N : Math.max(0, Math.min(2 * N, pos + d));
    this.pos = p === 2 * N ? null : p;
    const cur = G.nodes.find((nd, i) => (p <= N ? i === p - 1 : i === 2 * N - p));
    if (cur && p < 2 * N && cur.g.scrollIntoView) cur.g.scrollIntoView({ block: "nearest", inline: "nearest" });
    this.measure();
    this.showValues();
  }
}

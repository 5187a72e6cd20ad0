/* micrograd serve: GraphView, a reusable view of a graph laid out by the server.
 *
 *   const view = new GraphView(element, { label, onNode(id), onEdge(id), legend });
 *                                   // legend: a key to the Walk's node and edge classes
 *                                   // under the drawing (graph_folds.js's LEGEND)
 *   view.setGraph(graph, neurons);  // graph: micrograd.viz.layout_to_dict (positions,
 *                                   // records' cells and their widths); neurons: optional
 *                                   // [{id, output, title, members}] that can be folded
 *   view.update(state);             // state.cells: {node id: [cell texts]} (server texts),
 *                                   // state.pending: {node id: [indices of cells not yet
 *                                   // computed, drawn dim]},
 *                                   // state.nodeClass / state.edgeClass: {id: "a b"}
 *   view.fit(); view.zoom(factor); view.actualSize(); view.fold(neuronId, folded?)
 *   view.show(id); view.focusNode(id); view.destroy()
 *   doc = await view.fitted((layout) => ask({...request, ...layout}), key)
 *                                   // the graph asked for in the layout that fits this
 *                                   // view best (layout: {rankdir, stack, stagger}, the
 *                                   // Python side's fields); key names the graph
 *
 * The view only places what the server laid out and writes the texts the server
 * formatted: it never computes or formats a number. It pans and zooms (wheel, drag, the
 * buttons, and the keyboard: arrows pan, + and - zoom, 0 fits, 1 is actual size), and
 * lets every node and edge be reached with Tab and used with Enter or Space.
 *
 * Sizing: the view is as wide as its column and as tall as the graph needs at its
 * opening zoom, up to a share of the window. A graph opens fitted whole when its text
 * is then at least 11 px, else at 11 px with the root on screen; `fitted` asks for the
 * lecture's left-to-right drawing first, then with each record's cells stacked (a third
 * as wide), and on a narrow view (a phone) top to bottom with stacked records, then the
 * same with the leaves that feed one op staggered over two rows (half as wide). A narrow
 * view grows as tall as the window (the page scrolls) when that shows a graph whole at
 * 11 px and its share does not. Stepping
 * keeps the current node on screen, and the root too whenever both fit. The overview
 * map sits in the toolbar, never over the drawing, and only while part of the graph is
 * off screen.
 */
import { drawFolds, drawLegend, foldButtons, foldLabels } from "./graph_folds.js";
import { curve, escapeMarkup, svg } from "./svg.js";
import { uniquePrefix } from "./dom.js";

const GV_FONT = 12;          // px: the layout measures its texts in this font
const GV_MIN_TEXT = 11;      // px: no text below this at the opening zoom
const GV_MAX_ZOOM = 4;
const GV_OPEN_ZOOM = 1.25;   // the most a small graph is enlarged when it opens
const GV_SHARE = 0.62;       // the view grows up to this share of the window's height,
const GV_ROOM = 0.4;         // within the room left below its top on the first screen (but
                             // to this share at least)
const GV_MIN_H = 120;        // px: the view's least height
const GV_STEP_SHARE = 0.7;   // a narrow view grows up to this share to show a step's node
                             // with the root (the page scrolls as little as shows it)
const GV_NARROW = 600;       // px: a view narrower than this draws top to bottom, stacked
const GV_PAD = 8;            // px kept free around a fitted graph and a shown node
const GV_MINI_W = 160, GV_MINI_H = 34;  // px: the overview map's largest size

function framed() { return window.parent !== window; }

/** the layouts a view asks for, best first: the lecture's left to right, then the same
 *  with stacked records; on a narrow view top to bottom with stacked records, then the
 *  same with the leaves that feed one op staggered over two rows (a row half as wide) */
function layoutsFor(width) {
  return width < GV_NARROW
    ? [{ rankdir: "TB", stack: true, stagger: false }, { rankdir: "TB", stack: true, stagger: true }]
    : [{ rankdir: "LR", stack: false, stagger: false }, { rankdir: "LR", stack: true, stagger: false }];
}

export class GraphView {
  constructor(host, opts) {
    this.opts = opts || {};
    this.host = host;
    host.classList.add("gv");
    host.textContent = "";
    const bar = document.createElement("div");
    bar.className = "gv-bar";
    bar.setAttribute("role", "toolbar");
    bar.setAttribute("aria-label", "graph view");
    const button = (text, title, fn) => {
      const b = document.createElement("button");
      b.type = "button"; b.textContent = text; b.title = title;
      b.setAttribute("aria-label", title);
      b.addEventListener("click", fn);
      bar.appendChild(b);
      return b;
    };
    this.btnIn = button("+", "zoom in", () => this.zoom(1.25));
    this.btnOut = button("−", "zoom out", () => this.zoom(0.8));
    button("fit", "fit the whole graph", () => this.fit());
    button("1:1", "actual size", () => this.actualSize());
    this.folds = document.createElement("span");
    this.folds.className = "gv-folds";
    bar.appendChild(this.folds);
    this.zoomText = document.createElement("span");
    this.zoomText.className = "gv-zoom";
    this.zoomText.setAttribute("aria-live", "polite");
    bar.appendChild(this.zoomText);
    // the overview map: in the toolbar, so it never covers the drawing
    this.mini = svg("svg", { class: "gv-mini", "aria-hidden": "true" }, bar);
    this.miniScene = svg("g", {}, this.mini);
    this.miniView = svg("rect", { class: "gv-mini-view" }, this.mini);
    host.appendChild(bar);

    this.port = document.createElement("div");
    this.port.className = "gv-port";
    this.port.tabIndex = 0;
    this.port.setAttribute("role", "group");
    this.port.setAttribute("aria-label", (this.opts.label || "graph") +
      ": arrow keys pan, + and - zoom, 0 fits; Tab reaches every node and edge");
    host.appendChild(this.port);
    if (this.opts.legend) host.appendChild(drawLegend());
    this.svg = svg("svg", { class: "gv-svg", role: "img" }, this.port);
    const defs = svg("defs", {}, this.svg);
    this.arrow = uniquePrefix("graph") + "arrow";  // one marker per view: ids are per page
    const mk = svg("marker", { id: this.arrow, viewBox: "0 0 10 10", refX: "10", refY: "5",
                                markerUnits: "userSpaceOnUse", markerWidth: "8",
                                markerHeight: "8", orient: "auto-start-reverse" }, defs);
    svg("path", { d: "M 0 0 L 10 5 L 0 10 z", class: "gv-arrowhead" }, mk);
    this.scene = svg("g", {}, this.svg);

    this.k = 1; this.tx = 0; this.ty = 0;
    this.folded = new Set();
    this._wire();
  }

  /* ---------------------------------------------------------------- input */
  _wire() {
    const port = this.port;
    port.addEventListener("wheel", (ev) => {
      ev.preventDefault();
      const r = port.getBoundingClientRect();
      this.zoom(Math.exp(-ev.deltaY * 0.0015), ev.clientX - r.left, ev.clientY - r.top);
    }, { passive: false });
    let drag = null;
    port.addEventListener("pointerdown", (ev) => {
      if (ev.button !== 0) return;
      drag = { x: ev.clientX, y: ev.clientY, tx: this.tx, ty: this.ty, moved: false, id: ev.pointerId };
    });
    port.addEventListener("pointermove", (ev) => {
      if (!drag || ev.pointerId !== drag.id) return;
      const dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
      if (!drag.moved && Math.hypot(dx, dy) < 4) return;
      if (!drag.moved) { drag.moved = true; port.setPointerCapture(ev.pointerId); port.classList.add("dragging"); }
      this.tx = drag.tx + dx; this.ty = drag.ty + dy; this._apply();
    });
    const end = (ev) => {
      if (!drag) return;
      if (drag.moved) {
        this._justDragged = true;
        setTimeout(() => { this._justDragged = false; }, 0);
        port.classList.remove("dragging");
      }
      drag = null;
    };
    port.addEventListener("pointerup", end);
    port.addEventListener("pointercancel", end);
    port.addEventListener("keydown", (ev) => {
      if (ev.target !== port && (ev.key === "Enter" || ev.key === " ")) {
        const g = ev.target.closest("[data-node],[data-edge],[data-neuron]");
        if (g) { ev.preventDefault(); this._activate(g); }
        return;
      }
      const step = 60;
      const keys = { ArrowLeft: [step, 0], ArrowRight: [-step, 0], ArrowUp: [0, step], ArrowDown: [0, -step] };
      if (ev.target === port && keys[ev.key]) {
        ev.preventDefault();
        this.tx += keys[ev.key][0]; this.ty += keys[ev.key][1]; this._apply();
      } else if (ev.key === "+" || ev.key === "=") { ev.preventDefault(); this.zoom(1.25); }
      else if (ev.key === "-" || ev.key === "_") { ev.preventDefault(); this.zoom(0.8); }
      else if (ev.key === "0") { ev.preventDefault(); this.fit(); }
      else if (ev.key === "1") { ev.preventDefault(); this.actualSize(); }
    });
    port.addEventListener("focusin", (ev) => {
      const g = ev.target.closest && ev.target.closest("[data-node],[data-edge],[data-neuron]");
      if (g) this._reveal(g);
    });
    port.addEventListener("click", (ev) => {
      if (this._justDragged) return;
      const g = ev.target.closest("[data-node],[data-edge],[data-neuron]");
      if (g) this._activate(g);
    });
    const miniMove = (ev) => {
      const r = this.mini.getBoundingClientRect();
      const s = this.miniScale;
      const gx = (ev.clientX - r.left) / s, gy = (ev.clientY - r.top) / s;
      const { w: pw, h: ph } = this._size();
      this.tx = pw / 2 - gx * this.k; this.ty = ph / 2 - gy * this.k; this._apply();
    };
    this.mini.addEventListener("pointerdown", (ev) => {
      ev.stopPropagation(); this.mini.setPointerCapture(ev.pointerId); this._miniDrag = true; miniMove(ev);
    });
    this.mini.addEventListener("pointermove", (ev) => { if (this._miniDrag) miniMove(ev); });
    this.mini.addEventListener("pointerup", () => { this._miniDrag = false; });
    this._resize = () => { this._measure(); this._apply(); };
    window.addEventListener("resize", this._resize);
  }

  _activate(g) {
    if (g.dataset.neuron) { this.fold(g.dataset.neuron, false); return; }
    if (g.dataset.node && this.opts.onNode) this.opts.onNode(g.dataset.node);
    if (g.dataset.edge && this.opts.onEdge) this.opts.onEdge(g.dataset.edge);
  }

  destroy() { window.removeEventListener("resize", this._resize); this.host.textContent = ""; }

  /* ---------------------------------------------------------------- drawing */
  setGraph(graph, neurons) {
    this._measure();  // before the drawing changes, so no layout is forced after it
    this.graph = graph;
    this.neurons = neurons || [];
    this.folded = new Set([...this.folded].filter((id) => this.neurons.some((n) => n.id === id)));
    this.byId = Object.fromEntries(graph.nodes.map((n) => [n.id, n]));
    this.scene.textContent = "";
    this.nodeEls = {}; this.edgeEls = {}; this.textEls = {};
    const edgeLayer = svg("g", { class: "gv-edges" }, this.scene);
    const nodeLayer = svg("g", { class: "gv-nodes" }, this.scene);
    this.foldLayer = svg("g", { class: "gv-foldlayer" }, this.scene);
    // one string per layer, parsed once: far faster than an element at a time
    const esc = escapeMarkup, arrow = `url(#${this.arrow})`;
    const name = (id) => esc(this.byId[id].name);
    const eh = [];
    for (const e of graph.edges) {
      const d = curve(e.points);
      eh.push(`<g class="edge" data-edge="${esc(e.id)}" data-src="${esc(e.src)}" data-dst="${esc(e.dst)}" ` +
              `tabindex="0" role="button" aria-label="edge ${name(e.src)} to ${name(e.dst)}">` +
              `<path d="${d}" class="vis" marker-end="${arrow}"></path><path d="${d}" class="wide"></path></g>`);
    }
    edgeLayer.innerHTML = eh.join("");
    const nh = [];
    for (const n of graph.nodes) {
      nh.push(`<g class="node ${n.leaf ? "leaf" : "op"}" data-node="${esc(n.id)}" data-name="${name(n.id)}" tabindex="0" role="button">`);
      if (n.op_box) {
        const ob = n.op_box, cx = ob.x + ob.w / 2, cy = ob.y + ob.h / 2;
        nh.push(`<g class="opnode"><ellipse cx="${cx}" cy="${cy}" rx="${ob.w / 2}" ry="${ob.h / 2}"></ellipse>` +
                `<text x="${cx}" y="${cy + 4}" text-anchor="middle">${esc(n.op)}</text>`);
        if (n.op_edge.length >= 2) {
          const [a, b] = [n.op_edge[0], n.op_edge[n.op_edge.length - 1]];
          nh.push(`<path d="M ${a[0]} ${a[1]} L ${b[0]} ${b[1]}" class="opedge" marker-end="${arrow}"></path>`);
        }
        nh.push("</g>");
      }
      const b = n.box;
      nh.push(`<g class="record" transform="translate(${b.x},${b.y})"><rect width="${b.w}" height="${b.h}" rx="3"></rect>`);
      let x = 0, y = 0;
      const rowH = b.h / n.cells.length;  // a stacked record's rows
      n.cells.forEach((c, i) => {
        const kind = (n.label && i === 0) ? "lbl" : esc(c.split(" ")[0]);
        if (graph.stack) {
          if (i > 0) nh.push(`<line x1="0" y1="${y}" x2="${b.w}" y2="${y}" class="sep"></line>`);
          nh.push(`<text x="${b.w / 2}" y="${y + rowH / 2 + 4}" text-anchor="middle" class="${kind}">${esc(c)}</text>`);
          y += rowH;
          return;
        }
        const w = n.cell_widths[i];
        if (i > 0) nh.push(`<line x1="${x}" y1="0" x2="${x}" y2="${b.h}" class="sep"></line>`);
        nh.push(`<text x="${x + w / 2}" y="${b.h / 2 + 4}" text-anchor="middle" class="${kind}">${esc(c)}</text>`);
        x += w;
      });
      nh.push("</g></g>");
    }
    nodeLayer.innerHTML = nh.join("");
    for (const ge of edgeLayer.children) this.edgeEls[ge.dataset.edge] = ge;
    for (const gn of nodeLayer.children) {
      this.nodeEls[gn.dataset.node] = gn;
      this.textEls[gn.dataset.node] = [...gn.querySelector(".record").querySelectorAll("text")];
    }
    this._drawFoldButtons();
    this._drawFolds();
    this._drawMini();
    this.svg.setAttribute("aria-label", `${this.opts.label || "graph"}: ${graph.nodes.length} nodes`);
    this.opening();
    this._recheck = true;  // the page around may move the view when it draws this graph
  }

  /** texts and classes of the current state (texts as the server formatted them) */
  update(state) {
    state = state || {};
    const cells = state.cells || {}, nc = state.nodeClass || {}, ec = state.edgeClass || {};
    for (const n of this.graph.nodes) {
      const texts = cells[n.id];
      const els = this.textEls[n.id];
      const pending = (state.pending && state.pending[n.id]) || [];
      if (texts) texts.forEach((t, i) => {
        if (els[i] && t !== null && t !== undefined) {
          els[i].textContent = t;
          els[i].classList.toggle("dim", pending.includes(i));
        }
      });
      const el = this.nodeEls[n.id];
      el.setAttribute("class", `node ${n.leaf ? "leaf" : "op"} ${nc[n.id] || ""}`);
      el.setAttribute("aria-label", `${n.name}: ${(texts || n.cells).slice(n.label ? 1 : 0).join(", ")}`);
    }
    for (const e of this.graph.edges) this.edgeEls[e.id].setAttribute("class", `edge ${ec[e.id] || ""}`);
    this.lastState = state;
    this._drawFolds();
    if (this._recheck) {  // the first state of a new graph: the page around it is drawn
      this._recheck = false;
      const room = this._roomNow();
      if (Math.abs(room - this._room) > 1) {  // (two Infinities: NaN, no change)
        this._room = room;
        this.opening();
      }
    }
  }

  /* ---------------------------------------------------------------- folding */
  _drawFoldButtons() { foldButtons(this); }
  _foldLabels() { foldLabels(this); }

  /** fold (true), open (false) or toggle (undefined) a neuron into one box */
  fold(id, folded) {
    const on = folded === undefined ? !this.folded.has(id) : folded;
    if (on) this.folded.add(id); else this.folded.delete(id);
    this._foldLabels();
    this._drawFolds();
    const box = on && this.foldLayer.querySelector(`[data-neuron="${id}"]`);
    if (box) this._reveal(box);  // the folded box on screen
  }

  _drawFolds() { drawFolds(this); }

  /* ---------------------------------------------------------------- layout and size */
  /** Ask for a graph in the layout that fits this view best, and resolve with the
   * document whose `graph` that is: `ask(layout)` resolves with a document for a layout
   * ({rankdir, stack, stagger}); the layouts are asked one after another until one fits whole
   * with text of 11 px, else the one that comes closest is kept (a graph too large for
   * any to fit is asked for once). `key` names the graph:
   * asked again under the same key, the layout chosen last is asked for at once. */
  async fitted(ask, key) {
    this._measure();
    const tries = layoutsFor(this._w);
    const same = (a, b) => a.rankdir === b.rankdir && a.stack === b.stack && a.stagger === b.stagger;
    const last = this._picked;
    const order = last && last.key === key && tries.some((t) => same(t, last.how)) ? [last.how] : tries;
    let best = null;
    for (const how of order) {
      const doc = await ask(how);
      const k = this._fitK(doc.graph);
      if (!best || k > best.k) best = { doc, k, how };
      // fitted; or so far from it that the next layout (records a third as wide at
      // best) cannot fit either: a large graph is not laid out twice
      if (k >= GV_MIN_TEXT / GV_FONT || k < GV_MIN_TEXT / GV_FONT / 3) break;
    }
    this._picked = { key, how: best.how };
    return best.doc;
  }

  /** the port's size, read from the layout only when it can have changed (a new graph,
   * a resized window): reading it after drawing would force a layout of the new drawing
   * before the browser's own */
  _measure() {
    this._w = this.port.clientWidth || 1;
    this._h = this.port.clientHeight || 1;
    // in a frame (a lesson on another origin) the window grows with the walk: the
    // screen's height bounds it
    this._winH = framed() ? Math.min(window.innerHeight, screen.availHeight || Infinity)
      : window.innerHeight;
    this._room = this._roomNow();
  }

  /** the window's height left below the port's top, when it starts on the first screen */
  _roomNow() {
    if (framed()) return Infinity;
    const top = this.port.getBoundingClientRect().top + window.scrollY;
    return top < window.innerHeight ? window.innerHeight - top - GV_PAD : Infinity;
  }

  _size() {
    if (this._w === undefined) this._measure();
    return { w: this._w, h: this._h };
  }

  /** the tallest the port grows: a share of the window */
  _maxH() {
    const share = Math.min(this._winH * GV_SHARE, Math.max(this._winH * GV_ROOM, this._room));
    return Math.max(GV_MIN_H, Math.round(share));
  }

  /** how graph g opens fitted whole, {k, tall}: the zoom that shows all of it in this
   * port as tall as it may grow (its share of the window); but on a narrow view whose
   * share is too short for 11 px text, 11 px in a port as tall as the window (tall: the
   * page scrolls to the rest of it) when the graph then fits that */
  _fit(g) {
    if (this._w === undefined) this._measure();
    const across = (this._w - 2 * GV_PAD) / g.width, minK = GV_MIN_TEXT / GV_FONT;
    const k = Math.min(across, (this._maxH() - 2 * GV_PAD) / g.height, GV_OPEN_ZOOM);
    const tall = this._w < GV_NARROW && k < minK && across >= minK &&
      g.height * minK + 2 * GV_PAD <= this._tallH();
    return tall ? { k: minK, tall } : { k, tall };
  }

  _fitK(g) { return this._fit(g).k; }

  /** the tallest a narrow view grows to show a graph whole at 11 px: the window's height */
  _tallH() { return Math.max(this._maxH(), Math.floor(this._winH - 2 * GV_PAD)); }

  /** the opening view: the port as tall as the graph needs (within GV_MIN_H and a share
   * of the window, or the window on a narrow view: `_fit`), the whole graph if its text
   * stays >= 11 px, else 11 px text with the root on screen */
  opening() {
    const g = this.graph, minK = GV_MIN_TEXT / GV_FONT;
    const { k: fitK, tall } = this._fit(g), k = Math.max(fitK, minK);
    const h = Math.min(tall ? this._tallH() : this._maxH(),
                       Math.max(GV_MIN_H, Math.ceil(g.height * k + 2 * GV_PAD)));
    this.port.style.height = h + "px";  // the port has no border or padding: h is its height
    this._h = h;
    if (fitK >= minK) { this.fit(fitK); return; }
    this.k = minK;
    const root = this._box(g.root);
    const { w } = this._size();
    // centred on the root, then moved as little as keeps the drawing filling the port
    const place = (t, size, port) => (size * minK <= port ? (port - size * minK) / 2
      : Math.min(0, Math.max(port - size * minK, t)));
    this.tx = place(w / 2 - (root.x + root.w / 2) * minK, g.width, w);
    this.ty = place(h / 2 - (root.y + root.h / 2) * minK, g.height, h);
    this._apply();
  }

  /* ---------------------------------------------------------------- zoom and pan */
  fit(cap) {
    const { w, h } = this._size();
    const b = this._shown();  // the whole graph, or what a folded neuron leaves on show
    this.k = Math.min((w - 2 * GV_PAD) / b.width, (h - 2 * GV_PAD) / b.height, cap || GV_MAX_ZOOM);
    this.tx = (w - b.width * this.k) / 2 - b.x * this.k;
    this.ty = (h - b.height * this.k) / 2 - b.y * this.k;
    this._apply();
  }

  /** the part of the graph on show: a folded neuron's nodes are hidden and its box is
   *  drawn, so fitting fits what is seen */
  _shown() {
    const g = this.graph, whole = { x: 0, y: 0, width: g.width, height: g.height };
    if (!this.folded.size) return whole;
    const b = this.scene.getBBox();  // what is displayed (display: none is left out)
    return b.width > 0 && b.height > 0 ? b : whole;
  }

  actualSize() { const { w, h } = this._size(); this.zoom(1 / this.k, w / 2, h / 2); }

  zoom(f, cx, cy) {
    const { w, h } = this._size();
    if (cx === undefined) { cx = w / 2; cy = h / 2; }
    const g = this.graph;
    const minK = Math.min(0.1, Math.min(w / g.width, h / g.height));
    const k = Math.max(minK, Math.min(GV_MAX_ZOOM, this.k * f));
    this.tx = cx - (cx - this.tx) * (k / this.k);
    this.ty = cy - (cy - this.ty) * (k / this.k);
    this.k = k;
    this._apply();
  }

  _apply() {
    if (!this.graph) return;
    const { w, h } = this._size();
    const g = this.graph;
    // keep part of the graph on screen
    const gw = g.width * this.k, gh = g.height * this.k, m = 40;
    this.tx = Math.min(w - m, Math.max(m - gw, this.tx));
    this.ty = Math.min(h - m, Math.max(m - gh, this.ty));
    this.svg.setAttribute("width", w); this.svg.setAttribute("height", h);
    this.scene.setAttribute("transform", `translate(${this.tx},${this.ty}) scale(${this.k})`);
    this.zoomText.textContent = `${Math.round(this.k * 100)}%`;
    // the map only while part of the drawing is off screen
    const off = this.tx < -1 || this.ty < -1 || this.tx + gw > w + 1 || this.ty + gh > h + 1;
    this.mini.style.display = off ? "" : "none";
    this.host.dataset.zoom = String(this.k);
    if (off) {
      const s = this.miniScale;
      this.miniView.setAttribute("x", (-this.tx / this.k) * s);
      this.miniView.setAttribute("y", (-this.ty / this.k) * s);
      this.miniView.setAttribute("width", (w / this.k) * s);
      this.miniView.setAttribute("height", (h / this.k) * s);
    }
  }

  _drawMini() {
    const g = this.graph;
    const s = Math.min(GV_MINI_W / g.width, GV_MINI_H / g.height);
    this.miniScale = s;
    this.mini.setAttribute("width", Math.ceil(g.width * s));
    this.mini.setAttribute("height", Math.ceil(g.height * s));
    this.miniScene.textContent = "";
    for (const n of g.nodes) {
      const b = n.box;
      svg("rect", { x: b.x * s, y: b.y * s, width: Math.max(1, b.w * s), height: Math.max(1, b.h * s) },
           this.miniScene);
    }
  }

  /** a node's extent in the drawing: its record and its op node */
  _box(id) {
    const n = this.byId[id], b = n.box, o = n.op_box;
    if (!o) return { x: b.x, y: b.y, w: b.w, h: b.h };
    const x = Math.min(b.x, o.x), y = Math.min(b.y, o.y);
    return { x, y, w: Math.max(b.x + b.w, o.x + o.w) - x, h: Math.max(b.y + b.h, o.y + o.h) - y };
  }

  /** pan as little as brings this box of the drawing on screen (its start first, when
   * it is larger than the port) */
  _revealBox(bb) {
    const { w, h } = this._size();
    const x0 = bb.x * this.k + this.tx, y0 = bb.y * this.k + this.ty;
    const x1 = x0 + bb.w * this.k, y1 = y0 + bb.h * this.k;
    const pad = GV_PAD;
    if (x0 < pad) this.tx += pad - x0; else if (x1 > w - pad) this.tx -= Math.min(x1 - (w - pad), x0 - pad);
    if (y0 < pad) this.ty += pad - y0; else if (y1 > h - pad) this.ty -= Math.min(y1 - (h - pad), y0 - pad);
    this._apply();
    this.port.scrollTop = 0; this.port.scrollLeft = 0;  // focus must not scroll the port itself
  }

  _reveal(el) {
    const bb = el.getBBox();
    this._revealBox({ x: bb.x, y: bb.y, w: bb.width, h: bb.height });
  }

  focusNode(id) { const el = this.nodeEls[id]; if (el) el.focus(); }

  /** pan (if needed) so that this node is on screen, and the root with it when both fit
   * (a narrow view grows for that), then each of the `also` nodes that still fits with
   * them (a backward step's receivers); `scroll`: the window too, as little as shows the
   * port */
  show(id, scroll = true, also = []) {
    const el = this.nodeEls[id];
    if (!el || el.style.display === "none") return;
    const union = (p, q) => {
      const x = Math.min(p.x, q.x), y = Math.min(p.y, q.y);
      return { x, y, w: Math.max(p.x + p.w, q.x + q.w) - x, h: Math.max(p.y + p.h, q.y + q.h) - y };
    };
    const a = this._box(id), both = union(a, this._box(this.graph.root));
    const { w } = this._size();
    const fitsIn = (b) => b.w * this.k <= w - 2 * GV_PAD && b.h * this.k <= this._h - 2 * GV_PAD;
    let fits = fitsIn(both);
    const need = Math.ceil(both.h * this.k + 2 * GV_PAD);
    if (!fits && both.w * this.k <= w - 2 * GV_PAD && need <= this._stepMaxH()) {
      this.port.style.height = need + "px";  // taller, never shorter: the page does not jump back
      this._h = need;
      fits = true;
    }
    let shown = fits ? both : a;
    for (const other of also) {
      const oel = this.nodeEls[other];
      if (!oel || oel.style.display === "none") continue;
      const more = union(shown, this._box(other));
      if (fitsIn(more)) shown = more;
    }
    this._revealBox(shown);
    if (scroll) this._intoWindow();
  }

  /** the tallest a narrow view grows while stepping: its share of the window, within the
   * window's height below the top of opts.keep (the step controls, kept on screen) */
  _stepMaxH() {
    const keep = this.opts.keep;
    if (framed() || !keep || this._w >= GV_NARROW) return this._h;
    const room = window.innerHeight - GV_PAD
      - (this.port.getBoundingClientRect().top - keep.getBoundingClientRect().top);
    return Math.max(this._h, Math.min(Math.round(this._winH * GV_STEP_SHARE), Math.floor(room)));
  }

  /** scroll the window as little as brings the port's bottom on screen, never the top of
   * opts.keep off it (nothing when the port is whole on screen or keep is not) */
  _intoWindow() {
    const keep = this.opts.keep;
    if (framed() || !keep) return;
    const below = this.port.getBoundingClientRect().bottom + GV_PAD - window.innerHeight;
    const keepTop = keep.getBoundingClientRect().top;
    if (below > 0 && keepTop > 0 && keepTop < window.innerHeight) {
      window.scrollBy(0, Math.min(below, keepTop));
    }
  }
}

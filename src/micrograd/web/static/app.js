/* micrograd serve: the page. Plain JavaScript, no framework, no build step.
 *
 * The page draws and never computes: every number shown (data, grad, local derivatives,
 * losses, accuracies, the decision boundary, weights) arrives from the Python server.
 * Formatting a number for display is the only arithmetic done here.
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

async function api(method, path, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  const res = await fetch(path, opts);
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  if (!res.ok) {
    const err = new Error((data && data.error) || `HTTP ${res.status}`);
    err.status = res.status;
    err.data = data;
    throw err;
  }
  return data;
}

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

/* ------------------------------------------------------------------ tabs */

let META = null;

function showPage(name) {
  for (const p of ["walk", "play"]) {
    $("page-" + p).hidden = p !== name;
    $("tab-" + p).classList.toggle("active", p === name);
  }
  url.write({ page: name });
  if (name === "walk") Walk.ensure(); else Play.ensure();
  if (name !== "play") Play.pause();
}

/* ================================================================== THE WALK */

const Walk = {
  g: null,          // the graph and its steps, as the server sent them
  k: 0,             // how many steps are applied
  selectedEdge: null,
  order: [],        // the visit order being placed
  orderResult: null,
  started: false,
  busy: false,

  ensure() {
    if (this.started) return;
    this.started = true;
    const sel = $("w-preset");
    for (const p of META.walk_presets) {
      const o = document.createElement("option");
      o.value = p.key; o.textContent = p.title; sel.appendChild(o);
    }
    const own = document.createElement("option");
    own.value = ""; own.textContent = "(your own expression)"; sel.appendChild(own);
    sel.addEventListener("change", () => {
      const p = META.walk_presets.find((q) => q.key === sel.value);
      if (p) { $("w-expr").value = p.expr; this.load({ preset: p.key }); }
    });
    $("w-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      sel.value = "";
      this.load({ expr: $("w-expr").value });
    });
    $("w-fwd").onclick = () => this.stepForward();
    $("w-bwd").onclick = () => this.stepBackward();
    $("w-all").onclick = () => this.runAll();
    $("w-reset").onclick = () => this.setK(0);
    const modeIds = ["w-assign", "w-recursive", "w-nozero"];
    for (const id of modeIds) {  // one teaching mode at a time
      $(id).addEventListener("change", () => {
        if ($(id).checked) for (const other of modeIds) if (other !== id) $(other).checked = false;
        this.reload();
      });
    }
    $("w-nudge").onclick = () => this.nudge();
    $("o-run").onclick = () => this.runOrder();
    $("o-clear").onclick = () => { this.order = []; this.orderResult = null; this.drawOrder(); this.draw(); };
    $("o-topo").onclick = () => { this.order = this.g.reverse_topo.slice(); this.orderResult = null; this.drawOrder(); };

    const q = url.read();
    $("w-assign").checked = q.get("assign") === "1";
    $("w-recursive").checked = q.get("recursive") === "1";
    $("w-nozero").checked = q.get("nozero") === "1";
    const values = {};
    for (const part of (q.get("v") || "").split(",")) {
      const i = part.lastIndexOf(":");
      if (i > 0) values[decodeURIComponent(part.slice(0, i))] = Number(part.slice(i + 1));
    }
    const opts = Object.keys(values).length ? { values } : {};
    if (q.get("expr")) {
      sel.value = ""; $("w-expr").value = q.get("expr");
      this.load({ expr: q.get("expr"), ...opts });
    } else {
      const key = q.get("preset") || META.walk_presets[0].key;
      const p = META.walk_presets.find((x) => x.key === key) || META.walk_presets[0];
      sel.value = p.key; $("w-expr").value = p.expr;
      this.load({ preset: p.key, ...opts });
    }
  },

  modes() {
    return { assign: $("w-assign").checked, recursive: $("w-recursive").checked,
             no_zero_grad: $("w-nozero").checked };
  },

  spec() {  // what identifies the current graph for the server
    const s = this.source;
    const values = {};
    if (this.g) for (const l of this.g.leaves) values[l.name] = l.value;
    return { ...(s.preset ? { preset: s.preset } : { expr: s.expr }), values };
  },

  async load(source) {
    this.source = { preset: source.preset, expr: source.expr };
    const body = { ...(source.preset ? { preset: source.preset } : { expr: source.expr }),
                   ...this.modes() };
    if (source.values) body.values = source.values;
    await this.fetchGraph(body, true);
  },

  async reload(values) {  // same graph, new leaf values or modes: everything recomputed by the server
    if (!this.source) return;
    const body = { ...this.spec(), ...this.modes() };
    if (values) body.values = { ...body.values, ...values };
    await this.fetchGraph(body, false);
  },

  async fetchGraph(body, fresh) {
    const errBox = $("w-error");
    try {
      const g = await api("POST", "/api/walk", body);
      errBox.hidden = true;
      const keepK = fresh ? 0 : Math.min(this.k, g.steps.length);
      this.g = g;
      if (fresh) { this.order = []; this.orderResult = null; this.selectedEdge = null; }
      this.orderResult = null;
      this.k = keepK;
      this.buildLeaves();
      this.drawOrder();
      this.draw();
      this.writeUrl();
      $("w-nudge-out").textContent = "";
    } catch (e) {
      errBox.textContent = e.message;
      errBox.hidden = false;
    }
  },

  writeUrl() {
    const s = this.source;
    url.write({ preset: s.preset || null, expr: s.preset ? null : s.expr,
                v: this.g.leaves.map((l) => `${encodeURIComponent(l.name)}:${l.value}`).join(","),
                assign: $("w-assign").checked ? 1 : null,
                recursive: $("w-recursive").checked ? 1 : null,
                nozero: $("w-nozero").checked ? 1 : null });
  },

  buildLeaves() {
    const box = $("w-leaves"); box.textContent = "";
    const nsel = $("w-nudge-leaf"); nsel.textContent = "";
    for (const l of this.g.leaves) {
      const lab = document.createElement("label");
      lab.textContent = l.name + " = ";
      const inp = document.createElement("input");
      inp.type = "number"; inp.step = "any"; inp.value = String(l.value);
      inp.dataset.leaf = l.name; inp.id = "w-leaf-" + l.name;
      inp.addEventListener("change", () => {
        if (inp.value.trim() === "" || !isFinite(Number(inp.value))) { inp.value = String(l.value); return; }
        this.reload({ [l.name]: Number(inp.value) });
      });
      lab.appendChild(inp); box.appendChild(lab);
      const o = document.createElement("option"); o.value = l.name; o.textContent = l.name;
      nsel.appendChild(o);
    }
  },

  nFwd() { return this.g.steps.filter((s) => s.phase === "forward").length; },
  stepForward() { if (this.k < this.nFwd()) this.setK(this.k + 1); },
  stepBackward() {
    if (this.k < this.nFwd()) this.setK(this.nFwd());  // backward needs the forward pass first
    else if (this.k < this.g.steps.length) this.setK(this.k + 1);
  },
  runAll() { this.setK(this.g.steps.length); },
  setK(k) { this.k = k; this.orderResult = null; this.draw(); },

  /** node id -> {data, grad} after the first k steps (values copied from the steps). */
  stateAt(k) {
    const st = {};
    for (const n of this.g.nodes) st[n.id] = { data: n.leaf ? n.data : null, grad: null };
    for (const s of this.g.steps.slice(0, k)) {
      if (s.phase === "forward") st[s.node].data = s.data;
      for (const u of s.updates || []) st[u.node].grad = u.after;
    }
    return st;
  },

  phase() {
    const n = this.g.steps.length, f = this.nFwd();
    if (this.orderResult) return "visit order";
    if (this.k === 0) return "idle";
    if (this.k < f) return "forward";
    if (this.k === f) return "forward done";
    if (this.k < n) return "backward";
    return "done";
  },

  name(id) { return this.byId[id].name; },

  draw() {
    const g = this.g; if (!g) return;
    this.byId = Object.fromEntries(g.nodes.map((n) => [n.id, n]));
    $("w-k").textContent = String(this.k);
    $("w-n").textContent = String(g.steps.length);
    $("w-phase").textContent = this.phase();
    $("w-fwd").disabled = this.k >= this.nFwd();
    $("w-bwd").disabled = this.k >= g.steps.length;
    $("w-notes").textContent = this.k === g.steps.length && g.notes.length ? g.notes.join("\n") : "";

    let st, cur = null;
    if (this.orderResult) {
      st = {};
      for (const n of g.nodes) st[n.id] = { data: n.data, grad: this.orderResult.grads[n.id] };
    } else {
      st = this.stateAt(this.k);
      cur = this.k > 0 ? g.steps[this.k - 1] : null;
    }
    $("w-step").textContent = this.orderResult ?
      "The graph shows the grads of the visit order below (each node's grad when it was " +
      "visited). Press reset to step through the graph again." : cur ? this.describeStep(cur) :
      "Click step forward to fill .data at each node from leaves to root, then step backward " +
      "to fill .grad from root to leaves. Click an edge to read its local derivative.";

    const el = $("w-graph"); el.textContent = "";
    el.setAttribute("width", g.width); el.setAttribute("height", g.height);
    el.setAttribute("viewBox", `0 0 ${g.width} ${g.height}`);
    const defs = svg("defs", {}, el);
    const mk = svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: "10", refY: "5",
                               markerUnits: "userSpaceOnUse", markerWidth: "8", markerHeight: "8",
                               orient: "auto-start-reverse" }, defs);
    svg("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: "#8f98a6" }, mk);
    const activeEdges = new Set(cur && cur.updates ? cur.updates.map((u) => u.edge) : []);
    if (cur && cur.phase === "forward") for (const e of g.edges) if (e.dst === cur.node) activeEdges.add(e.id);
    for (const e of g.edges) {
      const p = e.points;
      let d = `M ${p[0][0]} ${p[0][1]}`;
      for (let i = 1; i < p.length; i++) {  // cubic pieces with tangents along the rank axis
        const [x0, y0] = p[i - 1], [x1, y1] = p[i], mx = (x0 + x1) / 2;
        d += ` C ${mx} ${y0}, ${mx} ${y1}, ${x1} ${y1}`;
      }
      const cls = ["edge", "hit"];
      if (this.selectedEdge === e.id) cls.push("selected");
      if (activeEdges.has(e.id)) cls.push("active");
      const ge = svg("g", { class: cls.join(" "), "data-edge": e.id, "data-src": e.src,
                            "data-dst": e.dst }, el);
      svg("path", { d, class: "vis", "marker-end": "url(#arrow)" }, ge);
      svg("path", { d, class: "wide" }, ge);
      const t = svg("title", {}, ge); t.textContent = `local derivative ${fmt(e.local)}`;
      ge.addEventListener("click", () => this.selectEdge(e.id));
    }
    const contribNodes = new Set(cur && cur.updates ? cur.updates.map((u) => u.node) : []);
    for (const n of g.nodes) {
      const s = st[n.id];
      if (n.op_box) {  // the small op node and its arrow into the record
        const ob = n.op_box;
        const go = svg("g", { class: "opnode" + (cur && cur.node === n.id ? " current" : "") }, el);
        svg("ellipse", { cx: ob.x + ob.w / 2, cy: ob.y + ob.h / 2, rx: ob.w / 2, ry: ob.h / 2 }, go);
        const t = svg("text", { x: ob.x + ob.w / 2, y: ob.y + ob.h / 2 + 4, "text-anchor": "middle" }, go);
        t.textContent = n.op;
        if (n.op_edge.length >= 2) {
          const [a, b] = [n.op_edge[0], n.op_edge[n.op_edge.length - 1]];
          svg("path", { d: `M ${a[0]} ${a[1]} L ${b[0]} ${b[1]}`, class: "opedge", "marker-end": "url(#arrow)" }, el);
        }
      }
      const cls = ["node", n.leaf ? "leaf" : "op"];
      if (n.const) cls.push("const");
      if (s.data !== null && !n.leaf) cls.push("done-fwd");
      if (s.grad !== null) cls.push("done-bwd");
      if (cur && cur.node === n.id) cls.push("current");
      if (contribNodes.has(n.id) && !(cur && cur.node === n.id)) cls.push("contrib");
      if (this.order.includes(n.id)) cls.push("placed");
      const b = n.box;
      const gn = svg("g", { class: cls.join(" "), "data-node": n.id, "data-name": n.name,
                            transform: `translate(${b.x},${b.y})` }, el);
      gn.dataset.data = s.data === null ? "" : String(s.data);
      gn.dataset.grad = s.grad === null ? "" : String(s.grad);
      svg("rect", { width: b.w, height: b.h, rx: 3 }, gn);
      const texts = (n.const ? [] : n.label ? [[n.name, "lbl"]] : [])
        .concat([["data " + fmt4(s.data), s.data === null ? "dim data" : "data"],
                 ["grad " + fmt4(s.grad), s.grad === null ? "dim grad" : "grad"]]);
      // cell widths as the engine's layout measured its own texts
      const lens = n.cells.map((c) => 2 + c.length);
      const total = lens.reduce((x, y) => x + y, 0);
      let x = 0;
      texts.forEach(([text, c], i) => {
        const w = (b.w * (lens[i] || lens[lens.length - 1])) / total;
        if (i > 0) svg("line", { x1: x, y1: 0, x2: x, y2: b.h, class: "sep" }, gn);
        const t = svg("text", { x: x + w / 2, y: b.h / 2 + 4, "text-anchor": "middle", class: c }, gn);
        t.textContent = text;
        x += w;
      });
      const tt = svg("title", {}, gn);
      tt.textContent = `${n.name}: data ${s.data === null ? "·" : s.data}, grad ${s.grad === null ? "·" : s.grad}`;
      gn.addEventListener("click", () => this.placeNode(n.id));
    }
    this.drawEdgeInfo();
  },

  describeStep(s) {
    if (s.phase === "forward") return `forward: ${s.text}`;
    const real = (s.updates || []).filter((u) => !u.seed);
    // the engine's sentence; its += lines are spelled out below with the names of the grads
    const lines = [real.length ? s.text.replace(/:.*?(\[pass \d+\])?$/, (m, p) => (p ? " " + p : "")) : s.text];
    for (const u of s.updates || []) {
      if (u.seed) { lines.push(`grad[${this.name(u.node)}] = ${fmt(u.after)}   (the seed: dL/dL = 1)`); continue; }
      lines.push(`grad[${this.name(u.node)}] ${u.op} grad[${this.name(u.from)}] · local = ` +
                 `${fmt(u.upstream)} · ${fmt(u.local)} = ${fmt(u.contribution)}   → ${fmt(u.after)}` +
                 (u.lost ? `   LOST: ${this.name(u.node)} was already visited` : ""));
    }
    return lines.join("\n");
  },

  selectEdge(id) { this.selectedEdge = this.selectedEdge === id ? null : id; this.draw(); },

  drawEdgeInfo() {
    const box = $("w-edge");
    const e = this.g && this.g.edges.find((x) => x.id === this.selectedEdge);
    if (!e) { box.hidden = true; return; }
    const name = (id) => this.g.nodes.find((n) => n.id === id).name;
    box.hidden = false;
    const count = this.g.edges.filter((x) => x.dst === e.dst).length;
    box.textContent = `edge ${name(e.src)} → ${name(e.dst)}\n` +
      `local derivative ∂${name(e.dst)}/∂${name(e.src)}` + (count > 1 ? ` (input ${e.index + 1} of ${count})` : "") +
      ` = ${fmt(e.local)}\n${e.rule || ""}`;
  },

  async nudge() {
    const leaf = $("w-nudge-leaf").value, h = Number($("w-nudge-h").value);
    try {
      const r = await api("POST", "/api/walk/nudge", { ...this.spec(), leaf, h });
      $("w-nudge-out").textContent =
        `slope (f(${leaf}+h) − f(${leaf}−h)) / 2h = ${fmt(r.slope)}\ngrad[${leaf}] = ${fmt(r.grad)}` +
        `\ndifference ${fmt(r.difference)} ${r.ok ? "(agree)" : "(MISMATCH)"}`;
    } catch (e) { $("w-nudge-out").textContent = "error: " + e.message; }
  },

  /* ---- the visit-order experiment ---- */
  placeNode(id) {
    if (this.order.includes(id)) return;
    this.order.push(id); this.orderResult = null; this.drawOrder();
  },

  drawOrder() {
    const g = this.g; if (!g) return;
    const name = (id) => g.nodes.find((n) => n.id === id).name;
    const box = $("o-buttons"); box.textContent = "";
    for (const id of g.reverse_topo) {
      const b = document.createElement("button");
      b.type = "button"; b.textContent = name(id); b.dataset.node = id;
      b.disabled = this.order.includes(id);
      b.onclick = () => this.placeNode(id);
      box.appendChild(b);
    }
    $("o-order").textContent = this.order.length ? this.order.map(name).join(" → ") : "(empty)";
    if (!this.orderResult) $("o-result").textContent = "";
  },

  async runOrder() {
    const res = $("o-result");
    try {
      const r = await api("POST", "/api/walk/order", { ...this.spec(), order: this.order });
      this.orderResult = r;
      res.textContent = "";
      const head = document.createElement("div");
      head.className = r.ok ? "good" : "bad";
      head.textContent = r.message;
      res.appendChild(head);
      const lines = document.createElement("div");
      lines.textContent = r.steps.map((s) => this.describeStep(s)).join("\n");
      res.appendChild(lines);
      this.draw();
    } catch (e) { res.textContent = "error: " + e.message; }
  },
};

/* ================================================================== THE PLAYGROUND */

const Play = {
  sid: null, state: null, points: null, history: [], playing: false, started: false,
  rateWindow: [], inflight: false,

  ensure() {
    if (this.started) return;
    this.started = true;
    const fill = (id, items, dflt) => {
      const sel = $(id);
      for (const it of items) { const o = document.createElement("option"); o.value = it; o.textContent = it; sel.appendChild(o); }
      sel.value = dflt;
    };
    const d = META.play_defaults;
    fill("p-act", META.activations, d.activation);
    fill("p-loss", META.losses, d.loss);
    fill("p-opt", META.optimizers, d.optimizer);
    // the set-up from the URL, else the defaults
    const q = url.read();
    const set = (id, key, val) => { $(id).value = q.has(key) ? q.get(key) : String(val); };
    set("p-dataset", "ds", d.dataset); set("p-noise", "noise", d.noise);
    set("p-samples", "n", d.samples); set("p-ratio", "ratio", d.train_ratio);
    set("p-seed", "seed", d.seed); set("p-hidden", "hidden", d.hidden.join(","));
    set("p-act", "act", d.activation); set("p-loss", "loss", d.loss);
    set("p-opt", "opt", d.optimizer); set("p-lr", "lr", d.lr);
    set("p-batch", "batch", d.batch_size); set("p-l2", "l2", d.l2);
    set("p-iseed", "iseed", d.init_seed);

    for (const id of ["p-dataset", "p-noise", "p-samples", "p-ratio", "p-seed", "p-hidden",
                      "p-act", "p-loss", "p-opt", "p-batch", "p-l2", "p-iseed"]) {
      $(id).addEventListener("change", () => this.create());
    }
    $("p-regen").onclick = () => { $("p-seed").value = String(Number($("p-seed").value || 0) + 1); this.create(); };
    for (const b of document.querySelectorAll(".p-preset")) {
      b.onclick = () => { $("p-hidden").value = b.dataset.hidden; this.create(); };
    }
    $("p-lr").addEventListener("change", () => this.setLr());
    $("p-play").onclick = () => (this.playing ? this.pause() : this.play());
    $("p-step").onclick = async () => { await this.stop(); this.step(); };
    $("p-reset").onclick = () => this.reset();
    const cv = $("p-curves");
    cv.addEventListener("mousemove", (ev) => this.hover(ev));
    cv.addEventListener("mouseleave", () => { $("p-hover").innerHTML = "&nbsp;"; });
    window.addEventListener("pagehide", () => this.drop());
    this.create();
  },

  config() {
    const hidden = $("p-hidden").value.split(",").map((s) => s.trim()).filter((s) => s !== "").map(Number);
    return {
      dataset: $("p-dataset").value, noise: Number($("p-noise").value),
      samples: Number($("p-samples").value), train_ratio: Number($("p-ratio").value),
      seed: Number($("p-seed").value), hidden, activation: $("p-act").value,
      loss: $("p-loss").value, optimizer: $("p-opt").value, lr: Number($("p-lr").value),
      batch_size: Number($("p-batch").value), l2: Number($("p-l2").value),
      init_seed: Number($("p-iseed").value),
    };
  },

  writeUrl() {
    const c = this.config();
    url.write({ ds: c.dataset, noise: c.noise, n: c.samples, ratio: c.train_ratio, seed: c.seed,
                hidden: c.hidden.join(","), act: c.activation, loss: c.loss, opt: c.optimizer,
                lr: c.lr, batch: c.batch_size, l2: c.l2, iseed: c.init_seed });
  },

  showError(msg) { const b = $("banner"); b.textContent = msg; b.hidden = !msg; },

  drop() {
    // the tab is closing: free its session now (idle expiry would, later)
    if (this.sid) fetch(`/api/play/${this.sid}`, { method: "DELETE", keepalive: true }).catch(() => {});
  },

  async create() {
    await this.stop();
    const old = this.sid;
    try {
      const s = await api("POST", "/api/play", this.config());
      this.showError("");
      if (old) api("DELETE", `/api/play/${old}`).catch(() => {});
      this.sid = s.sid;
      this.points = s.points;
      this.history = s.history;
      this.accept(s);
      this.writeUrl();
    } catch (e) { this.showError("playground: " + e.message); }
  },

  async reset() {
    await this.stop();
    if (!this.sid) return this.create();
    try {
      const s = await api("POST", `/api/play/${this.sid}/reset`, {});
      this.history = s.history; this.accept(s);
    } catch (e) { if (e.status === 404) return this.create(); this.showError("playground: " + e.message); }
  },

  async setLr() {
    const lr = Number($("p-lr").value);
    this.writeUrl();
    if (!this.sid) return;
    try { await api("PATCH", `/api/play/${this.sid}`, { lr }); this.showError(""); }
    catch (e) { this.showError("learning rate: " + e.message); }
  },

  /** POST one training step; resolves to the new state, or null after an error. */
  async requestStep() {
    try {
      return await api("POST", `/api/play/${this.sid}/step`, { steps: 1 });
    } catch (e) {
      if (e.status === 404) { this.showError("session expired; starting again"); this.pause(); await this.create(); }
      else { this.showError("playground: " + e.message); this.pause(); }
      return null;
    }
  },

  acceptStep(s) {
    if (s.sid !== this.sid) return;  // a late answer for a session already replaced
    for (const row of s.history) this.history.push(row);
    this.accept(s);
    const now = performance.now();
    this.rateWindow.push([now, s.step]);
    while (this.rateWindow.length > 2 && now - this.rateWindow[0][0] > 3000) this.rateWindow.shift();
    if (this.rateWindow.length >= 5) {
      const [t0, s0] = this.rateWindow[0];
      const rate = (s.step - s0) / ((now - t0) / 1000);
      $("p-rate").textContent = rate.toFixed(1);
      $("p-rate").dataset.rate = String(rate);
    }
  },

  async step() {
    if (!this.sid || this.inflight) return;
    this.inflight = true;
    try { const s = await this.requestStep(); if (s) this.acceptStep(s); }
    finally { this.inflight = false; }
  },

  /* Live training: the page asks for one step at a time. The next request is sent as
     soon as a response arrives, and the response is drawn while the server computes the
     next step; so the boundary is redrawn after every step. When the tab closes, the
     requests stop, and so does the work. */
  play() {
    if (this.playing || this.inflight || !this.sid) return;
    this.loop = this.runLoop();
  },

  async stop() { this.pause(); if (this.loop) await this.loop; this.loop = null; },

  async runLoop() {
    this.playing = true; this.inflight = true;
    $("p-play").textContent = "pause"; this.rateWindow = [];
    try {
      let pending = this.requestStep();
      while (pending) {
        const s = await pending;
        if (!s) break;
        pending = this.playing ? this.requestStep() : null;
        this.acceptStep(s);
        await new Promise((r) => setTimeout(r, 0));  // let the page paint
      }
    } finally { this.inflight = false; }
  },

  pause() { this.playing = false; const b = $("p-play"); if (b) b.textContent = "play"; },

  accept(s) {
    this.state = s;
    this.frames = (this.frames || 0) + 1;  // drawings of the boundary (one per response)
    $("p-boundary").dataset.frames = String(this.frames);
    $("p-epoch").textContent = String(s.epoch);
    $("p-engine-name").textContent = s.engine;
    $("p-stepn").textContent = String(s.step);
    const m = s.metrics;
    $("p-trloss").textContent = fmt(m.train_loss); $("p-teloss").textContent = fmt(m.test_loss);
    $("p-tracc").textContent = fmt(m.train_acc * 100) + "%";
    $("p-teacc").textContent = fmt(m.test_acc * 100) + "%";
    $("p-tracc").dataset.value = String(m.train_acc); $("p-teacc").dataset.value = String(m.test_acc);
    this.drawBoundary(); this.drawCurves(); this.drawNet();
  },

  drawBoundary() {
    const s = this.state, cv = $("p-boundary"), ctx = cv.getContext("2d");
    const b = s.boundary, n = b.n, W = cv.width, H = cv.height;
    const img = ctx.createImageData(n, n);
    // values are the model's output in [-1, 1] (class score) as computed by the server
    for (let i = 0; i < n * n; i++) {
      const v = Math.max(-1, Math.min(1, b.values[i]));
      const t = Math.abs(v);
      const c = v >= 0 ? [47, 111, 223] : [224, 102, 47];
      img.data[4 * i] = Math.round(255 + (c[0] - 255) * t * 0.6);
      img.data[4 * i + 1] = Math.round(255 + (c[1] - 255) * t * 0.6);
      img.data[4 * i + 2] = Math.round(255 + (c[2] - 255) * t * 0.6);
      img.data[4 * i + 3] = 255;
    }
    const off = document.createElement("canvas"); off.width = n; off.height = n;
    off.getContext("2d").putImageData(img, 0, 0);
    ctx.imageSmoothingEnabled = true;
    ctx.drawImage(off, 0, 0, W, H);
    const [x0, x1, y0, y1] = b.extent;
    const px = (x) => ((x - x0) / (x1 - x0)) * W, py = (y) => ((y1 - y) / (y1 - y0)) * H;
    const drawPts = (pts, test) => {
      for (const [x, y, label] of pts) {
        ctx.fillStyle = label > 0 ? "#2f6fdf" : "#e0662f";
        ctx.strokeStyle = test ? "#000" : "#fff";
        ctx.lineWidth = 1;
        ctx.beginPath();
        if (test) ctx.rect(px(x) - 3.5, py(y) - 3.5, 7, 7); else ctx.arc(px(x), py(y), 3.5, 0, 2 * Math.PI);
        ctx.fill(); ctx.stroke();
      }
    };
    drawPts(this.points.train, false); drawPts(this.points.test, true);
  },

  drawCurves() {
    const cv = $("p-curves"), ctx = cv.getContext("2d"), W = cv.width, H = cv.height;
    ctx.clearRect(0, 0, W, H);
    const h = this.history; if (!h.length) return;
    const pad = 44, lastStep = Math.max(1, h[h.length - 1][0]);
    let lmax = 0;
    for (const r of h) for (const v of [r[1], r[2]]) if (isFinite(v)) lmax = Math.max(lmax, v);
    if (lmax <= 0) lmax = 1;
    ctx.strokeStyle = "#d5dae1"; ctx.strokeRect(pad, 5, W - pad - 5, H - pad);
    ctx.fillStyle = "#5b6573"; ctx.font = "10px monospace";
    ctx.fillText(fmt(lmax), 2, 12); ctx.fillText("0", 2, H - pad + 5);
    ctx.fillText("step " + lastStep, W - 60, H - 8); ctx.fillText("loss solid, accuracy dashed (0–100%); blue train, orange test", pad, H - 8);
    const X = (st) => pad + (st / lastStep) * (W - pad - 5);
    const Yl = (v) => 5 + (1 - Math.min(v, lmax) / lmax) * (H - pad - 5);
    const Ya = (v) => 5 + (1 - v) * (H - pad - 5);
    const series = [[1, Yl, "#2f6fdf", []], [2, Yl, "#e0662f", []], [3, Ya, "#2f6fdf", [4, 3]], [4, Ya, "#e0662f", [4, 3]]];
    for (const [col, Y, color, dash] of series) {
      ctx.strokeStyle = color; ctx.setLineDash(dash); ctx.lineWidth = 1.5; ctx.beginPath();
      h.forEach((r, i) => { const v = r[col]; if (!isFinite(v)) return; const x = X(r[0]), y = Y(v); if (i === 0) ctx.moveTo(x, y); else ctx.lineTo(x, y); });
      ctx.stroke();
    }
    ctx.setLineDash([]);
    this.curveX = X; this.curvePad = pad;
  },

  hover(ev) {
    const h = this.history; if (!h.length || !this.curveX) return;
    const r = ev.target.getBoundingClientRect();
    const x = (ev.clientX - r.left) * (ev.target.width / r.width);
    let best = h[0], bd = Infinity;
    for (const row of h) { const d = Math.abs(this.curveX(row[0]) - x); if (d < bd) { bd = d; best = row; } }
    $("p-hover").textContent = `step ${best[0]}: train loss ${best[1]}, test loss ${best[2]}, ` +
      `train acc ${best[3]}, test acc ${best[4]}`;
  },

  drawNet() {
    const net = this.state.network, el = $("p-net");
    el.textContent = "";
    const W = el.clientWidth || 500, H = el.clientHeight || 420;
    const sizes = net.sizes, L = sizes.length;
    const pos = sizes.map((n, li) => {
      const x = 30 + (li * (W - 60)) / Math.max(1, L - 1);
      return Array.from({ length: n }, (_, j) => [x, (H * (j + 1)) / (n + 1)]);
    });
    let wmax = 0;
    for (const layer of net.layers) for (const row of layer.w) for (const w of row) wmax = Math.max(wmax, Math.abs(w));
    if (wmax === 0) wmax = 1;
    net.layers.forEach((layer, li) => {
      layer.w.forEach((row, j) => row.forEach((w, i) => {
        const [xa, ya] = pos[li][i], [xb, yb] = pos[li + 1][j];
        const line = svg("line", { x1: xa, y1: ya, x2: xb, y2: yb,
          stroke: w >= 0 ? "#2f6fdf" : "#e0662f", "stroke-width": (0.5 + 5 * Math.abs(w) / wmax).toFixed(2),
          "stroke-opacity": 0.75 }, el);
        const t = svg("title", {}, line); t.textContent = `w = ${w}`;
      }));
    });
    pos.forEach((col, li) => col.forEach(([x, y], j) => {
      const c = svg("circle", { cx: x, cy: y, r: 9, fill: "#fff", stroke: "#1d232b" }, el);
      const t = svg("title", {}, c);
      t.textContent = li === 0 ? (j === 0 ? "input x" : "input y") : `bias ${net.layers[li - 1].b[j]}`;
    }));
  },
};

/* ------------------------------------------------------------------ start */

async function main() {
  try {
    META = await api("GET", "/api/meta");
  } catch (e) {
    const b = $("banner"); b.textContent = "cannot reach the micrograd server: " + e.message; b.hidden = false;
    return;
  }
  for (const b of document.querySelectorAll("#tabs button")) b.onclick = () => showPage(b.dataset.page);
  // a link pasted or edited by hand (the page itself only uses replaceState): start over
  window.addEventListener("hashchange", () => location.reload());
  const page = url.read().get("page") === "play" ? "play" : "walk";
  showPage(page);
  document.body.dataset.ready = "1";
}

main();

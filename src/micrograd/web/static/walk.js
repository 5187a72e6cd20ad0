/* micrograd serve: the Walk (a graph stepped forward and backward node by node). */
"use strict";

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


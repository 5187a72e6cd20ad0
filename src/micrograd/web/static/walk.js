/* micrograd serve: the Walk (a graph stepped forward and backward node by node).
 *
 * The server sends one document per graph (POST /api/walk): `graph`, the layout
 * (micrograd.viz), and `walk`, micrograd.walk's Walk as micrograd.wire encodes it. Every
 * text drawn or written here is the server's: the records' cells ("grad 6.0000"), the
 * steps' sentences, the edges' notes, the nudge's and the question's answers. The page
 * only chooses which of them to show after k steps.
 */
"use strict";

const WALK_MODES = [["w-assign", "assign"], ["w-recursive", "recursive"], ["w-nozero", "nozero"]];

const Walk = {
  doc: null,        // the server's document for the current graph
  k: 0,             // how many steps are applied
  selectedEdge: null,
  order: [],        // the visit order being placed
  orderResult: null,
  started: false,
  view: null,

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
      if (p) { $("w-expr").value = p.expr; this.load({ preset: p.key }, true); }
    });
    $("w-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      sel.value = "";
      this.load({ expr: $("w-expr").value }, true);
    });
    $("w-fwd").onclick = () => this.stepForward();
    $("w-bwd").onclick = () => this.stepBackward();
    $("w-all").onclick = () => this.runAll();
    $("w-reset").onclick = () => this.setK(0);
    for (const [id] of WALK_MODES) {  // one teaching mode at a time
      $(id).addEventListener("change", () => {
        if ($(id).checked) for (const [other] of WALK_MODES) if (other !== id) $(other).checked = false;
        this.reload(null, true);
      });
    }
    $("w-nudge").onclick = () => this.nudge();
    $("w-q").addEventListener("submit", (ev) => { ev.preventDefault(); this.check(); });
    $("w-free").addEventListener("submit", (ev) => { ev.preventDefault(); this.giveFree(); });
    $("o-run").onclick = () => this.runOrder();
    $("o-clear").onclick = () => { this.order = []; this.orderResult = null; this.drawOrder(); this.draw(); };
    $("o-topo").onclick = () => {
      this.order = this.reverseTopo(); this.orderResult = null; this.drawOrder(); this.draw();
    };
    $("o-reused").onclick = () => {
      sel.value = "reused"; sel.dispatchEvent(new Event("change"));
    };
    this.view = new GraphView($("w-graph"), {
      label: "computation graph",
      onNode: (id) => this.placeNode(id),
      onEdge: (id) => this.selectEdge(id),
    });
    this.fromUrl();
  },

  /** the state in the URL: a link, a reload, or the browser's back and forward */
  fromUrl() {
    const q = url.read();
    const sel = $("w-preset");
    for (const [id, key] of WALK_MODES) $(id).checked = q.get(key) === "1";
    const values = {};
    for (const part of (q.get("v") || "").split(",")) {
      const i = part.lastIndexOf(":");
      if (i > 0) values[decodeURIComponent(part.slice(0, i))] = Number(part.slice(i + 1));
    }
    const extra = { ask: q.get("ask") || undefined, of: q.get("of") || undefined };
    if (Object.keys(values).length) extra.values = values;
    if (q.get("expr")) {
      sel.value = ""; $("w-expr").value = q.get("expr");
      this.load({ expr: q.get("expr"), ...extra }, false);
    } else {
      const key = q.get("preset") || META.walk_presets[0].key;
      const p = META.walk_presets.find((x) => x.key === key) || META.walk_presets[0];
      sel.value = p.key; $("w-expr").value = p.expr;
      this.load({ preset: p.key, ...extra }, false);
    }
  },

  modes() {
    return { assign: $("w-assign").checked, recursive: $("w-recursive").checked,
             no_zero_grad: $("w-nozero").checked };
  },

  spec() {  // what identifies the current graph and its question for the server
    const s = this.source;
    const values = {};
    if (this.doc) for (const l of this.doc.leaves) values[l.name] = l.value;
    const out = { ...(s.preset ? { preset: s.preset } : { expr: s.expr }), values };
    if (s.ask) out.ask = s.ask;
    if (s.of) out.of = s.of;
    return out;
  },

  async load(source, push) {
    this.source = { preset: source.preset, expr: source.expr, ask: source.ask, of: source.of };
    const body = { ...(source.preset ? { preset: source.preset } : { expr: source.expr }),
                   ...this.modes() };
    if (source.values) body.values = source.values;
    if (source.ask) body.ask = source.ask;
    if (source.of) body.of = source.of;
    await this.fetchGraph(body, true, push, source.values);
  },

  async reload(values, push) {  // same graph, new leaf values or modes: all recomputed by the server
    if (!this.source) return;
    const body = { ...this.spec(), ...this.modes() };
    if (values) body.values = { ...body.values, ...values };
    await this.fetchGraph(body, false, push);
  },

  async fetchGraph(body, fresh, push, wanted) {
    const errBox = $("w-error");
    try {
      const doc = await api("POST", "/api/walk", body);
      errBox.hidden = true;
      $("w-free").hidden = true;
      this.doc = doc;
      this.steps = doc.walk.forward.map((s) => ({ phase: "forward", s }))
        .concat(doc.walk.backward.map((s) => ({ phase: "backward", s })));
      this.byId = Object.fromEntries(doc.graph.nodes.map((n) => [n.id, n]));
      this.k = fresh ? 0 : Math.min(this.k, this.steps.length);
      if (fresh) { this.order = []; this.selectedEdge = null; }
      this.orderResult = null;
      this.view.setGraph(doc.graph, doc.neurons);
      this.buildLeaves();
      this.drawQuestion();
      this.drawOrder();
      this.draw();
      this.writeUrl(push);
      $("w-nudge-out").textContent = "";
    } catch (e) {
      errBox.textContent = e.message;
      errBox.hidden = false;
      if (e.data && e.data.free) this.askFree(e.data.free, wanted || body.values || {});
    }
  },

  /* ---- free variables: the expression uses names it never assigns ---- */
  askFree(names, known) {
    const box = $("w-free-fields"); box.textContent = "";
    for (const name of names) {
      const lab = document.createElement("label");
      lab.textContent = name + " = ";
      const inp = document.createElement("input");
      inp.type = "text"; inp.inputMode = "decimal"; inp.required = true;
      inp.dataset.free = name; inp.id = "w-free-" + name;
      if (known[name] !== undefined) inp.value = String(known[name]);
      lab.appendChild(inp); box.appendChild(lab);
    }
    $("w-free").hidden = false;
    const first = box.querySelector("input"); if (first) first.focus();
  },

  giveFree() {
    const values = {};
    for (const inp of $("w-free-fields").querySelectorAll("input")) {
      const x = Number(inp.value);
      if (inp.value.trim() === "" || !isFinite(x)) {
        $("w-error").textContent = `the value of ${inp.dataset.free} must be a number`;
        $("w-error").hidden = false; inp.focus(); return;
      }
      values[inp.dataset.free] = x;
    }
    this.load({ expr: this.source.expr, ask: this.source.ask, of: this.source.of, values }, true);
  },

  writeUrl(push) {
    const s = this.source;
    const params = { page: "walk", preset: s.preset || null, expr: s.preset ? null : s.expr,
                     v: this.doc.leaves.map((l) => `${encodeURIComponent(l.name)}:${l.value}`).join(","),
                     ask: s.ask || null, of: s.of || null };
    for (const [id, key] of WALK_MODES) params[key] = $(id).checked ? 1 : null;
    if (push) url.push(params); else url.write(params);
  },

  buildLeaves() {
    const box = $("w-leaves"); box.textContent = "";
    const nsel = $("w-nudge-leaf"); nsel.textContent = "";
    for (const l of this.doc.leaves) {
      const lab = document.createElement("label");
      lab.textContent = l.name + " = ";
      const inp = document.createElement("input");
      inp.type = "number"; inp.step = "any"; inp.value = String(l.value);
      inp.dataset.leaf = l.name; inp.id = "w-leaf-" + l.name;
      inp.addEventListener("change", () => {
        if (inp.value.trim() === "" || !isFinite(Number(inp.value))) { inp.value = String(l.value); return; }
        this.reload({ [l.name]: Number(inp.value) }, true);
      });
      lab.appendChild(inp); box.appendChild(lab);
      const o = document.createElement("option"); o.value = l.name; o.textContent = l.name;
      nsel.appendChild(o);
    }
    if (!this.doc.leaves.length) box.textContent = "(no named leaf to edit)";
  },

  nFwd() { return this.doc.walk.forward.length; },
  stepForward() { if (this.k < this.nFwd()) this.setK(this.k + 1); },
  stepBackward() {
    if (this.k < this.nFwd()) this.setK(this.nFwd());  // backward needs the forward pass first
    else if (this.k < this.steps.length) this.setK(this.k + 1);
  },
  runAll() { this.setK(this.steps.length); },
  setK(k) {
    this.k = k; this.orderResult = null; this.draw();
    if (k > 0) this.view.show(this.steps[k - 1].s.node);  // the step's node on screen
  },

  /** after the first k steps: node id -> its record's texts (the server's; "data ·" and
   * "grad ·" where no step has written yet), and the indices of those unwritten cells */
  cellsAt(k) {
    const cells = {}, pending = {};
    for (const n of this.doc.graph.nodes) {
      const c = n.cells.slice();
      const d = n.label ? 1 : 0;
      pending[n.id] = n.leaf ? [d + 1] : [d, d + 1];
      if (!n.leaf) c[d] = "data ·";
      c[d + 1] = "grad ·";
      cells[n.id] = c;
    }
    const write = (id, i, text) => {
      cells[id][i] = text;
      pending[id] = pending[id].filter((j) => j !== i);
    };
    const dataAt = (id) => (this.byId[id].label ? 1 : 0);
    for (const { phase, s } of this.steps.slice(0, k)) {
      if (phase === "forward") { write(s.node, dataAt(s.node), s.cell); continue; }
      if (s.kind === "seed") write(s.node, dataAt(s.node) + 1, s.cell);
      for (const c of s.contributions) write(c.parent, dataAt(c.parent) + 1, c.cell);
    }
    return { cells, pending };
  },

  phase() {
    const n = this.steps.length, f = this.nFwd();
    if (this.orderResult) return "visit order";
    if (this.k === 0) return "idle";
    if (this.k < f) return "forward";
    if (this.k === f) return "forward done";
    if (this.k < n) return "backward";
    return "done";
  },

  name(id) { return this.byId[id].name; },

  reverseTopo() {  // the inner nodes and named leaves, root first (the layout's order reversed)
    return this.doc.graph.nodes.slice().reverse().filter((n) => !(n.leaf && !n.label)).map((n) => n.id);
  },

  draw() {
    const doc = this.doc; if (!doc) return;
    $("w-k").textContent = String(this.k);
    $("w-n").textContent = String(this.steps.length);
    $("w-phase").textContent = this.phase();
    $("w-fwd").disabled = this.k >= this.nFwd();
    $("w-bwd").disabled = this.k >= this.steps.length;
    const done = this.k === this.steps.length;
    $("w-notes").textContent = done && !doc.walk.ok ? doc.walk.notes.join("\n") : "";
    const showLesson = doc.mode === "recursive" || doc.lesson.reused_inner.length > 0;
    $("w-lesson").textContent = showLesson ? doc.lesson.text : "";
    $("w-lesson").hidden = !showLesson;
    $("o-lesson").textContent = doc.lesson.text;

    let cells, pending, cur = null;
    if (this.orderResult) {  // the visit order's final grads, every cell written
      ({ cells } = this.cellsAt(0));
      pending = {};
      const w = this.orderResult.walk;
      for (const n of doc.graph.nodes) {
        const d = n.label ? 1 : 0;
        cells[n.id][d] = n.cells[d];
        cells[n.id][d + 1] = w.grad_cells[n.id];
      }
    } else {
      ({ cells, pending } = this.cellsAt(this.k));
      cur = this.k > 0 ? this.steps[this.k - 1] : null;
    }
    $("w-step").textContent = this.orderResult ?
      "The graph shows the grads of the visit order below (each node's grad when it was " +
      "visited). Press reset to step through the graph again." : cur ? this.describeStep(cur) :
      "Press step forward to fill .data at each node from the leaves to the root, then step " +
      "backward to fill .grad from the root to the leaves. Choose an edge (click, or Tab " +
      "and Enter) to read its local derivative.";

    const nodeClass = {}, edgeClass = {};
    const contribs = cur && cur.phase === "backward" ? cur.s.contributions : [];
    for (const n of doc.graph.nodes) {
      const cls = [];
      const d = n.label ? 1 : 0;
      const open = pending[n.id] || [];
      if (!n.leaf && !open.includes(d)) cls.push("done-fwd");
      if (!open.includes(d + 1)) cls.push("done-bwd");
      if (cur && cur.s.node === n.id) cls.push("current");
      else if (contribs.some((c) => c.parent === n.id)) cls.push("contrib");
      if (this.order.includes(n.id)) cls.push("placed");
      if (n.leaf && !n.label) cls.push("const");
      nodeClass[n.id] = cls.join(" ");
    }
    for (const e of doc.graph.edges) {
      const cls = [];
      if (this.selectedEdge === e.id) cls.push("selected");
      if (contribs.some((c) => c.edge === e.id)) cls.push("active");
      if (cur && cur.phase === "forward" && e.dst === cur.s.node) cls.push("active");
      edgeClass[e.id] = cls.join(" ");
    }
    this.view.update({ cells, pending, nodeClass, edgeClass });
    this.drawEdgeInfo();
  },

  describeStep(step) {
    const s = step.s;
    if (step.phase === "forward") return `forward: ${s.text}`;
    const pass = this.doc.walk.passes > 1 ? `[pass ${s.pass}] ` : "";
    if (s.kind === "seed") return `${pass}${s.text}   (the seed: d${s.name}/d${s.name} = 1)`;
    if (!s.contributions.length) return pass + s.text;  // a leaf: its grad is read
    return [pass + s.head].concat(s.contributions.map((c) => "  " + c.text)).join("\n");
  },

  selectEdge(id) { this.selectedEdge = this.selectedEdge === id ? null : id; this.draw(); },

  drawEdgeInfo() {
    const box = $("w-edge");
    const text = this.doc && this.selectedEdge && this.doc.edge_notes[this.selectedEdge];
    box.hidden = !text;
    box.textContent = text || "";
  },

  async nudge() {
    const leaf = $("w-nudge-leaf").value, h = Number($("w-nudge-h").value);
    try {
      const r = await api("POST", "/api/walk/nudge", { ...this.spec(), leaf, h });
      $("w-nudge-out").textContent = r.text;
    } catch (e) { $("w-nudge-out").textContent = "error: " + e.message; }
  },

  /* ---- the question under the graph ---- */
  drawQuestion() {
    const q = this.doc.question;
    $("w-q").hidden = !q;
    if (!q) return;
    $("w-q-text").textContent = q.text;
    $("w-q-answer").value = "";
    $("w-q-out").textContent = ""; $("w-q-out").className = "";
  },

  async check() {
    const out = $("w-q-out");
    const raw = $("w-q-answer").value.trim();
    const answer = Number(raw);
    if (raw === "" || !isFinite(answer)) { out.className = "bad"; out.textContent = "type a number, e.g. -4 or 0.5"; return; }
    try {
      const r = await api("POST", "/api/walk/check", { ...this.spec(), answer });
      out.className = r.correct ? "good" : "bad";
      out.textContent = r.correct ? r.text : `${r.text}: ${r.hint}`;
    } catch (e) { out.className = "bad"; out.textContent = "error: " + e.message; }
  },

  /* ---- the visit-order experiment ---- */
  placeNode(id) {
    if (this.order.includes(id)) return;
    if (this.byId[id].leaf && !this.byId[id].label) return;  // constants are not visited
    this.order.push(id); this.orderResult = null; this.drawOrder(); this.draw();
  },

  drawOrder() {
    const doc = this.doc; if (!doc) return;
    const box = $("o-buttons"); box.textContent = "";
    for (const id of this.reverseTopo()) {
      const b = document.createElement("button");
      b.type = "button"; b.textContent = this.name(id); b.dataset.node = id;
      b.disabled = this.order.includes(id);
      b.setAttribute("aria-label", `visit ${this.name(id)} next`);
      b.onclick = () => this.placeNode(id);
      box.appendChild(b);
    }
    $("o-order").textContent = this.order.length ? this.order.map((id) => this.name(id)).join(" → ") : "(empty)";
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
      lines.textContent = r.walk.backward.map((s) => this.describeStep({ phase: "backward", s })).join("\n");
      res.appendChild(lines);
      this.draw();
    } catch (e) { res.textContent = "error: " + e.message; }
  },
};

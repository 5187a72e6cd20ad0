/* The Walk: a graph stepped forward and backward node by node, as a component.
 *
 *   const walk = new Walk(root, { client, meta, url, setup, reflect, idPrefix });
 *     root      an empty element: the Walk fills it
 *     client    client.js's interface (walk, walk.check, walk.order, walk.nudge)
 *     meta      the catalogue from the client's "meta": meta.walk is the Walk set-up's
 *               description (micrograd.walk_setup.WalkSetup.spec(): presets, modes,
 *               fields, the groups of controls a lesson hides)
 *     url       a HashState: the Walk reads its set-up from the URL and writes it back
 *               (one Walk per page does); without one it keeps its state to itself
 *     setup     the opening set-up when there is no URL: walk.setupFrom's (a link's
 *               texts), or WalkSetup's fields {preset | expr, values, mode, step, ...}
 *     reflect   (texts) => ..., told the set-up after every change as a link's texts by
 *               field name (an element's attributes: embed_walk.js keeps them so)
 *     idPrefix  the prefix of its parts' ids (default: one of its own)
 *     notebooks notebook_links.js's NotebookLinks: the line naming the lecture's notebook
 *               for the set-up shown (optional; a lesson's walk has none)
 *   walk.start()  draws the opening graph (once; later calls do nothing)
 *   walk.fromUrl()  reads the set-up from the URL again (back, forward, a link edited)
 *   walk.setupFrom(get)  a set-up from texts by WalkSetup's fields (a URL, an element's
 *                  attributes: embed_walk.js)
 *
 * The walk's state is one: the set-up Python answered with the graph it drew (its
 * fields, its graph's text with the leaf values written in, what a link asked for that
 * was left out). The leaves, the expression box, the link and an element's attributes
 * are all written from it after every change (a link's texts by setup_codec.js, from the
 * fields' description), and **draw** draws what the box says.
 *
 * The Python side sends one document per graph: `graph`, the layout (micrograd.viz), and
 * `walk`, micrograd.walk's Walk as micrograd.wire encodes it. Every text drawn or written
 * here is the Python side's: the records' cells ("grad 6.0000"), the steps' sentences,
 * the edges' notes, the nudge's and the question's answers. The Walk only chooses which
 * of them to show after k steps.
 */

import { GraphView } from "./graphview.js";
import { el, fillSelect, mount, uniquePrefix } from "./dom.js";
import { byKey, decode, encode, linkTexts } from "./setup_codec.js";
import { drawConventions } from "./walk_conventions.js";
import { WALK_MARKUP } from "./walk_markup.js";
import { QuestionPanel } from "./walk_questions.js";
import { LessonBuilder } from "./walk_lesson.js";
import { Timeline } from "./walk_timeline.js";

export class Walk {
  constructor(root, { client, meta, url = null, setup = {}, reflect = null, idPrefix, notebooks = null } = {}) {
    this.root = root;
    this.client = client;
    this.meta = meta;
    this.url = url;
    this.setup = setup;
    this.reflect = reflect;
    this.notebooks = notebooks;
    this.prefix = idPrefix || uniquePrefix("walk");
    this.doc = null;        // the Python side's document for the current graph
    this.k = 0;             // how many steps are applied
    this.selectedEdge = null;
    this.order = [];        // the visit order being placed
    this.orderResult = null;
    this.started = false;
    root.classList.add("mg-walk");
    root.walk = this;  // the component, for the page around it (and its tests)
    this.$ = mount(root, WALK_MARKUP, this.prefix);
    this.described = meta.walk;
    this.presets = this.described.presets;
    this.modeList = this.described.modes;
    this.fields = Object.fromEntries(this.described.fields.map((f) => [f.name, f]));
    // the set-up shown: Python's answer with the graph (each field's default before)
    this.current = Object.fromEntries(this.described.fields.map((f) => [f.name, f.default]));
    this.hide = [];
    this.notes = [];  // what a link asked for and was left out (Python's sentences)
    // the teaching mode: one at a time, the first (the correct backward) by default
    const mode = this.fields.mode;
    this.modeSelect = el("select", { id: this.prefix + mode.name });
    fillSelect(this.modeSelect, this.modeList.map((m) => [m.key, m.title]));
    this.$("modes").appendChild(el("label", { title: mode.help }, mode.label + " ", this.modeSelect));
    this.questions = new QuestionPanel(this.$, {
      client, spec: () => this.spec(), onSettle: () => this.unveil(),
      link: () => byKey(this.described.fields, encode(this.described.fields, this.state())) });
    this.lesson = new LessonBuilder(this.$, {
      described: this.described, setup: () => this.state(), change: (c) => this.reload(c, true),
      nodes: () => (this.doc ? this.doc.graph.nodes : []), check: (r) => client.call("walk.check", r) });
    // previous, next and a slider over every step; each move is setK (the URL's step)
    this.timeline = new Timeline(this.$("timeline"), { prefix: this.prefix, onMove: (k) => this.setK(k) });
  }

  /** Wire the controls and draw the opening graph (from the URL, or the set-up given). */
  start() {
    if (this.started) return;
    this.started = true;
    const $ = this.$, sel = $("preset");
    fillSelect(sel, this.presets.map((p) => [p.key, p.title]).concat([["", "(your own expression)"]]));
    sel.addEventListener("change", () => {
      if (sel.value) this.load(this.newGraph({ preset: sel.value }), true, true);
    });
    // draw: what the box says; the box unchanged is the set-up shown (a preset's with
    // its leaf values), else an expression of its own
    $("form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      const same = this.doc && $("expr").value === this.text;
      this.load(same ? { ...this.state(), step: 0 } : this.newGraph({ expr: $("expr").value }), true, true);
    });
    $("fwd").onclick = () => this.stepForward();
    $("bwd").onclick = () => this.stepBackward();
    $("all").onclick = () => this.runAll();
    $("reset").onclick = () => this.setK(0);
    this.modeSelect.addEventListener("change", () => {
      this.modeTitle(); this.reload({ [this.fields.mode.name]: this.modeSelect.value }, true);
    });
    $("nudge").onclick = () => this.nudge();
    $("ask-values").addEventListener("submit", (ev) => { ev.preventDefault(); this.giveFree(); });
    $("order-run").onclick = () => this.runOrder();
    $("order-clear").onclick = () => { this.order = []; this.orderResult = null; this.drawOrder(); this.draw(); };
    $("order-topo").onclick = () => {
      this.order = this.reverseTopo(); this.orderResult = null; this.drawOrder(); this.draw();
    };
    $("order-reused").onclick = () => {
      sel.value = "reused"; sel.dispatchEvent(new Event("change"));
    };
    this.view = new GraphView($("graph"), {
      label: "computation graph",
      onNode: (id) => this.lesson.pick(id) || this.placeNode(id),  // the builder's "choose in the graph" first
      onEdge: (id) => this.selectEdge(id),
      keep: $("fwd").parentElement,  // the step controls stay on screen while stepping
      legend: true,  // what the colours of the nodes and edges mean
    });
    if (this.url) this.fromUrl(); else this.open(this.setup);
  }

  /** the state in the URL: a link, a reload, or the browser's back and forward */
  fromUrl() {
    const q = this.url.read();
    this.open(this.setupFrom((key) => q.get(key)));
  }

  /** A set-up (open's argument) as a link's texts, by WalkSetup's fields' keys
   *  (setup_codec.js): `get(key)` gives the text of a key or null (a URL's key, an
   *  element's attribute by a field's name or its key, an older link's `recursive=1`).
   *  Python reads them (WalkSetup.from_url) and says what it cannot use. Nothing read
   *  here is ever parsed as HTML: the texts go to the Python side and are shown as text. */
  setupFrom(get) {
    return { link: linkTexts(this.described.fields, get) };
  }

  /** Open a set-up: a link's texts ({link}: setupFrom's) or WalkSetup's fields */
  open(setup = {}) {
    if (setup.link) { this.load(setup, true, false); return; }
    const s = this.newGraph(setup);
    if (!s.preset && !s.expr) s.preset = this.fields.preset.default;
    this.load(s, true, false);
  }

  /** the set-up shown, with the step and the mode as they are now */
  state() { return { ...this.current, mode: this.modeSelect.value, step: this.k }; }

  /** a new graph in the set-up shown: its own leaves, question and first step */
  newGraph(graph) {
    return { ...this.state(), preset: null, expr: null, values: {}, ask: null, of: null, step: 0, ...graph };
  }

  /** apply the set-up Python answered: every control says it */
  applySetup(setup, fresh) {
    const $ = this.$;
    this.current = setup.fields;
    this.text = setup.text;
    $("preset").value = this.current.preset || "";
    $("expr").value = setup.text;
    this.modeSelect.value = this.current.mode;
    this.modeTitle();
    this.hide = this.current.hide;
    this.applyHide();
    this.lesson.ask(this.current.questions);
    if (this.notebooks) this.notebooks.show($("notebook"), "walk", this.current);
    if (fresh) this.notes = setup.notes;
    else this.notes = this.notes.concat(setup.notes);
    this.say();
  }

  /** what a link asked for and was left out, one line each (text, never HTML) */
  say() {
    const box = this.$("said");
    box.textContent = "";
    for (const note of this.notes) box.appendChild(el("div", { text: note }));
    box.hidden = !this.notes.length;
  }

  /** the chosen mode's lesson (what a learner should notice) as the select's tooltip */
  modeTitle() {
    const m = this.modeList.find((x) => x.key === this.modeSelect.value);
    this.modeSelect.title = m ? m.lesson : "";
  }

  /** what the mode does to this graph (Python's sentence, micrograd.walk_explain), and
   *  where nothing goes wrong here, a button to the preset where it does */
  drawExplain() {
    const said = this.doc.explain, offer = this.$("mode-offer");
    this.$("mode-text").textContent = said.text;
    offer.hidden = !said.offer || this.hidden("graph");  // a lesson that fixes its graph: none
    offer.textContent = said.offer ? said.offer.label : "";
    offer.onclick = said.offer ? () => this.load(this.newGraph({ preset: said.offer.preset }), true, true) : null;
  }

  hidden(group) { return this.hide.includes(group); }

  /** hide the groups of controls this lesson hides */
  applyHide() {
    for (const e of this.root.querySelectorAll("[data-ctl]")) e.hidden = this.hidden(e.dataset.ctl);
    // the teacher's builder: on the page itself, not in a lesson (nor inside an embed)
    this.$("teach").hidden = this.hide.length > 0 || !this.url;
    // the Walk alone on its page: no Playground or Mistakes tab (app.css)
    this.root.toggleAttribute("data-alone", Boolean(this.url) && this.hidden("tabs"));
    if (this.doc) this.drawQuestion();
  }

  spec() {  // what identifies the current graph and its question for the Python side
    const s = this.current, out = { values: s.values };
    for (const name of [s.preset ? this.fields.preset.name : this.fields.expr.name, this.fields.ask.name, this.fields.of.name]) {
      if (s[name]) out[name] = s[name];
    }
    return out;
  }

  /** Ask for the graph of a set-up (WalkSetup's fields, or {link}); `fresh`: a new
   *  graph (its question and visit order start over), `push`: a new history entry */
  async load(setup, fresh, push) {
    const body = {};
    if (setup.link) body.link = setup.link;
    else for (const name of Object.keys(this.fields)) if (setup[name] !== null && setup[name] !== undefined) body[name] = setup[name];
    this.coming = setup;  // the set-up on its way: the next change starts from it
    await this.fetchGraph(body, fresh, push);
  }

  /** the same graph with `change` (leaf values, the mode): all recomputed; a change made
   *  while a set-up is on its way is made to that set-up (a link's, to its texts) */
  async reload(change, push) {
    if (!this.doc) return;
    const coming = this.coming;
    if (!(coming && coming.link)) { await this.load({ ...(coming || this.state()), ...change }, false, push); return; }
    const link = { ...coming.link };
    for (const [key, text] of Object.entries(byKey(this.described.fields, encode(this.described.fields, change)))) {
      if (text === null) delete link[key]; else link[key] = text;
    }
    await this.load({ link }, false, push);
  }

  /** Ask for a graph and draw it; of requests that cross, the last one asked wins (a
   *  mode switched while a preset loads must not be undone by the preset's answer). */
  async fetchGraph(body, fresh, push) {
    const $ = this.$, errBox = $("error");
    const asked = this.asked = (this.asked || 0) + 1;
    const coming = this.coming, pending = coming.link ? decode(this.described.fields, coming.link) : coming;
    // what an overtaken request was to do is done by the one that overtook it
    fresh = this.wasFresh = Boolean(this.wasFresh || fresh);
    push = this.wasPushed = Boolean(this.wasPushed || push);
    try {
      // the layout that fits the graph view best (graphview.js asks for it)
      const doc = await this.view.fitted(
        (layout) => this.client.call("walk", { ...body, ...layout }), pending.preset || pending.expr);
      if (asked !== this.asked) return;
      this.wasFresh = this.wasPushed = false;
      this.coming = null;
      errBox.hidden = true;
      $("ask-values").hidden = true;
      this.doc = doc;
      this.steps = doc.walk.forward.map((s) => ({ phase: "forward", s }))
        .concat(doc.walk.backward.map((s) => ({ phase: "backward", s })));
      this.byId = Object.fromEntries(doc.graph.nodes.map((n) => [n.id, n]));
      this.applySetup(doc.setup, fresh);
      this.k = fresh ? this.current.step : Math.min(this.k, this.steps.length);
      if (fresh) { this.order = []; this.selectedEdge = null; }
      this.orderResult = null;
      this.view.setGraph(doc.graph, doc.neurons);
      drawConventions(this.$("conventions"), doc.conventions);
      this.drawExplain();
      this.buildLeaves();
      this.drawQuestion();
      this.drawOrder();
      this.draw();
      // a link that opens at step N: that step's node on screen (the page is not scrolled)
      this.showStep(false);
      this.writeUrl(push);
      $("nudge-out").textContent = "";
    } catch (e) {
      if (asked !== this.asked) return;
      this.wasFresh = this.wasPushed = false;
      this.coming = null;
      this.refused = pending;  // the values form asks for what it lacked
      errBox.textContent = e.message;
      errBox.hidden = false;
      // the box shows the graph asked for, to be mended; a new graph's notes go
      if (fresh && pending.expr) $("expr").value = pending.expr;
      if (fresh) { this.notes = []; this.say(); }
      const drawn = this.doc ? Object.fromEntries(this.doc.leaves.map((l) => [l.name, l.value])) : {};
      if (e.data && e.data.free) this.askFree(e.data.free, { ...drawn, ...pending.values });
    }
  }

  /* ---- free variables: the expression uses names it never assigns ---- */
  askFree(names, known) {
    const box = this.$("ask-values-fields"); box.textContent = "";
    for (const name of names) {
      const inp = el("input", { type: "text", inputmode: "decimal", id: `${this.prefix}free-${name}` });
      inp.required = true; inp.dataset.free = name;
      if (known[name] !== undefined) inp.value = String(known[name]);
      box.appendChild(el("label", { text: name + " = " }, inp));
    }
    this.$("ask-values").hidden = false;
    const first = box.querySelector("input"); if (first) first.focus();
  }

  giveFree() {
    const values = {};
    for (const inp of this.$("ask-values-fields").querySelectorAll("input")) {
      const x = Number(inp.value);
      if (inp.value.trim() === "" || !isFinite(x)) {
        this.$("error").textContent = `the value of ${inp.dataset.free} must be a number`;
        this.$("error").hidden = false; inp.focus(); return;
      }
      values[inp.dataset.free] = x;
    }
    this.load({ ...this.newGraph(this.refused), values }, true, true);
  }

  /** the set-up in the link, an element's attributes and the lesson builder */
  writeUrl(push) {
    const texts = encode(this.described.fields, this.state());
    if (this.doc) this.lesson.update();
    if (this.reflect) this.reflect(texts);
    if (!this.url) return;
    const params = { page: "walk", ...byKey(this.described.fields, texts) };
    if (push) this.url.push(params); else this.url.write(params);
  }

  buildLeaves() {
    const box = this.$("leaves");
    // the leaf being edited keeps the focus in its new field (the keyboard's place)
    const focused = box.contains(document.activeElement) ? document.activeElement.dataset.leaf : null;
    box.textContent = "";
    const names = [];
    for (const l of this.doc.leaves) {
      const inp = el("input", { type: "number", step: "any", id: `${this.prefix}leaf-${l.name}` });
      inp.value = String(l.value); inp.dataset.leaf = l.name;
      inp.addEventListener("change", () => {
        if (inp.value.trim() === "" || !isFinite(Number(inp.value))) { inp.value = String(l.value); return; }
        this.reload({ values: { ...this.current.values, [l.name]: Number(inp.value) } }, true);
      });
      box.appendChild(el("label", { text: l.name + " = " }, inp));
      if (l.name === focused) inp.focus({ preventScroll: true });
      names.push(l.name);
    }
    fillSelect(this.$("nudge-leaf"), names);
    if (!this.doc.leaves.length) box.textContent = "(no named leaf to edit)";
  }

  nFwd() { return this.doc.walk.forward.length; }
  stepForward() { if (this.k < this.nFwd()) this.setK(this.k + 1); }
  stepBackward() {
    if (this.k < this.nFwd()) this.setK(this.nFwd());  // backward needs the forward pass first
    else if (this.k < this.steps.length) this.setK(this.k + 1);
  }
  runAll() { this.setK(this.steps.length); }
  setK(k) {
    this.k = k; this.orderResult = null; this.draw();  // (draw stops it short of a hidden answer)
    this.showStep(true);
    this.writeUrl(false);
  }

  /** the current step's node on screen with the root, and at a backward step the nodes
   * its gradient goes to where they fit; `scroll`: the window as well */
  showStep(scroll) {
    if (this.k <= 0) return;
    const { phase, s } = this.steps[this.k - 1];
    this.view.show(s.node, scroll, phase === "backward" ? s.contributions.map((c) => c.parent) : []);
  }

  /** after the first k steps: node id -> its record's texts (the Python side's; "data ·"
   * and "grad ·" where no step has written yet), and the indices of those unwritten cells */
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
  }

  phase() {
    const n = this.steps.length, f = this.nFwd();
    if (this.orderResult) return "visit order";
    if (this.k === 0) return "idle";
    if (this.k < f) return "forward";
    if (this.k === f) return "forward done";
    if (this.k < n) return "backward";
    return "done";
  }

  name(id) { return this.byId[id].name; }

  reverseTopo() {  // the inner nodes and named leaves, root first (the layout's order reversed)
    return this.doc.graph.nodes.slice().reverse().filter((n) => !(n.leaf && !n.label)).map((n) => n.id);
  }

  draw() {
    const doc = this.doc, $ = this.$; if (!doc) return;
    const limit = this.questions.limit(this.steps);  // a hidden answer's step: not yet
    this.k = Math.min(this.k, limit);
    $("k").textContent = String(this.k);
    $("n").textContent = String(this.steps.length);
    $("phase").textContent = this.phase();
    const focused = document.activeElement;
    $("fwd").disabled = this.k >= Math.min(this.nFwd(), limit);
    $("bwd").disabled = this.k >= limit;
    this.timeline.update(this.k, this.steps);
    // a button the keyboard pressed to its end hands the focus on: forward to backward,
    // backward to reset (a disabled button keeps no focus ring)
    if (focused === $("fwd") && $("fwd").disabled) ($("bwd").disabled ? $("reset") : $("bwd")).focus();
    if (focused === $("bwd") && $("bwd").disabled) $("reset").focus();
    const done = this.k === this.steps.length;
    $("notes").textContent = done && !doc.walk.ok ? doc.walk.notes.join("\n") : "";
    $("order-lesson").textContent = doc.lesson.text;

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
    $("step").textContent = this.orderResult ?
      "The graph shows the grads of the visit order below (each node's grad when it was " +
      "visited). Press reset to step through the graph again." : cur ? this.describeStep(cur) :
      "Press step forward to fill .data at each node from the leaves to the root, then step " +
      "backward to fill .grad from the root to the leaves. Choose an edge (click, or Tab " +
      "and Enter) to read its local derivative.";
    if (this.k === limit && limit < this.steps.length) $("step").textContent += "\n\n" + this.questions.stopped(this.name(this.questions.veiled()));
    // the same sentence beside the graph where the side panel is below it (a phone)
    $("now").textContent = this.orderResult || cur ? $("step").textContent : "";

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
    this.questions.cover(this.root);  // what would tell a hidden answer waits with it
  }

  /** the hidden answer answered right or given up: what waited is shown again, and the
   *  walk goes on to the step that completes the asked node's grad */
  unveil() {
    this.applyHide();
    this.setK(Math.max(this.k, this.questions.reveal(this.steps)));
  }

  describeStep(step) {
    const s = step.s;
    if (step.phase === "forward") return `forward: ${s.text}`;
    const pass = this.doc.walk.passes > 1 ? `[pass ${s.pass}] ` : "";
    if (s.kind === "seed") return `${pass}${s.text}   (the seed: d${s.name}/d${s.name} = 1)`;
    if (!s.contributions.length) return pass + s.text;  // a leaf: its grad is read
    return [pass + s.head].concat(s.contributions.map((c) => "  " + c.text)).join("\n");
  }

  selectEdge(id) { this.selectedEdge = this.selectedEdge === id ? null : id; this.draw(); }

  drawEdgeInfo() {
    const box = this.$("edge");
    const text = this.doc && this.selectedEdge && this.doc.edge_notes[this.selectedEdge];
    box.hidden = !text;
    box.textContent = text || "";
  }

  async nudge() {
    const $ = this.$, leaf = $("nudge-leaf").value, h = Number($("nudge-h").value);
    try {
      const r = await this.client.call("walk.nudge", { ...this.spec(), leaf, h });
      $("nudge-out").textContent = r.text;
    } catch (e) { $("nudge-out").textContent = "error: " + e.message; }
  }

  /* ---- the questions under the graph (walk_questions.js) ---- */
  drawQuestion() {
    const answers = this.fields.answers;  // a lesson that hides the answer until tried
    this.questions.show(this.doc.questions || [], this.hidden("question"), this.current[answers.name] !== answers.default);
  }

  /* ---- the visit-order experiment ---- */
  placeNode(id) {
    if (this.order.includes(id)) return;
    if (this.byId[id].leaf && !this.byId[id].label) return;  // constants are not visited
    this.order.push(id); this.orderResult = null; this.drawOrder(); this.draw();
  }

  drawOrder() {
    const doc = this.doc, $ = this.$; if (!doc) return;
    const box = $("order-buttons"); box.textContent = "";
    for (const id of this.reverseTopo()) {
      const b = el("button", { type: "button", text: this.name(id), "aria-label": `visit ${this.name(id)} next` });
      b.dataset.node = id;
      b.disabled = this.order.includes(id);
      b.onclick = () => this.placeNode(id);
      box.appendChild(b);
    }
    $("order-list").textContent = this.order.length ? this.order.map((id) => this.name(id)).join(" → ") : "(empty)";
    if (!this.orderResult) $("order-result").textContent = "";
  }

  async runOrder() {
    const res = this.$("order-result");
    try {
      const r = await this.client.call("walk.order", { ...this.spec(), order: this.order });
      this.orderResult = r;
      res.textContent = "";
      res.appendChild(el("div", { class: r.ok ? "good" : "bad", text: r.message }));
      res.appendChild(el("div", {
        text: r.walk.backward.map((s) => this.describeStep({ phase: "backward", s })).join("\n") }));
      this.draw();
    } catch (e) { res.textContent = "error: " + e.message; }
  }
}

/* The Playground: a network trained live on a 2-D data set, as a component.
 *
 *   const play = new Playground(root, { client, meta, url, idPrefix, banner });
 *     root      an empty element: the Playground fills it
 *     client    client.js's interface (play.*)
 *     meta      the catalogue from the client's "meta" (meta.experiment: the set-up's
 *               fields, choices and caps; meta.play_fields: the fields the Playground
 *               handles by themselves, by the part each plays here)
 *     url       a HashState: the set-up is read from the URL and written back; without
 *               one the Playground opens the default set-up
 *     idPrefix  the prefix of its parts' ids (default: one of its own)
 *     banner    an element for its errors (default: its own, at its top)
 *   play.start()   opens the set-up (once); play.pause() stops live training
 *
 * The page never computes: the data, every neuron's picture, the boundary, the losses,
 * the parameter table and one point's graph all arrive from the Python side.
 * Its parts: play_controls.js (the form, the URL, lesson links), play_plot.js (the
 * pictures), play_network.js (the network view), play_pointgraph.js (one point's graph),
 * play_params.js (the parameter table); the session is the Python side's, reached
 * through client.js's SessionHandle (`this.handle`).
 *
 * Never stuck, never lying:
 *  - `accepted` is the set-up the Python side is training. A change proposes that set-up
 *    with ONE field changed, and the fields the Python side says change with it
 *    (play.change: the page holds no rule of its own); a refusal marks that field (and
 *    keeps training the accepted one), an unrelated bad field never blocks a later good
 *    change, and only accepted set-ups go into the URL.
 *  - A lost session (idle expiry, eviction, a server restart) is re-created from the
 *    accepted set-up with the last weights, step and followed point, and training goes on.
 */

import { SessionHandle } from "./client.js";
import { mount, uniquePrefix } from "./dom.js";
import { fmt } from "./format.js";
import { PlayControls } from "./play_controls.js";
import { YourData } from "./play_data.js";
import { PLAY_MARKUP } from "./play_markup.js";
import { NetworkView } from "./play_network.js";
import { ParamTable } from "./play_params.js";
import { BoundaryPlot, LossCurves, writeMetrics } from "./play_plot.js";
import { PointGraph } from "./play_pointgraph.js";

/** the + button's largest layer (a larger one is typed into the sizes) */
const MOST_BY_BUTTON = 8;

export class Playground {
  constructor(root, { client, meta, url = null, idPrefix, banner } = {}) {
    this.root = root;
    this.client = client;
    this.url = url;
    this.spec = meta.experiment;
    /** the fields the page handles by themselves, by the part each plays here */
    this.roles = meta.play_fields;
    this.prefix = idPrefix || uniquePrefix("play");
    this.state = null; this.points = null; this.history = []; this.accepted = null;
    this.playing = false; this.started = false; this.rateWindow = []; this.inflight = false;
    this.frames = 0;
    this.limits = meta.limits || {};
    // the learner's edits run one after another, each on the set-up the one before left
    // (a field typed while another edit is on its way is never lost or undone)
    this.queue = Promise.resolve(); this.edits = 0; this.pendingFields = {};
    root.classList.add("mg-play");
    root.playground = this;  // the component, for the page around it (and its tests)
    const $ = this.$ = mount(root, PLAY_MARKUP, this.prefix);
    this.banner = banner || $("banner");
    this.handle = new SessionHandle(client, {
      restore: () => this.restoreBody(),
      restored: (s, body) => this.restored(s, body),
    });
    this.controls = new PlayControls({ part: $, prefix: this.prefix, spec: this.spec,
      changed: (name) => { const v = this.controls.parse(name); this.serial(() => this.fieldChanged(name, v), name); } });
    this.data = new YourData(this);
    // the + and - of the hidden layers sit right after their sizes
    this.controls.input(this.roles.layers).closest("label").after($("layer-buttons"));
    this.plot = new BoundaryPlot($("boundary"), $("legend"), $("zl-note"));
    this.curves = new LossCurves($("curves"), $("hover"), $("curves-how"));
    this.table = new ParamTable($("params"));
    this.pointGraph = new PointGraph($);
    this.net = new NetworkView($, this.controls.field(this.roles.inputs), {
      toggleFeature: (name) => this.serial(() => this.toggleFeature(name)),
      neurons: (layer, delta) => this.serial(() => this.neurons(layer, delta)),
      setWeight: (name, value, input) => this.serial(() => this.setWeight(name, value, input)),
      hidden: (group) => this.controls.hidden(group),
      mark: (input, message) => this.controls.mark(input, message),
      built: () => this.applyHide(),
    });
  }

  get sid() { return this.handle.sid; }

  /* ---------------------------------------------------------------- start-up */

  start() {
    if (this.started) return;
    this.started = true;
    const $ = this.$;
    $("regen").onclick = () => this.serial(() => this.nextSeed());
    $("layer-plus").onclick = () => this.serial(() => this.layers(+1));
    $("layer-minus").onclick = () => this.serial(() => this.layers(-1));
    $("play").onclick = () => (this.playing ? this.pause() : this.play());
    $("step").onclick = async () => { await this.stop(); this.step(); };
    $("reset").onclick = () => this.serial(() => this.reset());
    for (const role of ["showtest", "discrete", "zerolines"]) {
      $(role).addEventListener("change", () => { this.writeUrl(); if (this.state) this.drawBoundary(); });
    }
    $("click").addEventListener("change", () => this.clickMode());
    $("pgo").onclick = () => { const x = Number($("px").value), y = Number($("py").value); this.serial(() => this.plotAction(x, y)); };
    $("undoedits").onclick = () => this.serial(() => this.propose({ added: [], removed: [] }, "undoedits"));
    $("boundary").addEventListener("click", (ev) => {
      if (!this.plot.map) return;
      const { X, Y, x, y } = this.plot.at(ev);
      this.serial(() => this.plotAction(x, y, X, Y));
    });
    $("g-stop").onclick = () => this.unfollow();
    window.addEventListener("pagehide", () => this.handle.drop());
    // the network is laid out for the box's width: again when it changes (a phone turned)
    let width = 0;
    window.addEventListener("resize", () => {
      const w = $("net").clientWidth;
      if (this.state && w !== width) { width = w; this.net.invalidate(); this.drawNet(); }
    });
    this.controls.lessonControls(() => this.lessonUrl());
    this.startFromUrl();
  }

  /** The set-up from the URL (the Python side fills in the rest); a refused link falls
   *  back to the defaults and says what was refused. */
  async startFromUrl() {
    const q = this.url ? this.url.read() : new URLSearchParams();
    const cfg = this.controls.fromUrl(q);
    // a data set of your own too large for a link: the link says how many points it had
    const fromFile = q.has("file") && !q.has(this.controls.field(this.roles.own_points).url);
    if (fromFile) { delete cfg.dataset; delete cfg.points; delete cfg.classes; }
    this.$("showtest").checked = q.get("test") !== "0";
    this.$("discrete").checked = q.get("disc") === "1";
    this.$("zerolines").checked = q.get("zl") !== "0";
    this.controls.setHide((q.get("hide") || "").split(","));
    this.applyHide();
    let inspect;
    if (q.has("pt")) {
      const [x, y, l] = q.get("pt").split(":").map(Number);
      if (isFinite(x) && isFinite(y)) inspect = { x, y, label: isFinite(l) ? l : null };
    }
    const ok = await this.create(cfg, { inspect });
    if (!ok) {
      const msg = this.lastError;
      await this.create({}, {});
      this.showError("This link's set-up was refused (" + msg + "); the playground shows " +
                     "the defaults instead.");
    }
    if (fromFile) {
      this.showNotice(`This link was made with ${q.get("file")} points of your own, more ` +
        "than a link carries: import that CSV file (under 'your data') to train on them.");
    }
  }

  /** Run `fn` (an edit: async) after the edits before it; `name`: the field it changes,
   *  which the form leaves as typed until the edit is done. */
  serial(fn, name) {
    this.edits += 1;
    if (name) this.pendingFields[name] = (this.pendingFields[name] || 0) + 1;
    const run = this.queue.then(fn).catch((e) => this.showError("playground: " + e.message)).finally(() => {
      this.edits -= 1;
      if (name && !(this.pendingFields[name] -= 1)) delete this.pendingFields[name];
      if (!this.edits) this.fillForm();
    });
    this.queue = run;
    return run;
  }

  /** the form shows the accepted set-up, except the fields an edit on its way will
   *  change and the one the learner is typing into */
  fillForm() {
    if (!this.accepted) return;
    const skip = Object.keys(this.pendingFields);
    const active = document.activeElement;
    for (const [name, input] of Object.entries(this.controls.inputs)) if (input === active) skip.push(name);
    if (this.data.draft) skip.push(this.roles.dataset);  // the plane being drawn on shows its own
    this.controls.fill(this.accepted, skip);
  }

  /* ---------------------------------------------------------------- the form */

  /** the loss's own description: its labels ("pm1", "01", "index") and outputs */
  lossSpec(name) { return this.spec.losses[name || this.accepted.loss]; }

  /** whether the network has one output per class (its points' labels are indices) */
  perClass(cfg) { return this.lossSpec(cfg.loss).outputs === "classes"; }

  /** The learner changed field `name` to `v`: the set-up with the fields the Python side
   *  says change with it, proposed; a data set of your own made from the page; the rate
   *  set on the running session. */
  async fieldChanged(name, v) {
    if (name === this.roles.live) return this.setLr(v);
    const { patch, own } = await this.implied(name, v);
    if (own) return this.data.ownFromScreen(v, patch);
    return this.propose(patch, name);
  }

  /** what setting field `name` of the accepted set-up to `v` implies: {patch, own} */
  implied(name, v) {
    return this.client.call("play.change", { setup: this.accepted, field: name, value: v });
  }

  /** "new data": the next seed of the points */
  nextSeed() {
    const seed = this.roles.data_seed;
    return this.propose({ [seed]: this.accepted[seed] + 1 }, seed);
  }

  /** Ask for the accepted set-up with `patch` applied; on refusal, mark field `name`. */
  async propose(patch, name, { quiet = false } = {}) {
    const cfg = { ...this.accepted, ...patch };
    const keeps = (k) => { const f = this.controls.field(k); return f && f.keeps_weights; };
    const keep = Object.keys(patch).every(keeps);
    const ok = await this.create(cfg, { keep, inspect: this.followed(), field: name, quiet });
    if (ok && name) { this.mark(name, null); this.fillForm(); }
    return ok;
  }

  mark(name, message) {
    const cur = this.accepted ? this.accepted[name] : null;
    this.controls.mark(this.controls.input(name), message, cur);
  }

  followed() {
    const g = this.state && this.state.graph;
    return g ? { x: g.x[0], y: g.x[1], label: g.label } : undefined;
  }

  layers(delta) {
    const sizes = this.roles.layers, h = this.accepted[sizes].slice();
    const most = this.controls.field(sizes).max_len;
    if (delta > 0) { if (h.length >= most) return this.showNotice(`at most ${most} hidden layers`); h.push(2); }
    else { if (h.length <= 1) return this.showNotice("at least one hidden layer"); h.pop(); }
    return this.propose({ [sizes]: h }, sizes);
  }

  neurons(layer, delta) {
    const sizes = this.roles.layers, h = this.accepted[sizes].slice();
    const n = h[layer] + delta;
    if (n < 1) return this.showNotice("a layer has at least one neuron");
    if (n > MOST_BY_BUTTON && delta > 0) {
      return this.showNotice(`the + button stops at ${MOST_BY_BUTTON} neurons; type a larger size into 'sizes'`);
    }
    h[layer] = n;
    return this.propose({ [sizes]: h }, sizes);
  }

  toggleFeature(name) {
    const inputs = this.roles.inputs;
    const all = this.controls.field(inputs).choices, on = this.accepted[inputs];
    const f = on.includes(name) ? on.filter((x) => x !== name) : all.filter((x) => x === name || on.includes(x));
    return this.propose({ [inputs]: f }, null).then((ok) => { if (!ok) this.showNotice(this.lastError); });
  }

  writeUrl() {
    const c = this.accepted; if (!c) return;
    this.data.note();
    if (!this.url) return;
    const $ = this.$, out = this.controls.toUrl(c);
    // your own points travel in the link up to as many as the hand edits; more of them
    // travel as a file, and the link says how many there were
    const most = this.limits.max_url_points, pts = this.controls.field(this.roles.own_points).url;
    out.file = null;
    if (most !== undefined && c.points.length > most) { out[pts] = null; out.file = String(c.points.length); }
    if (this.state) out[this.controls.field(this.roles.live).url] = this.state.lr;
    out.test = $("showtest").checked ? null : "0";
    out.disc = $("discrete").checked ? "1" : null;
    out.zl = $("zerolines").checked ? null : "0";
    const g = this.followed();
    out.pt = g ? [g.x, g.y].concat(g.label === null ? [] : [g.label]).join(":") : null;
    out.hide = this.controls.hide.length ? this.controls.hide.join(",") : null;
    this.url.write(out);
    this.lessonUrl();
  }

  lessonUrl() { if (this.url) this.controls.lessonUrl(this.url.read()); }

  applyHide() { this.controls.applyHide(this.root); }

  showError(msg) { this.banner.textContent = msg; this.banner.hidden = !msg; }
  showNotice(msg) { const n = this.$("notice"); n.textContent = msg || ""; n.hidden = !msg; }

  /* ---------------------------------------------------------------- sessions */

  weights() { return this.state ? this.state.params.rows.map((r) => r[1]) : null; }

  /** A new session with `cfg`; `keep` carries the current weights and step over.
   *  Resolves to true when accepted; a refusal leaves the running session alone. */
  async create(cfg, { keep = false, inspect, field, quiet = false } = {}) {
    const wasPlaying = this.playing;
    await this.stop();
    const body = { ...cfg };
    if (keep && this.state) {
      const w = this.weights();
      if (w && !w.some((x) => typeof x !== "number")) { body.weights = w; body.step = this.state.step; }
    }
    if (inspect) body.inspect = inspect;
    let s;
    try {
      s = await this.handle.create(body);
    } catch (e) {
      // the followed point may not fit the new set-up (a class that no longer exists)
      if (inspect && e.kind === "refused" && /class|target|graph/.test(e.message)) {
        delete body.inspect;
        try { s = await this.handle.create(body); } catch (e2) { e = e2; }
      }
      if (!s) {
        this.lastError = e.message;
        if (field && this.controls.input(field)) this.mark(field, e.message);
        else if (!quiet) this.showError("playground: " + e.message);
        if (wasPlaying && this.sid) this.play();
        return false;
      }
    }
    this.showError(""); this.showNotice("");  // a notice's cause was the set-up before
    this.data.accepted();
    this.points = s.points;
    this.history = body.weights ? this.history.concat(s.history) : s.history;
    this.accepted = s.config;
    this.fillForm();
    this.accept(s);
    this.writeUrl();
    if (wasPlaying) this.play();
    return true;
  }

  /** what a lost session is made again from: the set-up on screen, the last weights,
   *  step and learning rate, the followed point */
  restoreBody() {
    const body = { ...this.accepted, lr: this.state ? this.state.lr : this.accepted.lr };
    const inspect = this.followed();
    if (inspect) body.inspect = inspect;
    const w = this.weights();
    if (w && !w.some((x) => typeof x !== "number")) { body.weights = w; body.step = this.state.step; }
    return body;
  }

  restored(s, body) {
    const at = body.step || 0;
    this.points = s.points; this.accepted = s.config;
    this.history = this.history.concat(s.history.filter((r) => r[0] > at || !this.history.length));
    this.accept(s);
    this.showNotice(`The server had lost this session (idle too long, too many tabs, or a ` +
      `restart). It was made again from the settings on screen with the last weights, at ` +
      `step ${at}; the optimizer's state (momentum, Adam moments) starts afresh.`);
  }

  async reset() {
    await this.stop();
    const field = this.roles.weights_seed, range = this.controls.field(field);
    // the next seed, back to min after max
    const seed = this.accepted[field] >= range.max ? range.min : this.accepted[field] + 1;
    try {
      const s = await this.handle.call("play.reset", { init_seed: seed });
      this.history = s.history; this.accepted = s.config; this.showError("");
      this.mark(field, null); this.fillForm();
      this.accept(s); this.writeUrl();
      this.showNotice(`new weights (init seed ${seed}), step 0`);
    } catch (e) { this.showError("playground: " + e.message); }
  }

  async setLr(lr) {
    try {
      const r = await this.handle.call("play.lr", { lr });
      this.mark(this.roles.live, null); this.showNotice("");
      this.state.lr = r.lr; this.accepted.lr = r.lr;
      this.lrVersion = (this.lrVersion || 0) + 1;
      this.writeUrl();
    } catch (e) { this.mark(this.roles.live, e.message); }
  }

  async setWeight(name, value, input) {
    try {
      const s = await this.handle.call("play.weight", { name, value });
      this.controls.mark(input, null);
      if (s.history.length) {
        const last = this.history[this.history.length - 1];
        if (last && last[0] === s.step) this.history[this.history.length - 1] = s.history[0];
      }
      this.accept(s);
      this.showNotice(`${name} set to ${fmt(value)} (training goes on from there)`);
    } catch (e) { this.controls.mark(input, e.message); }
  }

  /* ---------------------------------------------------------------- training */

  /** One training step; resolves to the new state, or null after an error. */
  async requestStep() {
    const version = this.lrVersion;
    try {
      const s = await this.handle.call("play.step", { steps: 1 });
      // a step asked for before a new learning rate was set may answer after it: its
      // lr is the one before, and the session's is the new one
      if (version !== this.lrVersion) s.lr = this.accepted.lr;
      return s;
    } catch (e) {
      this.showError("playground: " + e.message); this.pause();
      return null;
    }
  }

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
      this.$("rate").textContent = rate.toFixed(1);
      this.$("rate").dataset.rate = String(rate);
    }
  }

  /** One step per click: clicks made while a step is on its way are queued, not lost. */
  async step() {
    if (!this.sid) return;
    this.queued = (this.queued || 0) + 1;
    if (this.stepping) return;
    this.stepping = true;
    try {
      while (this.queued > 0) {
        this.queued -= 1;
        this.inflight = true;
        const s = await this.requestStep();
        this.inflight = false;
        if (s) this.acceptStep(s); else this.queued = 0;
      }
    } finally { this.stepping = false; this.inflight = false; }
  }

  /* Live training: the page asks for one step at a time. The next request is sent as
     soon as a response arrives, and the response is drawn while the Python side computes
     the next step; so everything is redrawn after every step. When the tab closes, the
     requests stop, and so does the work. */
  play() {
    if (this.playing || this.inflight || !this.sid) return;
    this.loop = this.runLoop();
  }

  async stop() { this.pause(); if (this.loop) await this.loop; this.loop = null; }

  async runLoop() {
    this.playing = true; this.inflight = true;
    const b = this.$("play"); b.textContent = "pause"; b.setAttribute("aria-pressed", "true");
    this.rateWindow = [];
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
  }

  pause() {
    this.playing = false;
    this.tableAt = 0;
    if (this.state) this.table.draw(this.state.params);
    const b = this.$("play");
    b.textContent = "play"; b.setAttribute("aria-pressed", "false");
  }

  /* ---------------------------------------------------------------- drawing */

  accept(s) {
    const $ = this.$;
    this.state = s;
    this.frames += 1;  // drawings of the boundary (one per response)
    $("boundary").dataset.frames = String(this.frames);
    $("epoch").textContent = String(s.epoch);
    // an op with no lowering: eager, and the note says why (shown as text, never HTML)
    $("execution-name").textContent = s.execution_note || s.execution;
    $("stepn").textContent = String(s.step);
    writeMetrics($, s, this.points);
    $("netsum").textContent = `(${s.network.sizes.join("-")}, ${s.nparams} parameters)`;
    // your own points: no points generated, so no count or noise to set
    const own = this.spec.own.includes(s.config.dataset);
    for (const name of this.roles.generated) { const i = this.controls.input(name); if (i) i.closest("label").hidden = own; }
    this.clickMode();
    if (s.diverged) {  // the Python side says so: the loss or a weight is no longer finite
      this.showError(`training diverged at step ${s.diverged_at}: the loss or a weight is ` +
                     "no longer a finite number; lower the learning rate and press new weights");
      this.pause();
    }
    this.drawBoundary(); this.curves.draw(this.history); this.drawNet();
    // the table is read, not watched: while playing it refreshes 5 times a second
    const now = performance.now();
    if (!this.playing || !this.tableAt || now - this.tableAt > 200) { this.tableAt = now; this.table.draw(s.params); }
    if (s.graph) this.pointGraph.draw(s.graph); else this.pointGraph.clear();
    $("undoedits").hidden = !(s.config.added.length || s.config.removed.length);
  }

  drawBoundary() {
    const $ = this.$;
    if (this.data.draft) return this.data.drawDraft();
    this.plot.draw(this.state, this.points,
                   { showTest: $("showtest").checked, discrete: $("discrete").checked,
                     zeroLines: $("zerolines").checked },
                   this.perClass(this.state.config));
  }

  drawNet() { this.net.draw(this.state, this.$("discrete").checked); }

  /* ---------------------------------------------------------------- the plot */

  clickMode() {
    const s = this.state, $ = this.$; if (!s) return;
    const mode = $("click").value;
    const draft = this.data.draft;
    const reg = draft ? this.spec.regression.includes(draft.dataset) : s.task === "regression";
    $("addlabel-box").hidden = mode !== "add" || reg;
    $("addtarget-box").hidden = mode !== "add" || !reg;
    const sel = $("addlabel");
    const labels = this.lossSpec(draft ? draft.loss : s.config.loss).labels;
    const own = draft || this.spec.own.includes(s.config.dataset);
    const want = labels === "index"
      ? Array.from({ length: s.config.classes }, (_, k) => [String(k), `class ${k}`])
      : own && labels === "01" ? [["1", "1 (blue)"], ["0", "0 (orange)"]]  // your points: the loss's labels
        : [["1", "+1 (blue)"], ["-1", "−1 (orange)"]];
    if (sel.dataset.key !== JSON.stringify(want)) {
      sel.dataset.key = JSON.stringify(want); sel.textContent = "";
      for (const [v, t] of want) { const o = document.createElement("option"); o.value = v; o.textContent = t; sel.appendChild(o); }
    }
  }

  async plotAction(x, y, X, Y) {
    if (!isFinite(x) || !isFinite(y)) return this.showNotice("give x1 and x2 as numbers");
    if (X === undefined) { X = this.plot.map.px(x); Y = this.plot.map.py(y); }
    const $ = this.$, mode = $("click").value, c = this.accepted;
    if (this.data.draft) return this.data.drawPoint(x, y, X, Y, mode);
    if (this.spec.own.includes(c.dataset) && mode !== "inspect") return this.data.edit(x, y, X, Y, mode);
    const near = this.plot.nearest([this.points.train].concat($("showtest").checked ? [this.points.test] : []), X, Y);
    const r4 = (v) => Math.round(v * 1e4) / 1e4;
    if (mode === "inspect") {
      if (near) return this.follow(near[0], near[1], near[2]);
      return this.follow(r4(x), r4(y), null);
    }
    if (mode === "add") {
      const lab = this.newLabel(this.state.task === "regression");
      const ok = await this.propose({ added: c.added.concat([[r4(x), r4(y), lab]]) }, null);
      if (ok) this.showNotice(`added a point at (${r4(x)}, ${r4(y)}) with label ${lab}`);
      else this.showNotice("refused: " + this.lastError);
      return;
    }
    if (!near) return this.showNotice("no data point there to remove");
    let patch;
    if (near[3] >= 0) patch = { removed: c.removed.concat([near[3]]) };
    else {
      const i = c.added.findIndex((p) => Math.abs(p[0] - near[0]) < 1e-9 && Math.abs(p[1] - near[1]) < 1e-9);
      patch = { added: c.added.filter((_, k) => k !== i) };
    }
    const ok = await this.propose(patch, null);
    this.showNotice(ok ? `removed the point at (${fmt(near[0])}, ${fmt(near[1])})` : "refused: " + this.lastError);
  }

  /** the label a click adds: the chosen class, or the chosen target */
  newLabel(reg) { return reg ? Number(this.$("addtarget").value) : Number(this.$("addlabel").value); }

  async follow(x, y, label) {
    try {
      const s = await this.handle.call("play.inspect", { x, y, label });
      this.pointGraph.restart();
      this.accept(s); this.writeUrl();
    } catch (e) { this.showNotice("cannot follow that point: " + e.message); }
  }

  async unfollow() {
    try { const s = await this.handle.call("play.inspect.stop", {}); this.accept(s); this.writeUrl(); }
    catch (e) { this.showNotice(e.message); }
  }
}

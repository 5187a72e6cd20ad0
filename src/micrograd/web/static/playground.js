/* micrograd serve: the Playground (a network trained live on a 2-D data set).
 *
 * The page never computes: the data, every neuron's picture, the boundary, the losses,
 * the parameter table and one point's graph all arrive from the engine (client.js).
 *
 * Never stuck, never lying:
 *  - `accepted` is the set-up the server is training. A change proposes that set-up with
 *    ONE field changed; a refusal marks that field (and keeps training the accepted one),
 *    an unrelated bad field never blocks a later good change, and only accepted set-ups
 *    go into the URL.
 *  - A lost session (idle expiry, eviction, a server restart) is re-created from the
 *    accepted set-up with the last weights, step and followed point, and training goes on.
 */
"use strict";

/** control id -> [config key, kind]; kinds parse the field's text */
const P_FIELDS = {
  "p-dataset": ["dataset", "str"], "p-classes": ["classes", "int"], "p-noise": ["noise", "num"],
  "p-samples": ["samples", "int"], "p-ratio": ["train_ratio", "num"], "p-seed": ["seed", "int"],
  "p-hidden": ["hidden", "list"], "p-act": ["activation", "str"], "p-loss": ["loss", "str"],
  "p-opt": ["optimizer", "str"], "p-batch": ["batch_size", "int"], "p-l1": ["l1", "num"],
  "p-l2": ["l2", "num"], "p-iseed": ["init_seed", "int"], "p-lr": ["lr", "num"],
};
/** config key -> URL key */
const P_URL = { dataset: "ds", classes: "k", noise: "noise", samples: "n", train_ratio: "ratio",
  seed: "seed", features: "feat", hidden: "hidden", activation: "act", loss: "loss",
  optimizer: "opt", lr: "lr", batch_size: "batch", l1: "l1", l2: "l2", init_seed: "iseed",
  added: "add", removed: "rm" };
/** set-up fields whose change keeps the current weights (the network's shape stays) */
const P_KEEP_WEIGHTS = ["noise", "train_ratio", "batch_size", "l1", "l2", "optimizer", "added",
  "removed", "lr"];
/** groups of controls a lesson link can hide (data-ctl attributes) */
const P_GROUPS = { data: "data set and its settings", network: "layers and neurons",
  features: "input features", lr: "learning rate", act: "activation", reg: "L1 / L2",
  loss: "loss", opt: "optimizer", curves: "loss curves", inspect: "one point's graph",
  params: "parameter table" };
const P_CLASS_COLOURS = [[224, 102, 47], [47, 111, 223], [27, 127, 59], [142, 68, 173], [181, 137, 0]];
const P_POS = [47, 111, 223], P_NEG = [224, 102, 47];

/** A number as the one-point graph's records show it (micrograd.viz's layout measured
 *  its cells for this format). */
function fmt4(x) {
  if (x === null || x === undefined) return "·";
  if (typeof x === "string") return x;
  const a = Math.abs(x);
  if (a !== 0 && (a >= 1e7 || a < 1e-4)) return x.toExponential(3);
  return x.toFixed(4);
}

const Play = {
  sid: null, state: null, points: null, history: [], accepted: null, playing: false,
  started: false, rateWindow: [], inflight: false, frames: 0, graph: null, graphPos: null,
  netKey: null, tableKey: null, editing: null, hide: [],

  /* ---------------------------------------------------------------- start-up */

  ensure() {
    if (this.started) return;
    this.started = true;
    const fill = (id, items) => {
      const sel = $(id);
      for (const it of items) { const o = document.createElement("option"); o.value = it; o.textContent = it; sel.appendChild(o); }
    };
    fill("p-act", META.activations); fill("p-loss", META.losses); fill("p-opt", META.optimizers);
    for (const id of Object.keys(P_FIELDS)) {
      $(id).addEventListener("change", () => this.fieldChanged(id));
    }
    $("p-regen").onclick = () => this.propose({ seed: this.accepted.seed + 1 }, "p-seed");
    $("p-layer-plus").onclick = () => this.layers(+1);
    $("p-layer-minus").onclick = () => this.layers(-1);
    $("p-play").onclick = () => (this.playing ? this.pause() : this.play());
    $("p-step").onclick = async () => { await this.stop(); this.step(); };
    $("p-reset").onclick = () => this.reset();
    for (const id of ["p-showtest", "p-discrete", "p-zerolines"]) {
      $(id).addEventListener("change", () => { this.writeUrl(); if (this.state) this.drawBoundary(); });
    }
    $("p-click").addEventListener("change", () => this.clickMode());
    $("p-pgo").onclick = () => this.plotAction(Number($("p-px").value), Number($("p-py").value));
    $("p-undoedits").onclick = () => this.propose({ added: [], removed: [] }, "p-undoedits");
    const cv = $("p-boundary");
    cv.addEventListener("click", (ev) => this.plotClick(ev));
    const curves = $("p-curves");
    curves.addEventListener("mousemove", (ev) => this.hover(ev));
    curves.addEventListener("mouseleave", () => { $("p-hover").innerHTML = "&nbsp;"; });
    $("p-edit-set").onclick = () => this.setWeight();
    $("p-edit-value").addEventListener("keydown", (ev) => { if (ev.key === "Enter") this.setWeight(); });
    $("p-edit-close").onclick = () => { $("p-edit").hidden = true; this.editing = null; };
    $("p-g-start").onclick = () => this.graphStep("start");
    $("p-g-back").onclick = () => this.graphStep(-1);
    $("p-g-fwd").onclick = () => this.graphStep(+1);
    $("p-g-all").onclick = () => this.graphStep("all");
    $("p-g-stop").onclick = () => this.unfollow();
    window.addEventListener("pagehide", () => this.drop());
    // the network is laid out for the box's width: again when it changes (a phone turned)
    let width = 0;
    window.addEventListener("resize", () => {
      const w = $("p-net").clientWidth;
      if (this.state && w !== width) { width = w; this.netKey = null; this.drawNet(); }
    });
    this.lessonControls();
    this.startFromUrl();
  },

  /** The set-up from the URL over the defaults; a refused link falls back to the defaults
   *  and says what was refused. */
  async startFromUrl() {
    const q = url.read(), d = META.play_defaults;
    const cfg = JSON.parse(JSON.stringify(d));
    const get = (k) => (q.has(P_URL[k]) ? q.get(P_URL[k]) : null);
    for (const key of Object.keys(P_URL)) {
      const v = get(key);
      if (v === null) continue;
      if (key === "features") cfg.features = v === "" ? [] : v.split(",");
      else if (key === "hidden") cfg.hidden = v.split(",").map(Number);
      else if (key === "added") cfg.added = v === "" ? [] : v.split(";").map((p) => p.split(":").map(Number));
      else if (key === "removed") cfg.removed = v === "" ? [] : v.split(",").map(Number);
      else if (typeof d[key] === "number") cfg[key] = Number(v);
      else cfg[key] = v;
    }
    $("p-showtest").checked = q.get("test") !== "0";
    $("p-discrete").checked = q.get("disc") === "1";
    $("p-zerolines").checked = q.get("zl") !== "0";
    this.hide = (q.get("hide") || "").split(",").filter((g) => g in P_GROUPS);
    this.applyHide();
    let inspect;
    if (q.has("pt")) {
      const [x, y, l] = q.get("pt").split(":").map(Number);
      if (isFinite(x) && isFinite(y)) inspect = { x, y, label: isFinite(l) ? l : null };
    }
    const ok = await this.create(cfg, { inspect });
    if (!ok) {
      const msg = $("banner").textContent;
      await this.create(JSON.parse(JSON.stringify(d)), {});
      this.showError("This link's set-up was refused (" + msg.replace(/^playground: /, "") +
                     "); the playground shows the defaults instead.");
    }
  },

  /* ---------------------------------------------------------------- the form */

  parse(id) {
    const [, kind] = P_FIELDS[id], text = $(id).value.trim();
    if (kind === "str") return text;
    if (kind === "list") return text.split(",").map((s) => s.trim()).map((s) => (s === "" ? NaN : Number(s)));
    if (text === "") return NaN;
    return Number(text);
  },

  /** The form shows the accepted set-up, except fields still marked as refused. */
  fillForm(cfg) {
    for (const [id, [key]] of Object.entries(P_FIELDS)) {
      if ($(id).getAttribute("aria-invalid") === "true") continue;
      const v = cfg[key];
      $(id).value = Array.isArray(v) ? v.join(",") : String(v);
    }
  },

  markField(id, message) {
    const el = $(id); if (!el) return;
    const label = el.closest("label") || el.parentElement;
    let note = label.querySelector(".refused");
    if (message) {
      el.setAttribute("aria-invalid", "true");
      if (!note) { note = document.createElement("span"); note.className = "refused"; note.id = id + "-err"; label.appendChild(note); }
      el.setAttribute("aria-describedby", note.id);
      const key = P_FIELDS[id] && P_FIELDS[id][0];
      const cur = key && this.accepted ? this.accepted[key] : null;
      note.textContent = `refused: ${message}` + (cur !== null && cur !== undefined
        ? `; still training with ${Array.isArray(cur) ? cur.join(",") : cur}` : "");
    } else {
      el.removeAttribute("aria-invalid"); el.removeAttribute("aria-describedby");
      if (note) note.remove();
    }
  },

  fieldChanged(id) {
    const [key] = P_FIELDS[id];
    const v = this.parse(id);
    const patch = { [key]: v };
    // a regression set is trained with the squared error; 3+ classes with cross-entropy
    if (key === "dataset" && META.regression.includes(v)) { patch.loss = "mse"; patch.classes = 2; }
    if (key === "dataset" && !["spiral", "blobs"].includes(v)) patch.classes = 2;
    if (key === "dataset" && !META.regression.includes(v) && this.accepted.loss === "mse" && this.accepted.classes > 2) patch.loss = "mse";
    if (key === "classes" && v > 2) patch.loss = "ce";
    if (key === "classes" && v === 2 && this.accepted.loss === "ce") patch.loss = "mse";
    if (key === "dataset" || key === "samples" || key === "seed") { patch.added = []; patch.removed = []; }
    if (key === "lr") return this.setLr(v);
    // hand-added points keep their class across the two label conventions (+1/-1, 0/1)
    const loss = patch.loss || this.accepted.loss;
    if (loss !== this.accepted.loss && this.accepted.added.length && (patch.classes || this.accepted.classes) === 2) {
      patch.added = this.accepted.added.map(([x, y, l]) => [x, y, loss === "ce" ? (l > 0 ? 1 : 0) : (l > 0 ? 1 : -1)]);
    }
    this.propose(patch, id);
  },

  /** Ask for the accepted set-up with `patch` applied; on refusal, mark `id`. */
  async propose(patch, id) {
    const cfg = { ...this.accepted, ...patch };
    const keep = Object.keys(patch).every((k) => P_KEEP_WEIGHTS.includes(k));
    const ok = await this.create(cfg, { keep, inspect: this.followed(), field: id });
    if (ok && id) { this.markField(id, null); this.fillForm(this.accepted); }
    return ok;
  },

  followed() {
    const g = this.state && this.state.graph;
    return g ? { x: g.x[0], y: g.x[1], label: g.label } : undefined;
  },

  layers(delta) {
    const h = this.accepted.hidden.slice();
    const most = META.play_limits.max_layers;
    if (delta > 0) { if (h.length >= most) return this.showNotice(`at most ${most} hidden layers`); h.push(2); }
    else { if (h.length <= 1) return this.showNotice("at least one hidden layer"); h.pop(); }
    this.propose({ hidden: h }, "p-hidden");
  },

  neurons(layer, delta) {
    const h = this.accepted.hidden.slice();
    const n = h[layer] + delta;
    if (n < 1) return this.showNotice("a layer has at least one neuron");
    if (n > 8 && delta > 0) return this.showNotice("the + button stops at 8 neurons; type a larger size into 'sizes'");
    h[layer] = n;
    this.propose({ hidden: h }, "p-hidden");
  },

  toggleFeature(name) {
    const f = this.accepted.features.includes(name)
      ? this.accepted.features.filter((x) => x !== name)
      : META.features.filter((x) => x === name || this.accepted.features.includes(x));
    this.propose({ features: f }, null).then((ok) => { if (!ok) this.showNotice(this.lastError); });
  },

  writeUrl() {
    const c = this.accepted; if (!c) return;
    const out = {};
    for (const [key, uk] of Object.entries(P_URL)) {
      const v = c[key];
      if (key === "added") out[uk] = v.length ? v.map((p) => p.join(":")).join(";") : null;
      else if (key === "removed") out[uk] = v.length ? v.join(",") : null;
      else out[uk] = Array.isArray(v) ? v.join(",") : v;
    }
    if (this.state) out.lr = this.state.lr;
    out.test = $("p-showtest").checked ? null : "0";
    out.disc = $("p-discrete").checked ? "1" : null;
    out.zl = $("p-zerolines").checked ? null : "0";
    const g = this.followed();
    out.pt = g ? [g.x, g.y].concat(g.label === null ? [] : [g.label]).join(":") : null;
    out.hide = this.hide.length ? this.hide.join(",") : null;
    url.write(out);
    this.lessonUrl();
  },

  showError(msg) { const b = $("banner"); b.textContent = msg; b.hidden = !msg; },
  showNotice(msg) { const n = $("p-notice"); n.textContent = msg || ""; n.hidden = !msg; },

  /* ---------------------------------------------------------------- sessions */

  drop() {
    // the tab is closing: free its session now (idle expiry would, later)
    if (this.sid) apiFarewell("DELETE", `/api/play/${this.sid}`);
  },

  weights() { return this.state ? this.state.params.rows.map((r) => r[1]) : null; },

  /** A new session with `cfg`; `keep` carries the current weights and step over.
   *  Resolves to true when accepted; a refusal leaves the running session alone. */
  async create(cfg, { keep = false, inspect, field } = {}) {
    const wasPlaying = this.playing;
    await this.stop();
    const old = this.sid;
    const body = { ...cfg };
    if (keep && this.state) {
      const w = this.weights();
      if (w && !w.some((x) => typeof x !== "number")) { body.weights = w; body.step = this.state.step; }
    }
    if (inspect) body.inspect = inspect;
    let s;
    try {
      s = await api("POST", "/api/play", body);
    } catch (e) {
      // the followed point may not fit the new set-up (a class that no longer exists)
      if (inspect && e.status === 400 && /class|target|graph/.test(e.message)) {
        delete body.inspect;
        try { s = await api("POST", "/api/play", body); } catch (e2) { e = e2; }
      }
      if (!s) {
        this.lastError = e.message;
        if (field) this.markField(field, e.message); else this.showError("playground: " + e.message);
        if (wasPlaying && this.sid) this.play();
        return false;
      }
    }
    this.showError("");
    if (old && old !== s.sid) api("DELETE", `/api/play/${old}`).catch(() => {});
    this.sid = s.sid;
    this.points = s.points;
    this.history = body.weights ? this.history.concat(s.history) : s.history;
    this.accepted = s.config;
    this.fillForm(s.config);
    this.accept(s);
    this.writeUrl();
    if (wasPlaying) this.play();
    return true;
  },

  /** The session is gone (404): make it again from what the page knows, and go on.
   *  Requests that find it gone at the same time share one re-creation. */
  recover() {
    if (!this.recovering) this.recovering = this.recreate().finally(() => { this.recovering = null; });
    return this.recovering;
  },

  async recreate() {
    const at = this.state ? this.state.step : 0;
    const cfg = { ...this.accepted, lr: this.state ? this.state.lr : this.accepted.lr };
    const playing = this.playing;
    this.playing = false;
    const body = { ...cfg, inspect: this.followed() };
    const w = this.weights();
    if (w && !w.some((x) => typeof x !== "number")) { body.weights = w; body.step = at; }
    if (!body.inspect) delete body.inspect;
    try {
      const s = await api("POST", "/api/play", body);
      this.sid = s.sid; this.points = s.points; this.accepted = s.config;
      this.history = this.history.concat(s.history.filter((r) => r[0] > at || !this.history.length));
      this.accept(s);
      this.showNotice(`The server had lost this session (idle too long, too many tabs, or a ` +
        `restart). It was made again from the settings on screen with the last weights, at ` +
        `step ${at}; the optimizer's state (momentum, Adam moments) starts afresh.`);
      this.playing = playing;
      return true;
    } catch (e) {
      this.showError("playground: could not re-create the session: " + e.message);
      return false;
    }
  },

  /** One request against the session; a lost session is re-created and asked again. */
  async call(method, path, body) {
    const sid = this.sid;
    try {
      return await api(method, `/api/play/${sid}${path}`, body);
    } catch (e) {
      if (e.status === 404 && /no playground session/.test(e.message)) {
        // made again already (by another request), or now
        if (this.sid !== sid || await this.recover()) {
          return await api(method, `/api/play/${this.sid}${path}`, body);
        }
      }
      throw e;
    }
  },

  async reset() {
    await this.stop();
    const seed = (this.accepted.init_seed + 1) % 2147483647;
    try {
      const s = await this.call("POST", "/reset", { init_seed: seed });
      this.history = s.history; this.accepted = s.config; this.showError("");
      this.markField("p-iseed", null); this.fillForm(s.config);
      this.accept(s); this.writeUrl();
      this.showNotice(`new weights (init seed ${seed}), step 0`);
    } catch (e) { this.showError("playground: " + e.message); }
  },

  async setLr(lr) {
    try {
      const r = await this.call("PATCH", "", { lr });
      this.markField("p-lr", null);
      this.state.lr = r.lr; this.accepted.lr = r.lr;
      this.writeUrl();
    } catch (e) { this.markField("p-lr", e.message); }
  },

  /* ---------------------------------------------------------------- training */

  /** POST one training step; resolves to the new state, or null after an error. */
  async requestStep() {
    try {
      return await this.call("POST", "/step", { steps: 1 });
    } catch (e) {
      this.showError("playground: " + e.message); this.pause();
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
  },

  /* Live training: the page asks for one step at a time. The next request is sent as
     soon as a response arrives, and the response is drawn while the server computes the
     next step; so everything is redrawn after every step. When the tab closes, the
     requests stop, and so does the work. */
  play() {
    if (this.playing || this.inflight || !this.sid) return;
    this.loop = this.runLoop();
  },

  async stop() { this.pause(); if (this.loop) await this.loop; this.loop = null; },

  async runLoop() {
    this.playing = true; this.inflight = true;
    const b = $("p-play"); b.textContent = "pause"; b.setAttribute("aria-pressed", "true");
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
  },

  pause() {
    this.playing = false;
    this.tableAt = 0;
    if (this.state) this.drawTable();
    const b = $("p-play");
    if (b) { b.textContent = "play"; b.setAttribute("aria-pressed", "false"); }
  },

  /* ---------------------------------------------------------------- drawing */

  accept(s) {
    this.state = s;
    this.frames += 1;  // drawings of the boundary (one per response)
    $("p-boundary").dataset.frames = String(this.frames);
    $("p-epoch").textContent = String(s.epoch);
    $("p-engine-name").textContent = s.engine;
    $("p-stepn").textContent = String(s.step);
    const m = s.metrics, reg = s.task === "regression";
    $("p-trloss").textContent = fmt(m.train_loss); $("p-teloss").textContent = fmt(m.test_loss);
    $("p-tracc").textContent = reg ? "n/a" : fmt(m.train_acc * 100) + "%";
    $("p-teacc").textContent = reg ? "n/a" : fmt(m.test_acc * 100) + "%";
    $("p-tracc").dataset.value = String(m.train_acc); $("p-teacc").dataset.value = String(m.test_acc);
    $("p-netsum").textContent = `(${s.network.sizes.join("-")}, ${s.nparams} parameters)`;
    this.clickMode();
    if (s.diverged) {  // the server says so: the loss or a weight is no longer finite
      this.showError(`training diverged at step ${s.diverged_at}: the loss or a weight is ` +
                     "no longer a finite number; lower the learning rate and press new weights");
      this.pause();
    }
    this.drawBoundary(); this.drawCurves(); this.drawNet();
    // the table is read, not watched: while playing it refreshes 5 times a second
    const now = performance.now();
    if (!this.playing || !this.tableAt || now - this.tableAt > 200) { this.tableAt = now; this.drawTable(); }
    if (s.graph) this.drawPointGraph(s.graph); else this.clearGraph();
    $("p-undoedits").hidden = !(s.config.added.length || s.config.removed.length);
  },

  /** The colour of an output: `v` in [-1, 1] (one output) or, with a class `cls`, that
   *  class's probability; lighter when unsure. `discrete` paints full colours only. */
  colour(v, cls, discrete) {
    let c, t;
    if (cls !== undefined && cls !== null) {
      const k = this.state.config.classes;
      c = P_CLASS_COLOURS[cls % P_CLASS_COLOURS.length];
      t = discrete ? 1 : Math.max(0, (v - 1 / k) / (1 - 1 / k));
    } else {
      let u = v > 1 ? 1 : v < -1 ? -1 : v;
      if (discrete) u = u >= 0 ? 1 : -1;
      c = u >= 0 ? P_POS : P_NEG; t = Math.abs(u);
    }
    const f = t * 0.6;
    return [Math.round(255 + (c[0] - 255) * f), Math.round(255 + (c[1] - 255) * f), Math.round(255 + (c[2] - 255) * f)];
  },

  pointColour(label) {
    const s = this.state;
    if (s.config.loss === "ce") { const c = P_CLASS_COLOURS[label % P_CLASS_COLOURS.length]; return `rgb(${c})`; }
    if (s.task === "regression") { const c = this.colour(label, null, false); const d = c.map((x) => Math.round(x * 0.75)); return `rgb(${d})`; }
    return label > 0 ? "#2f6fdf" : "#e0662f";
  },

  drawBoundary() {
    const s = this.state, cv = $("p-boundary"), ctx = cv.getContext("2d");
    const b = s.boundary, n = b.n, W = cv.width, H = cv.height;
    const img = ctx.createImageData(n, n), discrete = $("p-discrete").checked;
    let nan = 0;
    for (let i = 0; i < n * n; i++) {
      const raw = Number(b.values[i]);  // "NaN" where the network diverged: grey
      if (raw !== raw) nan += 1;
      const c = raw === raw ? this.colour(raw, b.classes ? b.classes[i] : null, discrete) : [191, 191, 191];
      img.data[4 * i] = c[0]; img.data[4 * i + 1] = c[1]; img.data[4 * i + 2] = c[2]; img.data[4 * i + 3] = 255;
    }
    cv.dataset.nanCells = String(nan);  // what the page marked grey, for a reader or a test
    const off = document.createElement("canvas"); off.width = n; off.height = n;
    off.getContext("2d").putImageData(img, 0, 0);
    ctx.imageSmoothingEnabled = !$("p-discrete").checked;
    ctx.drawImage(off, 0, 0, W, H);
    const [x0, x1, y0, y1] = b.extent;
    const px = (x) => ((x - x0) / (x1 - x0)) * W, py = (y) => ((y1 - y) / (y1 - y0)) * H;
    this.plotMap = { px, py, ix: (X) => x0 + (X / W) * (x1 - x0), iy: (Y) => y1 - (Y / H) * (y1 - y0) };
    if ($("p-zerolines").checked && s.zero_lines) {
      ctx.save(); ctx.setLineDash([6, 4]); ctx.strokeStyle = "#1d232b"; ctx.lineWidth = 1.2;
      ctx.font = "11px monospace"; ctx.fillStyle = "#1d232b";
      s.zero_lines.forEach((segs, j) => {
        if (!segs.length) return;
        ctx.beginPath();
        for (const seg of segs) { ctx.moveTo(px(seg[0]), py(seg[1])); ctx.lineTo(px(seg[2]), py(seg[3])); }
        ctx.stroke();
        const mid = segs[Math.floor(segs.length / 2)];
        ctx.fillText(`1.${j + 1}`, (px(mid[0]) + px(mid[2])) / 2 + 3, (py(mid[1]) + py(mid[3])) / 2 - 3);
      });
      ctx.restore();
    }
    const drawPts = (pts, test) => {
      for (const [x, y, label] of pts) {
        ctx.fillStyle = this.pointColour(label);
        ctx.strokeStyle = test ? "#000" : "#fff";
        ctx.lineWidth = 1;
        ctx.beginPath();
        if (test) ctx.rect(px(x) - 3.5, py(y) - 3.5, 7, 7); else ctx.arc(px(x), py(y), 3.5, 0, 2 * Math.PI);
        ctx.fill(); ctx.stroke();
      }
    };
    drawPts(this.points.train, false);
    if ($("p-showtest").checked) drawPts(this.points.test, true);
    if (s.graph) {  // the followed point
      const [gx, gy] = s.graph.x;
      ctx.strokeStyle = "#000"; ctx.lineWidth = 2.5; ctx.beginPath();
      ctx.arc(px(gx), py(gy), 8, 0, 2 * Math.PI); ctx.stroke();
    }
    const legend = s.config.loss === "ce" ? `${s.config.classes} classes (softmax)`
      : s.task === "regression" ? "blue: high target, orange: low" : "blue: class +1, orange: class −1";
    $("p-legend").textContent = `(${legend}; ○ train` + ($("p-showtest").checked ? ", □ test)" : ")");
  },

  drawCurves() {
    const cv = $("p-curves"), ctx = cv.getContext("2d"), W = cv.width, H = cv.height;
    ctx.clearRect(0, 0, W, H);
    const h = this.history; if (!h.length) return;
    const pad = 44, first = h[0][0], lastStep = Math.max(first + 1, h[h.length - 1][0]);
    const ok = (v) => typeof v === "number" && isFinite(v);
    let lmax = 0;
    for (const r of h) for (const v of [r[1], r[2]]) if (ok(v)) lmax = Math.max(lmax, v);
    if (lmax <= 0) lmax = 1;
    ctx.strokeStyle = "#d5dae1"; ctx.strokeRect(pad, 5, W - pad - 5, H - 30);
    ctx.fillStyle = "#4a5260"; ctx.font = "11px monospace";
    ctx.fillText(fmt(lmax), 2, 14); ctx.fillText("0", 2, H - 25);
    ctx.fillText(`step ${lastStep}`, W - 80, H - 8);
    ctx.fillStyle = "#2f6fdf"; ctx.fillText("train", pad, H - 8);
    ctx.fillStyle = "#c0501c"; ctx.fillText("test", pad + 50, H - 8);
    const X = (st) => pad + ((st - first) / (lastStep - first)) * (W - pad - 5);
    const Y = (v) => 5 + (1 - Math.min(v, lmax) / lmax) * (H - 35);
    for (const [col, color] of [[1, "#2f6fdf"], [2, "#e0662f"]]) {
      ctx.strokeStyle = color; ctx.lineWidth = 1.5; ctx.beginPath();
      let started = false;
      for (const r of h) { const v = r[col]; if (!ok(v)) continue; if (!started) { ctx.moveTo(X(r[0]), Y(v)); started = true; } else ctx.lineTo(X(r[0]), Y(v)); }
      ctx.stroke();
    }
    this.curveX = X;
  },

  hover(ev) {
    const h = this.history; if (!h.length || !this.curveX) return;
    const r = ev.target.getBoundingClientRect();
    const x = (ev.clientX - r.left) * (ev.target.width / r.width);
    let best = h[0], bd = Infinity;
    for (const row of h) { const d = Math.abs(this.curveX(row[0]) - x); if (d < bd) { bd = d; best = row; } }
    $("p-hover").textContent = `step ${best[0]}: train loss ${best[1]}, test loss ${best[2]}` +
      (best[3] === null ? "" : `, train acc ${best[3]}, test acc ${best[4]}`);
  },

  /* The network: features (toggles), hidden layers with +/-, the output; a small picture
     of each neuron's output over the plane; links by width and colour, editable. The
     structure is built when the shape changes; each step only updates it. */
  drawNet() {
    const s = this.state, net = s.network, el = $("p-net");
    const key = JSON.stringify([net.sizes, net.features]);
    if (key !== this.netKey) this.buildNet(s);
    this.netKey = key;
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
    this.discrete = $("p-discrete").checked;
    this.cells.forEach((col, li) => col.forEach((cell, j) => {
      const vals = li === 0 ? th[0][net.features.indexOf(cell.feature)] : th[li][j];
      if (vals) this.drawThumb(cell.canvas, vals); else cell.canvas.getContext("2d").clearRect(0, 0, 20, 20);
      if (li > 0) cell.node.dataset.value = String(net.layers[li - 1].b[j]);
    }));
    if (this.editing) {
      const cur = this.paramValue(this.editing);
      $("p-edit-name").dataset.value = String(cur);
    }
  },

  paramValue(name) {
    const row = this.state.params.rows.find((r) => r[0] === name);
    return row ? row[1] : null;
  },

  drawThumb(canvas, vals) {
    const n = Math.round(Math.sqrt(vals.length)), ctx = canvas.getContext("2d");
    const img = ctx.createImageData(n, n), discrete = this.discrete;
    for (let i = 0; i < vals.length; i++) {
      const c = this.colour(vals[i], null, discrete);
      img.data[4 * i] = c[0]; img.data[4 * i + 1] = c[1]; img.data[4 * i + 2] = c[2]; img.data[4 * i + 3] = 255;
    }
    ctx.putImageData(img, 0, 0);
  },

  buildNet(s) {
    const net = s.network, el = $("p-net");
    el.textContent = "";
    const narrow = el.clientWidth < 500;
    const box = narrow ? 30 : 40, gap = narrow ? 10 : 14;
    const cols = [META.features.map((f) => ({ feature: f }))];
    for (let li = 1; li < net.sizes.length; li++) cols.push(Array.from({ length: net.sizes[li] }, () => ({})));
    const rows = Math.max(...cols.map((c) => c.length));
    const top = 34, H = top + rows * (box + gap) + 10;
    const W = Math.max(el.clientWidth || 500, 200);
    el.style.height = H + "px";
    const xs = cols.map((_, ci) => 6 + (ci * (W - box - 12)) / Math.max(1, cols.length - 1));
    const pos = cols.map((col, ci) => col.map((_, j) => [xs[ci], top + j * (box + gap)]));
    const sv = svg("svg", { width: W, height: H, class: "links", "aria-hidden": "false" }, el);
    // links from the active features / previous layer into each neuron
    this.links = [];
    const featPos = net.features.map((f) => pos[0][META.features.indexOf(f)]);
    net.layers.forEach((layer, li) => {
      const from = li === 0 ? featPos : pos[li];
      this.links.push(layer.w.map((row, j) => row.map((w, i) => {
        const [xa, ya] = from[i], [xb, yb] = pos[li + 1][j];
        const line = svg("line", { x1: xa + box, y1: ya + box / 2, x2: xb, y2: yb + box / 2,
          "stroke-opacity": 0.8, tabindex: this.hidden("network") ? -1 : 0, role: "button", class: "link" }, sv);
        svg("title", {}, line);
        const name = `w${li + 1}.${j + 1}.${i + 1}`;
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
      })));
    });
    // the cells: feature toggles, neurons (with their bias), outputs
    this.cells = cols.map((col, ci) => col.map((c, j) => {
      const [x, y] = pos[ci][j];
      const node = document.createElement("button");
      node.type = "button"; node.className = "cell"; node.style.left = x + "px"; node.style.top = y + "px";
      node.style.width = node.style.height = box + "px";
      const canvas = document.createElement("canvas"); canvas.width = canvas.height = 20;
      node.appendChild(canvas);
      if (ci === 0) {
        const on = net.features.includes(c.feature);
        node.classList.add("feature"); node.classList.toggle("off", !on);
        node.setAttribute("aria-pressed", String(on));
        node.setAttribute("aria-label", `input feature ${c.feature}: ${on ? "on" : "off"}`);
        node.dataset.ctl = "features";
        node.dataset.feature = c.feature;
        const lab = document.createElement("span"); lab.className = "flabel"; lab.textContent = c.feature;
        node.appendChild(lab);
        node.onclick = () => this.toggleFeature(c.feature);
        if (this.hidden("features")) node.disabled = true;
      } else {
        const name = `b${ci}.${j + 1}`;
        node.dataset.name = name;
        node.setAttribute("aria-label", `neuron ${ci}.${j + 1}: edit its bias ${name}`);
        const describe = () => { node.title = `${name} = ${node.dataset.value}`; };
        node.addEventListener("mouseenter", describe);
        node.onclick = () => this.edit(name);
        if (this.hidden("network")) node.disabled = true;
      }
      el.appendChild(node);
      return { node, canvas, feature: c.feature };
    }));
    // per-layer headers: + / - neurons
    for (let li = 1; li < cols.length; li++) {
      const head = document.createElement("div");
      head.className = "layerhead"; head.style.left = (xs[li] - 8) + "px"; head.dataset.ctl = "network";
      if (li === cols.length - 1) { head.textContent = net.sizes[li] > 1 ? `${net.sizes[li]} outputs` : "output"; }
      else {
        const mk = (t, d, lab) => { const b = document.createElement("button"); b.type = "button"; b.textContent = t; b.setAttribute("aria-label", lab); b.onclick = () => this.neurons(li - 1, d); head.appendChild(b); };
        mk("−", -1, `one neuron fewer in hidden layer ${li}`);
        mk("+", +1, `one neuron more in hidden layer ${li}`);
      }
      el.appendChild(head);
    }
    const fh = document.createElement("div"); fh.className = "layerhead"; fh.style.left = "0px"; fh.textContent = "features";
    el.appendChild(fh);
    this.applyHide();
  },

  edit(name) {
    if (this.hidden("network")) return;
    this.editing = name;
    $("p-edit").hidden = false;
    $("p-edit-name").textContent = name;
    const v = this.paramValue(name);
    $("p-edit-value").value = typeof v === "number" ? String(Number(v.toPrecision(6))) : "";
    this.markField("p-edit-value", null);
    $("p-edit-value").focus();
  },

  async setWeight() {
    const name = this.editing; if (!name) return;
    const value = Number($("p-edit-value").value);
    try {
      const s = await this.call("PATCH", "/weight", { name, value: $("p-edit-value").value.trim() === "" ? NaN : value });
      this.markField("p-edit-value", null);
      if (s.history.length) { const last = this.history[this.history.length - 1]; if (last && last[0] === s.step) this.history[this.history.length - 1] = s.history[0]; }
      this.accept(s);
      this.showNotice(`${name} set to ${fmt(value)} (training goes on from there)`);
    } catch (e) { this.markField("p-edit-value", e.message); }
  },

  /* The parameter table: built when the shape changes, updated every step. */
  drawTable() {
    const t = this.state.params, tbl = $("p-params");
    const key = JSON.stringify([t.state, t.rows.map((r) => r[0])]);
    if (key !== this.tableKey) {
      this.tableKey = key;
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
  },

  /* ---------------------------------------------------------------- the plot */

  clickMode() {
    const s = this.state; if (!s) return;
    const mode = $("p-click").value, reg = s.task === "regression";
    $("p-addlabel-box").hidden = mode !== "add" || reg;
    $("p-addtarget-box").hidden = mode !== "add" || !reg;
    const sel = $("p-addlabel");
    const want = s.config.loss === "ce" ? Array.from({ length: s.config.classes }, (_, k) => [String(k), `class ${k}`]) : [["1", "+1 (blue)"], ["-1", "−1 (orange)"]];
    if (sel.dataset.key !== JSON.stringify(want)) {
      sel.dataset.key = JSON.stringify(want); sel.textContent = "";
      for (const [v, t] of want) { const o = document.createElement("option"); o.value = v; o.textContent = t; sel.appendChild(o); }
    }
  },

  plotClick(ev) {
    if (!this.plotMap) return;
    const cv = $("p-boundary"), r = cv.getBoundingClientRect();
    const X = (ev.clientX - r.left) * (cv.width / r.width), Y = (ev.clientY - r.top) * (cv.height / r.height);
    this.plotAction(this.plotMap.ix(X), this.plotMap.iy(Y), X, Y);
  },

  /** The data point drawn within `tol` pixels of (X, Y), or null. */
  nearest(X, Y, tol = 7) {
    const { px, py } = this.plotMap;
    let best = null, bd = tol;
    const sets = [this.points.train].concat($("p-showtest").checked ? [this.points.test] : []);
    for (const pts of sets) for (const p of pts) {
      const d = Math.hypot(px(p[0]) - X, py(p[1]) - Y);
      if (d <= bd) { bd = d; best = p; }
    }
    return best;
  },

  async plotAction(x, y, X, Y) {
    if (!isFinite(x) || !isFinite(y)) return this.showNotice("give x1 and x2 as numbers");
    if (X === undefined) { X = this.plotMap.px(x); Y = this.plotMap.py(y); }
    const mode = $("p-click").value, c = this.accepted;
    const near = this.nearest(X, Y);
    const r4 = (v) => Math.round(v * 1e4) / 1e4;
    if (mode === "inspect") {
      if (near) return this.follow(near[0], near[1], near[2]);
      return this.follow(r4(x), r4(y), null);
    }
    if (mode === "add") {
      const lab = this.state.task === "regression" ? Number($("p-addtarget").value) : Number($("p-addlabel").value);
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
  },

  async follow(x, y, label) {
    try {
      const s = await this.call("POST", "/inspect", { x, y, label });
      this.graphPos = null;
      this.accept(s); this.writeUrl();
    } catch (e) { this.showNotice("cannot follow that point: " + e.message); }
  },

  async unfollow() {
    try { const s = await this.call("DELETE", "/inspect"); this.accept(s); this.writeUrl(); }
    catch (e) { this.showNotice(e.message); }
  },

  /* ---------------------------------------------------------------- one point's graph */

  clearGraph() {
    if (!this.graph) return;
    this.graph = null; $("p-gbox").textContent = ""; $("p-gbar").hidden = true;
    $("p-gsum").textContent = "click a point of the plot (or a data point) to follow it";
  },

  /** Draw the engine's laid-out graph into a scrollable box, or update its numbers.
   *  The one function that draws the one-point graph (a zoomable GraphView can take its
   *  place): `g.layout` (micrograd.viz's JSON) when the structure is new, `g.values`
   *  ([data, grad] per node id n0, n1, ...) every time. */
  drawPointGraph(g) {
    const box = $("p-gbox");
    if (g.layout || !this.graph || this.graph.key !== g.key) {
      if (!g.layout) return;  // numbers for a structure not drawn yet: wait for the layout
      box.textContent = "";
      const L = g.layout;
      const el = svg("svg", { width: L.width, height: L.height, viewBox: `0 0 ${L.width} ${L.height}`, class: "pgraph" }, box);
      const nodes = [];
      for (const e of L.edges) {
        const p = e.points;
        let d = `M ${p[0][0]} ${p[0][1]}`;
        for (let i = 1; i < p.length; i++) {
          const [x0, y0] = p[i - 1], [x1, y1] = p[i], mx = (x0 + x1) / 2;
          d += ` C ${mx} ${y0}, ${mx} ${y1}, ${x1} ${y1}`;
        }
        svg("path", { d, class: "pedge" }, el);
      }
      for (const n of L.nodes) {
        if (n.op_box) {
          const ob = n.op_box;
          svg("ellipse", { cx: ob.x + ob.w / 2, cy: ob.y + ob.h / 2, rx: ob.w / 2, ry: ob.h / 2, class: "pop" }, el);
          const t = svg("text", { x: ob.x + ob.w / 2, y: ob.y + ob.h / 2 + 4, "text-anchor": "middle", class: "poptext" }, el);
          t.textContent = n.op;
          if (n.op_edge.length >= 2) {
            const [a, b] = [n.op_edge[0], n.op_edge[n.op_edge.length - 1]];
            svg("path", { d: `M ${a[0]} ${a[1]} L ${b[0]} ${b[1]}`, class: "pedge" }, el);
          }
        }
        const b = n.box;
        const gn = svg("g", { class: "pnode" + (n.leaf ? " leaf" : ""), transform: `translate(${b.x},${b.y})`, "data-name": n.name, "data-id": n.id }, el);
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
        const rec = { g: gn, data: texts[n0], grad: texts[n0 + 1], box: b };
        const title = svg("title", {}, gn);  // exact numbers, written when hovered
        gn.addEventListener("mouseenter", () => { title.textContent = `${n.name}: data ${gn.dataset.data || "·"}, grad ${gn.dataset.grad || "·"}`; });
        nodes.push(rec);
      }
      this.graph = { key: g.key, nodes, n: L.nodes.length };
      $("p-gbar").hidden = false;
      if (!box.dataset.scrolls) {  // the nodes that come into view get their numbers
        box.dataset.scrolls = "1";
        let queued = false;
        box.addEventListener("scroll", () => {
          if (queued) return;
          queued = true;
          requestAnimationFrame(() => { queued = false; this.graphView(); this.showGraphValues(); });
        });
      }
      // start at the root (the right end): the output, or the point's loss
      const root = L.nodes.find((n) => n.id === L.root);
      if (root) {
        box.scrollLeft = Math.max(0, root.box.x + root.box.w + 20 - box.clientWidth);
        box.scrollTop = Math.max(0, root.box.y - box.clientHeight / 2);
      }
      this.graphView();
    }
    this.graph.values = g.values;
    const where = g.label === null ? `the point (${fmt(g.x[0])}, ${fmt(g.x[1])})`
      : `the data point (${fmt(g.x[0])}, ${fmt(g.x[1])}) with label ${g.label}`;
    $("p-gsum").textContent = `${where}: ${g.n} nodes; root ${g.root} = ${fmt(g.output)}`;
    this.showGraphValues();
  },

  /** Forward fills data from the leaves to the root (node order), backward fills grad
   *  from the root to the leaves; position 0..2N. */
  showGraphValues() {
    const G = this.graph; if (!G || !G.values) return;
    const N = G.n, pos = this.graphPos === null ? 2 * N : this.graphPos;
    // texts are rewritten for the nodes in the box's view (and a margin); the others when
    // they scroll into it: the numbers of the whole graph are in the nodes' data- attributes
    const v = G.view || this.graphView(), m = 200;  // the view, measured on scroll only
    const vx0 = v[0] - m, vx1 = v[0] + v[2] + m, vy0 = v[1] - m, vy1 = v[1] + v[3] + m;
    G.nodes.forEach((nd, i) => {
      const [d, gr] = G.values[i];
      const hasData = i < Math.min(pos, N), hasGrad = pos > N && i >= N - (pos - N);
      const b = nd.box;
      if (b.x + b.w >= vx0 && b.x <= vx1 && b.y + b.h >= vy0 && b.y <= vy1) {
        const td = "data " + (hasData ? fmt4(d) : "·"), tg = "grad " + (hasGrad ? fmt4(gr) : "·");
        if (nd.td !== td) { nd.data.textContent = td; nd.td = td; }
        if (nd.tg !== tg) { nd.grad.textContent = tg; nd.tg = tg; }
      }
      nd.g.dataset.data = hasData ? String(d) : ""; nd.g.dataset.grad = hasGrad ? String(gr) : "";
      const cur = pos < 2 * N && (pos <= N ? i === pos - 1 : i === N - (pos - N));
      if (cur !== nd.cur) { nd.g.classList.toggle("cur", cur); nd.cur = cur; }
    });
    $("p-g-pos").textContent = pos <= N ? `forward ${pos} / ${N}` : `backward ${pos - N} / ${N}`;
  },

  /** The graph box's scroll position and size (read after a scroll, not at each step:
   *  reading them right after the DOM changed would force a layout). */
  graphView() {
    const box = $("p-gbox");
    const v = [box.scrollLeft, box.scrollTop, box.clientWidth, box.clientHeight];
    if (this.graph) this.graph.view = v;
    return v;
  },

  graphStep(d) {
    const G = this.graph; if (!G) return;
    const N = G.n, pos = this.graphPos === null ? 2 * N : this.graphPos;
    let p = d === "start" ? 0 : d === "all" ? 2 * N : Math.max(0, Math.min(2 * N, pos + d));
    this.graphPos = p === 2 * N ? null : p;
    const cur = G.nodes.find((nd, i) => (p <= G.n ? i === p - 1 : i === 2 * G.n - p));
    if (cur && p < 2 * G.n && cur.g.scrollIntoView) cur.g.scrollIntoView({ block: "nearest", inline: "nearest" });
    this.graphView();
    this.showGraphValues();
  },

  /* ---------------------------------------------------------------- lesson links */

  hidden(group) { return this.hide.includes(group); },

  applyHide() {
    for (const el of document.querySelectorAll("#page-play [data-ctl]")) {
      el.hidden = this.hide.includes(el.dataset.ctl);
    }
    for (const cb of document.querySelectorAll("#p-hide-list input")) cb.checked = this.hide.includes(cb.value);
    // the teacher's panel is hidden in a lesson; the link itself says so
    $("p-lesson").hidden = this.hide.length > 0;
  },

  lessonControls() {
    const list = $("p-hide-list");
    for (const [g, text] of Object.entries(P_GROUPS)) {
      const lab = document.createElement("label"); lab.className = "chk";
      const cb = document.createElement("input"); cb.type = "checkbox"; cb.value = g;
      cb.addEventListener("change", () => this.lessonUrl());
      lab.appendChild(cb); lab.appendChild(document.createTextNode(" hide " + text));
      list.appendChild(lab);
    }
  },

  lessonUrl() {
    const chosen = [...document.querySelectorAll("#p-hide-list input:checked")].map((c) => c.value);
    const p = url.read();
    if (chosen.length) p.set("hide", chosen.join(",")); else p.delete("hide");
    $("p-lesson-url").value = location.origin + location.pathname + "#" + p.toString();
  },
};

/* micrograd serve: the Playground (a network trained live on a 2-D data set). */
"use strict";

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
      this.history = s.history; this.showError(""); this.accept(s);
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
    if (s.diverged) {  // the server says so: the loss or a weight is no longer finite
      this.showError(`training diverged at step ${s.diverged_at}: the loss or a weight is ` +
                     "no longer a finite number; lower the learning rate and reset");
      this.pause();
    }
    this.drawBoundary(); this.drawCurves(); this.drawNet();
  },

  drawBoundary() {
    const s = this.state, cv = $("p-boundary"), ctx = cv.getContext("2d");
    const b = s.boundary, n = b.n, W = cv.width, H = cv.height;
    const img = ctx.createImageData(n, n);
    // values are the model's output in [-1, 1] (class score) as computed by the server
    for (let i = 0; i < n * n; i++) {
      const raw = Number(b.values[i]);  // "NaN" where the network diverged: grey
      const v = raw === raw ? Math.max(-1, Math.min(1, raw)) : 0;
      const t = raw === raw ? Math.abs(v) : 0.5;
      const c = raw !== raw ? [128, 128, 128] : v >= 0 ? [47, 111, 223] : [224, 102, 47];
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


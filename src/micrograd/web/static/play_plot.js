/* The Playground's pictures on canvases: the output over the plane with the data points
 * (the boundary), each neuron's small picture, the loss curves. Every value drawn is the
 * Python side's (a state of play.create / play.step); the colours are the page's. */

import { fmt, fmtShare } from "./format.js";

const CLASS_COLOURS = [[224, 102, 47], [47, 111, 223], [27, 127, 59], [142, 68, 173], [181, 137, 0]];
const POS = [47, 111, 223], NEG = [224, 102, 47];
const NAN_GREY = [191, 191, 191];

/** The colour of an output: `v` in [-1, 1] (one output) or, with a class `cls` of `k`,
 *  that class's probability; lighter when unsure. `discrete` paints full colours only. */
export function colour(v, cls, k, discrete) {
  let c, t;
  if (cls !== undefined && cls !== null) {
    c = CLASS_COLOURS[cls % CLASS_COLOURS.length];
    t = discrete ? 1 : Math.max(0, (v - 1 / k) / (1 - 1 / k));
  } else {
    let u = v > 1 ? 1 : v < -1 ? -1 : v;
    if (discrete) u = u >= 0 ? 1 : -1;
    c = u >= 0 ? POS : NEG; t = Math.abs(u);
  }
  const f = t * 0.6;
  return [Math.round(255 + (c[0] - 255) * f), Math.round(255 + (c[1] - 255) * f), Math.round(255 + (c[2] - 255) * f)];
}

function paint(img, i, c) {
  img.data[4 * i] = c[0]; img.data[4 * i + 1] = c[1]; img.data[4 * i + 2] = c[2]; img.data[4 * i + 3] = 255;
}

/** A neuron's picture: its output over the plane, n x n values in [-1, 1]. */
export function drawThumb(canvas, vals, discrete) {
  const n = Math.round(Math.sqrt(vals.length)), ctx = canvas.getContext("2d");
  const img = ctx.createImageData(n, n);
  for (let i = 0; i < vals.length; i++) paint(img, i, colour(vals[i], null, 2, discrete));
  ctx.putImageData(img, 0, 0);
}

function legendText(task, classes, k) {
  return classes ? `${k} classes (softmax)`
    : task === "regression" ? "points: their target, dark blue +1, white 0, dark orange −1"
      : "blue: class +1, orange: class −1";
}

/** A regression target's colour: full strength (the plane's colours are lighter), so a
 *  point stands out on the output drawn under it; white at 0. */
export function targetColour(v) {
  const u = v > 1 ? 1 : v < -1 ? -1 : v, c = u >= 0 ? [20, 70, 190] : [200, 70, 10], t = Math.abs(u);
  return c.map((x) => Math.round(255 + (x - 255) * t));
}

/** Data points on a plot: train as circles, test as squares; a regression point a
 *  larger circle in its target's full colour, ringed in black to stand out. */
function drawPoints(ctx, px, py, pts, test, { task, classes }) {
  const reg = task === "regression" && !classes;
  for (const [x, y, label] of pts) {
    ctx.fillStyle = classes ? `rgb(${CLASS_COLOURS[label % CLASS_COLOURS.length]})`
      : reg ? `rgb(${targetColour(label)})` : label > 0 ? "#2f6fdf" : "#e0662f";
    ctx.strokeStyle = reg || test ? "#000" : "#fff";
    ctx.lineWidth = reg ? 2 : 1;  // a regression point's ring: dark and whole at any sub-pixel place
    const r = reg ? 5 : 3.5;
    ctx.beginPath();
    if (test) ctx.rect(px(x) - r, py(y) - r, 2 * r, 2 * r); else ctx.arc(px(x), py(y), r, 0, 2 * Math.PI);
    ctx.fill(); ctx.stroke();
  }
}

/** what the dashed lines on the plot are */
const ZERO_NOTE = "Dashed: each first-layer neuron's zero line, where its weighted sum " +
  "w·x + b is 0 (h1.2: layer 1, neuron 2). On one side the sum is positive, on the " +
  "other negative: the network bends the plane along these lines.";

/** Where a label goes: candidate spots along a line's segments, the middle first. */
function spots(segs, px, py) {
  const out = [];
  for (const f of [0.5, 0.3, 0.7, 0.15, 0.85, 0.4, 0.6, 0.05, 0.95]) {
    const seg = segs[Math.min(segs.length - 1, Math.floor(f * segs.length))];
    const t = segs.length === 1 ? f : 0.5;
    out.push([px(seg[0] + t * (seg[2] - seg[0])), py(seg[1] + t * (seg[3] - seg[1]))]);
  }
  return out;
}

/** How much two boxes [x, y, w, h] overlap (an area; 0 when apart). */
function overlap(a, b) {
  const w = Math.min(a[0] + a[2], b[0] + b[2]) - Math.max(a[0], b[0]);
  const h = Math.min(a[1] + a[3], b[1] + b[3]) - Math.max(a[1], b[1]);
  return w > 0 && h > 0 ? w * h : 0;
}

/** The first layer's zero lines, dashed, and where each one's label goes (its neuron's
 *  name, h1.j): apart from the others and off the data points `dots` (boxes) where it can
 *  (the first free spot along the line, else the least covered). Returns the labels'
 *  boxes: [name, x, y, width, height] (drawLabels). */
function drawZeroLines(ctx, lines, px, py, W, H, dots) {
  ctx.save(); ctx.setLineDash([6, 4]); ctx.strokeStyle = "#1d232b"; ctx.lineWidth = 1.2;
  ctx.font = "11px monospace";
  const placed = [];
  lines.forEach((segs, j) => {
    if (!segs.length) return;
    ctx.beginPath();
    for (const seg of segs) { ctx.moveTo(px(seg[0]), py(seg[1])); ctx.lineTo(px(seg[2]), py(seg[3])); }
    ctx.stroke();
    const name = `h1.${j + 1}`, w = Math.ceil(ctx.measureText(name).width) + 4, h = 13;
    let best = null, least = Infinity;
    for (const [x, y] of spots(segs, px, py)) {
      const box = [Math.min(Math.max(x + 3, 0), W - w), Math.min(Math.max(y - h - 2, 0), H - h), w, h];
      // another label covered counts far more than a data point
      const covered = placed.reduce((sum, p) => sum + 100 * overlap(box, [p[1] - 1, p[2] - 1, p[3] + 2, p[4] + 2]), 0) +
        dots.reduce((sum, d) => sum + overlap(box, d), 0);
      if (covered < least) { least = covered; best = box; }
      if (!covered) break;
    }
    placed.push([name, ...best]);
  });
  ctx.restore();
  return placed;
}

/** The zero lines' labels on a white ground (drawn before the points: a point stays seen). */
function drawLabels(ctx, placed) {
  ctx.save(); ctx.font = "11px monospace";
  for (const [name, x, y, w, h] of placed) {
    ctx.fillStyle = "rgba(255, 255, 255, 0.85)"; ctx.fillRect(x, y, w, h);
    ctx.fillStyle = "#1d232b"; ctx.fillText(name, x + 2, y + h - 3);
  }
  ctx.restore();
}

/** The metrics under the plot: the losses, the accuracies as a person reads them
 *  ("97.1%") with the counts beside ("100 of 103"; the title says it too), each
 *  accuracy's exact share in its data-value. `points`: the state's {train, test}. */
export function writeMetrics(part, s, points) {
  const m = s.metrics, reg = s.task === "regression";
  part("trloss").textContent = fmt(m.train_loss); part("teloss").textContent = fmt(m.test_loss);
  for (const [role, share, set] of [["tracc", m.train_acc, "train"], ["teacc", m.test_acc, "test"]]) {
    const n = points && points[set] ? points[set].length : 0;
    const { text, count } = reg ? { text: "n/a", count: "" } : fmtShare(share, n);
    const b = part(role), beside = part(role + "-n");
    b.textContent = text; b.dataset.value = String(share);
    b.title = count ? `${count} ${set} points classified right` : "";
    beside.textContent = count ? `(${count})` : "";
  }
}

/** The output over the plane, with the points; knows where a click on it lands. */
export class BoundaryPlot {
  /** @param canvas  the plot; @param legend  the element its legend is written into;
   *  @param note  the element that says what the dashed zero lines are */
  constructor(canvas, legend, note = null) {
    this.canvas = canvas;
    this.legend = legend;
    this.note = note;  // where the zero lines are explained (optional)
    this.map = null;  // plane <-> canvas pixels, once drawn
  }

  /**
   * @param s        the state (boundary, zero_lines, graph, config, task)
   * @param points   {train, test}: [x1, x2, label, index]
   * @param view     {showTest, discrete, zeroLines}
   * @param classes  whether the network's outputs are one per class (labels are indices)
   */
  draw(s, points, view, classes) {
    const cv = this.canvas, ctx = cv.getContext("2d");
    const b = s.boundary, n = b.n, W = cv.width, H = cv.height, k = s.config.classes;
    const img = ctx.createImageData(n, n);
    let nan = 0;
    for (let i = 0; i < n * n; i++) {
      const raw = Number(b.values[i]);  // "NaN" where the network diverged: grey
      if (raw !== raw) nan += 1;
      paint(img, i, raw === raw ? colour(raw, b.classes ? b.classes[i] : null, k, view.discrete) : NAN_GREY);
    }
    cv.dataset.nanCells = String(nan);  // what the page marked grey, for a reader or a test
    const off = document.createElement("canvas"); off.width = n; off.height = n;
    off.getContext("2d").putImageData(img, 0, 0);
    ctx.imageSmoothingEnabled = !view.discrete;
    ctx.drawImage(off, 0, 0, W, H);
    const [x0, x1, y0, y1] = b.extent;
    const px = (x) => ((x - x0) / (x1 - x0)) * W, py = (y) => ((y1 - y) / (y1 - y0)) * H;
    this.map = { px, py, ix: (X) => x0 + (X / W) * (x1 - x0), iy: (Y) => y1 - (Y / H) * (y1 - y0) };
    const shown = points.train.concat(view.showTest ? points.test : []);
    const dots = shown.map(([x, y]) => [px(x) - 7, py(y) - 7, 14, 14]);  // a point and its ring
    const labels = view.zeroLines && s.zero_lines ? drawZeroLines(ctx, s.zero_lines, px, py, W, H, dots) : [];
    drawLabels(ctx, labels);
    // where each label went (name, x, y, width, height), for a reader or a test
    cv.dataset.zeroLabels = JSON.stringify(labels);
    if (this.note) {
      this.note.hidden = !labels.length;
      this.note.textContent = labels.length ? ZERO_NOTE : "";
    }
    const how = { task: s.task, classes, k };
    drawPoints(ctx, px, py, points.train, false, how);
    if (view.showTest) drawPoints(ctx, px, py, points.test, true, how);
    if (s.graph) {  // the followed point
      const [gx, gy] = s.graph.x;
      ctx.strokeStyle = "#000"; ctx.lineWidth = 2.5; ctx.beginPath();
      ctx.arc(px(gx), py(gy), 8, 0, 2 * Math.PI); ctx.stroke();
    }
    this.legend.textContent = `(${legendText(s.task, classes, k)}; ○ train` + (view.showTest ? ", □ test)" : ")");
  }

  /** An empty plane over `extent` with `points` ([x1, x2, label or target]) drawn as
   *  training points: what "clear all" leaves to draw on. `how`: {task, classes, k}. */
  drawPoints(extent, points, how) {
    const cv = this.canvas, ctx = cv.getContext("2d"), W = cv.width, H = cv.height;
    ctx.fillStyle = "#fbfcfd"; ctx.fillRect(0, 0, W, H);
    ctx.strokeStyle = "#d5dae1"; ctx.lineWidth = 1;
    const [x0, x1, y0, y1] = extent;
    const px = (x) => ((x - x0) / (x1 - x0)) * W, py = (y) => ((y1 - y) / (y1 - y0)) * H;
    this.map = { px, py, ix: (X) => x0 + (X / W) * (x1 - x0), iy: (Y) => y1 - (Y / H) * (y1 - y0) };
    ctx.beginPath(); ctx.moveTo(px(0), 0); ctx.lineTo(px(0), H); ctx.moveTo(0, py(0)); ctx.lineTo(W, py(0)); ctx.stroke();
    drawPoints(ctx, px, py, points, false, how);
    cv.dataset.nanCells = "0"; cv.dataset.zeroLabels = "[]";
    if (this.note) this.note.hidden = true;
    this.legend.textContent = `(${legendText(how.task, how.classes, how.k)}; your points, not trained on yet)`;
  }

  /** A click's place: canvas pixels (X, Y) and the plane's (x, y). */
  at(ev) {
    const cv = this.canvas, r = cv.getBoundingClientRect();
    const X = (ev.clientX - r.left) * (cv.width / r.width), Y = (ev.clientY - r.top) * (cv.height / r.height);
    return { X, Y, x: this.map.ix(X), y: this.map.iy(Y) };
  }

  /** The data point drawn within `tol` pixels of (X, Y), or null. */
  nearest(sets, X, Y, tol = 7) {
    const { px, py } = this.map;
    let best = null, bd = tol;
    for (const pts of sets) for (const p of pts) {
      const d = Math.hypot(px(p[0]) - X, py(p[1]) - Y);
      if (d <= bd) { bd = d; best = p; }
    }
    return best;
  }
}

/** The train and test loss per step; hovering (a tap on a touch screen) writes a step's
 *  exact numbers. */
export class LossCurves {
  /** `how`: the word that says how to read a step ("hover", or "tap" where the
   *  pointer cannot hover: a touch screen) */
  constructor(canvas, hover, how = null) {
    this.canvas = canvas;
    this.hoverBox = hover;
    this.history = [];
    const touch = window.matchMedia("(hover: none)").matches;
    if (how) how.textContent = touch ? "tap" : "hover";
    canvas.addEventListener("mousemove", (ev) => this.hover(ev));
    canvas.addEventListener("mouseleave", () => { if (!touch) hover.innerHTML = "&nbsp;"; });
  }

  /** history: [step, train loss, test loss, train acc, test acc] rows */
  draw(history) {
    this.history = history;
    const cv = this.canvas, ctx = cv.getContext("2d"), W = cv.width, H = cv.height;
    ctx.clearRect(0, 0, W, H);
    const h = history; if (!h.length) return;
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
    this.x = X;
  }

  hover(ev) {
    const h = this.history; if (!h.length || !this.x) return;
    const r = ev.target.getBoundingClientRect();
    const x = (ev.clientX - r.left) * (ev.target.width / r.width);
    let best = h[0], bd = Infinity;
    for (const row of h) { const d = Math.abs(this.x(row[0]) - x); if (d < bd) { bd = d; best = row; } }
    this.hoverBox.textContent = `step ${best[0]}: train loss ${best[1]}, test loss ${best[2]}` +
      (best[3] === null ? "" : `, train acc ${best[3]}, test acc ${best[4]}`);
  }
}

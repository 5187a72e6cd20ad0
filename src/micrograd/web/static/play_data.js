/* The Playground's own data: import points from a CSV file, export the data set as one,
 * clear every point to draw a data set of your own.
 *
 *   const data = new YourData(play);   // play: the Playground (its session, set-up, plot)
 *   data.draft                         // after "clear all": {dataset, points, loss,
 *                                      //   perClass}, the points drawn so far, until the
 *                                      //   Python side takes them as a data set
 *
 * YourData is the Playground's part that edits the data set "your points"; DataPanel is
 * the panel's controls:
 *
 *   const panel = new DataPanel(part, { importText(text, name), exportText(), clear() });
 *   panel.error(message)      a refused file: shown under the file input (null: hidden)
 *   panel.note(text)          where the data travels (in the link, or as a file)
 *   panel.download(text, name)
 *
 * The page reads no number of a file: the Python side parses it (micrograd.points_csv,
 * the route play.csv.read) and says which line and field it refuses; the export is the
 * Python side's text too (play.csv.write), floats written with repr, so a file exported and
 * imported again gives the same points. */

import { fmt } from "./format.js";

export class DataPanel {
  /**
   * @param part     the component's part(role) lookup (csv-file, csv-export, clear-all,
   *                 csv-error, data-note, csv-link)
   * @param actions  {importText(text, fileName), exportText() -> text, clear()}
   * @param maxChars the longest file the Python side reads (its characters)
   */
  constructor(part, actions, maxChars) {
    this.$ = part;
    this.act = actions;
    this.maxChars = maxChars;
    const file = part("csv-file");
    file.addEventListener("change", () => {
      const f = file.files && file.files[0];
      if (f) this.read(f);
      file.value = "";  // the same file chosen again is read again
    });
    part("csv-export").onclick = () => this.export();
    part("clear-all").onclick = () => this.act.clear();
  }

  async read(f) {
    // a file far over the cap is not even read into the page (a byte is at least a
    // character's worth of a CSV of numbers); the Python side refuses the rest
    if (this.maxChars && f.size > 4 * this.maxChars) {
      return this.error(`${f.name}: the file is ${f.size} bytes; the playground reads ` +
                        `at most ${this.maxChars} characters`);
    }
    let text;
    try { text = await f.text(); } catch (e) { return this.error(`${f.name}: cannot be read (${e.message})`); }
    await this.act.importText(text, f.name);
  }

  async export() {
    const text = await this.act.exportText();
    if (text !== null && text !== undefined) this.download(text, "micrograd-data.csv");
  }

  download(text, name) {
    const a = this.$("csv-link");
    if (a.href) URL.revokeObjectURL(a.href);
    a.href = URL.createObjectURL(new Blob([text], { type: "text/csv" }));
    a.download = name;
    a.click();
  }

  error(message) {
    const box = this.$("csv-error");
    box.textContent = message || "";
    box.hidden = !message;
  }

  note(text) { this.$("data-note").textContent = text || ""; }
}

const r4 = (v) => Math.round(v * 1e4) / 1e4;

export class YourData {
  constructor(play) {
    this.play = play;
    this.draft = null;
    this.why = null;  // the Python side's reason for not taking the draft yet
    this.panel = new DataPanel(play.$, {
      importText: (text, name) => play.serial(() => this.importCsv(text, name)),
      exportText: () => this.exportCsv(),
      clear: () => play.serial(() => this.clearAll()),
    }, play.limits.max_csv_chars);
  }

  own(dataset) { return this.play.spec.own.includes(dataset); }

  regression(dataset) { return this.play.spec.regression.includes(dataset); }

  /** the data set of your own points for a regression (true) or for classes */
  ownSet(regression) { return this.play.spec.own.find((d) => this.regression(d) === regression); }

  /** a set-up was accepted: no draft any more */
  accepted() { this.draft = null; this.why = null; }

  /** the data set chosen as "your points": the points on screen become yours (when they
   *  are of the same task), else an empty plane to draw on; `patch`: what the Python
   *  side says that choice implies (play.change) */
  async ownFromScreen(dataset, patch) {
    const p = this.play;
    if (this.regression(dataset) !== (p.state.task === "regression")) return this.startDraft(dataset, patch);
    const text = await this.exportCsv();
    if (text === null) return;
    await this.importCsv(text, "the data on screen");
  }

  /** what the panel says of the data set: whose points, and how they travel */
  note() {
    const p = this.play, c = p.accepted, n = c.points.length, most = p.limits.max_url_points;
    const d = this.draft;
    if (d) {
      this.panel.note(`Drawing your own data: ${d.points.length} point` +
        `${d.points.length === 1 ? "" : "s"} so far. Click the plot to add points ` +
        `(choose each one's ${this.regression(d.dataset) ? "target" : "class"} under 'click ` +
        "on the plot'); the network trains on them once there are enough" +
        (this.why ? ` (${this.why})` : "") + ".");
    } else if (this.own(c.dataset)) {
      this.panel.note(`${n} points of your own; ` + (most !== undefined && n > most
        ? `more than a link carries (${most}): the link keeps the other settings; export ` +
          "the CSV file to share the points."
        : "they travel in this page's link."));
    } else {
      this.panel.note("the generated data set (with your hand edits): export it as a CSV " +
                      "file, or import one of your own.");
    }
  }

  /** a click on your own points: one more, or one fewer (they are the data set) */
  async edit(x, y, X, Y, mode) {
    const p = this.play, c = p.accepted, reg = p.state.task === "regression";
    if (mode === "add") {
      const lab = p.newLabel(reg);
      const ok = await p.propose({ points: c.points.concat([[r4(x), r4(y), lab]]) }, null, { quiet: true });
      p.showNotice(ok ? `added a point at (${r4(x)}, ${r4(y)}) with ${reg ? "target" : "label"} ${lab}`
                      : "refused: " + p.lastError);
      return;
    }
    const sets = [p.points.train].concat(p.$("showtest").checked ? [p.points.test] : []);
    const near = p.plot.nearest(sets, X, Y);
    if (!near) return p.showNotice("no data point there to remove");
    const ok = await p.propose({ points: c.points.filter((_, k) => k !== near[3]) }, null, { quiet: true });
    p.showNotice(ok ? `removed the point at (${fmt(near[0])}, ${fmt(near[1])})` : "refused: " + p.lastError);
  }

  /** a CSV file's points become the data set (the Python side reads the file) */
  async importCsv(text, name) {
    const p = this.play, reg = p.state.task === "regression";
    let got;
    try {
      got = await p.client.call("play.csv.read", { text, column: reg ? "target" : "label", loss: p.accepted.loss });
    } catch (e) { this.panel.error(`${name}: ${e.message}`); return false; }
    const target = got.column === "target";
    const patch = { dataset: this.ownSet(target), points: got.points,
                    added: [], removed: [], classes: got.classes || 2 };
    if (target) patch.loss = p.spec.regression_loss;
    const ok = await p.propose(patch, null, { quiet: true });
    if (!ok) { this.panel.error(`${name}: ${p.lastError}`); return false; }
    this.panel.error(null);
    p.showNotice(`${got.count} points from ${name} are the data set now`);
    return true;
  }

  /** the data set as CSV text (the Python side writes it), or null */
  async exportCsv() {
    try { return (await this.play.handle.call("play.csv.write", {})).text; }
    catch (e) { this.panel.error("export: " + e.message); return null; }
  }

  /** every point taken away: an empty plane to draw on (your own data set of the same
   *  task, and what the Python side says that data set implies) */
  async clearAll() {
    const p = this.play, dataset = this.ownSet(p.state.task === "regression");
    const { patch } = await p.implied(p.roles.dataset, dataset);
    this.startDraft(dataset, patch);
  }

  /** an empty plane to draw `dataset` on, trained as the set-up with `patch` (the loss
   *  it implies) once the Python side takes the points */
  startDraft(dataset, patch) {
    const p = this.play;
    p.pause();
    const { loss } = { ...p.accepted, ...patch };
    this.draft = { dataset, points: [], loss, perClass: p.perClass({ loss }) };
    this.why = null;
    this.panel.error(null);
    p.$("click").value = "add";
    const select = p.controls.input(p.roles.dataset);
    if (select) select.value = dataset;
    // no data, no loss: the numbers of the points that were there are gone with them
    for (const r of ["trloss", "teloss", "tracc", "teacc"]) p.$(r).textContent = "–";
    p.clickMode(); p.drawBoundary(); this.note();
    p.showNotice("every point is gone: click the plot to draw your own");
  }

  /** the empty plane with the points drawn so far */
  drawDraft() {
    const p = this.play, d = this.draft;
    p.plot.drawPoints(p.state.boundary.extent, d.points,
      { task: this.regression(d.dataset) ? "regression" : "classes", classes: d.perClass, k: p.accepted.classes });
  }

  /** one more point drawn on the empty plane; the network trains on them once the
   *  Python side takes them (enough to train on and to test) */
  async drawPoint(x, y, X, Y, mode) {
    const p = this.play, d = this.draft;
    if (mode === "inspect") return p.showNotice("draw the points first: a click adds one");
    if (mode === "remove") {
      const near = p.plot.nearest([d.points], X, Y);
      if (near) d.points = d.points.filter((q) => q !== near);
      p.drawBoundary(); this.note();
      return;
    }
    const reg = this.regression(d.dataset);
    d.points = d.points.concat([[r4(x), r4(y), p.newLabel(reg)]]);
    p.drawBoundary(); this.note();
    const patch = { dataset: d.dataset, points: d.points, added: [], removed: [], loss: d.loss };
    if (reg) patch.classes = 2;
    const ok = await p.propose(patch, null, { quiet: true });
    if (!ok && this.draft) { this.why = p.lastError; this.note(); }
  }
}

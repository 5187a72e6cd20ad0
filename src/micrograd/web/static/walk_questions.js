/* The Walk's questions in sequence, under its graph: a forward value, a local
 * derivative, the gradient, one path's share (micrograd.web.walk_questions), one at a
 * time, with a hint on request, previous and next, and a mark for each answered right.
 *
 *   const panel = new QuestionPanel($, { client, spec, link, onSettle });
 *     $         the Walk's parts by role (q, q-count, q-title, q-text, q-answer, q-check,
 *               q-hint, q-hinttext, q-prev, q-next, q-dots, q-out)
 *     spec      () => the request naming the Walk's graph and question (Walk.spec)
 *     link      () => the lesson's set-up as a link's texts by key (for the record)
 *     onSettle  () => ..., told when the hidden answer may be shown (answered right, or
 *               given up)
 *   panel.show(questions, hidden, veil)  a graph's questions (its document's
 *               `questions`); `veil`: the lesson hides the gradient question's answer
 *   panel.veiled()  the node whose grad is hidden now (the gradient question's `wrt`,
 *               else the path question's), or null
 *   panel.limit(steps), panel.reveal(steps)  how many of the Walk's steps may be shown
 *               while it is hidden (those before the first that writes that grad), and
 *               the steps that show it whole (up to the last that writes it)
 *   panel.cover(root)  hide what would tell the hidden answer (the nudge, the visit
 *               order, the conventions' table, the mode's sentence about this graph)
 *
 * Answers hidden is a classroom aid, not an exam: the page holds the walk's numbers (a
 * learner with the browser's tools reads them). The page never decides an answer: every
 * answer goes to walk.check, which the engine answers; the question's texts are
 * Python's, shown as text.
 *
 * At the end of the questions (each answered right or given up, or "finish") the learner's
 * record: each question, the answers tried, the hints opened, right or not, to copy or
 * download as JSON or text. A teacher re-checks a record against the engine with
 * micrograd.web.handlers.walk.recheck (it catches a wrong copy, not a forgery).
 */

import { el } from "./dom.js";

/** what a record says it is (micrograd.web.handlers.walk.RECORD) */
export const RECORD = "micrograd walk record";
/** the groups of controls whose numbers would tell a hidden answer (and the parts by
 *  role: the conventions' table, the mode's sentence about this graph) */
const TELLING = ["nudge", "order"];
const TELLING_PARTS = ["conventions", "mode-lesson"];

/** whether Walk step {phase, s} writes node `id`'s grad */
const writes = (id) => ({ phase, s }) => phase === "backward" &&
  ((s.kind === "seed" && s.node === id) || s.contributions.some((c) => c.parent === id));

export class QuestionPanel {
  constructor($, { client, spec, link = () => ({}), onSettle = () => {} }) {
    this.$ = $;
    this.client = client;
    this.spec = spec;
    this.link = link;
    this.onSettle = onSettle;
    this.list = [];
    this.at = 0;
    this.log = {};  // kind -> {tried, hints, right, gave_up}: this graph's, for the record
    this.key = "";
    this.veil = false;
    this.hidden = false;
    this.kept = {};  // the parts taken out while the answer is hidden (cover)
    $("q").addEventListener("submit", (ev) => { ev.preventDefault(); this.check(); });
    $("q-hint").onclick = () => {
      if ($("q-hinttext").hidden) this.entry().hints += 1;
      $("q-hinttext").hidden = false;
    };
    $("q-prev").onclick = () => this.go(this.at - 1);
    $("q-next").onclick = () => this.go(this.at + 1);
    this.giveUp = el("button", { type: "button", class: "qgiveup", text: "give up: show it on the graph" });
    this.giveUp.onclick = () => this.surrender();
    this.finish = el("button", { type: "button", text: "finish: my record" });
    this.finish.onclick = () => this.showRecord();
    $("q-hint").after(this.giveUp, this.finish);
    this.record = el("section", { class: "qrecord", "aria-label": "your record" });
    this.record.hidden = true;
    $("q").appendChild(this.record);
  }

  /** A graph's questions; the same questions again (new leaf values, a mode) keep the
   *  learner's place, another graph starts at the first. */
  show(questions, hidden, veil = false) {
    const key = questions.map((q) => q.kind + ":" + q.text).join("|");
    const same = questions.map((q) => q.kind).join() === this.list.map((q) => q.kind).join();
    if (key !== this.key) {
      if (!same) this.at = 0;
      this.log = {};
      this.record.hidden = true;
    }
    this.key = key;
    this.list = questions;
    this.veil = veil;
    this.hidden = hidden || questions.length === 0;
    this.$("q").hidden = this.hidden;
    this.at = Math.min(this.at, Math.max(0, questions.length - 1));
    this.draw();
  }

  entry(kind = this.list[this.at] && this.list[this.at].kind) {
    return (this.log[kind] = this.log[kind] || { tried: [], hints: 0, right: false, gave_up: false });
  }

  settled(kind) { const e = this.log[kind]; return Boolean(e && (e.right || e.gave_up)); }

  /** the question whose answer the lesson hides: the gradient, else one path's share */
  veiledQuestion() {
    if (!this.veil || this.hidden) return null;
    const q = this.list.find((x) => x.kind === "grad") || this.list.find((x) => x.kind === "path");
    return q && !this.settled(q.kind) ? q : null;
  }

  veiled() { const q = this.veiledQuestion(); return q ? q.wrt : null; }

  limit(steps) {
    const id = this.veiled();
    const i = id === null ? -1 : steps.findIndex(writes(id));
    return i < 0 ? steps.length : i;
  }

  reveal(steps) {
    const q = this.list.find((x) => x.kind === "grad") || this.list.find((x) => x.kind === "path");
    if (!q) return 0;
    let last = -1;
    steps.forEach((step, i) => { if (writes(q.wrt)(step)) last = i; });
    return last + 1;
  }

  /** while the answer is hidden, what would tell it waits: the nudge and the visit
   *  order hidden, the conventions' table and the mode's sentence about this graph taken
   *  out of the page (kept here, put back once the answer may be shown) */
  cover(root) {
    const on = this.veiled() !== null;
    if (on) for (const e of root.querySelectorAll("[data-ctl]")) if (TELLING.includes(e.dataset.ctl)) e.hidden = true;
    for (const role of TELLING_PARTS) {
      const part = this.$(role), kept = this.kept[role];
      if (on) {
        if (part.childNodes.length) this.kept[role] = { nodes: [...part.childNodes], hidden: part.hidden };
        part.replaceChildren();
        part.hidden = true;
      } else if (kept) {
        delete this.kept[role];
        if (!part.childNodes.length) { part.append(...kept.nodes); part.hidden = kept.hidden; }
      }
    }
  }

  /** the sentence said where the walk stops for the hidden answer */
  stopped(name) {
    return `The walk stops here: the next step writes grad[${name}], the answer to the ` +
      "question below. Answer it (or give up) to go on.";
  }

  go(i) {
    if (i < 0 || i >= this.list.length) return;
    this.at = i;
    this.draw();
    this.$("q-answer").focus();
  }

  draw() {
    const $ = this.$, q = this.list[this.at];
    if (!q) return;
    $("q-count").textContent = `question ${this.at + 1} of ${this.list.length}:`;
    $("q-title").textContent = q.title;
    $("q-text").textContent = q.text;
    $("q-hinttext").textContent = "hint: " + q.hint;
    $("q-hinttext").hidden = true;
    $("q-answer").value = "";
    $("q-out").textContent = ""; $("q-out").className = "qout";
    $("q-prev").disabled = this.at === 0;
    $("q-next").disabled = this.at === this.list.length - 1;
    $("q-prev").hidden = $("q-next").hidden = this.list.length < 2;
    const veiled = this.veiledQuestion();
    this.giveUp.hidden = !veiled || veiled !== q;
    // at the last question, once the learner has tried something: the record
    this.finish.hidden = this.at !== this.list.length - 1 || !Object.keys(this.log).length;
    const dots = $("q-dots"); dots.textContent = "";
    this.list.forEach((x, i) => {
      const e = this.log[x.kind] || {};
      const mark = e.right ? "✓" : e.gave_up ? "–" : String(i + 1);
      const said = e.right ? " (answered)" : e.gave_up ? " (given up)" : "";
      const b = el("button", { type: "button", class: "qdot" + (i === this.at ? " at" : "") + (e.right ? " done" : ""),
                               "aria-label": `question ${i + 1}: ${x.title}${said}`, text: mark });
      if (i === this.at) b.setAttribute("aria-current", "step");
      b.onclick = () => this.go(i);
      dots.appendChild(b);
    });
  }

  /** a verdict drawn again after the questions' marks change (draw clears it) */
  redraw(then) {
    const out = this.$("q-out"), keep = out.textContent, cls = out.className;
    then();
    this.draw();
    out.textContent = keep; out.className = cls;
  }

  surrender() {
    const q = this.veiledQuestion();
    if (!q) return;
    this.entry(q.kind).gave_up = true;
    this.redraw(() => this.onSettle());
    this.$("q-out").className = "qout";  // no verdict: neither right nor wrong
    this.$("q-out").textContent = "given up: the graph shows the answer now";
    this.$("q-answer").focus({ preventScroll: true });  // the pressed button is gone
    this.ended();
  }

  async check() {
    const $ = this.$, out = $("q-out"), q = this.list[this.at];
    if (!q) return;
    const raw = $("q-answer").value.trim();
    const answer = Number(raw);
    // the last verdict goes while this answer is checked: a verdict on screen is this one's
    const asked = this.asked = (this.asked || 0) + 1;
    out.className = "qout"; out.textContent = "";
    if (raw === "" || !isFinite(answer)) { out.className = "qout bad"; out.textContent = "type a number, e.g. -4 or 0.5"; return; }
    out.textContent = "checking…";
    const entry = this.entry(q.kind);
    try {
      const r = await this.client.call("walk.check", { ...this.spec(), kind: q.kind, answer });
      // the learner moved on meanwhile, or sent another answer
      if (this.list[this.at] !== q || asked !== this.asked) return;
      if (!entry.right && !entry.gave_up) entry.tried.push(answer);
      this.finish.hidden = this.at !== this.list.length - 1;
      out.className = r.correct ? "qout good" : "qout bad";
      // the hint once: not again under the one the learner has opened
      const shown = !$("q-hinttext").hidden && r.hint === q.hint;
      out.textContent = r.correct || shown ? r.text : `${r.text}: ${r.hint}`;
      if (r.correct && !entry.right) {
        const was = this.veiledQuestion();
        entry.right = !entry.gave_up;
        this.redraw(() => { if (was === q) this.onSettle(); });
        this.ended();
      }
    } catch (e) {
      if (asked === this.asked) { out.className = "qout bad"; out.textContent = "error: " + e.message; }
    }
  }

  /** every question answered right or given up: the record */
  ended() { if (this.list.every((q) => this.settled(q.kind))) this.showRecord(); }

  /* ---- the learner's record ---- */
  data() {
    const link = Object.fromEntries(Object.entries(this.link()).filter(([, v]) => v !== null && v !== undefined));
    return { record: RECORD, version: 1, at: new Date().toISOString(), link,
             questions: this.list.map((q) => ({ kind: q.kind, text: q.text, ...this.entry(q.kind) })) };
  }

  text(data) {
    const lines = [`micrograd Walk: a learner's record, ${data.at}`,
                   "set-up: " + new URLSearchParams(data.link).toString(), ""];
    data.questions.forEach((q, i) => {
      const verdict = q.right ? "right" : q.gave_up ? "given up" : q.tried.length ? "not answered right" : "not tried";
      lines.push(`${i + 1}. ${q.text}`,
                 `   tried: ${q.tried.length ? q.tried.join(", ") : "nothing"}; hints: ${q.hints}; ${verdict}`);
    });
    return lines.join("\n") + "\n";
  }

  showRecord() {
    const data = this.data(), json = JSON.stringify(data, null, 1), text = this.text(data);
    const box = this.record, note = el("span", { class: "qnote", "aria-live": "polite" });
    const file = (name, body, type, what) => {
      return el("a", { href: URL.createObjectURL(new Blob([body], { type })), download: name, text: "download " + what });
    };
    const copy = el("button", { type: "button", text: "copy" });
    copy.onclick = async () => {
      try { await navigator.clipboard.writeText(json); note.textContent = "copied"; }
      catch (e) { pre.focus(); getSelection().selectAllChildren(pre); note.textContent = "selected: copy it with Ctrl+C"; }
    };
    const pre = el("pre", { class: "qrecordtext", tabindex: "0", text });
    box.textContent = "";
    box.append(el("h3", { text: "your record" }),
               el("p", { text: "Each question, the answers you tried, the hints you opened and whether you got it. " +
                           "Copy it (as JSON) or download it for your teacher." }),
               pre, el("div", { class: "qrow" }, copy, file("walk-record.json", json, "application/json", "JSON"),
                       file("walk-record.txt", text, "text/plain", "text"), note));
    box.hidden = false;
  }
}

/* The Walk's questions in sequence, under its graph: a forward value, a local
 * derivative, the gradient, one path's share (micrograd.web.walk_questions), one at a
 * time, with a hint on request, previous and next, and a mark for each answered right.
 *
 *   const panel = new QuestionPanel($, { client, spec });
 *     $      the Walk's parts by role (q, q-count, q-title, q-text, q-answer, q-check,
 *            q-hint, q-hinttext, q-prev, q-next, q-dots, q-out)
 *     spec   () => the request naming the Walk's graph and question (Walk.spec)
 *   panel.show(questions, hidden)  a graph's questions (its document's `questions`)
 *
 * The page never knows an answer: every answer goes to walk.check, which the engine
 * answers; the question's texts are Python's, shown as text.
 */

import { el } from "./dom.js";

export class QuestionPanel {
  constructor($, { client, spec }) {
    this.$ = $;
    this.client = client;
    this.spec = spec;
    this.list = [];
    this.at = 0;
    this.right = new Set();  // the kinds answered right on this graph
    this.key = "";
    $("q").addEventListener("submit", (ev) => { ev.preventDefault(); this.check(); });
    $("q-hint").onclick = () => { $("q-hinttext").hidden = false; };
    $("q-prev").onclick = () => this.go(this.at - 1);
    $("q-next").onclick = () => this.go(this.at + 1);
  }

  /** A graph's questions; the same questions again (new leaf values, a mode) keep the
   *  learner's place, another graph starts at the first. */
  show(questions, hidden) {
    const key = questions.map((q) => q.kind + ":" + q.text).join("|");
    const same = questions.map((q) => q.kind).join() === this.list.map((q) => q.kind).join();
    if (key !== this.key) {
      if (!same) this.at = 0;
      this.right.clear();
    }
    this.key = key;
    this.list = questions;
    this.$("q").hidden = hidden || questions.length === 0;
    this.at = Math.min(this.at, Math.max(0, questions.length - 1));
    this.draw();
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
    const dots = $("q-dots"); dots.textContent = "";
    this.list.forEach((x, i) => {
      const done = this.right.has(x.kind);
      const b = el("button", { type: "button", class: "qdot" + (i === this.at ? " at" : "") + (done ? " done" : ""),
                               "aria-label": `question ${i + 1}: ${x.title}${done ? " (answered)" : ""}`,
                               text: done ? "✓" : String(i + 1) });
      if (i === this.at) b.setAttribute("aria-current", "step");
      b.onclick = () => this.go(i);
      dots.appendChild(b);
    });
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
    try {
      const r = await this.client.call("walk.check", { ...this.spec(), kind: q.kind, answer });
      // the learner moved on meanwhile, or sent another answer
      if (this.list[this.at] !== q || asked !== this.asked) return;
      out.className = r.correct ? "qout good" : "qout bad";
      // the hint once: not again under the one the learner has opened
      const shown = !$("q-hinttext").hidden && r.hint === q.hint;
      out.textContent = r.correct || shown ? r.text : `${r.text}: ${r.hint}`;
      if (r.correct && !this.right.has(q.kind)) {
        this.right.add(q.kind);
        const keep = out.textContent, cls = out.className;
        this.draw();
        out.textContent = keep; out.className = cls;
      }
    } catch (e) {
      if (asked === this.asked) { out.className = "qout bad"; out.textContent = "error: " + e.message; }
    }
  }
}

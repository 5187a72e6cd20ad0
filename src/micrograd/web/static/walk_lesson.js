/* The teacher's lesson builder under a Walk: this graph, its leaf values and mode, the
 * questions to ask, the step to open at and the controls to hide, as a link to this page
 * and as the <micrograd-walk> element for a lesson page (the static site's embed.js).
 *
 *   const lesson = new LessonBuilder($, { described, setup, change, nodes });
 *     $          the Walk's parts by role (teach, teach-hide, teach-q, teach-step,
 *                teach-url, teach-embed)
 *     described  meta.walk (WalkSetup.spec(): fields, controls, questions, answers)
 *     setup      () => the Walk's current set-up, in WalkSetup's fields (Walk.state)
 *     change     (fields) => ..., the Walk's set-up changed (the node asked about)
 *     nodes      () => the graph's nodes ({id, name, leaf, label})
 *     check      (request) => walk.check's answer: the re-check of a learner's record
 *   lesson.ask(kinds)  tick the questions a set-up asks (null: all)
 *   lesson.pick(id)  a node clicked in the graph: true when the builder took it (the
 *                node asked about, or the output, after "choose in the graph")
 *   lesson.update()  after any change of the Walk
 *
 * The teacher aims the question: the node asked about (`ask`) and the output whose
 * derivative is asked (`of`), from a list or by a click on the graph; the Walk draws that
 * question at once (its sequence opens at it) and the link says it. "Hide the answer"
 * writes the set-up's `answers` as hidden: the learner's walk stops before the step that
 * writes the asked node's grad until the question is answered right or given up.
 *
 * A learner's record (walk_questions.js) pasted here is re-checked against the engine:
 * each question asked again, each answer tried checked again (walk.check), a question
 * whose text or verdict is not the engine's marked. It catches a wrong copy, not a
 * forgery (micrograd.web.handlers.walk.recheck does the same in Python).
 *
 * Both outputs are written by setup_codec.js from WalkSetup's fields: a link's keys are
 * the fields' `url`, an element's attributes their names. Nothing here is parsed as HTML: the element's
 * text is written into a read-only field, its attribute values escaped.
 */

import { el } from "./dom.js";
import { decode, encode } from "./setup_codec.js";
import { RECORD } from "./walk_questions.js";

const ESCAPES = { "&": "&amp;", '"': "&quot;", "<": "&lt;", ">": "&gt;" };

/** an attribute value as HTML text: `"` `&` `<` `>` escaped */
export function attr(text) { return String(text).replace(/[&"<>]/g, (c) => ESCAPES[c]); }

export class LessonBuilder {
  constructor($, { described, setup, change, nodes = () => [], check = null }) {
    this.$ = $;
    this.check = check;
    this.described = described;
    this.setup = setup;
    this.change = change;
    this.nodes = nodes;
    const changed = () => this.update();
    for (const [group, text] of Object.entries(described.controls)) {
      const cb = el("input", { type: "checkbox", value: group });
      cb.addEventListener("change", changed);
      $("teach-hide").appendChild(el("label", { class: "chk" }, cb, " hide " + text));
    }
    for (const [kind, title] of Object.entries(described.questions)) {
      const cb = el("input", { type: "checkbox", value: kind });
      cb.checked = true;
      cb.addEventListener("change", changed);
      $("teach-q").appendChild(el("label", { class: "chk" }, cb, " ask " + title));
    }
    $("teach-step").addEventListener("change", changed);
    this.aim($, described, changed);
    if (check) this.recheckBox($);
  }

  /** the teacher's re-check of a learner's record: paste it, ask the engine */
  recheckBox($) {
    const text = el("textarea", { rows: "3", "aria-label": "a learner's record (JSON)", placeholder: "paste a learner's record (JSON) here" });
    const go = el("button", { type: "button", text: "re-check with the engine" });
    const out = el("div", { class: "recheck", "aria-live": "polite" });
    go.onclick = async () => {
      out.textContent = "checking…";
      try { this.said(out, await this.recheck(text.value)); } catch (e) { out.textContent = e.message; }
    };
    $("teach-embed").parentElement.after(el("div", { class: "fld wide" },
      el("b", { text: "re-check a learner's record" }), text, go, out));
  }

  /** a record re-checked: per question {text, claimed, engine, same} (walk.check's answers) */
  async recheck(json) {
    let rec;
    try { rec = JSON.parse(json); } catch (e) { throw new Error("not JSON: copy the record whole"); }
    if (!rec || rec.record !== RECORD || typeof rec.link !== "object" || !Array.isArray(rec.questions)) {
      throw new Error("not a Walk record (it starts {\"record\": \"" + RECORD + "\" ...)");
    }
    const s = decode(this.described.fields, rec.link), graph = {};
    for (const f of [this.f.preset, this.f.expr, this.f.values, this.f.ask, this.f.of]) {
      if (s[f.name] !== null && s[f.name] !== undefined) graph[f.name] = s[f.name];
    }
    const ask = async (kind, answer) => {
      try { return await this.check({ ...graph, kind, answer }); } catch (e) { return { correct: false, question: null }; }
    };
    const out = [];
    for (const q of rec.questions) {
      const asked = (await ask(q.kind, 0)).question;
      let engine = false;
      for (const x of q.tried || []) if ((await ask(q.kind, Number(x))).correct) engine = true;
      out.push({ text: q.text, claimed: Boolean(q.right), engine, same: asked === q.text });
    }
    return out;
  }

  said(box, checked) {
    box.textContent = "";
    const bad = checked.filter((q) => !q.same || q.claimed !== q.engine).length;
    box.appendChild(el("p", { class: bad ? "bad" : "good", text: bad ?
      `${bad} of ${checked.length} questions do not agree with the engine: not the record the page wrote` :
      `all ${checked.length} questions agree with the engine (a wrong copy would show; a forgery need not)` }));
    checked.forEach((q, i) => box.appendChild(el("div", { class: !q.same || q.claimed !== q.engine ? "bad" : "", text:
      `${i + 1}. ${q.text}: the record says ${q.claimed ? "right" : "not right"}, ` +
      (q.same ? `the engine ${q.engine ? "finds a right answer among those tried" : "finds none right"}` :
        "the engine asks another question here") })));
  }

  /** the question's nodes (a list each, or a click in the graph) and hidden answers */
  aim($, described, changed) {
    this.change = this.change || (() => {});
    this.f = Object.fromEntries(described.fields.map((f) => [f.name, f]));
    this.sel = {};
    this.pickBtn = {};
    this.picking = null;
    const row = el("div", { class: "aim" });
    for (const [field, words, none] of [[this.f.ask, "ask about", "(the graph's own)"],
                                        [this.f.of, "the derivative of", "(the root)"]]) {
      const sel = el("select", { "aria-label": `${words}: ${field.help}` });
      sel.dataset.none = none;
      sel.addEventListener("change", () => this.change({ [field.name]: sel.value || null }));
      const pick = el("button", { type: "button", "aria-pressed": "false", text: "choose in the graph",
                                  "aria-label": `${words}: choose a node in the graph` });
      pick.onclick = () => this.picked(this.picking === field.name ? null : field.name);
      row.append(el("label", {}, words + " ", sel), pick);
      this.sel[field.name] = sel;
      this.pickBtn[field.name] = pick;
    }
    $("teach-q").before(row);
    const answers = this.f.answers;
    this.hiddenAnswers = answers.choices.find((c) => c !== answers.default);
    this.hideAnswers = el("input", { type: "checkbox" });
    this.hideAnswers.addEventListener("change", changed);
    $("teach-hide").before(el("label", { class: "chk", title: answers.help }, this.hideAnswers,
      " hide the answer until the learner has tried (a classroom aid, not an exam: the page " +
      "holds the numbers)"));
  }

  /** "choose in the graph" for a field (or none) */
  picked(name) {
    this.picking = name;
    for (const [n, b] of Object.entries(this.pickBtn)) b.setAttribute("aria-pressed", String(n === name));
  }

  pick(id) {
    if (!this.picking || this.$("teach").hidden) return false;
    const node = this.nodes().find((n) => n.id === id), name = this.picking;
    if (!node || (node.leaf && !node.label)) return true;  // a constant: no question
    this.picked(null);
    this.sel[name].value = node.name;
    this.change({ [name]: node.name });
    return true;
  }

  /** the lists of the graph's nodes (constants left out), the set-up's choice selected */
  drawAim() {
    const s = this.setup(), names = this.nodes().filter((n) => !(n.leaf && !n.label)).map((n) => n.name);
    for (const [name, sel] of Object.entries(this.sel)) {
      const items = [["", sel.dataset.none], ...names.map((n) => [n, n])];
      if (sel.options.length !== items.length || items.some(([v], i) => sel.options[i].value !== v)) {
        sel.textContent = "";
        for (const [value, text] of items) sel.appendChild(el("option", { value, text }));
      }
      sel.value = s[name] || "";
    }
  }

  /** tick the kinds of question the Walk asks (null: all) */
  ask(kinds) {
    for (const cb of this.$("teach-q").querySelectorAll("input")) cb.checked = !kinds || kinds.includes(cb.value);
  }

  ticked(role) {
    return [...this.$(role).querySelectorAll("input:checked")].map((c) => c.value);
  }

  /** The lesson's set-up as a link's texts by field name: the Walk's, with the
   *  teacher's choices. */
  lesson() {
    const s = { ...this.setup(), hide: this.ticked("teach-hide"), questions: this.ticked("teach-q") };
    if (!this.$("teach-step").checked) s.step = 0;
    s[this.f.answers.name] = this.hideAnswers.checked ? this.hiddenAnswers : this.f.answers.default;
    return encode(this.described.fields, s);
  }

  update() {
    this.drawAim();
    const s = this.lesson();
    const q = new URLSearchParams({ page: "walk" });
    const attrs = [];
    for (const f of this.described.fields) {
      const v = s[f.name];
      if (v === null || v === undefined) continue;
      q.set(f.url, v);
      attrs.push(`${f.name}="${attr(v)}"`);
    }
    this.$("teach-url").value = location.origin + location.pathname + "#" + q.toString();
    this.$("teach-embed").value = `<micrograd-walk ${attrs.join(" ")}></micrograd-walk>`;
  }
}

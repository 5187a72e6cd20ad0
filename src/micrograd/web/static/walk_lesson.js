/* The teacher's lesson builder under a Walk: this graph, its leaf values and mode, the
 * questions to ask, the step to open at and the controls to hide, as a link to this page
 * and as the <micrograd-walk> element for a lesson page (the static site's embed.js).
 *
 *   const lesson = new LessonBuilder($, { described, setup });
 *     $          the Walk's parts by role (teach, teach-hide, teach-q, teach-step,
 *                teach-url, teach-embed)
 *     described  meta.walk (WalkSetup.spec(): fields, controls, questions)
 *     setup      () => the Walk's current set-up as {field name: text or null}, the
 *                link's texts (Walk.linkFields)
 *   lesson.ask(kinds)  tick the questions a set-up asks (null: all)
 *   lesson.update()  after any change of the Walk
 *
 * Both outputs are built from WalkSetup's fields: a link's keys are the fields' `url`,
 * an element's attributes their names. Nothing here is parsed as HTML: the element's
 * text is written into a read-only field, its attribute values escaped.
 */

import { el } from "./dom.js";

const ESCAPES = { "&": "&amp;", '"': "&quot;", "<": "&lt;", ">": "&gt;" };

/** an attribute value as HTML text: `"` `&` `<` `>` escaped */
export function attr(text) { return String(text).replace(/[&"<>]/g, (c) => ESCAPES[c]); }

export class LessonBuilder {
  constructor($, { described, setup }) {
    this.$ = $;
    this.described = described;
    this.setup = setup;
    this.fields = Object.fromEntries(described.fields.map((f) => [f.name, f]));
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
  }

  /** tick the kinds of question the Walk asks (null: all) */
  ask(kinds) {
    for (const cb of this.$("teach-q").querySelectorAll("input")) cb.checked = !kinds || kinds.includes(cb.value);
  }

  ticked(role) {
    return [...this.$(role).querySelectorAll("input:checked")].map((c) => c.value);
  }

  /** The lesson's set-up: the Walk's, with the teacher's choices. */
  lesson() {
    const s = { ...this.setup() };
    s.hide = this.ticked("teach-hide").join(this.fields.hide.sep) || null;
    const asked = this.ticked("teach-q");
    s.questions = asked.length === Object.keys(this.described.questions).length ? null
      : asked.join(this.fields.questions.sep);
    if (!this.$("teach-step").checked) s.step = null;
    return s;
  }

  update() {
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

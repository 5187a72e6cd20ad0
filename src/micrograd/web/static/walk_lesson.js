/* The teacher's lesson builder under a Walk: this graph, its leaf values and mode, the
 * questions to ask, the step to open at and the controls to hide, as a link to this page
 * and as the <micrograd-walk> element for a lesson page (the static site's embed.js).
 *
 *   const lesson = new LessonBuilder($, { described, setup });
 *     $          the Walk's parts by role (teach, teach-hide, teach-q, teach-step,
 *                teach-url, teach-embed)
 *     described  meta.walk (WalkSetup.spec(): fields, controls, questions)
 *     setup      () => the Walk's current set-up, in WalkSetup's fields (Walk.state)
 *   lesson.ask(kinds)  tick the questions a set-up asks (null: all)
 *   lesson.update()  after any change of the Walk
 *
 * Both outputs are written by setup_codec.js from WalkSetup's fields: a link's keys are
 * the fields' `url`, an element's attributes their names. Nothing here is parsed as HTML: the element's
 * text is written into a read-only field, its attribute values escaped.
 */

import { el } from "./dom.js";
import { encode } from "./setup_codec.js";

const ESCAPES = { "&": "&amp;", '"': "&quot;", "<": "&lt;", ">": "&gt;" };

/** an attribute value as HTML text: `"` `&` `<` `>` escaped */
export function attr(text) { return String(text).replace(/[&"<>]/g, (c) => ESCAPES[c]); }

export class LessonBuilder {
  constructor($, { described, setup }) {
    this.$ = $;
    this.described = described;
    this.setup = setup;
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

  /** The lesson's set-up as a link's texts by field name: the Walk's, with the
   *  teacher's choices. */
  lesson() {
    const s = { ...this.setup(), hide: this.ticked("teach-hide"), questions: this.ticked("teach-q") };
    if (!this.$("teach-step").checked) s.step = 0;
    return encode(this.described.fields, s);
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

/* The Playground's controls and its state in the URL, both written from the catalogue's
 * description of an experiment (meta.experiment: the Python side's Experiment.spec()).
 *
 * Each field is {name, url, kind, default, label, help, group, place, keeps_weights, and
 * where they apply min, max, choices, choice_labels, max_len, and how a link writes it:
 * sep, pair, always}; spec.groups lists the groups in the page's order, each {name,
 * text, place}. A field of kind choice, int,
 * number, ints or bool becomes a control; `choices` (the features) are toggled in the
 * network view; `points` and `indices` (points added and removed) by clicks on the plot.
 * The page adds no names of its own: a link is read and written by the set-ups' one
 * codec (setup_codec.js, the Walk's too), its values go to the Python side as they are
 * (an old name such as ds=circle is read there), and the page writes the names that
 * come back.
 */

import { el, fillSelect } from "./dom.js";
import { byKey, decode, encode } from "./setup_codec.js";

/** the page's part for each place the spec gives a group's controls (spec.groups: their
 *  order and text; a field's `place`) */
const PLACE_PART = { data: "data-fields", network: "network-fields", bar: "hyper" };
/** the views a lesson link can hide besides the fields' groups, each with its text */
const VIEWS = { curves: "loss curves", inspect: "one point's graph", params: "parameter table" };
/** kinds with a control of their own in the form */
const FORM_KINDS = ["choice", "int", "number", "ints", "bool"];

export class PlayControls {
  /**
   * @param part     the component's part(role) lookup
   * @param prefix   its id prefix (a field's control is prefix + the field's name)
   * @param spec     meta.experiment
   * @param changed  called with a field's name when the learner changes its control
   */
  constructor({ part, prefix, spec, changed }) {
    this.$ = part;
    this.prefix = prefix;
    this.spec = spec;
    this.fields = spec.fields;
    this.byName = Object.fromEntries(spec.fields.map((f) => [f.name, f]));
    this.hide = [];
    this.inputs = {};
    this.build(changed);
  }

  field(name) { return this.byName[name]; }

  /* ---------------------------------------------------------------- the form */

  build(changed) {
    const where = (f) => PLACE_PART[f.place];
    const shown = this.fields.filter((f) => FORM_KINDS.includes(f.kind) && where(f));
    // the bar in the groups' order; a field moved there from its group's place after them
    const groups = this.spec.groups, order = groups.map((g) => g.name);
    const rank = (f) => (f.place !== "bar" ? -1
      : groups[order.indexOf(f.group)].place === "bar" ? order.indexOf(f.group) : order.length);
    shown.sort((a, b) => rank(a) - rank(b));  // stable: the catalogue's order within a group
    for (const f of shown) {
      const input = this.control(f);
      if (document.getElementById(input.id)) throw new Error(`two parts have the id ${input.id}`);
      input.addEventListener("change", () => changed(f.name));
      this.inputs[f.name] = input;
      const label = f.kind === "bool"
        ? el("label", { class: "fld chk", title: f.help }, input, " " + f.label)
        : el("label", { class: "fld", title: f.help }, f.label + " ", input);
      if (f.place === "bar") label.dataset.ctl = f.group;
      this.$(where(f)).appendChild(label);
    }
  }

  control(f) {
    const id = this.prefix + f.name;
    if (f.kind === "choice") {
      const sel = el("select", { id });
      const labels = f.choice_labels || {};
      fillSelect(sel, f.choices.map((c) => [c, labels[c] || c]));
      return sel;
    }
    if (f.kind === "bool") return el("input", { id, type: "checkbox" });
    if (f.kind === "ints") return el("input", { id, type: "text", spellcheck: "false" });
    const input = el("input", { id, type: "number", step: f.kind === "int" ? "1" : "any" });
    if (f.min !== undefined) input.min = String(f.min);
    if (f.max !== undefined) input.max = String(f.max);
    return input;
  }

  /** The value of a field's control, by its kind (NaN where a number is not one: the
   *  Python side refuses it and says why). */
  parse(name) {
    const f = this.byName[name], input = this.inputs[name];
    if (f.kind === "bool") return input.checked;
    const text = input.value.trim();
    if (f.kind === "choice") return text;
    if (f.kind === "ints") return text.split(",").map((s) => s.trim()).map((s) => (s === "" ? NaN : Number(s)));
    return text === "" ? NaN : Number(text);
  }

  /** The form shows the accepted set-up, except fields still marked as refused and the
   *  fields named in `skip`. */
  fill(cfg, skip = []) {
    for (const [name, input] of Object.entries(this.inputs)) {
      if (input.getAttribute("aria-invalid") === "true" || !(name in cfg) || skip.includes(name)) continue;
      const v = cfg[name];
      if (input.type === "checkbox") input.checked = Boolean(v);
      else input.value = Array.isArray(v) ? v.join(",") : String(v);
    }
  }

  /** Mark a control as refused (with the value still trained), or clear the mark. */
  mark(input, message, current) {
    if (!input) return;
    const label = input.closest("label") || input.parentElement;
    let note = label.querySelector(".refused");
    if (message) {
      input.setAttribute("aria-invalid", "true");
      if (!note) { note = el("span", { class: "refused", id: input.id + "-err" }); label.appendChild(note); }
      input.setAttribute("aria-describedby", note.id);
      note.textContent = `refused: ${message}` + (current !== null && current !== undefined
        ? `; still training with ${Array.isArray(current) ? current.join(",") : current}` : "");
    } else {
      input.removeAttribute("aria-invalid"); input.removeAttribute("aria-describedby");
      if (note) note.remove();
    }
  }

  input(name) { return this.inputs[name] || null; }

  /* ---------------------------------------------------------------- the URL */

  /** The set-up a link gives: only the fields it names, read by the set-ups' one link
   *  codec from the spec (the Python side fills in the rest, reads old names and
   *  refuses what it cannot use). */
  fromUrl(q) {
    const texts = {};
    for (const f of this.fields) if (q.has(f.url)) texts[f.url] = q.get(f.url);
    return decode(this.fields, texts);
  }

  /** A set-up as a link's keys, written as Experiment.to_url writes it (every field, so
   *  a link keeps its meaning if a default changes; points added and removed only when
   *  there are some); a key the set-up leaves out is null. */
  toUrl(cfg) { return byKey(this.fields, encode(this.fields, cfg)); }

  /* ---------------------------------------------------------------- lesson links */

  /** the groups a lesson can hide: the fields' groups (in the spec's order), then the
   *  views */
  groups() {
    return this.spec.groups.map((g) => g.name).concat(Object.keys(VIEWS));
  }

  /** a group's text in the teacher's panel ("hide ...") */
  groupText(name) {
    const g = this.spec.groups.find((x) => x.name === name);
    return g ? g.text : VIEWS[name];
  }

  hidden(group) { return this.hide.includes(group); }

  setHide(groups) { this.hide = groups.filter((g) => this.groups().includes(g)); }

  /** the teacher's panel: one box per group of controls */
  lessonControls(changed) {
    const list = this.$("hide-list");
    for (const g of this.groups()) {
      const text = this.groupText(g);
      const cb = el("input", { type: "checkbox", value: g });
      cb.addEventListener("change", changed);
      list.appendChild(el("label", { class: "chk" }, cb, " hide " + text));
    }
  }

  /** hide the groups of this lesson (inside `root`), tick them in the teacher's panel */
  applyHide(root) {
    for (const e of root.querySelectorAll("[data-ctl]")) e.hidden = this.hide.includes(e.dataset.ctl);
    for (const cb of this.$("hide-list").querySelectorAll("input")) cb.checked = this.hide.includes(cb.value);
    // the teacher's panel is hidden in a lesson; the link itself says so
    this.$("lesson").hidden = this.hide.length > 0;
  }

  /** the lesson link: this page's link with the ticked groups hidden */
  lessonUrl(q) {
    const chosen = [...this.$("hide-list").querySelectorAll("input:checked")].map((c) => c.value);
    if (chosen.length) q.set("hide", chosen.join(",")); else q.delete("hide");
    this.$("lesson-url").value = location.origin + location.pathname + "#" + q.toString();
  }
}

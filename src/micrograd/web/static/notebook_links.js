/* The lecture's notebook that teaches what a part of the page shows, as a line of the
 * part: "the notebook: 3. Backpropagation, by hand and then automatically".
 *
 *   const notebooks = notebookLinks(client, meta.notebooks);
 *   notebooks.show(box, "walk", walk.current);   // the Walk's set-up, by field name
 *
 * The table is the Python side's (meta.notebooks: micrograd.web.notebook_links.spec()):
 * each part's rules, the first whose `when` the state matches giving its notebooks (the
 * Walk's set-up by its fields' names, a gallery entry by its key), so the page holds no
 * key of a set-up. In the static site a notebook the site ships (its listing, read
 * once) is a link to JupyterLite's page for it, in a new tab; served by `micrograd
 * serve`, or in a site built without its notebooks, the line names the notebook and how
 * to open it in Jupyter. Texts are written as text, never as HTML.
 */

import { el } from "./dom.js";

export class NotebookLinks {
  /** `shipped`: a promise of the notebooks' files the site ships (a Set), or of null */
  constructor(spec, shipped) {
    this.spec = spec || { notebooks: [] };  // a server without the table: no lines
    this.byName = new Map(this.spec.notebooks.map((n) => [n.name, n]));
    this.shipped = null;
    this.ready = shipped.then((s) => { this.shipped = s; });
  }

  /** the notebooks of the first rule of `part` that `state` matches */
  find(part, state) {
    const rule = (this.spec[part] || []).find((r) =>
      Object.entries(r.when).every(([k, v]) => state && state[k] === v));
    return rule ? rule.notebooks.map((n) => this.byName.get(n)).filter(Boolean) : [];
  }

  /** fill `box` with the line for `part` in `state` (once the site's listing is read;
   *  the last call wins) */
  show(box, part, state) {
    box.notebookState = state;
    this.ready.then(() => { if (box.notebookState === state) this.fill(box, part, state); });
  }

  fill(box, part, state) {
    const found = this.find(part, state);
    box.textContent = "";
    box.hidden = !found.length;
    if (!found.length) return;
    box.append(found.length > 1 ? "the notebooks: " : "the notebook: ");
    found.forEach((nb, i) => box.append(...(i ? [" · "] : []), this.link(nb)));
    if (found.some((nb) => !this.here(nb))) box.append(` (open with ${this.spec.local.command} in the project's folder)`);
  }

  here(nb) { return !!this.shipped && this.shipped.has(nb.file); }

  /** a link to JupyterLite's page for `nb`, or its file's name (its title on hover) */
  link(nb) {
    if (this.here(nb)) {
      return el("a", { href: this.spec.site.open + encodeURIComponent(nb.file), target: "_blank",
                       rel: "noopener", class: "nblink", "data-notebook": nb.name, text: nb.title });
    }
    return el("span", { class: "nbname", "data-notebook": nb.name, title: nb.title, text: nb.file });
  }
}

/** The page's notebook links: in the static site (the worker's door) the notebooks its
 *  listing names, else none shipped. */
export function notebookLinks(client, spec) {
  let shipped = Promise.resolve(null);
  if (client.door === "pyodide" && spec) {
    shipped = fetch(spec.site.listing)
      .then((r) => (r.ok ? r.json() : null))
      .then((listing) => (listing ? new Set(listing.content.map((m) => m.name)) : null))
      .catch(() => null);
  }
  return new NotebookLinks(spec, shipped);
}

/* The gallery of classic mistakes, as a component: each entry the code a learner writes,
 * what it does to the numbers, why, and the fix.
 *
 *   const gallery = new Gallery(root, { client, url, idPrefix, notebooks });
 *     root      an empty element: the gallery fills it
 *     client    client.js's interface (mistakes.list, mistakes.run)
 *     url       a HashState: the entry in view is the URL's `mistake` key (a teacher's
 *               link to one entry: #page=mistakes&mistake=assign); optional
 *     idPrefix  the prefix of its parts' ids (default: one of its own)
 *     notebooks notebook_links.js's NotebookLinks: the lecture's notebook for the gallery
 *               and for each entry (optional)
 *   gallery.start()  lists the entries and runs them, one after another (once; later
 *                    calls do nothing)
 *   gallery.fromUrl()  brings the entry the URL names into view (back, forward, a link)
 *
 * Every text and number here is the Python side's (micrograd.mistakes, through
 * web/handlers/mistakes.py): the learner's code as the package ships it, the numbers
 * (or the error) of running it now beside micrograd.engine's and central finite
 * differences, the why and the fix. An entry the Python side does not run (a browser's
 * Python cannot take an endless recursion through its own C code) says why instead.
 * A Walk link opens the Walk in the mistake's teaching mode (the Python side gives its
 * query). The root's data-state is "loading", then "running", then "ready" (or
 * "failed"); each entry's is "pending", then "done", "not-run" or "failed".
 */

import { el, mount, uniquePrefix } from "./dom.js";
import { fmt } from "./format.js";

export const GALLERY_MARKUP = `
<section class="mg-g-intro">
  <h2>The classic mistakes, run</h2>
  <p>Each entry is code a learner of the lecture writes, shipped in micrograd's package
  and run now by its Python: what it does to the numbers (or the error it raises) beside
  micrograd.engine's gradients and a central finite-difference check, why, and the fix.</p>
  <p data-role="notebook" class="nbnote" hidden></p>
  <nav data-role="toc" aria-label="the mistakes"></nav>
  <p data-role="status" class="mg-g-status" role="status"></p>
</section>
<div data-role="entries" class="mg-g-entries"></div>`;

/** A sentence with `code` in backticks, as text and <code> elements. */
function rich(text) {
  const parts = String(text).split("`");
  const frag = document.createDocumentFragment();
  parts.forEach((p, i) => frag.append(i % 2 ? el("code", { text: p }) : p));
  return frag;
}

/** Code as a <code> of one block per line (its text the code's, newlines included): a
 *  long line wraps with a hanging indent, never mistaken for a line of its own. */
function codeLines(code) {
  const lines = code.split("\n");
  return el("code", {}, ...lines.map((line, i) =>
    el("span", { class: "mg-g-line", text: line + (i < lines.length - 1 ? "\n" : "") })));
}

/** A number as the page shows it, its full value in the title and data-value (a text,
 *  such as a fact's sentence, as it is). */
function numberCell(x, tag = "td") {
  const cell = typeof x === "string" ? el(tag, {}, rich(x)) : el(tag, { text: fmt(x) });
  if (x !== null && x !== undefined) {
    cell.dataset.value = String(x);
    cell.title = String(x);
  }
  return cell;
}

export class Gallery {
  constructor(root, { client, url = null, idPrefix, notebooks = null } = {}) {
    this.root = root;
    this.client = client;
    this.url = url;
    this.prefix = idPrefix || uniquePrefix("gallery");
    this.started = false;
    this.entries = [];     // the Python side's entries, in the gallery's order
    this.cards = new Map();  // key -> the entry's <article>
    root.classList.add("mg-gallery");
    root.gallery = this;  // the component, for the page around it (and its tests)
    this.$ = mount(root, GALLERY_MARKUP, this.prefix);
    this.notebooks = notebooks;
    if (notebooks) notebooks.show(this.$("notebook"), "mistakes", {});
  }

  async start() {
    if (this.started) return;
    this.started = true;
    this.root.dataset.state = "loading";
    this.$("status").textContent = "Listing the mistakes…";
    try {
      this.entries = (await this.client.call("mistakes.list", {})).mistakes;
    } catch (e) {
      this.root.dataset.state = "failed";
      this.$("status").textContent = `Could not list the mistakes: ${e.message}`;
      return;
    }
    this.drawToc();
    for (const entry of this.entries) this.$("entries").appendChild(this.card(entry));
    this.root.dataset.state = "running";
    this.fromUrl();
    await this.runAll();
  }

  /** each entry run in turn (one call each: the Python side's turns stay short) */
  async runAll() {
    const status = this.$("status"), n = this.entries.length;
    let failed = 0;
    for (const [i, entry] of this.entries.entries()) {
      status.textContent = `Running the learner's code: ${i + 1} of ${n}…`;
      const card = this.cards.get(entry.key);
      try {
        this.fill(card, await this.client.call("mistakes.run", { key: entry.key }));
      } catch (e) {
        failed += 1;
        card.dataset.state = "failed";
        card.querySelector(".mg-g-run").replaceChildren(
          el("p", { class: "error", text: `could not run it: ${e.message}` }));
      }
    }
    const notRun = this.entries.filter((e) => e.not_run).length;
    status.textContent = `${n - failed - notRun} of ${n} entries run now in Python` +
      (notRun ? `; ${notRun} not run in this page (it says why)` : "") +
      (failed ? `; ${failed} failed` : "") + ".";
    this.root.dataset.state = failed ? "failed" : "ready";
  }

  drawToc() {
    const list = el("ol");
    for (const entry of this.entries) {
      const b = el("button", { type: "button", class: "mg-g-jump" }, rich(entry.title));
      b.onclick = () => this.show(entry.key, true);
      list.appendChild(el("li", {}, b));
    }
    this.$("toc").replaceChildren(list);
  }

  /** the entry the URL names, in view with the focus on its title */
  fromUrl() {
    const key = this.url ? this.url.read().get("mistake") : null;
    if (key && this.cards.has(key)) this.show(key, false);
  }

  /** an entry in view, the focus on its title; `write`: the URL names it */
  show(key, write) {
    const card = this.cards.get(key);
    card.scrollIntoView({ block: "start" });
    card.querySelector("h3").focus({ preventScroll: true });
    if (write && this.url) this.url.write({ mistake: key });
  }

  /** an entry's card: everything but the run's numbers (those arrive with `fill`) */
  card(entry) {
    const id = `${this.prefix}${entry.key}`;
    const heading = el("h3", { id: id + "-title", tabindex: "-1" }, rich(entry.title));
    const card = el("article", { class: "mg-g-entry", "aria-labelledby": heading.id,
                                 "data-key": entry.key, "data-state": "pending" });
    const lines = entry.code.split("\n").length;
    const code = el("div", { class: "mg-g-code" },
      el("h4", { text: `The code a learner writes (${lines} lines, as micrograd ships it)` }),
      el("pre", { tabindex: "0", "aria-label": "the learner's code" }, codeLines(entry.code)));
    const run = el("div", { class: "mg-g-run" }, el("h4", { text: "What it does to the numbers" }));
    if (entry.not_run) {
      card.dataset.state = "not-run";
      run.append(el("p", { class: "mg-g-notrun" }, el("strong", { text: "Not run in this page. " }),
                    rich(entry.not_run)));
    } else {
      run.append(el("p", { class: "mg-g-wait", text: "running…" }));
    }
    const self = el("a", { class: "mg-g-self", href: `#page=mistakes&mistake=${encodeURIComponent(entry.key)}`,
                           text: "link to this mistake" });
    const notebook = el("p", { class: "nbnote mg-g-nb", hidden: "" });
    if (this.notebooks) this.notebooks.show(notebook, "mistakes", entry);
    card.append(heading, self, notebook, el("div", { class: "mg-g-body" }, code, run),
                el("h4", { text: "Why" }), el("p", { class: "mg-g-why" }, rich(entry.why)),
                el("h4", { text: "The fix" }),
                el("pre", { class: "mg-g-fix" }, el("code", { text: entry.fix })));
    if (entry.walk) {
      const query = new URLSearchParams({ page: "walk", ...entry.walk });
      card.append(el("p", { class: "mg-g-walk" }, el("a", {
        href: "#" + query.toString(), class: "mg-g-walklink", "data-mode": entry.walk.mode,
        text: `Step through it in the Walk (teaching mode: ${entry.walk.mode})` })));
    }
    this.cards.set(entry.key, card);
    return card;
  }

  /** the run's numbers: one row per engine the learner's code ran on, then
   *  micrograd.engine's (right), the finite differences and the fixed code's */
  fill(card, entry) {
    const run = card.querySelector(".mg-g-run");
    if (entry.result === null) return;  // not run here: the card says why already
    const r = entry.result;
    const leaves = Object.keys(r.right.grads);
    for (const o of r.learner.concat(r.fixed ? [r.fixed] : [])) {
      for (const k of Object.keys(o.grads)) if (!leaves.includes(k)) leaves.push(k);
    }
    const example = el("p", { class: "mg-g-example", id: `${this.prefix}${entry.key}-example`,
                              text: r.example });
    const table = el("table", { class: "mg-g-table", "aria-describedby": example.id });
    const head = el("tr", {}, el("th", { scope: "col", text: "run on" }),
                    el("th", { scope: "col", text: "value" }));
    for (const k of leaves) head.appendChild(el("th", { scope: "col", text: `grad[${k}]` }));
    table.appendChild(el("thead", {}, head));
    const body = el("tbody");
    for (const o of r.learner) body.appendChild(this.row(o, leaves, "mistake", o.runs_on));
    body.appendChild(this.row(r.right, leaves, "right", `${r.right.runs_on} (right)`));
    body.appendChild(this.row({ value: null, grads: r.finite_differences, error: null }, leaves,
                              "fd", "finite differences"));
    if (r.fixed) body.appendChild(this.row(r.fixed, leaves, "fixed", r.fixed.runs_on));
    table.appendChild(body);
    const legend = el("p", { class: "mg-g-legend" },
      el("span", { class: "mg-g-key mg-g-wrong", text: "red" }),
      " a number the mistake got wrong (it differs from this package's engine, micrograd.engine, " +
      "done right: the green row); the rest of a mistake's row is what the right code gives too.");
    const parts = [example, el("div", { class: "mg-g-scroll", tabindex: "0", role: "region",
                               "aria-label": "the numbers" }, table)];
    if (r.learner.some((o) => o.wrong && o.wrong.length)) parts.push(legend);
    const facts = Object.entries(r.facts);
    if (facts.length) {
      const dl = el("dl", { class: "mg-g-facts" });
      for (const [k, v] of facts) dl.append(el("dt", { text: k }), numberCell(v, "dd"));
      parts.push(dl);
    }
    run.replaceChildren(run.querySelector("h4"), ...parts);
    card.dataset.state = "done";
  }

  /** a row of the table; in a mistake's row the cells that differ from the right row
   *  (the Python side's `wrong`: "value" and leaf names) are marked, and only those */
  row(outcome, leaves, kind, label) {
    const wrong = new Set(outcome.wrong || []);
    const mark = (cell, name) => {
      if (!wrong.has(name)) return cell;
      cell.classList.add("mg-g-wrong");
      cell.title = `${cell.title}: differs from this package's engine done right`;
      return cell;
    };
    const tr = el("tr", { class: `mg-g-${kind}` }, el("th", { scope: "row", text: label }),
                  mark(numberCell(outcome.value), "value"));
    if (outcome.error) {
      tr.appendChild(el("td", { class: "mg-g-raised", colspan: String(leaves.length),
                                text: `raised ${outcome.error.type}: ${outcome.error.message}` }));
    } else {
      for (const k of leaves) {
        const cell = mark(numberCell(outcome.grads[k]), k);
        cell.dataset.leaf = k;
        tr.appendChild(cell);
      }
    }
    return tr;
  }
}

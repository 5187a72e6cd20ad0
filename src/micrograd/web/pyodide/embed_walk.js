/* Walks inside a lesson: one <micrograd-walk> element made into a Walk, on the static
 * site's Python (the module worker of client.js's worker door, one for every walk of
 * the page). embed.js (the script a teacher includes) imports this module when the
 * lesson is next to the site's files; embed.html (the iframe embed.js makes for a lesson
 * on another origin) does the same inside the frame.
 *
 *   import { mountWalk, attributes, keepAttributes } from "./embed_walk.js";
 *   await mountWalk(element, attributes(element), { reflect: keepAttributes(element) });
 *
 * `get(key)` gives the text of a key of the Walk's set-up or null: a field's name
 * (micrograd.walk_setup's WalkSetup: preset, expr, values, mode, step, ask, of, hide...),
 * its key in a link, an older link's mode key. The texts are read as a link's are
 * (Walk.setupFrom: Python reads them and says what it cannot use); they are only ever
 * shown as text. `reflect(attributes)` is told the set-up after every change, as an
 * element's attributes by field name (null: none), so that the element says the walk
 * it shows. */

import { workerClient } from "./static/client.js";
import { byName } from "./static/setup_codec.js";
import { Walk } from "./static/walk.js";

const SITE = new URL("./", import.meta.url).href;
let catalogue = null;  // one "meta" for every walk of the page

/** the site's stylesheet, once, first in <head>: the lesson's own styles come later
 *  and win */
function styles() {
  const href = new URL("static/app.css", SITE).href;
  if ([...document.querySelectorAll("link[rel=stylesheet]")].some((l) => l.href === href)) return;
  const link = document.createElement("link");
  link.rel = "stylesheet";
  link.href = href;
  document.head.insertBefore(link, document.head.firstChild);
}

/** Fill `element` with a Walk whose set-up `get` reads; resolves with the Walk once its
 *  first graph is asked for. Python's loading is shown in the element meanwhile.
 *  `shared`: the name of a Python shared with other pages (workerClient's); `reflect`:
 *  told the set-up after every change, as an element's attributes. */
export async function mountWalk(element, get, { shared, reflect } = {}) {
  styles();
  const status = document.createElement("p");
  status.className = "mg-embed-status";
  status.setAttribute("role", "status");
  status.textContent = "Starting Python in this page…";
  element.appendChild(status);
  const client = workerClient({
    root: SITE, shared, onProgress: (text) => { status.textContent = `Starting Python in this page: ${text}…`; },
  });
  try {
    if (!catalogue) catalogue = client.call("meta", {});
    const meta = await catalogue;
    const box = document.createElement("div");
    element.appendChild(box);
    const fields = meta.walk.fields;
    const walk = new Walk(box, { client, meta, reflect: reflect && ((texts) => reflect(byName(fields, texts))) });
    walk.setup = walk.setupFrom(get);
    walk.start();
    status.remove();
    return walk;
  } catch (e) {
    catalogue = null;
    status.textContent = `micrograd could not start here: ${e.message}`;  // text, not HTML
    status.classList.add("error");
    throw e;
  }
}

/** The set-up's text getter of an element: each key its attribute. */
export function attributes(element) {
  return (key) => element.getAttribute(key);
}

/** Keep an element's attributes as the walk in it is set up (null: removed). */
export function keepAttributes(element) {
  return (attrs) => {
    for (const [name, text] of Object.entries(attrs)) {
      if (text === null) element.removeAttribute(name); else element.setAttribute(name, text);
    }
  };
}

/* Walks inside a lesson: one <micrograd-walk> element made into a Walk, on the static
 * site's Python (the module worker of client.js's worker door, one for every walk of
 * the page). embed.js (the script a teacher includes) imports this module when the
 * lesson is next to the site's files; embed.html (the iframe embed.js makes for a lesson
 * on another origin) does the same inside the frame.
 *
 *   import { mountWalk } from "./embed_walk.js";
 *   await mountWalk(element, (field) => element.getAttribute(field));
 *
 * `get(field)` gives the text of a field of the Walk's set-up (micrograd.walk_setup's
 * WalkSetup: preset, expr, values, mode, step, ask, of, hide) or null. The texts are
 * read as a link's are (Walk.setupFrom) and go to Python, which checks them; they are
 * only ever shown as text.
 */

import { workerClient } from "./static/client.js";
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
 *  `shared`: the name of a Python shared with other pages (workerClient's). */
export async function mountWalk(element, get, { shared } = {}) {
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
    const walk = new Walk(box, { client, meta });
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

/** The set-up's text getter of an element: each field by its name (`values`) or its
 *  key in a link (`v`), from meta.walk's fields. */
export function attributes(element) {
  const KEYS = { values: "v" };
  return (field) => element.getAttribute(field) ?? element.getAttribute(KEYS[field] || field);
}

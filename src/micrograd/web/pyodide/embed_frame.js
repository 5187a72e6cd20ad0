/* embed.html's script: one Walk in a frame, made by embed.js for a lesson on another
 * origin. The set-up comes in the frame's fragment, by the element's attribute names
 * (`embed.html#preset=diamond&mode=recursive`); the frame tells the lesson its height
 * (a message {micrograd: "height", height}) so the element can fit it. `python` in the
 * fragment names the lesson page's one Python, which every frame of the page joins
 * (pyodide_client.js: a SharedWorker where the browser has one); without it, the frame
 * starts a Python of its own. */

import { mountWalk } from "./embed_walk.js";

const params = new URLSearchParams(location.hash.slice(1));
const get = (field) => params.get(field) ?? params.get(field === "values" ? "v" : field);
const box = document.getElementById("walk");

function tell() {
  if (window.parent !== window) {
    window.parent.postMessage({ micrograd: "height", height: document.documentElement.scrollHeight }, "*");
  }
}
new ResizeObserver(tell).observe(document.body);
const python = params.get("python");
const shared = python && /^[0-9a-f]{8,64}$/.test(python) ? python : undefined;
mountWalk(box, get, { shared }).then(() => { document.body.dataset.ready = "1"; }, () => {});

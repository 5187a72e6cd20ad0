/* embed.html's script: one Walk in a frame, made by embed.js for a lesson on another
 * origin. The set-up comes in the frame's fragment, by the element's attribute names
 * (`embed.html#preset=diamond&mode=recursive`); the frame tells the lesson its height
 * (a message {micrograd: "height", height}) so the element can fit it, and its set-up
 * after every change (a message {micrograd: "setup", attributes}) so the element's
 * attributes say the walk it shows. `python` in the fragment names the lesson page's
 * one Python, which every frame of the page joins (pyodide_client.js: a SharedWorker
 * where the browser has one); without it, the frame starts a Python of its own. */

import { mountWalk } from "./embed_walk.js";

const params = new URLSearchParams(location.hash.slice(1));
const box = document.getElementById("walk");

/** a message to the lesson around the frame (none when the frame is the page) */
function tell(what, data) {
  if (window.parent !== window) window.parent.postMessage({ micrograd: what, ...data }, "*");
}
new ResizeObserver(() => tell("height", { height: document.documentElement.scrollHeight })).observe(document.body);
const python = params.get("python");
const shared = python && /^[0-9a-f]{8,64}$/.test(python) ? python : undefined;
// the element's attributes follow the walk's set-up (embed.js keeps them)
const reflect = (attributes) => tell("setup", { attributes });
mountWalk(box, (key) => params.get(key), { shared, reflect }).then(() => { document.body.dataset.ready = "1"; }, () => {});

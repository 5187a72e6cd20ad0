/* The GPT tab's lesson link: what a link (#page=gpt&...) says of the tab, read when the
 * tab starts and written as the learner changes it, like the Walk's and the
 * Playground's (the same `hide=` of groups of controls, each a `data-ctl` part).
 *
 *   temp=0.8           the temperature of the samples
 *   name=emma          the name whose attention is drawn first
 *   hide=train,walk    the groups hidden: GROUPS
 *   weights=gpt.json   a weights file beside the site (what `micrograd gpt --save`
 *                      writes), fetched from the page's own origin: the run starts
 *                      from it (gpt.create's `weights`)
 *
 * The GPT tab has no set-up declared on the Python side: these keys are its own (none is
 * an Experiment's or the Walk's), but for `hide`, the Walk's (meta.walk's fields).
 */

/** the link's keys by what they hold (the hidden groups' key is the Walk's own, from
 *  its spec: `hideKey`) */
export const LINK = { temperature: "temp", name: "name", weights: "weights" };
/** the groups of controls a lesson link can hide (their parts' data-ctl) */
export const GROUPS = ["train", "sample", "attention", "walk"];

/** What the link says: {temperature (null: none), name, hide (a list), weights}. */
export function readLink(url, hideKey) {
  const q = url ? url.read() : new URLSearchParams();
  const t = Number(q.get(LINK.temperature));
  return {
    temperature: q.has(LINK.temperature) && Number.isFinite(t) ? t : null,
    name: q.get(LINK.name) || null,
    hide: (q.get(hideKey) || "").split(",").filter((g) => GROUPS.includes(g)),
    weights: q.get(LINK.weights) || null,
  };
}

/** Hide the groups of controls a lesson hides (inside `root`). */
export function applyHide(root, hide) {
  for (const e of root.querySelectorAll("[data-ctl]")) e.hidden = hide.includes(e.dataset.ctl);
}

/** The text of the weights file `file` (a relative URL, resolved against the page),
 *  at most `most` characters; an Error saying why not: an absolute URL or another
 *  origin (a link never makes the page fetch from elsewhere), a failed fetch, a file
 *  too large. */
export async function fetchWeights(file, most) {
  if (/^[a-z][a-z0-9+.-]*:/i.test(file) || /^[\\/]{2}/.test(file)) {
    throw new Error(`the link's weights file "${file}" is not a relative URL: a lesson ` +
                    "link names a file beside the site (weights=gpt.json), never another site's");
  }
  const at = new URL(file, location.href);
  if (at.origin !== location.origin) {
    throw new Error(`the link's weights file "${file}" is on another origin; it must lie beside the site`);
  }
  let res;
  try {
    res = await fetch(at.href, { credentials: "same-origin" });
  } catch (e) {
    throw new Error(`cannot fetch the weights file "${file}" (${e.message})`);
  }
  if (!res.ok) throw new Error(`cannot fetch the weights file "${file}" (HTTP ${res.status})`);
  const size = Number(res.headers.get("Content-Length"));
  const over = `the weights file "${file}" is larger than the page takes (${most} characters)`;
  if (size > most * 4) throw new Error(over);
  const text = await res.text();
  if (text.length > most) throw new Error(over);
  return text;
}

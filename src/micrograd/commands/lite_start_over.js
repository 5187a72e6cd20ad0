// start-over.html (DIR/notebooks/start-over.js): what this browser keeps of the
// notebooks (the ones edited here), a start over of one notebook or of all, the edits of
// this site's older notebooks (another build's storage recorded as this site's), and
// those of other micrograd sites on this host, to download or delete. Every deletion
// asks first (the page's own confirm step, focus on "Keep", back on the button after).
import { CHANNEL, deleteStorage, fileBlob, forgetFile, liteConfig, otherStorages,
         recordSite, savedFiles } from "./start-over-storage.js";

const base = new URL(".", import.meta.url);  // the notebooks' folder
const $ = (id) => document.getElementById(id);
const channel = "BroadcastChannel" in window ? new BroadcastChannel(CHANNEL) : null;

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "text") node.textContent = v;
    else node.setAttribute(k, v);
  }
  node.append(...children);
  return node;
}

function when(file) {
  const t = Date.parse(file.last_modified);
  return Number.isNaN(t) ? "" : `, saved ${new Date(t).toLocaleString()}`;
}

function download(file, label) {
  const link = el("a", { href: URL.createObjectURL(fileBlob(file)), download: file.name,
                         class: "download", text: label });
  link.setAttribute("aria-label", `${label}: ${file.name}`);
  return link;
}

function button(text, label, onclick) {
  const b = el("button", { type: "button", text });
  if (label) b.setAttribute("aria-label", label);
  b.addEventListener("click", onclick);
  return b;
}

function files(n) {
  return `${n} ${n === 1 ? "file" : "files"}`;
}

/** A message in status paragraph ``id`` (#state, #cleared or #done), an error's in red. */
function say(id, text, error = false) {
  $(id).textContent = text;
  $(id).classList.toggle("error", error);
}

/** A button that deletes, asking first: [the button, its confirm box]. The box says
 * ``ask`` with ``yes`` (labelled ``yesLabel``) and ``keepText``, focused; that closes it
 * and gives the focus back to the button; ``yes`` runs ``act`` (an error is said in
 * status ``where``). */
function guarded(text, label, ask, yes, yesLabel, keepText, where, act) {
  const box = el("div", { class: "confirm", role: "group", hidden: "" });
  const trigger = button(text, label, () => {
    box.hidden = false;
    trigger.setAttribute("aria-expanded", "true");
    keep.focus();
  });
  trigger.setAttribute("aria-expanded", "false");
  const really = button(yes, yesLabel, async () => {
    really.disabled = keep.disabled = true;
    try {
      await act();
    } catch (err) {
      say(where, `Not deleted: ${err}`, true);
      really.disabled = keep.disabled = false;
    }
  });
  really.classList.add("danger");
  const keep = button(keepText, null, () => {
    box.hidden = true;
    trigger.setAttribute("aria-expanded", "false");
    trigger.focus();
  });
  box.setAttribute("aria-label", label);
  box.append(el("p", { class: "note", text: ask }), really, " ", keep);
  return [trigger, box];
}

async function shippedNames() {
  const r = await fetch(new URL("api/contents/all.json", base), { cache: "no-cache" });
  if (!r.ok) throw new Error(`api/contents/all.json: ${r.status}`);
  return (await r.json()).content.filter((m) => m.type !== "directory").map((m) => m.name);
}

function tell(storage, what, path = null) {
  if (channel) channel.postMessage({ type: what, storage, path });
}

/** Focus ``selector`` in the list just drawn, or else status ``id`` (the button that
 * had the focus is gone). */
function refocus(selector, id) {
  (document.querySelector(selector) || $(id)).focus();
}

async function showThese(storage, shipped) {
  const saved = await savedFiles(storage);
  const byKey = new Map(saved.map((f) => [f.key, f]));
  const list = $("notebooks");
  list.replaceChildren();
  for (const name of shipped) {
    const file = byKey.get(name);
    const open = el("a", { class: "name", text: name,
                           href: `notebooks/index.html?path=${encodeURIComponent(name)}` });
    const what = el("span", { class: file ? "what edited" : "what",
                              text: file ? `edited in this browser${when(file)}` : "as shipped" });
    const item = el("li", { "data-name": name, "data-state": file ? "edited" : "shipped" },
                    open, what);
    if (file) {
      const [again, ask] = guarded("Start this one over…",
        `Start ${name} over: back to the shipped notebook`,
        `This deletes your edit of ${name} kept in this browser (download your copy first `
          + "to keep it); the shipped notebook shows again.",
        "Start it over", `Yes, start ${name} over`, "Keep it", "state",
        async () => {
          await forgetFile(storage, file.key);
          tell(storage, "forgot", file.key);
          await showThese(storage, shipped);
          say("state", `${name} is back as shipped.`);
          refocus(`#notebooks li[data-name="${CSS.escape(name)}"] a`, "state");
        });
      item.append(el("span", { class: "actions" }, download(file, "Download your copy"),
                     again), ask);
    }
    list.append(item);
  }
  for (const file of saved.filter((f) => !shipped.includes(f.key))) {
    const [drop, ask] = guarded("Delete…", `Delete ${file.key} from this browser`,
      `This deletes ${file.key}, made in this browser, for good (download it first to `
        + "keep it).",
      "Delete it", `Yes, delete ${file.key}`, "Keep it", "state",
      async () => {
        await forgetFile(storage, file.key);
        tell(storage, "forgot", file.key);
        await showThese(storage, shipped);
        say("state", `${file.key} is deleted.`);
        $("state").focus();
      });
    list.append(el("li", { "data-name": file.key, "data-state": "yours" },
      el("span", { class: "name", text: file.key }),
      el("span", { class: "what edited", text: `yours, made in this browser${when(file)}` }),
      el("span", { class: "actions" }, download(file, "Download"), drop), ask));
  }
  const edited = saved.length;
  $("state").textContent = edited
    ? `This browser keeps your edits of ${edited} of these files.`
    : "Every notebook is as shipped: this browser keeps no edits of them.";
  return edited;
}

/** One other storage's box: its files to download, and its deletion, asked first. */
function storageBox(storage, { name, files: saved, site, older }) {
  const id = name.slice(-16);
  const n = files(saved.length);
  const whose = older ? `Older notebooks of this site (${id})`
    : site ? `Another micrograd site on this host (${site})`
      : `A micrograd site on this host, not recorded (${id})`;
  const box = el("div", { class: "older", "data-storage": name,
                          "data-owner": older ? "this" : site ? "other" : "unknown" });
  box.append(el("h3", { text: `${whose}: ${n} edited` }));
  const ul = el("ul", { class: "files" });
  for (const file of saved) {
    ul.append(el("li", { "data-name": file.key },
      el("span", { class: "name", text: file.key }),
      el("span", { class: "what", text: `${older ? "your older copy" : "a copy"}${when(file)}` }),
      el("span", { class: "actions" }, download(file, "Download"))));
  }
  const [drop, ask] = older
    ? guarded("Delete these older edits…",
              `Delete your edits of the older notebooks (${id})`,
              `This deletes your edits of ${n} of this site's older notebooks (${id}) from `
                + "this browser, with their settings and open tabs: download the ones to "
                + "keep first.",
              `Delete ${n}`, `Yes, delete the ${n} of the older notebooks (${id})`, "Keep them",
              "cleared", deleteIt)
    : guarded("Delete this site's edits…",
              `Delete the edits of ${site ? `the site ${site}` : `storage ${id}`}`,
              "These are not this site's notebooks: "
                + (site ? `they are the site ${site}'s` : "this browser did not record "
                  + "their site") + ", on this host. Deleting them deletes "
                + `${n} edited there, with that site's settings and open tabs, for good. `
                + "Delete them only if you know you no longer need them.",
              `Delete ${n} of that site`, `Yes, delete the ${n} of that site (${id})`, "Keep them",
              "cleared", deleteIt);
  async function deleteIt() {
    await deleteStorage(name, () => say("cleared", "Close the notebooks' other tabs to "
      + "finish: a page still holds these edits open."));
    tell(name, "deleted");
    await showOthers(storage);
    say("cleared", older ? `Your edits of the older notebooks (${id}) are deleted.`
      : `The edits of ${site || `storage ${id}`} are deleted.`);
    $("cleared").focus();
  }
  box.append(ul, drop, ask);
  return box;
}

async function showOthers(storage) {
  const found = await otherStorages(storage, base.href);
  if (found === null) {
    $("older").hidden = false;
    $("older-note").textContent = "This browser does not list its storage: edits of "
      + "older notebooks of this site, if it keeps any, cannot be shown here.";
    return;
  }
  for (const [section, older] of [["older", true], ["others", false]]) {
    const mine = found.filter((o) => o.older === older);
    $(`${section}-list`).replaceChildren(...mine.map((o) => storageBox(storage, o)));
    $(section).hidden = mine.length === 0;
  }
}

async function main() {
  const config = await liteConfig(base);
  const storage = config.contentsStorageName;
  recordSite(storage, base.href);
  const shipped = await shippedNames();
  document.body.dataset.storage = storage;
  const edited = await showThese(storage, shipped);
  await showOthers(storage);
  $("start-over").addEventListener("click", async () => {
    const n = (await savedFiles(storage)).length;
    $("confirm-text").textContent = (n
      ? `This deletes your edits of ${n} ${n === 1 ? "file" : "files"} kept in this `
        + "browser (download a copy first to keep one)"
      : "This browser keeps no edits of these notebooks; this resets their settings and "
        + "open tabs") + ", then opens the notebooks as shipped.";
    $("confirm").hidden = false;
    $("keep").focus();
  });
  $("keep").addEventListener("click", () => {
    $("confirm").hidden = true;
    $("start-over").focus();
  });
  $("really").addEventListener("click", async () => {
    $("really").disabled = $("keep").disabled = true;
    try {
      await deleteStorage(storage, () => say("done", "Close the notebooks' other tabs to "
        + "finish: a page still holds these notebooks open. The start over goes on once "
        + "they are closed."));
      tell(storage, "deleted");
      say("done", "Done: the notebooks are as shipped. Opening them…");
      document.body.dataset.startedOver = "yes";
      location.assign(new URL("index.html", base));
    } catch (err) {
      say("done", `The start over did not finish: ${err}`, true);
      $("really").disabled = $("keep").disabled = false;
    }
  });
  document.body.dataset.ready = String(edited);
}

main().catch((err) => {
  const state = $("state");
  state.textContent = `This page could not read the browser's storage: ${err}`;
  state.classList.add("error");
  document.body.dataset.ready = "error";
});

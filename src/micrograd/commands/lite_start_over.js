// start-over.html (DIR/notebooks/start-over.js): what this browser keeps of the
// notebooks (the ones edited here), a start over of one notebook or of all, and the
// edits of older notebooks (another build's storage) to download or delete.
import { CHANNEL, deleteStorage, fileBlob, forgetFile, liteConfig, otherStorages,
         savedFiles } from "./start-over-storage.js";

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

async function shippedNames() {
  const r = await fetch(new URL("api/contents/all.json", base), { cache: "no-cache" });
  if (!r.ok) throw new Error(`api/contents/all.json: ${r.status}`);
  return (await r.json()).content.filter((m) => m.type !== "directory").map((m) => m.name);
}

function tell(storage, what, path = null) {
  if (channel) channel.postMessage({ type: what, storage, path });
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
      item.append(el("span", { class: "actions" }, download(file, "Download your copy"),
        button("Start this one over", `Start ${name} over: back to the shipped notebook`,
          async () => {
            await forgetFile(storage, file.key);
            tell(storage, "forgot", file.key);
            await showThese(storage, shipped);
            $("state").textContent = `${name} is back as shipped.`;
          })));
    }
    list.append(item);
  }
  for (const file of saved.filter((f) => !shipped.includes(f.key))) {
    list.append(el("li", { "data-name": file.key, "data-state": "yours" },
      el("span", { class: "name", text: file.key }),
      el("span", { class: "what edited", text: `yours, made in this browser${when(file)}` }),
      el("span", { class: "actions" }, download(file, "Download"),
        button("Delete", `Delete ${file.key} from this browser`, async () => {
          await forgetFile(storage, file.key);
          tell(storage, "forgot", file.key);
          await showThese(storage, shipped);
        }))));
  }
  const edited = saved.length;
  $("state").textContent = edited
    ? `This browser keeps your edits of ${edited} of these files.`
    : "Every notebook is as shipped: this browser keeps no edits of them.";
  return edited;
}

async function showOlder(storage) {
  const older = await otherStorages(storage);
  const section = $("older");
  const list = $("older-list");
  list.replaceChildren();
  if (older === null) {
    section.hidden = false;
    $("older-note").textContent = "This browser does not list its storage: edits of "
      + "older notebooks of this site, if it keeps any, cannot be shown here.";
    return;
  }
  section.hidden = older.length === 0;
  for (const { name, files } of older) {
    const box = el("div", { class: "older", "data-storage": name });
    box.append(el("h3", { text: `Older notebooks (${name.slice(-16)}): ${files.length} `
                                + (files.length === 1 ? "file" : "files") + " edited" }));
    const ul = el("ul", { class: "files" });
    for (const file of files) {
      ul.append(el("li", { "data-name": file.key },
        el("span", { class: "name", text: file.key }),
        el("span", { class: "what", text: `your older copy${when(file)}` }),
        el("span", { class: "actions" }, download(file, "Download"))));
    }
    box.append(ul, button("Delete these older edits",
                          `Delete your edits of the older notebooks (${name.slice(-16)})`,
                          async () => {
                            await deleteStorage(name);
                            tell(name, "deleted");
                            await showOlder(storage);
                            $("done").textContent = "Your edits of the older notebooks "
                              + "are deleted.";
                          }));
    list.append(box);
  }
}

async function main() {
  const config = await liteConfig(base);
  const storage = config.contentsStorageName;
  const shipped = await shippedNames();
  document.body.dataset.storage = storage;
  const edited = await showThese(storage, shipped);
  await showOlder(storage);
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
    $("really").disabled = true;
    await deleteStorage(storage);
    tell(storage, "deleted");
    $("done").textContent = "Done: the notebooks are as shipped. Opening them…";
    document.body.dataset.startedOver = "yes";
    location.assign(new URL("index.html", base));
  });
  document.body.dataset.ready = String(edited);
}

main().catch((err) => {
  const state = $("state");
  state.textContent = `This page could not read the browser's storage: ${err}`;
  state.classList.add("error");
  document.body.dataset.ready = "error";
});

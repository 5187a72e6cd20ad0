/* micrograd serve's page: one Walk, one Playground and the gallery of classic mistakes,
 * a tab each, their state in the URL. The entry point of index.html (the one module it
 * loads). */

import { pageClient } from "./client.js";
import { Gallery } from "./gallery.js";
import { Playground } from "./playground.js";
import { notebookLinks } from "./notebook_links.js";
import { HashState } from "./urlstate.js";
import { Walk } from "./walk.js";

const PAGES = ["walk", "play", "mistakes"];
const byId = (id) => document.getElementById(id);

async function main() {
  const loading = byId("loading");
  const started = performance.now();
  // the static site's Python says how its loading goes (the HTTP door says nothing)
  const progress = (text) => {
    loading.textContent = `Starting Python in this page: ${text}…`;
    loading.hidden = false;
  };
  const client = pageClient({ onProgress: progress });
  const conn = byId("conn"), banner = byId("banner");
  client.onConnection = (down, message) => { conn.textContent = message || ""; conn.hidden = !down; };
  let meta;
  try {
    meta = await client.call("meta", {});
  } catch (e) {
    loading.hidden = true;
    banner.textContent = (client.door === "pyodide" ? "cannot start Python: "
      : "cannot reach the micrograd server: ") + e.message;
    banner.hidden = false;
    return;
  }
  loading.hidden = true;
  document.body.dataset.pythonSeconds = String((performance.now() - started) / 1000);
  const url = new HashState();
  // the lecture's notebook that teaches what each part shows (meta.notebooks)
  const notebooks = notebookLinks(client, meta.notebooks);
  const walk = new Walk(byId("page-walk"), { client, meta, url, idPrefix: "w-", notebooks });
  const play = new Playground(byId("page-play"), { client, meta, url, idPrefix: "p-", banner });
  notebooks.show(play.$("notebook"), "play", {});
  const gallery = new Gallery(byId("page-mistakes"), { client, url, idPrefix: "m-", notebooks });

  let shown = null;
  function showPage(name, push) {
    // another page opens at its top, the tabs in view (not where the last one was scrolled)
    if (shown !== null && name !== shown) window.scrollTo(0, 0);
    shown = name;
    for (const p of PAGES) {
      byId("page-" + p).hidden = p !== name;
      byId("tab-" + p).classList.toggle("active", p === name);
      byId("tab-" + p).setAttribute("aria-selected", p === name ? "true" : "false");
    }
    if (push) url.push({ page: name }); else url.write({ page: name });
    if (name === "walk") walk.start(); else if (name === "play") play.start(); else gallery.start();
    if (name !== "play") play.pause();
  }

  for (const b of byId("tabs").querySelectorAll("button")) b.onclick = () => showPage(b.dataset.page, true);
  // back and forward (the Walk pushes a history entry per graph, mode or leaf edit; a tab
  // switch too) and links edited by hand: the Walk reads its state again from the URL;
  // a Playground URL starts the page over
  const moved = () => {
    if (!url.moved()) return;  // the page's own change: no news
    if (url.read().get("page") === "play") { location.reload(); return; }
    if (url.read().get("page") === "mistakes") { showPage("mistakes"); gallery.fromUrl(); return; }
    const fresh = !walk.started;
    showPage("walk");
    if (!fresh) walk.fromUrl();
  };
  window.addEventListener("popstate", moved);
  window.addEventListener("hashchange", moved);
  const first = url.read().get("page");
  showPage(PAGES.includes(first) ? first : "walk");
  document.body.dataset.ready = "1";
}

main();

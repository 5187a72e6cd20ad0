/* micrograd serve's page: one Walk, one Playground, the gallery of classic mistakes and
 * the GPT, a tab each, their state in the URL. The entry point of index.html (the one module it
 * loads). */

import { pageClient } from "./client.js";
import { el, mount } from "./dom.js";
import { GALLERY_MARKUP, Gallery } from "./gallery.js";
import { Gpt } from "./gpt.js";
import { GPT_MARKUP } from "./gpt_markup.js";
import { PLAY_MARKUP } from "./play_markup.js";
import { Playground } from "./playground.js";
import { notebookLinks } from "./notebook_links.js";
import { HashState } from "./urlstate.js";
import { Walk } from "./walk.js";
import { WALK_MARKUP } from "./walk_markup.js";
import { Timeline } from "./walk_timeline.js";

const PAGES = ["walk", "play", "mistakes", "gpt"];
const byId = (id) => document.getElementById(id);
/** each page's frame while Python starts: its component's own markup and class, and
 *  what the component draws there without Python ($: the markup's parts) */
const FRAMES = { walk: [WALK_MARKUP, "mg-walk", walkFrame], play: [PLAY_MARKUP, "mg-play"],
                 mistakes: [GALLERY_MARKUP, "mg-gallery"], gpt: [GPT_MARKUP, "mg-gpt"] };

/** The Walk's frame: its timeline (a forward and a backward stretch), so that the mode's
 *  sentence and the graph below it start where they will be (app.css keeps their room
 *  and the teaching mode's) */
function walkFrame($) {
  new Timeline($("timeline"), { prefix: "start-walk-", onMove() {} })
    .update(0, [{ phase: "forward", s: {} }, { phase: "backward", s: {} }]);
}

/** The page while Python starts (2-7 s on a first visit to the static site; a moment
 *  behind `micrograd serve`): the tabs, the chosen one selected, its page drawn from its
 *  component's own markup, greyed and inert (so nothing moves when the component takes
 *  its place), and over it a card, #loading, that says Python is starting and how far it
 *  got (shown at once when the worker speaks, else after 400 ms). Returns
 *  {progress(text), done()}; done() leaves the pages empty for their components. */
function startingFrame(url) {
  const loading = byId("loading"), started = performance.now();
  document.body.dataset.starting = "1";
  const show = (name) => {
    for (const p of PAGES) {
      const main = byId("page-" + p), on = p === name;
      main.hidden = !on;
      byId("tab-" + p).classList.toggle("active", on);
      byId("tab-" + p).setAttribute("aria-selected", on ? "true" : "false");
      if (on && !main.firstChild) {
        const [markup, cls, dress] = FRAMES[p], $ = mount(main, markup, `start-${p}-`);
        if (dress) dress($);
        main.classList.add("starting", cls);
        main.inert = true;
      }
    }
  };
  const first = url.read().get("page");
  show(PAGES.includes(first) ? first : "walk");
  for (const b of byId("tabs").querySelectorAll("button")) {
    b.onclick = () => { url.write({ page: b.dataset.page }); show(b.dataset.page); };
  }
  let said = "";
  const state = { door: "pyodide" };  // the client's door, told by main()
  const write = () => {
    const seconds = Math.floor((performance.now() - started) / 1000), python = state.door === "pyodide";
    loading.replaceChildren(
      el("strong", { text: python ? "Starting Python in this page" : "Waiting for the micrograd server" }),
      said ? `: ${said}…` : "…", el("span", { class: "secs", text: seconds ? ` ${seconds} s` : "" }),
      el("progress", { "aria-label": python ? "starting Python" : "waiting for the server" }),
      python ? el("small", { text: "The first visit loads Python into the page; later ones start " +
                                    "from the browser's cache." }) : null);
    loading.hidden = false;
  };
  const timer = setTimeout(write, 400), ticker = setInterval(() => { if (!loading.hidden) write(); }, 1000);
  return {
    set door(door) { state.door = door; },
    progress(text) { said = text; write(); },
    done() {
      clearTimeout(timer); clearInterval(ticker);
      loading.hidden = true;
      delete document.body.dataset.starting;
      for (const p of PAGES) {
        const main = byId("page-" + p);
        if (main.inert) { main.inert = false; main.classList.remove("starting"); main.replaceChildren(); }
      }
    },
  };
}

async function main() {
  const started = performance.now();
  const url = new HashState();
  const starting = startingFrame(url);
  // the static site's Python says how its loading goes (the HTTP door says nothing)
  const client = pageClient({ onProgress: (text) => starting.progress(text) });
  starting.door = client.door;
  const conn = byId("conn"), banner = byId("banner");
  client.onConnection = (down, message) => { conn.textContent = message || ""; conn.hidden = !down; };
  let meta;
  try {
    meta = await client.call("meta", {});
  } catch (e) {
    starting.done();
    banner.textContent = (client.door === "pyodide" ? "cannot start Python: "
      : "cannot reach the micrograd server: ") + e.message;
    banner.hidden = false;
    return;
  }
  starting.done();
  document.body.dataset.pythonSeconds = String((performance.now() - started) / 1000);
  // the lecture's notebook that teaches what each part shows (meta.notebooks)
  const notebooks = notebookLinks(client, meta.notebooks);
  const walk = new Walk(byId("page-walk"), { client, meta, url, idPrefix: "w-", notebooks });
  const play = new Playground(byId("page-play"), { client, meta, url, idPrefix: "p-", banner });
  notebooks.show(play.$("notebook"), "play", {});
  const gallery = new Gallery(byId("page-mistakes"), { client, url, idPrefix: "m-", notebooks });
  const gpt = new Gpt(byId("page-gpt"), { client, meta, url, idPrefix: "g-" });

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
    if (name === "walk") walk.start(); else if (name === "play") play.start();
    else if (name === "gpt") gpt.start(); else gallery.start();
    if (name !== "play") play.pause();
    if (name !== "gpt") gpt.pause();
  }

  for (const b of byId("tabs").querySelectorAll("button")) b.onclick = () => showPage(b.dataset.page, true);
  // back and forward (the Walk pushes a history entry per graph, mode or leaf edit; a tab
  // switch too) and links edited by hand: the Walk reads its state again from the URL;
  // a Playground URL starts the page over
  const moved = () => {
    if (!url.moved()) return;  // the page's own change: no news
    if (url.read().get("page") === "play") { location.reload(); return; }
    if (url.read().get("page") === "mistakes") { showPage("mistakes"); gallery.fromUrl(); return; }
    if (url.read().get("page") === "gpt") { showPage("gpt"); return; }
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

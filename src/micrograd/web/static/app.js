/* micrograd serve: the page's entry point: tabs and start-up.
 * Scripts load in order: client.js, common.js, walk.js, playground.js, app.js. */
"use strict";

/* ------------------------------------------------------------------ tabs */

let META = null;

function showPage(name, push) {
  for (const p of ["walk", "play"]) {
    $("page-" + p).hidden = p !== name;
    $("tab-" + p).classList.toggle("active", p === name);
    $("tab-" + p).setAttribute("aria-selected", p === name ? "true" : "false");
  }
  if (push) url.push({ page: name }); else url.write({ page: name });
  if (name === "walk") Walk.ensure(); else Play.ensure();
  if (name !== "play") Play.pause();
}

/* ------------------------------------------------------------------ start */

async function main() {
  try {
    META = await api("GET", "/api/meta");
  } catch (e) {
    const b = $("banner"); b.textContent = "cannot reach the micrograd server: " + e.message; b.hidden = false;
    return;
  }
  for (const b of document.querySelectorAll("#tabs button")) b.onclick = () => showPage(b.dataset.page, true);
  // back and forward (the Walk pushes a history entry per graph, mode or leaf edit; a tab
  // switch too) and links edited by hand: the Walk reads its state again from the URL;
  // a Playground URL starts the page over, as before
  const moved = () => {
    if (location.hash === url.current) return;  // the page's own change: no news
    url.current = location.hash;
    if (url.read().get("page") === "play") { location.reload(); return; }
    const fresh = !Walk.started;
    showPage("walk");
    if (!fresh) Walk.fromUrl();
  };
  window.addEventListener("popstate", moved);
  window.addEventListener("hashchange", moved);
  const page = url.read().get("page") === "play" ? "play" : "walk";
  showPage(page);
  document.body.dataset.ready = "1";
}

main();

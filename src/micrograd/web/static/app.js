/* micrograd serve: the page's entry point: tabs and start-up.
 * Scripts load in order: client.js, common.js, walk.js, playground.js, app.js. */
"use strict";

/* ------------------------------------------------------------------ tabs */

let META = null;

function showPage(name) {
  for (const p of ["walk", "play"]) {
    $("page-" + p).hidden = p !== name;
    $("tab-" + p).classList.toggle("active", p === name);
  }
  url.write({ page: name });
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
  for (const b of document.querySelectorAll("#tabs button")) b.onclick = () => showPage(b.dataset.page);
  // a link pasted or edited by hand (the page itself only uses replaceState): start over
  window.addEventListener("hashchange", () => location.reload());
  const page = url.read().get("page") === "play" ? "play" : "walk";
  showPage(page);
  document.body.dataset.ready = "1";
}

main();

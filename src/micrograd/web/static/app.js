/* micrograd serve's page: one Walk and one Playground, a tab each, their state in the
 * URL. The entry point of index.html (the one module it loads). */

import { httpClient } from "./client.js";
import { Playground } from "./playground.js";
import { HashState } from "./urlstate.js";
import { Walk } from "./walk.js";

const PAGES = ["walk", "play"];
const byId = (id) => document.getElementById(id);

/* TEMPORARY: the set-up's description as the catalogue will send it (meta.experiment),
 * made from today's catalogue until it does. */
function experimentOf(m) {
  const d = m.play_defaults;
  const f = (name, url, kind, label, group, extra = {}) => ({
    name, url, kind, label, group, default: d[name], help: extra.help || "",
    keeps_weights: Boolean(extra.keeps), ...extra });
  const titles = { moons: "two moons", xor: "XOR", plane: "plane (regression)",
                   gaussians: "gaussians (regression)" };
  return {
    fields: [
      f("dataset", "ds", "choice", "data set", "data", { choices: m.datasets, choice_labels: titles }),
      f("classes", "k", "int", "classes", "data", { min: 2, max: 5,
        help: "3 or more: spiral or blobs, trained with the softmax cross-entropy (ce)" }),
      f("noise", "noise", "number", "noise", "data", { min: 0, keeps: true }),
      f("samples", "n", "int", "samples", "data", { min: 10 }),
      f("train_ratio", "ratio", "number", "train ratio", "data", { min: 0.1, max: 0.9, keeps: true }),
      f("seed", "seed", "int", "data seed", "data", { min: 0 }),
      f("added", "add", "points", "added points", "data", { keeps: true }),
      f("removed", "rm", "indices", "removed points", "data", { keeps: true }),
      f("features", "feat", "choices", "input features", "features", { choices: m.features }),
      f("hidden", "hidden", "ints", "sizes", "network", { max_len: m.play_limits.max_layers,
        help: "neurons per hidden layer, comma separated, e.g. 4,2 (up to 6 layers; type more than 8 neurons here)" }),
      f("init_seed", "iseed", "int", "init seed", "network", { min: 0 }),
      f("activation", "act", "choice", "activation", "act", { choices: m.activations }),
      f("loss", "loss", "choice", "loss", "loss", { choices: m.losses }),
      f("optimizer", "opt", "choice", "optimizer", "opt", { choices: m.optimizers, keeps: true }),
      f("lr", "lr", "number", "learning rate", "lr", { min: 0, keeps: true }),
      f("batch_size", "batch", "int", "batch (0 = all)", "data", { min: 0, keeps: true }),
      f("l1", "l1", "number", "L1 rate", "reg", { min: 0, keeps: true }),
      f("l2", "l2", "number", "L2 rate", "reg", { min: 0, keeps: true }),
    ],
    regression: m.regression, multiclass: ["spiral", "blobs"],
    losses: { mse: { labels: "pm1", outputs: "one", output_activation: "tanh" },
              hinge: { labels: "pm1", outputs: "one", output_activation: "linear" },
              bce: { labels: "01", outputs: "one", output_activation: "linear" },
              ce: { labels: "index", outputs: "classes", output_activation: "linear" } },
  };
}

async function main() {
  const client = httpClient();
  const conn = byId("conn"), banner = byId("banner");
  client.onConnection = (down, message) => { conn.textContent = message || ""; conn.hidden = !down; };
  let meta;
  try {
    meta = await client.call("meta", {});
  } catch (e) {
    banner.textContent = "cannot reach the micrograd server: " + e.message; banner.hidden = false;
    return;
  }
  if (!meta.experiment) meta.experiment = experimentOf(meta);
  const url = new HashState();
  const walk = new Walk(byId("page-walk"), { client, meta, url, idPrefix: "w-" });
  const play = new Playground(byId("page-play"), { client, meta, url, idPrefix: "p-", banner });

  function showPage(name, push) {
    for (const p of PAGES) {
      byId("page-" + p).hidden = p !== name;
      byId("tab-" + p).classList.toggle("active", p === name);
      byId("tab-" + p).setAttribute("aria-selected", p === name ? "true" : "false");
    }
    if (push) url.push({ page: name }); else url.write({ page: name });
    if (name === "walk") walk.start(); else play.start();
    if (name !== "play") play.pause();
  }

  for (const b of byId("tabs").querySelectorAll("button")) b.onclick = () => showPage(b.dataset.page, true);
  // back and forward (the Walk pushes a history entry per graph, mode or leaf edit; a tab
  // switch too) and links edited by hand: the Walk reads its state again from the URL;
  // a Playground URL starts the page over
  const moved = () => {
    if (!url.moved()) return;  // the page's own change: no news
    if (url.read().get("page") === "play") { location.reload(); return; }
    const fresh = !walk.started;
    showPage("walk");
    if (!fresh) walk.fromUrl();
  };
  window.addEventListener("popstate", moved);
  window.addEventListener("hashchange", moved);
  showPage(url.read().get("page") === "play" ? "play" : "walk");
  document.body.dataset.ready = "1";
}

main();

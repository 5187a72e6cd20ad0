// The check page's script: start the site's Python, ask for the lecture's L, show the
// grads Python computed (and keep them on <body data-...> for a test to read).
import { servedFromFile, startPython } from "./pyodide_client.js";

function show(id, text) {
  document.getElementById(id).textContent = text;
}

async function check() {
  const started = performance.now();
  const python = startPython({ onProgress: (text) => show("progress", `${text}…`) });
  const meta = await python.ready;
  show("progress", `Python ${meta.python} with micrograd ${meta.micrograd}, ready in ${meta.seconds} s`);
  const view = await python.call("walk", { preset: "lecture" });
  const nodes = view.graph.nodes;
  const root = nodes.find((n) => n.id === view.graph.root).name;
  const grads = Object.fromEntries(nodes.filter((n) => n.leaf).map((n) => [n.name, n.grad]));
  show("grads", Object.entries(grads).map(([k, g]) => `d${root}/d${k} = ${g}`).join(", "));
  Object.assign(document.body.dataset, {
    state: "done", python: meta.python, grads: JSON.stringify(grads),
    seconds: String((performance.now() - started) / 1000),
  });
}

if (!servedFromFile()) {
  check().catch((err) => {
    show("progress", `failed: ${err.kind ? `${err.kind}: ` : ""}${err.message}`);
    document.body.dataset.state = "failed";
  });
}

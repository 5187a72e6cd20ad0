// The Walk widget's page side: it only draws the state the kernel sends (every number
// comes from micrograd.walk in Python) and sends the buttons' actions back.

const CSS = `
.mg-walk { font-family: monospace; font-size: 13px; }
.mg-walk .bar { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; margin: 4px 0; }
.mg-walk button { font-family: inherit; padding: 2px 8px; cursor: pointer; }
.mg-walk .graph { overflow-x: auto; border: 1px solid #ddd; margin: 6px 0; }
.mg-walk path.edge { cursor: pointer; stroke-width: 1.8px; }
.mg-walk path.edge:hover { stroke: #1f5fbf; }
.mg-walk path.edge.selected { stroke: #1f5fbf; stroke-width: 2.5px; }
.mg-walk path.edge.lost { stroke: #b00020; stroke-dasharray: 5 3; stroke-width: 2.2px; }
.mg-walk g.node.current rect { stroke: #e08a00; stroke-width: 3px; }
.mg-walk .text { white-space: pre-wrap; margin: 4px 0; }
.mg-walk .error { color: #b00020; }
.mg-walk .summary { color: #b00020; white-space: pre-wrap; }
.mg-walk .summary.ok { color: #1b7f3b; }
.mg-walk .log { max-height: 10em; overflow-y: auto; color: #555; white-space: pre-wrap; }
`;

function button(label, action, send) {
  const b = document.createElement("button");
  b.textContent = label;
  b.dataset.action = action;
  b.addEventListener("click", () => send({ action }));
  return b;
}

function render({ model, el }) {
  const send = (msg) => model.send(msg);
  const root = document.createElement("div");
  root.className = "mg-walk";
  const style = document.createElement("style");
  style.textContent = CSS;
  root.appendChild(style);

  const bar = document.createElement("div");
  bar.className = "bar";
  const preset = document.createElement("select");
  preset.className = "preset";
  preset.addEventListener("change", () => send({ action: "load", what: preset.value }));
  bar.appendChild(preset);
  for (const [label, action] of [["step forward", "step_forward"],
                                 ["step backward", "step_backward"],
                                 ["run forward", "run_forward"],
                                 ["run backward", "run_backward"],
                                 ["reset", "reset"]]) {
    bar.appendChild(button(label, action, send));
  }
  const mode = document.createElement("select");
  mode.className = "mode";
  mode.addEventListener("change", () => send({ action: "set_mode", mode: mode.value }));
  bar.appendChild(mode);
  root.appendChild(bar);

  const orderBar = document.createElement("div");
  orderBar.className = "bar";
  const orderLabel = document.createElement("span");
  orderLabel.textContent = "visit order:";
  const order = document.createElement("input");
  order.className = "order";
  order.placeholder = "e.g. d,a,b,c (empty: reverse topological)";
  order.size = 36;
  const orderBtn = document.createElement("button");
  orderBtn.textContent = "use this order";
  orderBtn.dataset.action = "set_order";
  orderBtn.addEventListener("click", () => send({ action: "set_order", order: order.value }));
  orderBar.append(orderLabel, order, orderBtn);
  root.appendChild(orderBar);

  const status = document.createElement("div");
  status.className = "text status";
  const lesson = document.createElement("div");
  lesson.className = "text lesson";
  const graph = document.createElement("div");
  graph.className = "graph";
  const text = document.createElement("div");
  text.className = "text step";
  const edge = document.createElement("div");
  edge.className = "text edge-text";
  const error = document.createElement("div");
  error.className = "text error";
  const summary = document.createElement("div");
  summary.className = "summary";
  const log = document.createElement("div");
  log.className = "log";
  root.append(status, lesson, graph, text, edge, error, summary, log);
  el.appendChild(root);

  function draw() {
    const s = model.get("state") || {};
    preset.replaceChildren();
    const custom = document.createElement("option");
    custom.value = "";
    custom.textContent = s.preset ? "preset:" : "your graph";
    custom.disabled = true;
    preset.appendChild(custom);
    for (const [key, title] of Object.entries(s.presets || {})) {
      const o = document.createElement("option");
      o.value = key;
      o.textContent = title;
      preset.appendChild(o);
    }
    preset.value = s.preset || "";
    mode.replaceChildren();
    for (const m of s.modes || []) {
      const o = document.createElement("option");
      o.value = m;
      o.textContent = "mode: " + m;
      mode.appendChild(o);
    }
    mode.value = s.mode;
    if (document.activeElement !== order) order.value = s.order || "";
    status.textContent = `${s.phase}: forward ${s.forward_done}/${s.forward_total}, ` +
      `backward ${s.backward_done}/${s.backward_total} (${s.mode_text})`;
    lesson.textContent = s.mode_lesson || "";
    graph.innerHTML = s.svg || "";
    if (s.current) {
      const g = graph.querySelector(`g.node[data-id="${s.current}"]`);
      if (g) g.classList.add("current");
    }
    for (const p of graph.querySelectorAll("path.edge")) {
      const id = p.dataset.id;
      if ((s.lost_edges || []).includes(id)) p.classList.add("lost");
      if (id === s.selected_edge) p.classList.add("selected");
      p.addEventListener("click", () => send({ action: "select_edge", edge: id }));
    }
    text.textContent = s.text || "";
    edge.textContent = s.edge_text || "";
    error.textContent = s.error || "";
    const lines = s.summary || [];
    summary.textContent = lines.join("\n");
    summary.classList.toggle("ok", lines.length === 1 && lines[0] === "every grad is correct");
    log.textContent = (s.log || []).join("\n");
  }
  model.on("change:state", draw);
  draw();
}

export default { render };

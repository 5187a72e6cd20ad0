// The Walk widget's page side: it only draws the state the kernel sends (every number
// comes from micrograd.walk in Python) and sends the buttons' actions back. As on the
// Walk page: a timeline (previous, next, a slider over every step: arrows, Home and End
// move it), each mode's lesson by the mode, and in the no-zero_grad mode micrograd's
// published engine beside PyTorch's and ours.

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
.mg-walk .timeline { display: flex; gap: 6px; align-items: flex-start; margin: 4px 0; }
.mg-walk .timeline .track { flex: 1; min-width: 0; display: flex; flex-direction: column; }
.mg-walk .timeline input[type=range] { width: 100%; margin: 4px 0 2px; }
.mg-walk .scale { display: flex; gap: 2px; font-size: 11px; color: #555; }
.mg-walk .scale span { flex-basis: 0; min-width: 0; overflow: hidden; white-space: nowrap;
  text-overflow: ellipsis; text-align: center; border-top: 3px solid #b9cdf3; }
.mg-walk .scale span + span { border-top-color: #f3c98b; }
.mg-walk .lesson { border-left: 4px solid #2f6fdf; padding: 2px 8px; }
.mg-walk .conventions { display: flex; flex-wrap: wrap; gap: 10px; margin: 6px 0; }
.mg-walk .conventions > div { flex: 1 1 16em; border: 1px solid #ddd; padding: 4px 8px; }
.mg-walk .conventions table { border-collapse: collapse; }
.mg-walk .conventions th, .mg-walk .conventions td { padding: 1px 8px; text-align: right; }
.mg-walk .conventions td.differ { font-weight: bold; background: #fff4d6; }
.mg-walk .conventions tr > th:first-child { text-align: left; }
.mg-walk .conventions > div.note { flex-basis: 100%; border: 0; color: #555; }
.mg-walk .link { color: #555; }
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

  // the timeline: every step of the forward and backward pass, back as well as forward
  const timeline = document.createElement("div");
  timeline.className = "timeline";
  const slider = document.createElement("input");
  slider.type = "range";
  slider.min = "0";
  slider.step = "1";
  slider.className = "slider";
  slider.setAttribute("aria-label", "step of the forward and backward pass");
  slider.addEventListener("input", () => send({ action: "go_to", step: Number(slider.value) }));
  const scale = document.createElement("div");
  scale.className = "scale";
  const track = document.createElement("div");
  track.className = "track";
  track.append(slider, scale);
  timeline.append(button("◀ previous", "previous", send), track, button("next ▶", "next", send));
  root.appendChild(timeline);

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
  const conventions = document.createElement("div");
  conventions.className = "conventions";
  const link = document.createElement("div");
  link.className = "text link";
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
  root.append(status, lesson, conventions, graph, text, edge, error, summary, log, link);
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
      o.textContent = (s.mode_titles || {})[m] || "mode: " + m;
      mode.appendChild(o);
    }
    mode.value = s.mode;
    if (document.activeElement !== order) order.value = s.order || "";
    status.textContent = `${s.phase}: forward ${s.forward_done}/${s.forward_total}, ` +
      `backward ${s.backward_done}/${s.backward_total} (${s.mode_text})`;
    lesson.textContent = s.mode_lesson || "";
    drawTimeline(s);
    drawConventions(s.conventions);
    link.textContent = s.link ? "the Walk page at this step: #page=walk&" +
      new URLSearchParams(s.link).toString() : "";
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
  function drawTimeline(s) {
    const n = s.steps_total || 0, k = s.step || 0;
    slider.max = String(n);
    slider.value = String(k);
    slider.setAttribute("aria-valuetext", `step ${k} of ${n}: ${s.text || ""}`);
    timeline.querySelector('[data-action="previous"]').disabled = k <= 0;
    timeline.querySelector('[data-action="next"]').disabled = k >= n;
    scale.replaceChildren();
    for (const [name, count] of s.scale || []) {
      const part = document.createElement("span");
      part.textContent = name;
      part.style.flexGrow = String(count);
      scale.appendChild(part);
    }
  }

  function cell(tag, textContent, className) {
    const c = document.createElement(tag);
    c.textContent = textContent;
    if (className) c.className = className;
    return c;
  }

  // the no-zero_grad mode: each convention with its rule and every node's grad after the
  // first pass and the second (Python's texts and numbers)
  function drawConventions(conv) {
    conventions.replaceChildren();
    conventions.hidden = !conv;
    if (!conv) return;
    const keys = conv.conventions.map((c) => c.key);
    for (const c of conv.conventions) {
      const box = document.createElement("div");
      box.dataset.convention = c.key;
      box.append(cell("b", c.title), cell("div", c.rule));
      const table = document.createElement("table");
      const head = document.createElement("tr");
      head.append(cell("th", "node"), cell("th", conv.columns.one_pass), cell("th", conv.columns[c.key]));
      table.appendChild(head);
      for (const row of conv.rows) {
        const tr = document.createElement("tr");
        const differ = keys.some((k) => row[k] !== row[c.key]);
        tr.append(cell("th", row.name + (row.leaf ? " (leaf)" : "")), cell("td", row.texts.one_pass),
                  cell("td", row.texts[c.key], differ ? "differ" : ""));
        table.appendChild(tr);
      }
      box.appendChild(table);
      conventions.appendChild(box);
    }
    conventions.appendChild(cell("div", conv.note, "text note"));
  }

  model.on("change:state", draw);
  draw();
}

export default { render };

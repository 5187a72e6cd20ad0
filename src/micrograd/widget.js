// The Walk widget's page side: it only draws the state the kernel sends (every number
// comes from micrograd.walk in Python) and sends the buttons' actions back. As on the
// Walk page: a timeline (previous, next, a slider over every step: arrows, Home and End
// move it), each mode's lesson and what it does to this graph, and in the no-zero_grad mode
// micrograd 0.1.0 beside PyTorch and this package, the grads wrong after the second pass marked.

const CSS = `
.mg-walk { font-family: monospace; font-size: 13px; }
.mg-walk .bar { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; margin: 4px 0; }
.mg-walk button { font-family: inherit; padding: 2px 8px; cursor: pointer; }
.mg-walk select, .mg-walk input.order { max-width: 100%; }
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
.mg-walk .conventions td.wrong { font-weight: bold; background: #fde2dc; outline: 1px solid #e0662f; }
.mg-walk .conventions tr > th:first-child { text-align: left; }
.mg-walk .conventions > div.note { flex-basis: 100%; border: 0; color: #555; }
.mg-walk .link { color: #555; }
`;

function element(tag, className, textContent) {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (textContent !== undefined) e.textContent = textContent;
  return e;
}

function button(label, action, send) {
  const b = element("button", "", label);
  b.dataset.action = action;
  b.addEventListener("click", () => send({ action }));
  return b;
}

// the preset and mode menus and the step buttons
function controls(send) {
  const bar = element("div", "bar");
  const preset = element("select", "preset");
  preset.addEventListener("change", () => send({ action: "load", what: preset.value }));
  bar.appendChild(preset);
  for (const [label, action] of [["step forward", "step_forward"],
                                 ["step backward", "step_backward"],
                                 ["run forward", "run_forward"],
                                 ["run backward", "run_backward"],
                                 ["reset", "reset"]]) {
    bar.appendChild(button(label, action, send));
  }
  const mode = element("select", "mode");
  mode.addEventListener("change", () => send({ action: "set_mode", mode: mode.value }));
  bar.appendChild(mode);
  return { bar, preset, mode };
}

// the timeline: every step of the forward and backward pass, back as well as forward
function timeline(send) {
  const box = element("div", "timeline");
  const slider = element("input", "slider");
  slider.type = "range";
  slider.min = "0";
  slider.step = "1";
  slider.setAttribute("aria-label", "step of the forward and backward pass");
  slider.addEventListener("input", () => send({ action: "go_to", step: Number(slider.value) }));
  const scale = element("div", "scale");
  const track = element("div", "track");
  track.append(slider, scale);
  box.append(button("◀ previous", "previous", send), track, button("next ▶", "next", send));
  return { box, slider, scale };
}

// a visit order of the learner's own
function orderBar(send) {
  const bar = element("div", "bar");
  const order = element("input", "order");
  order.placeholder = "e.g. d,a,b,c (empty: reverse topological)";
  order.size = 36;
  const use = element("button", "", "use this order");
  use.dataset.action = "set_order";
  use.addEventListener("click", () => send({ action: "set_order", order: order.value }));
  bar.append(element("span", "", "visit order:"), order, use);
  return { bar, order };
}

function options(select, entries, value) {
  select.replaceChildren();
  for (const [key, title, disabled] of entries) {
    const o = element("option", "", title);
    o.value = key;
    o.disabled = Boolean(disabled);
    select.appendChild(o);
  }
  select.value = value;
}

function drawMenus(parts, s) {
  options(parts.preset, [["", s.preset ? "preset:" : "your graph", true],
                         ...Object.entries(s.presets || {})], s.preset || "");
  options(parts.mode, (s.modes || []).map((m) => [m, (s.mode_titles || {})[m] || "mode: " + m]),
          s.mode);
  if (document.activeElement !== parts.order) parts.order.value = s.order || "";
}

function drawTimeline(parts, s) {
  const n = s.steps_total || 0, k = s.step || 0;
  parts.slider.max = String(n);
  parts.slider.value = String(k);
  parts.slider.setAttribute("aria-valuetext", `step ${k} of ${n}: ${s.text || ""}`);
  parts.box.querySelector('[data-action="previous"]').disabled = k <= 0;
  parts.box.querySelector('[data-action="next"]').disabled = k >= n;
  parts.scale.replaceChildren();
  for (const [name, count] of s.scale || []) {
    const part = element("span", "", name);
    part.style.flexGrow = String(count);
    parts.scale.appendChild(part);
  }
}

// Python's drawing, the current node marked, lost and selected edges, edges clickable
function drawGraph(graph, s, send) {
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
}

// the no-zero_grad mode: each convention with its rule and every node's grad after the
// first pass and the second (Python's texts and numbers)
function drawConventions(conventions, conv) {
  conventions.replaceChildren();
  conventions.hidden = !conv;
  if (!conv) return;
  conventions.appendChild(element("div", "text note", conv.legend));
  for (const c of conv.conventions) {
    const box = element("div");
    box.dataset.convention = c.key;
    box.append(element("b", "", c.title), element("div", "", c.rule));
    const table = element("table");
    const head = element("tr");
    head.append(element("th", "", "node"), element("th", "", conv.columns.one_pass),
                element("th", "", conv.columns[c.key]));
    table.appendChild(head);
    for (const row of conv.rows) {
      const tr = element("tr");
      const wrong = row.wrong.includes(c.key);  // not the one-pass gradient (Python's)
      tr.append(element("th", "", row.name + (row.leaf ? " (leaf)" : "")),
                element("td", "", row.texts.one_pass),
                element("td", wrong ? "wrong" : "", row.texts[c.key]));
      table.appendChild(tr);
    }
    box.appendChild(table);
    conventions.appendChild(box);
  }
  conventions.appendChild(element("div", "text note", conv.note));
}

function render({ model, el }) {
  const send = (msg) => model.send(msg);
  const root = element("div", "mg-walk");
  root.appendChild(element("style", "", CSS));
  const top = controls(send), steps = timeline(send), visits = orderBar(send);
  const box = {};
  for (const [name, className] of [["status", "text status"], ["lesson", "text lesson"],
                                   ["explain", "text explain"],
                                   ["conventions", "conventions"], ["graph", "graph"],
                                   ["text", "text step"], ["edge", "text edge-text"],
                                   ["error", "text error"], ["summary", "summary"],
                                   ["log", "log"], ["link", "text link"]]) {
    box[name] = element("div", className);
  }
  root.append(top.bar, steps.box, visits.bar, ...Object.values(box));
  el.appendChild(root);

  function draw() {
    const s = model.get("state") || {};
    drawMenus({ ...top, order: visits.order }, s);
    box.status.textContent = `${s.phase}: forward ${s.forward_done}/${s.forward_total}, ` +
      `backward ${s.backward_done}/${s.backward_total} (${s.mode_text})`;
    box.lesson.textContent = s.mode_lesson || "";
    box.explain.textContent = s.mode_explain || "";
    drawTimeline(steps, s);
    drawConventions(box.conventions, s.conventions);
    box.link.textContent = s.link ? "the Walk page at this step: #page=walk&" +
      new URLSearchParams(s.link).toString() : "";
    drawGraph(box.graph, s, send);
    box.text.textContent = s.text || "";
    box.edge.textContent = s.edge_text || "";
    box.error.textContent = s.error || "";
    const lines = s.summary || [];
    box.summary.textContent = lines.join("\n");
    box.summary.classList.toggle("ok", lines.length === 1 && lines[0] === "every grad is correct");
    box.log.textContent = (s.log || []).join("\n");
  }

  model.on("change:state", draw);
  draw();
}

export default { render };

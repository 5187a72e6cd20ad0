/* The GPT tab's walk on one position: that position's graph, folded into the model's
 * blocks, a block unfolded on a click.
 *
 *   const walk = new GptWalk(root, { call, nameNow, say });
 *     root     an empty element: the component fills it
 *     call     (route, request) => the answer (the GPT component's call: the run's sid
 *              added, a lost run made again)
 *     nameNow  () => the name the attention shows (the walk's name when its box is blank)
 *     say      (text) => the tab's banner
 *   walk.show(name, position)   walks that position (null: the last) of that name (null:
 *                               the attention's name, else one sampled now)
 *
 * gpt.walk answers the graph of one position's loss folded: a box a block (embeddings,
 * each RMSNorm, q, k, v, each head, the attention, the MLP, the head, the loss) and a
 * box an input from outside them (a weight matrix, the earlier positions' keys and
 * values), with edges; gpt.walk.block a block unfolded: its nodes laid out by the
 * server (drawn by GraphView, as the Walk's graph is), or, over the graph cap, its
 * parts as boxes again. The page only draws: every number and every word of what is
 * folded arrives from the Python side; it formats the numbers as the page does.
 */

import { el, mount, uniquePrefix } from "./dom.js";
import { fmt } from "./format.js";
import { GraphView } from "./graphview.js";
import { curve, svg } from "./svg.js";

const MARKUP = `
  <h3 data-role="head">walk one position <small data-role="shown"></small></h3>
  <form class="bar" data-role="form">
    <label>name <input data-role="name" maxlength="15" size="12" autocomplete="off"
      placeholder="blank: the attention's" spellcheck="false"></label>
    <label>position <input data-role="pos" type="number" min="0" max="15" step="1"
      inputmode="numeric" placeholder="last" class="gwpos"></label>
    <button type="submit" data-role="go">Walk</button>
  </form>
  <div data-role="tokens" class="gwtokens" role="group" aria-label="the name's positions: walk another"></div>
  <p class="hint" data-role="note">The graph of one position's loss, -log softmax(logits)[the next letter], built and walked back by the engine: every node has its data and its grad. Walk to see it folded into the model's blocks.</p>
  <div data-role="boxes" class="gwboxes"></div>
  <section data-role="detail" class="gwdetail" hidden>
    <h4 data-role="detail-h" tabindex="-1"></h4>
    <nav data-role="trail" class="gwtrail" aria-label="the unfolded part's place"></nav>
    <p class="hint" data-role="detail-note"></p>
    <div data-role="parts" class="gwboxes"></div>
    <div data-role="graph" class="gwgraph" hidden></div>
  </section>
`;

/** "a, b, c, d, …" of the first numbers, "…" when there are more */
function firstOf(xs, total) {
  return xs.map(fmt).join(", ") + (total > xs.length ? ", …" : "");
}

/** a line of numbers: "data a, b, c, d, …", each number a span (a narrow screen shows
 *  the first two: app.css hides the rest) */
function numberLine(word, xs, total) {
  const line = el("span", { class: "gwnum", text: word + " " });
  xs.forEach((x, i) => {
    line.append(el("span", { class: i < 2 ? "gwv" : "gwv gwmore", text: (i ? ", " : "") + fmt(x) }));
  });
  if (total > 2) line.append(el("span", { class: total > xs.length ? "gwv" : "gwv gwless", text: ", …" }));
  return line;
}

/** a box's lines of text: its name, its size, its outputs' numbers, what feeds it */
function boxLines(b) {
  const kind = b.kind === "weights" ? " (weights)" : b.kind === "cache" ? " (earlier positions)" : "";
  const lines = [
    ["gwname", b.name + kind],
    ["gwsize", `${b.nodes.toLocaleString("en")} node${b.nodes === 1 ? "" : "s"}` +
      (b.kind === "block" || b.kind === "part" ? `, ${b.outputs} out` : "")],
    ["gwnum", `data ${firstOf(b.data, b.outputs)}`],
    ["gwnum", `grad ${firstOf(b.grad, b.outputs)}`],
    ["gwnorm", `‖data‖ ${fmt(b.data_norm)}  ‖grad‖ ${fmt(b.grad_norm)}`],
  ];
  if (b.inputs.length) {
    lines.push(["gwin", "from " + b.inputs.map((i) => `${i.count} ${i.from}`).join("; ")]);
  }
  return lines;
}

/** One box: a button when it unfolds, else a summary card. */
function drawBox(b, onOpen) {
  const lines = boxLines(b);
  const box = b.opens
    ? el("button", { type: "button", class: "gwbox" })
    : el("div", { class: "gwbox gwinput", role: "group" });
  box.dataset.box = b.id;
  box.dataset.kind = b.kind;
  for (const [cls, text] of lines) {
    if (cls === "gwnorm") {  // the two norms, each kept on one line
      const [d, g] = text.split("  ");
      box.append(el("span", { class: cls }, el("span", { text: d }), " ", el("span", { text: g })));
      continue;
    }
    if (cls !== "gwnum") { box.append(el("span", { class: cls, text })); continue; }
    const grad = text.startsWith("grad");
    box.append(numberLine(grad ? "grad" : "data", grad ? b.grad : b.data, b.outputs));
  }
  const said = lines.map(([, t]) => t).join("; ");
  box.setAttribute("aria-label", b.opens ? `${said}; unfold it` : said);
  if (b.opens) box.addEventListener("click", () => onOpen(b));
  return box;
}

/** The boxes in rows by rank (the first rank on top), the edges between them drawn
 *  behind, from a box's bottom to its reader's top. */
export function drawBoxes(host, boxes, edges, onOpen) {
  host.textContent = "";
  const lines = svg("svg", { class: "gwedges", "aria-hidden": "true" }, host);
  const ranks = [...new Set(boxes.map((b) => b.rank))].sort((a, b) => a - b);
  const byId = {};
  for (const r of ranks) {
    const row = el("div", { class: "gwrow" });
    for (const b of boxes.filter((x) => x.rank === r)) {
      byId[b.id] = drawBox(b, onOpen);
      row.append(byId[b.id]);
    }
    host.append(row);
  }
  const draw = () => {
    if (!host.isConnected) return;
    const at = host.getBoundingClientRect();
    lines.setAttribute("width", host.scrollWidth);
    lines.setAttribute("height", host.scrollHeight);
    lines.textContent = "";
    for (const e of edges) {
      const a = byId[e.src] && byId[e.src].getBoundingClientRect();
      const b = byId[e.dst] && byId[e.dst].getBoundingClientRect();
      if (!a || !b) continue;
      const p = [a.left + a.width / 2 - at.left, a.bottom - at.top];
      const q = [b.left + b.width / 2 - at.left, b.top - at.top];
      svg("path", { d: vertical(p, q), class: "gwedge" }, lines);
    }
  };
  requestAnimationFrame(draw);
  return draw;
}

/** a curve from p down (or up) to q with vertical tangents */
function vertical(p, q) {
  const my = (p[1] + q[1]) / 2;
  return `M ${p[0]} ${p[1]} C ${p[0]} ${my}, ${q[0]} ${my}, ${q[0]} ${q[1]}`;
}

export class GptWalk {
  constructor(root, { call, nameNow, say }) {
    this.root = root;
    this.call = call;
    this.nameNow = nameNow || (() => null);
    this.say = say || (() => {});
    this.folded = null; this.detail = null; this.view = null; this.trail = [];
    this.redraw = [];
    root.classList.add("gpt-walk");
    root.gptWalk = this;  // the component, for the page around it (and its tests)
    const $ = this.$ = mount(root, MARKUP, uniquePrefix("gptwalk"));
    $("form").onsubmit = (ev) => {
      ev.preventDefault();
      const pos = $("pos").value.trim();
      this.show($("name").value.trim() || null, pos === "" ? null : Number(pos));
    };
    this._resize = () => this.redraw.forEach((f) => f());
    window.addEventListener("resize", this._resize);
  }

  /** Walk `position` (null: the last) of `name` (null: the attention's, or sampled). */
  async show(name, position) {
    const $ = this.$;
    const asked = name === null ? this.nameNow() : name;
    $("go").disabled = true;
    try {
      const out = await this.call("gpt.walk", {
        ...(asked === null || asked === undefined ? {} : { name: asked }),
        ...(position === null ? {} : { position }),
      });
      if (!out) return;
      this.folded = out;
      this.drawFolded(out);
      this.close();
      this.say("");
    } catch (e) {
      this.say("GPT walk: " + e.message);
    } finally {
      $("go").disabled = false;
    }
  }

  /** The position's answer: what it is, its positions, its blocks as boxes. */
  drawFolded(out) {
    const $ = this.$;
    $("shown").textContent = `of "${out.name}"${out.sampled ? " (sampled)" : ""}, position ` +
      `${out.position}: reads ${out.token}, predicts ${out.target}; loss ${fmt(out.loss)}, ` +
      `at step ${out.step}`;
    $("note").textContent = out.note;
    this.drawTokens(out);
    this.redraw = [drawBoxes($("boxes"), out.boxes, out.edges, (b) => this.open(b, []))];
  }

  /** a button a position (the token it reads), the one shown pressed */
  drawTokens(out) {
    const row = this.$("tokens");
    row.textContent = "";
    out.tokens.forEach((tok, i) => {
      const b = el("button", { type: "button", class: "gwtok", text: tok,
                               title: `walk position ${i}: it reads ${tok}` });
      b.setAttribute("aria-pressed", i === out.position ? "true" : "false");
      b.setAttribute("aria-label", `position ${i}, ${tok}`);
      b.addEventListener("click", () => this.show(out.name, i));
      row.append(b);
    });
  }

  /** the request that names the position shown and a box of it, down `path` */
  blockRequest(block, path) {
    const f = this.folded;
    return { name: f.name, position: f.position, block, path };
  }

  /** Unfold `box`: a block of the folded answer (path []), or a part down `path`. */
  async open(box, path) {
    const block = path.length ? this.trail[0].block : box.id;
    const here = path.length ? path : [];
    const trail = path.length ? [...this.trail.slice(0, path.length), { block, path: here, name: box.name }]
      : [{ block, path: [], name: box.name }];
    const req = this.blockRequest(block, here);
    try {
      const graphEl = this.$("graph");
      let out = await this.call("gpt.walk.block", req);
      if (!out) return;
      if (out.kind === "nodes") {
        this.$("detail").hidden = false;  // measured before the layout is chosen
        this.$("parts").hidden = true;
        graphEl.hidden = false;
        this.view = this.view || new GraphView(graphEl, { label: `${out.title}, unfolded` });
        out = await this.view.fitted(async (how) => {
          const doc = how.rankdir === "LR" && !how.stack ? out
            : await this.call("gpt.walk.block", { ...req, ...how });
          if (!doc) throw new Error("the run was lost");
          return doc;
        }, JSON.stringify(req));
      }
      this.trail = trail;
      this.drawDetail(out);
    } catch (e) {
      this.say("GPT walk: " + e.message);
    }
  }

  /** The unfolded box: where it sits, what is folded, its parts or its nodes. */
  drawDetail(out) {
    const $ = this.$;
    this.detail = out;
    $("detail").hidden = false;
    $("detail-h").textContent = `${out.title}${out.path.length ? ", a part" : ""}: ` +
      `${out.nodes.toLocaleString("en")} nodes` + (out.kind === "parts"
      ? `, folded into ${out.boxes.length} parts` : ", unfolded");
    $("detail-note").textContent = out.note;
    this.drawTrail();
    const parts = $("parts"), graphEl = $("graph");
    if (out.kind === "parts") {
      graphEl.hidden = true;
      parts.hidden = false;
      const down = (b) => this.open(b, [...out.path, Number(b.id.slice(1))]);
      this.redraw = [this.redraw[0], drawBoxes(parts, out.boxes, out.edges, down)];
    } else {
      parts.hidden = true;
      parts.textContent = "";
      graphEl.hidden = false;
      this.view.setGraph(out.graph);
      this.view.update({});
    }
    $("detail").scrollIntoView({ block: "nearest" });
    $("detail-h").focus({ preventScroll: true });
  }

  /** the position, then each box unfolded on the way here: a button back to each */
  drawTrail() {
    const nav = this.$("trail");
    nav.textContent = "";
    const top = el("button", { type: "button", class: "gwcrumb", text: `position ${this.folded.position}` });
    top.addEventListener("click", () => { this.close(); this.$("boxes").querySelector("button")?.focus(); });
    nav.append(top);
    this.trail.forEach((t, i) => {
      nav.append(" › ");
      if (i === this.trail.length - 1) { nav.append(el("b", { text: t.name })); return; }
      const b = el("button", { type: "button", class: "gwcrumb", text: t.name });
      b.addEventListener("click", () => this.open({ id: t.block, name: t.name }, t.path));
      nav.append(b);
    });
  }

  /** back to the folded position alone */
  close() {
    this.$("detail").hidden = true;
    this.detail = null;
    this.trail = [];
    this.redraw = this.redraw.slice(0, 1);
  }
}

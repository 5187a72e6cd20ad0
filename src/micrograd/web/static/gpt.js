/* The GPT tab: microgpt trained live on the packaged names, sampled, looked into.
 *
 *   const gpt = new Gpt(root, { client, meta, idPrefix, banner });
 *     root      an empty element: the component fills it
 *     client    client.js's interface (gpt.*)
 *     meta      the catalogue from the client's "meta" (meta.limits: the GPT caps)
 *     url       the page's HashState: a lesson link's temp, name, hide and weights
 *               (gpt_lesson.js), read at the start and written on a change
 *   gpt.start()   makes the run (once); gpt.pause() stops training after the request
 *                 in flight
 *
 * Training is a loop of gpt.step calls of a few steps each (each step a turn on the
 * Python side), so Stop acts within one short request. The page only draws: the losses,
 * the mean of the last ones, the steps a second, the runner's name, the samples and
 * whether each is a training name, and every head's attention weights all arrive from
 * the Python side (gpt_plot.js draws them). A lost run (idle expiry, a restart) is
 * started again, and the page says so.
 */

import { mount, uniquePrefix } from "./dom.js";
import { fmt, fmtShort } from "./format.js";
import { GPT_MARKUP } from "./gpt_markup.js";
import { drawCurve, drawHeads } from "./gpt_plot.js";
import { LINK, applyHide, fetchWeights, readLink } from "./gpt_lesson.js";
import { GptWalk } from "./gpt_walk.js";

/** steps a gpt.step request asks for: Stop acts within this many */
const CHUNK = 3;

export class Gpt {
  constructor(root, { client, meta = {}, url = null, idPrefix, banner } = {}) {
    this.root = root;
    this.url = url;  // the page's link (urlstate.js), or none: the state kept to itself
    this.client = client;
    this.limits = meta.limits || {};
    this.meta = meta;
    this.prefix = idPrefix || uniquePrefix("gpt");
    this.run = null; this.sid = null; this.started = false;
    this.training = false; this.going = false; this.loop = null;
    this.losses = []; this.means = []; this.samples = []; this.attention = null;
    root.classList.add("mg-gpt");
    root.gpt = this;  // the component, for the page around it (and its tests)
    const $ = this.$ = mount(root, GPT_MARKUP, this.prefix);
    this.banner = banner || $("banner");
    window.addEventListener("pagehide", () => {
      if (this.sid) this.client.farewell("gpt.delete", { sid: this.sid });
    });
  }

  /** Make the run (once) and wire the controls. */
  start() {
    if (this.started) return;
    this.started = true;
    const $ = this.$;
    $("train").onclick = () => this.train();
    $("stop").onclick = () => this.pause();
    $("new").onclick = () => this.renew();
    $("sample").onclick = () => this.sample();
    $("temp").oninput = () => { $("temp-out").textContent = $("temp").value; };
    $("temp").onchange = () => this.link({ [LINK.temperature]: $("temp").value });
    $("att-form").onsubmit = (ev) => { ev.preventDefault(); this.look($("att-name").value.trim() || null); };
    this.walk = new GptWalk($("walk"), { call: (name, request) => this.call(name, request),
                                         nameNow: () => this.attention && this.attention.name,
                                         say: (text) => this.say(text) });
    // the Walk's link keys by field (its `hide` is this tab's too)
    const walkKeys = Object.fromEntries(((this.meta.walk || {}).fields || []).map((f) => [f.name, f.url]));
    this.ready = this.begin(readLink(this.url, walkKeys.hide));
  }

  /** The tab as its link says: the controls hidden, the temperature, the run (from a
   *  weights file beside the site, else the seed's; a file that fails is said, and the
   *  run is the seed's), the name whose attention is drawn. */
  async begin(link) {
    const $ = this.$;
    applyHide(this.root, link.hide);
    if (link.temperature !== null) {
      $("temp").value = String(link.temperature);
      $("temp-out").textContent = $("temp").value;
    }
    let why = "";
    if (link.weights) {
      try {
        const text = await fetchWeights(link.weights, this.limits.gpt_max_weights_chars);
        if (!await this.create({ weights: text, weights_file: link.weights })) why = this.banner.textContent;
      } catch (e) {
        why = "GPT: " + e.message;
      }
    }
    if (!this.sid) await this.create();
    if (why) this.say(why + " The run starts from the seed's weights instead.");
    if (link.name && this.sid) await this.look(link.name, !why);
  }

  /** Write these keys into the page's link (a lesson link's state). */
  link(params) { if (this.url) this.url.write(params); }

  /** A new run (`request`: gpt.create's fields, e.g. the weights of a file). The old
   *  run stays this tab's until the new one exists: the request names it (`replace`),
   *  and the Python side deletes it once the new one is made, its place the new one's
   *  (so New run is never busy for want of this tab's place). Returns whether the new
   *  run was made (else the tab is as it was, and the banner says why). */
  async create(request = {}) {
    this.making = true;
    this.busy();
    try {
      const run = await this.client.call("gpt.create", { ...request, replace: this.sid });
      this.sid = run.sid;
      this.losses = []; this.means = [];
      this.show(run);
      this.say("");
      return true;
    } catch (e) {
      this.say("GPT: " + (e.kind === "busy"
        ? "every GPT place is taken by other runs (" + e.message + ")" +
          (this.sid ? "; this tab keeps its run. " : ". ") + "Try New run again in a few seconds."
        : e.message));
      return false;
    } finally {
      this.making = false;
      this.busy();
    }
  }

  /** A call on the run; a lost run is made again (and the call not repeated: its
   *  steps, samples or attention belong to the run that is gone). */
  async call(name, request) {
    try {
      return await this.client.call(name, { ...request, sid: this.sid });
    } catch (e) {
      if (e.kind === "lost") {
        this.pause();
        await this.create();
        this.say("The run was lost (left idle too long, or the server restarted): a new " +
                 "run starts from step 0.");
        return null;
      }
      throw e;
    }
  }

  async train() {
    if (this.training || !this.sid) return;
    this.training = this.going = true;
    this.busy();
    this.loop = (async () => {
      try {
        while (this.going && this.run.step < this.run.steps) {
          const out = await this.call("gpt.step", { steps: CHUNK });
          if (!out) break;
          this.stepped(out);
        }
      } catch (e) {
        this.say("GPT: " + e.message);
      } finally {
        this.training = false;
        this.busy();
      }
    })();
    await this.loop;
  }

  /** Stop training after the request in flight (`training` stays true until then). */
  pause() { this.going = false; }

  async renew() {
    this.pause();
    if (this.loop) await this.loop;
    await this.create();
  }

  stepped(out) {
    const first = out.step - out.losses.length;
    out.losses.forEach((loss, i) => this.losses.push([first + i + 1, loss]));
    if (out.mean !== null) this.means.push([out.step, out.mean]);
    const $ = this.$;
    $("lastloss").textContent = fmt(out.losses[out.losses.length - 1]);
    $("rate").textContent = out.steps_per_second === null ? "·" : fmtShort(out.steps_per_second);
    this.show(out);
  }

  /** The run's numbers as the last answer gave them, and the curve. */
  show(run) {
    this.run = run;
    const $ = this.$;
    $("step").textContent = String(run.step);
    $("steps").textContent = String(run.steps);
    $("runner").textContent = run.runner;
    $("mean-of").textContent = String(run.mean_of);
    $("mean").textContent = fmt(run.mean);
    if (!this.losses.length) { $("lastloss").textContent = "·"; $("rate").textContent = "·"; }
    $("about").textContent = `microgpt (Karpathy's GPT in 200 lines) on micrograd's Value: ` +
      `${run.parameters.toLocaleString("en")} weights, ${run.n_layer} layer, ${run.n_head} heads, ` +
      `trained on ${run.names.toLocaleString("en")} names (seed ${run.seed}), one name a step, ` +
      `letter by letter, then one Adam step.` +
      (run.weights_file ? ` This run started from the weights in ${run.weights_file}.` : "");
    drawCurve($("curve"), this.losses, this.means, run.steps);
    $("curve").setAttribute("aria-label", `the loss of each of the ${this.losses.length} steps so far` +
      (run.mean === null ? "" : `; the mean of the last ${run.mean_of}: ${fmt(run.mean)}`));
    $("train").disabled = this.training || run.step >= run.steps;
  }

  /** The buttons as training is: Stop only while training, Train when it can; the
   *  keyboard's focus moves from the one turned off to the other. */
  busy() {
    const $ = this.$, had = document.activeElement;
    const done = this.run && this.run.step >= this.run.steps;
    const trainOff = this.training || this.making || !this.sid || Boolean(done);
    $("stop").disabled = !this.training;
    if (this.training && had === $("train")) $("stop").focus();
    $("train").disabled = trainOff;
    if (!this.training && had === $("stop") && !trainOff) $("train").focus();
  }

  async sample() {
    if (!this.sid) return;
    const $ = this.$;
    $("sample").disabled = true;
    try {
      const out = await this.call("gpt.sample", { count: 10, temperature: Number($("temp").value) });
      if (!out) return;
      this.samples = out.samples;
      this.listSamples(out);
      if (out.samples.length) await this.look(out.samples[0].name, false);
    } catch (e) {
      this.say("GPT: " + e.message);
    } finally {
      $("sample").disabled = false;
    }
  }

  listSamples(out) {
    const list = this.$("drawn");
    list.replaceChildren();
    for (const s of out.samples) {
      const li = document.createElement("li");
      const b = document.createElement("button");
      b.type = "button";
      b.className = "gptname";
      b.textContent = s.name || "(empty)";
      b.title = `show where each head looks in ${s.name || "the empty name"}`;
      b.onclick = () => this.look(s.name);
      li.append(b, " ");
      const mark = document.createElement("span");
      mark.className = s.in_list ? "gptknown" : "gptnew";
      mark.textContent = s.in_list ? "in the list" : "new";
      li.append(mark);
      list.append(li);
    }
    list.dataset.step = String(out.step);
    this.$("samples-h").textContent = `samples at step ${out.step}, temperature ${out.temperature}: ` +
      `${out.new} of ${out.samples.length} new`;
  }

  /** Draw every head's attention over `name` (null: a name sampled now). */
  async look(name, speak = true) {
    if (!this.sid) return;
    try {
      const out = await this.call("gpt.attention", name === null
        ? { temperature: Number(this.$("temp").value) } : { name });
      if (!out) return;
      this.attention = out;
      if (name !== null) this.link({ [LINK.name]: out.name });
      drawHeads(this.$("heads"), out.heads, out.tokens);
      // a name past the model's positions: the letters fed, and how many were left out
      const fed = out.tokens.length - 1;
      const cut = out.left_out > 0 ? ` (first ${fed} letters; ${out.left_out} left out)` : "";
      this.$("att-name-shown").textContent = `of "${out.name}"${cut}${out.sampled ? " (sampled)" : ""}` +
        `${out.in_list ? ", a training name" : ", not a training name"}, at step ${out.step}`;
      if (speak) this.say("");
    } catch (e) {
      this.say("GPT: " + e.message);
    }
  }

  say(text) {
    this.banner.textContent = text;
    this.banner.hidden = !text;
  }
}

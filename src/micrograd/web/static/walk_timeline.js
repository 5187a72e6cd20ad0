/* The Walk's timeline: previous, next and a slider over every step of the forward and
 * the backward pass (both passes of the no-zero_grad mode), so a teacher can go back to
 * step 4 while explaining step 5.
 *
 *   const tl = new Timeline(host, { prefix, onMove(k) });
 *   tl.update(k, steps);   // k steps applied; steps: the Walk's [{phase, s}] (s: the
 *                          // Python side's step, with its `head` or `text` and `pass`)
 *
 * The timeline holds no state of its own: it says where the Walk is and asks it to move
 * (onMove), and the Walk redraws everything from the first k steps, so going back shows
 * exactly what going forward showed. The slider is a native range input: arrows, Page
 * Up/Down, Home and End move it from the keyboard. The texts it shows are the Python
 * side's step sentences.
 */

import { el } from "./dom.js";

export class Timeline {
  constructor(host, { prefix, onMove }) {
    this.onMove = onMove;
    this.k = 0;
    this.n = 0;
    host.classList.add("timeline");
    // the words go on a phone (the arrows and the aria-label stay): the buttons then sit
    // beside the slider, and the graph keeps the room below
    const word = (text) => el("span", { class: "tl-word", text });
    this.prev = el("button", { type: "button", id: prefix + "prev", "aria-label": "previous step",
                               title: "previous step" }, "◀", word(" previous step"));
    this.next = el("button", { type: "button", id: prefix + "next", "aria-label": "next step",
                               title: "next step" }, word("next step "), "▶");
    this.slider = el("input", { type: "range", id: prefix + "slider", min: "0", max: "0", step: "1",
                                value: "0", "aria-label": "step of the forward and backward pass" });
    this.scale = el("div", { class: "tl-scale", "aria-hidden": "true" });
    const track = el("div", { class: "tl-track" }, this.slider, this.scale);
    host.append(this.prev, track, this.next);
    this.prev.addEventListener("click", () => this.move(this.k - 1));
    this.next.addEventListener("click", () => this.move(this.k + 1));
    // "input": every position the thumb passes (drag, arrows, Home, End, Page Up/Down)
    this.slider.addEventListener("input", () => this.move(Number(this.slider.value)));
  }

  move(k) {
    const to = Math.max(0, Math.min(this.n, k));
    if (to !== this.k) this.onMove(to);
  }

  /** the Walk is at step k of `steps` */
  update(k, steps) {
    this.k = k;
    const n = steps.length;
    if (n !== this.n || this.steps !== steps) this.drawScale(steps);
    this.n = n;
    this.steps = steps;
    this.slider.max = String(n);
    this.slider.value = String(k);
    const cur = k > 0 ? steps[k - 1] : null;
    const what = cur ? `${cur.phase}: ${cur.s.head || cur.s.text}` : "before the first step";
    this.slider.setAttribute("aria-valuetext", `step ${k} of ${n}, ${what}`);
    const focused = document.activeElement;
    this.prev.disabled = k <= 0;
    this.next.disabled = k >= n;
    // at either end the pressed button hands the focus to the slider (a disabled button
    // keeps no focus ring)
    if ((focused === this.prev && this.prev.disabled) || (focused === this.next && this.next.disabled)) this.slider.focus();
  }

  /** under the slider, the stretches of the walk: forward, then each backward pass */
  drawScale(steps) {
    const parts = [], passes = steps.some(({ s }) => s.pass > 1);
    for (const { phase, s } of steps) {
      const name = phase === "forward" ? "forward" : passes ? `backward, pass ${s.pass}` : "backward";
      const last = parts[parts.length - 1];
      if (last && last.name === name) last.count += 1; else parts.push({ name, count: 1 });
    }
    this.scale.textContent = "";
    for (const p of parts) {
      const part = el("span", { class: "tl-part", text: p.name });
      part.style.flexGrow = String(p.count);
      this.scale.appendChild(part);
    }
  }
}

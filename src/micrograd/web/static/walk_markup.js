/* The Walk's markup: one copy per Walk on a page (dom.js's mount gives each part its id).
 * The presets, the teaching modes and the leaves are added by walk.js, the timeline by
 * walk_timeline.js (the "now" line: the step's sentence under it, where the side panel
 * is not beside the graph), the no-zero_grad conventions by walk_conventions.js; data-ctl names
 * the group of controls a lesson can hide (the Walk set-up's `hide`). */

export const WALK_MARKUP = `
  <section class="bar" aria-label="graph" data-ctl="graph">
    <label>preset
      <select data-role="preset"></select>
    </label>
    <form data-role="form" class="exprform">
      <label>expression <input data-role="expr" class="expr" type="text" spellcheck="false" autocomplete="off"
        placeholder="e.g. a = 2; b = -3; L = a*b + tanh(a)"></label>
      <button type="submit" data-role="go">draw</button>
    </form>
  </section>
  <pre data-role="error" class="error" role="alert" hidden></pre>
  <div data-role="said" class="notice" role="status" hidden></div>
  <form data-role="ask-values" class="free" hidden>
    <span>the expression uses these names without giving them a value:</span>
    <span data-role="ask-values-fields" class="leaves"></span>
    <button type="submit" data-role="ask-values-go">draw with these values</button>
  </form>

  <section class="bar controls" aria-label="steps and teaching modes">
    <button type="button" data-role="fwd" data-ctl="steps">step forward</button>
    <button type="button" data-role="bwd" data-ctl="steps">step backward</button>
    <button type="button" data-role="all" data-ctl="steps">run all</button>
    <button type="button" data-role="reset" data-ctl="steps">reset</button>
    <span class="counter" aria-live="polite"><span data-role="k">0</span> / <span data-role="n">0</span> steps</span>
    <span>phase: <b data-role="phase">idle</b></span>
    <span class="switches" data-role="modes" data-ctl="modes"></span>
  </section>
  <div data-role="timeline" data-ctl="steps" role="group" aria-label="timeline: every step of the forward and backward pass"></div>
  <div data-role="now" class="nowline" aria-hidden="true"></div>
  <p data-role="mode-lesson" class="modelesson" aria-live="polite"><span data-role="mode-text"></span>
    <button type="button" data-role="mode-offer" hidden></button></p>

  <div class="walkgrid">
    <div class="graphcol">
      <div data-role="graph" class="graphbox"></div>
      <form data-role="q" class="question" hidden>
        <div class="qhead">
          <span data-role="q-count"></span> <b data-role="q-title"></b>
          <span data-role="q-dots" class="qdots" aria-label="the questions"></span>
        </div>
        <label data-for="q-answer" data-role="q-text">question</label>
        <span class="qrow">
          <input data-role="q-answer" type="text" inputmode="decimal" autocomplete="off" placeholder="e.g. -4">
          <button type="submit" data-role="q-check">check</button>
          <button type="button" data-role="q-hint">hint</button>
          <button type="button" data-role="q-prev" aria-label="previous question">← previous</button>
          <button type="button" data-role="q-next" aria-label="next question">next →</button>
        </span>
        <span data-role="q-hinttext" class="qhint" hidden></span>
        <span data-role="q-out" class="qout" aria-live="polite"></span>
      </form>
    </div>
    <aside class="side">
      <p data-role="notebook" class="nbnote" hidden></p>
      <h2>this step</h2>
      <div data-role="step" class="stepbox" aria-live="polite"></div>
      <div data-role="edge" class="edgebox" aria-live="polite" hidden></div>
      <div data-role="notes" class="notes"></div>
      <h2 data-ctl="values">leaves</h2>
      <div data-role="leaves" class="leaves" data-ctl="values"></div>
      <h2 data-ctl="nudge">nudge check</h2>
      <div class="nudge" data-ctl="nudge">
        <label>leaf <select data-role="nudge-leaf"></select></label>
        <label>h <input data-role="nudge-h" type="number" value="0.0001" step="any"></label>
        <button type="button" data-role="nudge">nudge</button>
        <div data-role="nudge-out" class="nudgeout" aria-live="polite"></div>
      </div>
    </aside>
  </div>

  <section data-role="conventions" class="conventions" aria-label="two backward passes without zero_grad, side by side" hidden></section>

  <section class="order" data-labelledby="order-title" data-ctl="order">
    <h2 data-role="order-title">visit-order experiment</h2>
    <p>Choose the nodes of the graph (click, or Tab and Enter) or the buttons in the order the
      backward pass should visit them, then <b>run order</b>. Each visit does
      <code>grad[p] += grad[node] · local</code>.</p>
    <p data-role="order-lesson" class="lesson"></p>
    <button type="button" data-role="order-reused">try the reused inner node (b = a + a; c = b + b)</button>
    <div>place next: <span data-role="order-buttons" class="orderbuttons"></span></div>
    <div>visit order (first → last): <span data-role="order-list" class="orderlist"></span></div>
    <button type="button" data-role="order-run">run order</button>
    <button type="button" data-role="order-clear">clear</button>
    <button type="button" data-role="order-topo">fill reverse-topological order</button>
    <div data-role="order-result" class="result" aria-live="polite"></div>
  </section>

  <details class="teach" data-role="teach">
    <summary>teacher: a lesson link or a walk for your own page</summary>
    <p>Set the graph, its values, the mode and the step up, choose the questions and what the
      learner should not see, and share the link, or paste the element into a lesson page
      that loads the site's <code>embed.js</code>.</p>
    <div data-role="teach-q" class="hidelist"></div>
    <div data-role="teach-hide" class="hidelist"></div>
    <label class="chk"><input data-role="teach-step" type="checkbox" checked> open at the current step</label>
    <label class="fld wide">lesson link <input data-role="teach-url" type="text" readonly></label>
    <label class="fld wide">lesson element <input data-role="teach-embed" type="text" readonly></label>
  </details>
`;

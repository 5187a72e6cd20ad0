/* The Playground's markup: one copy per Playground on a page (dom.js's mount gives each
 * part its id). The set-up's fields are added by play_controls.js from the catalogue;
 * data-ctl names the group of controls a lesson link can hide. */

export const PLAY_MARKUP = `
  <div data-role="banner" class="banner" role="alert" hidden></div>
  <section class="bar controls" aria-label="training">
    <button type="button" data-role="play" aria-pressed="false">play</button>
    <button type="button" data-role="step">step</button>
    <button type="button" data-role="reset" title="new random weights (the init seed + 1), back to step 0">new weights</button>
    <span>epoch <b data-role="epoch">0</b></span>
    <span>step <b data-role="stepn">0</b></span>
    <span class="rate"><b data-role="rate">0</b> steps/s</span>
    <span class="rate" title="traced: micrograd.trace runs the network's scalar Value graph over the whole batch with NumPy (same numbers as the eager engine); lowered: the same program lowered by Python into primitive array instructions, run in JavaScript beside Python (the static site); eager: the Value graph, sample by sample">execution <b data-role="execution-name">·</b></span>
  </section>
  <section data-role="hyper" class="bar hyper" aria-label="hyperparameters"></section>
  <div class="playgrid">
    <aside class="side pdata" aria-label="data">
      <h3>data</h3>
      <div data-ctl="data">
        <div data-role="data-fields"></div>
        <button type="button" data-role="regen">new data (seed + 1)</button>
      </div>
      <h3>view</h3>
      <label class="chk"><input type="checkbox" data-role="showtest" checked> show test data</label>
      <label class="chk"><input type="checkbox" data-role="discrete"> discretize output</label>
      <label class="chk"><input type="checkbox" data-role="zerolines" checked> first-layer zero lines</label>
      <h3>click on the plot</h3>
      <label class="fld">a click <select data-role="click">
        <option value="inspect">follows it</option>
        <option value="add">adds one</option>
        <option value="remove">removes one</option></select></label>
      <label class="fld" data-role="addlabel-box">new point's label <select data-role="addlabel"></select></label>
      <label class="fld" data-role="addtarget-box" hidden>new point's target <input data-role="addtarget" type="number" step="0.1" min="-1" max="1" value="0.5"></label>
      <div class="ptform">
        <label>x1 <input data-role="px" type="number" step="0.1" value="0.5"></label>
        <label>x2 <input data-role="py" type="number" step="0.1" value="0.5"></label>
        <button type="button" data-role="pgo">do it at (x1, x2)</button>
      </div>
      <button type="button" data-role="undoedits" hidden>undo hand edits</button>
      <h3>your data</h3>
      <div class="pdata-io" data-ctl="data">
        <label class="fld csvfile">import a CSV file (x1,x2,label or x1,x2,target)
          <input type="file" data-role="csv-file" accept=".csv,text/csv,text/plain"></label>
        <div data-role="csv-error" class="csv-error" role="alert" hidden></div>
        <div class="csvbuttons">
          <button type="button" data-role="csv-export">export CSV</button>
          <button type="button" data-role="clear-all" title="take every point away and draw your own">clear all</button>
        </div>
        <p class="hint" data-role="data-note" aria-live="polite"></p>
        <a data-role="csv-link" hidden></a>
      </div>
    </aside>
    <div class="center" aria-label="network">
      <h3>network <small data-role="netsum"></small></h3>
      <div class="netbar" data-ctl="network" data-role="network-fields"></div>
      <span class="layerbuttons" data-role="layer-buttons">
        <button type="button" data-role="layer-minus" aria-label="remove the last hidden layer">−</button>
        <button type="button" data-role="layer-plus" aria-label="add a hidden layer">+</button>
      </span>
      <div data-role="net" class="net"></div>
      <div data-role="edit" class="edit" hidden>
        <label><span data-role="edit-name"></span> = <input data-role="edit-value" type="number" step="any"></label>
        <button type="button" data-role="edit-set">set</button>
        <button type="button" data-role="edit-close">close</button>
      </div>
      <p class="hint">Edge width = |weight|, colour = sign (blue +, orange −). Click (or focus and press Enter) a link or a neuron to edit its weight or bias. Each square is that neuron's output over the plane.</p>
      <p data-role="notebook" class="nbnote" hidden></p>
    </div>
    <div class="right" aria-label="output">
      <h3>output <small data-role="legend"></small></h3>
      <canvas data-role="boundary" class="boundary" width="400" height="400" role="img"
        aria-label="the network's output over the plane, with the data points; click to follow a point, add or remove one (or type x1, x2 under 'click on the plot')"></canvas>
      <!-- under the plot, never above it: a notice that comes and goes moves nothing a
           click aims at -->
      <div data-role="notice" class="notice" role="status" hidden></div>
      <p data-role="zl-note" class="hint zlnote" hidden></p>
      <div class="metrics">
        <div>train loss <b data-role="trloss">–</b> · acc <b data-role="tracc">–</b> <small data-role="tracc-n" class="count"></small></div>
        <div>test loss <b data-role="teloss">–</b> · acc <b data-role="teacc">–</b> <small data-role="teacc-n" class="count"></small></div>
      </div>
      <div data-ctl="curves">
        <h3>loss <small>(<span data-role="curves-how">hover</span> for exact values)</small></h3>
        <canvas data-role="curves" class="curves" width="400" height="160" aria-label="train and test loss per step"></canvas>
        <div data-role="hover" class="hover">&nbsp;</div>
      </div>
    </div>
  </div>

  <div class="inspectgrid">
  <section class="inspect" data-ctl="inspect" aria-label="one point's graph">
    <h3>one point through the network <small data-role="gsum">click a point of the plot (or a data point) to follow it</small></h3>
    <div class="bar" data-role="gbar" hidden>
      <button type="button" data-role="g-start">start</button>
      <button type="button" data-role="g-back">◀ step back</button>
      <button type="button" data-role="g-fwd">step ▶</button>
      <button type="button" data-role="g-all">all</button>
      <span data-role="g-pos" class="counter"></span>
      <button type="button" data-role="g-stop">stop following</button>
    </div>
    <div data-role="gbox" class="gbox" tabindex="0" aria-label="the computational graph of one point (scroll to pan)"></div>
  </section>

  <section class="ptable" data-ctl="params" aria-label="parameters">
    <h3>parameters <small>grad of the last step's loss; optimizer state; last update</small></h3>
    <div class="tablebox"><table data-role="params" class="params"><thead></thead><tbody></tbody></table></div>
  </section>
  </div>

  <details class="lesson" data-role="lesson">
    <summary>teacher: a lesson link that hides controls</summary>
    <p>Set the playground up, tick what the learner should not see, and share the link.</p>
    <div data-role="hide-list" class="hidelist"></div>
    <label class="fld wide">lesson link <input data-role="lesson-url" type="text" readonly></label>
  </details>
`;

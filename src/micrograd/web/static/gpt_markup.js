/* The GPT tab's markup: one copy per GPT component on a page (dom.js's mount gives each
 * part its id). Its numbers arrive from the Python side (gpt.js fills them in). */

export const GPT_MARKUP = `
  <div data-role="banner" class="banner" role="alert" hidden></div>
  <section class="bar gptbar" aria-label="training" data-ctl="train">
    <button type="button" data-role="train">Train</button>
    <button type="button" data-role="stop" disabled>Stop</button>
    <button type="button" data-role="new" title="a new run: the same seed's weights, back to step 0">New run</button>
    <span>step <b data-role="step">0</b> of <b data-role="steps">·</b></span>
    <span>loss <b data-role="lastloss">·</b></span>
    <span>mean of the last <b data-role="mean-of">0</b>: <b data-role="mean">·</b></span>
    <span class="rate"><b data-role="rate">·</b> steps/s</span>
    <span class="rate" title="how a step runs: eager, the Value graph of one name built and walked back; lowered, the model recorded once as a program that the page's JavaScript executor runs for every name">runner <b data-role="runner">·</b></span>
  </section>
  <p class="hint" data-role="about">microgpt (Karpathy's GPT in 200 lines) on micrograd's Value: each step feeds one name, letter by letter, and takes one Adam step.</p>
  <div class="gptgrid">
    <section class="gptcard" data-labelledby="loss-h" data-ctl="train">
      <h3 data-role="loss-h">loss per step: <span class="key each">each name's</span>, <span class="key mean">the mean of the last ones</span></h3>
      <svg data-role="curve" class="gptcurve" viewBox="0 0 600 240" role="img"
        aria-label="the loss of every step so far"></svg>
    </section>
    <section class="gptcard" data-labelledby="samples-h" data-ctl="sample">
      <h3 data-role="samples-h">samples</h3>
      <div class="bar">
        <button type="button" data-role="sample">Sample</button>
        <label class="gpttemp">temperature
          <input type="range" data-role="temp" min="0.1" max="2" step="0.1" value="0.5">
          <output data-role="temp-out">0.5</output></label>
      </div>
      <ol data-role="drawn" class="gptsamples" aria-live="polite"></ol>
      <p class="hint" data-role="samples-note">Sample draws names letter by letter from the model. A name marked <span class="gptnew">new</span> is not in the training list. Pick one to see its attention.</p>
    </section>
    <section class="gptcard gptatt" data-labelledby="att-h" data-ctl="attention">
      <h3 data-role="att-h">attention <small data-role="att-name-shown"></small></h3>
      <form class="bar" data-role="att-form">
        <label>name <input data-role="att-name" maxlength="15" size="12" autocomplete="off"
          placeholder="blank: a sampled one" spellcheck="false"></label>
        <button type="submit" data-role="att-go">Show attention</button>
      </form>
      <div data-role="heads" class="gptheads"></div>
      <p class="hint">Each head, a grid: a row is a position reading (the letter there), a column a position it may look at (itself and those before); the darker the cell, the more weight the head gives it.</p>
    </section>
    <section class="gptcard gptwalk" data-role="walk" aria-label="walk one position" data-ctl="walk"></section>
  </div>
`;

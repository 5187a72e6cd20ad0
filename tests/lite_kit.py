"""What the notebooks' browser tests share: a notebook of the static site opened through
its JupyterLite page, run from its first cell to its last, and its outputs compared with
the same notebook run by CPython's Jupyter kernel (tests/notebook_runner.py), cell by
cell.

Not a test module (no ``test_`` prefix): the browser tests import it.
"""

from __future__ import annotations

import math
import re

#: a number as Python prints it (an int, a float, a float in e-notation, inf and nan)
NUMBER = re.compile(r"-?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|-?\binf\b|\bnan\b")
#: how far two printed floats of the same place may be apart: Pyodide's libm (musl's)
#: and the machine's (glibc's) may round exp, tanh, sin... one ulp apart
REL = 1e-12
#: messages that differ between Python versions (the browser's is 3.14, the machine's
#: may be older): put in one wording on both sides. 3.12 names a math domain error's bad
#: input where 3.11 says "math domain error", and ends a RecursionError's message
#: earlier.
PYTHON_WORDS = ((re.compile(r"expected a (?:positive|nonnegative) input, got [^\s,)]+"),
                 "math domain error"),
                (re.compile(r"maximum recursion depth exceeded while calling a Python "
                            r"object"), "maximum recursion depth exceeded"))
#: outputs that name objects of one run (a widget's model id): compared by their keys
RUN_OWN = ("application/vnd.jupyter.widget-view+json",)

#: the page's notebook (window.jupyterapp: the site sets exposeAppInBrowser)
CURRENT = "window.jupyterapp.shell.currentWidget"

KERNEL_IDLE = """() => {
  const app = window.jupyterapp; const w = app && app.shell.currentWidget;
  const s = w && w.sessionContext && w.sessionContext.session;
  return !!(s && s.kernel && s.kernel.status === 'idle');
}"""

RAN = f"""() => {{
  const w = {CURRENT}; const cells = w.content.model.cells; let done = true;
  for (let i = 0; i < cells.length; i++) {{
    const c = cells.get(i);
    if (c.type !== 'code') continue;
    const outs = c.toJSON().outputs;
    if (outs.some(o => o.output_type === 'error')) return true;  // run all stops there
    if (c.executionCount === null || c.executionCount === undefined) done = false;
  }}
  return done && w.sessionContext.session.kernel.status === 'idle';
}}"""

OUTPUTS = f"""() => {{
  const cells = {CURRENT}.content.model.cells; const r = [];
  for (let i = 0; i < cells.length; i++) {{
    const c = cells.get(i);
    if (c.type === 'code') r.push(c.toJSON().outputs);
  }}
  return r;
}}"""

SET_SOURCE = f"""([index, source]) => {{
  {CURRENT}.content.model.cells.get(index).sharedModel.setSource(source);
}}"""


def open_notebook(page, site_url, name, timeout=240_000):
    """Open ``name`` in the site's one-notebook page; wait until its kernel is idle.
    Returns the seconds from the page's start to the kernel's first idle."""
    page.goto(f"{site_url}notebooks/notebooks/index.html?path={name}")
    page.wait_for_function(KERNEL_IDLE, timeout=timeout)
    return page.evaluate("performance.now() / 1000")


def run_all(page, edits=None, timeout=240_000):
    """Replace the sources of cells (``edits``: {cell index: source}), run every cell
    and wait for the last (or an error); the code cells' outputs, as nbformat's JSON."""
    for index, source in (edits or {}).items():
        page.evaluate(SET_SOURCE, [index, source])
    page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
    page.wait_for_function(RAN, timeout=timeout)
    return page.evaluate(OUTPUTS)


def cpython_outputs(nb):
    """The code cells' outputs of a notebook node run by notebook_runner."""
    return [[dict(o) for o in cell.get("outputs", [])]
            for cell in nb.cells if cell.cell_type == "code"]


def _text(value):
    return "".join(value) if isinstance(value, list) else value


def _place(token):
    """One unit of the last printed decimal place of a number's text."""
    mantissa = re.split(r"[eE]", token)[0]
    exponent = int(re.split(r"[eE]", token)[1]) if re.search(r"[eE]", token) else 0
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return 10.0 ** (exponent - decimals)


def same_numbers(a, b):
    """Whether two printed numbers agree: equal, or one unit of the last printed place
    or REL apart (a float rounded one ulp differently, then printed)."""
    if a == b:
        return True
    x, y = float(a), float(b)
    if math.isnan(x) or math.isnan(y) or math.isinf(x) or math.isinf(y):
        return False
    return abs(x - y) <= max(REL * max(abs(x), abs(y)), 1.0001 * min(_place(a), _place(b)))


def text_difference(a, b):
    """None when two texts agree (their numbers within the rounding bound, every other
    character the same, PYTHON_WORDS aside), else a line that says where they part."""
    a, b = _text(a), _text(b)
    for words, older in PYTHON_WORDS:
        a, b = words.sub(older, a), words.sub(older, b)
    if a == b:
        return None
    na, nb = NUMBER.findall(a), NUMBER.findall(b)
    if NUMBER.sub("#", a) != NUMBER.sub("#", b) or len(na) != len(nb):
        at = next((i for i, (x, y) in enumerate(zip(a, b)) if x != y), min(len(a), len(b)))
        near = slice(max(0, at - 60), at + 60)
        return f"text differs at {at}: {a[near]!r} vs {b[near]!r}"
    for x, y in zip(na, nb):
        if not same_numbers(x, y):
            return f"number {x} vs {y}"
    return None


def output_difference(mine, theirs):
    """None, or how one output of the browser (``mine``) and CPython's differ."""
    if mine["output_type"] != theirs["output_type"]:
        return f"{mine['output_type']} vs {theirs['output_type']}"
    if mine["output_type"] == "stream":
        if mine["name"] != theirs["name"]:
            return f"stream {mine['name']} vs {theirs['name']}"
        return text_difference(mine["text"], theirs["text"])
    if mine["output_type"] == "error":
        return f"an error: {mine.get('ename')}: {mine.get('evalue')}"
    data, other = mine.get("data", {}), theirs.get("data", {})
    if sorted(data) != sorted(other):
        return f"mimetypes {sorted(data)} vs {sorted(other)}"
    for mime in sorted(data):
        if mime in RUN_OWN:
            continue
        if isinstance(data[mime], (dict, list)) and not isinstance(data[mime], str):
            if data[mime] != other[mime]:
                return f"{mime} differs"
            continue
        why = text_difference(data[mime], other[mime])
        if why:
            return f"{mime}: {why}"
    return None


def merged(outputs):
    """A cell's outputs as the page shows them: consecutive stream outputs of one name
    joined (a kernel may flush a print in one piece or in two), and a result with no
    data left out (JupyterLite's kernel sends one for an object that displays itself,
    ``_ipython_display_``, where IPython sends none: the page shows nothing for it)."""
    out = []
    for o in outputs:
        if o["output_type"] == "execute_result" and not o.get("data"):
            continue
        if (o["output_type"] == "stream" and out and out[-1]["output_type"] == "stream"
                and out[-1]["name"] == o["name"]):
            out[-1] = dict(out[-1], text=_text(out[-1]["text"]) + _text(o["text"]))
        else:
            out.append(dict(o))
    return out


def differences(browser, cpython):
    """Every difference between the browser's cells' outputs and CPython's: [] when
    they agree, cell by cell."""
    found = []
    if len(browser) != len(cpython):
        return [f"{len(browser)} code cells vs {len(cpython)}"]
    for k, (mine, theirs) in enumerate(zip(browser, cpython)):
        mine, theirs = merged(mine), merged(theirs)
        if len(mine) != len(theirs):
            found.append(f"cell {k}: {len(mine)} outputs vs {len(theirs)}: "
                         f"{[o['output_type'] for o in mine]} vs "
                         f"{[o['output_type'] for o in theirs]}")
            continue
        for j, (x, y) in enumerate(zip(mine, theirs)):
            why = output_difference(x, y)
            if why:
                found.append(f"cell {k}, output {j}: {why}")
    return found

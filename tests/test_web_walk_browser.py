"""The Walk page in a real headless Chromium (Debian's, through playwright) against a real
``micrograd serve`` on 127.0.0.1 (started as tests/test_web_browser.py does). Every
number is read off the page and compared with micrograd's own engine run here
(``micrograd.expr`` + ``Value.backward()``), or with an independent recursive backward.
"""

import re
import subprocess
from urllib.parse import quote

import pytest

from browser_kit import ARTIFACTS, chromium, serve
from micrograd.expr import evaluate, leaves, parse
from micrograd.graph import local_derivatives
from micrograd.walk_setup import PRESETS

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def server():
    """``micrograd serve --port 0`` in a subprocess; yields the address it prints."""
    with serve() as address:
        yield address


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


@pytest.fixture
def page(browser, server):
    pg = browser.new_page(viewport={"width": 1400, "height": 900})
    errors, foreign = [], []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.on("request", lambda r: None if r.url.startswith(server) or r.url.startswith("data:")
          else foreign.append(r.url))
    yield pg
    pg.close()
    assert errors == [], errors
    assert foreign == [], f"the page fetched from outside the server: {foreign}"




def open_walk(page, server, hash_):
    page.goto(f"{server}#page=walk&{hash_}")
    page.wait_for_selector("body[data-ready='1']")
    page.wait_for_selector("#w-graph g.node")


def cell(page, name, what):
    """The number in a node's 'data'/'grad' cell, read from the drawn text."""
    text = page.locator(f"#w-graph g.node[data-name='{name}'] text.{what}").first.text_content()
    m = re.fullmatch(rf"{what} (\S+)", text.strip())
    assert m, text
    return float(m.group(1))


def counter(page):
    return page.inner_text("#w-k"), page.inner_text("#w-n")


def click_until_disabled(page, sel, limit=400):
    n = 0
    while page.is_enabled(sel):
        page.click(sel)
        n += 1
        assert n < limit
    return n


def engine(source, values=None):
    """The graph of ``source`` after ``backward()``: name -> Value."""
    prog = evaluate(source, values, override=True)
    prog.root.backward()
    return prog.names


# ---------------------------------------------------------------------------------------
# stepping, edges, leaves, order, errors, modes, nudge
# ---------------------------------------------------------------------------------------

ROOTS = {"sum_times": "f", "lecture": "L", "neuron": "o", "square": "f", "diamond": "d",
         "reused": "c"}


@pytest.mark.parametrize("preset", list(ROOTS))
def test_walk_preset_forward_and_backward(page, server, preset):
    root = ROOTS[preset]
    truth = engine(PRESETS[preset].expr)
    open_walk(page, server, f"preset={preset}")
    k, n = counter(page)
    assert k == "0" and int(n) > 0 and page.inner_text("#w-phase") == "idle"
    nfwd = click_until_disabled(page, "#w-fwd")
    assert page.inner_text("#w-phase") == "forward done" and counter(page) == (str(nfwd), n)
    assert cell(page, root, "data") == pytest.approx(truth[root].data, abs=1e-4)
    assert page.locator(f"g.node[data-name='{root}'] text.grad").text_content() == "grad ·"
    page.click("#w-bwd")  # the seed
    assert f"grad[{root}] = 1" in page.inner_text("#w-step")
    assert cell(page, root, "grad") == 1.0
    page.click("#w-bwd")  # the root's visit: its += lines, the root highlighted
    assert page.locator(f"g.node.current[data-name='{root}']").count() == 1
    step = page.inner_text("#w-step")
    assert step.startswith(f"visit {root} = ") and "+=" in step
    click_until_disabled(page, "#w-bwd")
    assert counter(page) == (n, n) and page.inner_text("#w-phase") == "done"
    for name, v in truth.items():
        if page.locator(f"g.node[data-name='{name}']").count():
            assert cell(page, name, "grad") == pytest.approx(v.grad, abs=1e-4), name
    page.click("#w-reset")
    assert counter(page) == ("0", n)


def test_walk_edge_shows_local_derivative(page, server):
    open_walk(page, server, "preset=sum_times")
    e = page.get_attribute("g.node[data-name='e']", "data-node")
    f = page.get_attribute("g.node[data-name='f']", "data-node")
    page.locator(f"g.edge[data-src='{e}'][data-dst='{f}']").dispatch_event("click")
    text = page.inner_text("#w-edge")
    assert "local derivative ∂f/∂e" in text and text.split("= ")[1].split()[0] == "10"
    assert "multiplication swaps" in text
    c = page.get_attribute("g.node[data-name='c']", "data-node")
    page.locator(f"g.edge[data-src='{c}'][data-dst='{f}']").dispatch_event("click")
    assert "∂f/∂c (input 2 of 2) = -1" in page.inner_text("#w-edge")


def test_walk_leaf_edit_recomputes_on_the_server(page, server):
    open_walk(page, server, "preset=lecture")
    page.fill("#w-leaf-a", "3")
    page.press("#w-leaf-a", "Enter")
    page.wait_for_function("document.querySelector('#w-graph g.node[data-name=\"a\"] "
                           "text.data').textContent === 'data 3.0000'")
    page.click("#w-all")
    truth = engine(PRESETS["lecture"].expr, {"a": 3.0})
    assert cell(page, "L", "data") == truth["L"].data
    assert cell(page, "b", "grad") == pytest.approx(truth["b"].grad)
    assert "v=a%3A3" in page.url or "v=a:3" in page.url


def test_walk_visit_order_experiment_on_the_diamond(page, server):
    open_walk(page, server, "preset=diamond")
    for name in "adbc":
        page.click(f"#w-order-buttons button:text-is('{name}')")
    assert page.inner_text("#w-order-list") == "a → d → b → c"
    page.click("#w-order-run")
    page.wait_for_selector("#w-order-result .bad")
    result = page.inner_text("#w-order-result")
    assert "d -> b -> a is lost" in result and "d -> c -> a is lost" in result
    assert cell(page, "a", "grad") == 0.0
    page.click("#w-order-clear")
    for name in "dbca":  # clicking the drawn nodes places them too
        page.locator(f"#w-graph g.node[data-name='{name}']").dispatch_event("click")
    page.click("#w-order-run")
    page.wait_for_selector("#w-order-result .good")
    assert "grad[a] = 15" in page.inner_text("#w-order-result")
    assert cell(page, "a", "grad") == engine(PRESETS["diamond"].expr)["a"].grad


def test_walk_invalid_expression_shows_its_error(page, server):
    open_walk(page, server, "preset=square")
    page.fill("#w-expr", "a = 2; b = a +* 3")
    page.click("#w-go")
    page.wait_for_selector("#w-error:not([hidden])")
    err = page.inner_text("#w-error")
    assert "unexpected '*'" in err and "^" in err
    page.fill("#w-expr", "x = 0.5; y = x * x * x")
    page.click("#w-go")
    page.wait_for_selector("#w-error", state="hidden")
    page.click("#w-all")
    assert cell(page, "x", "grad") == pytest.approx(0.75)


def test_walk_teaching_mode_and_nudge(page, server):
    open_walk(page, server, "preset=square")
    page.select_option("#w-mode", "assign")
    page.wait_for_function("location.hash.includes('mode=assign')")
    page.click("#w-all")
    assert cell(page, "a", "grad") == 3.0
    assert "grad[a] = 3, correct 6" in page.inner_text("#w-notes")
    page.select_option("#w-preset", "neuron")
    page.wait_for_selector("#w-graph g.node[data-name='w1']")
    page.select_option("#w-nudge-leaf", "w1")
    page.click("#w-nudge")
    page.wait_for_function("document.querySelector('#w-nudge-out').textContent.length > 0")
    out = page.inner_text("#w-nudge-out")
    slope = float(re.search(r"/ 2h = (\S+),", out).group(1))
    assert slope == pytest.approx(engine(PRESETS["neuron"].expr)["w1"].grad, abs=1e-4)
    assert out.endswith("(agree)")


# ---------------------------------------------------------------------------------------
# graphs readable at any size: zoom, pan, overview, folding, names, free variables
# ---------------------------------------------------------------------------------------

#: a 50-input neuron: 200 nodes, far wider than a screen
BIG_INPUTS = 50
BIG_EXPR = "tanh(" + " + ".join(f"x{i}*w{i}" for i in range(BIG_INPUTS)) + ")"
BIG_VALUES = {**{f"x{i}": (i % 7) / 7 - 0.5 for i in range(BIG_INPUTS)},
              **{f"w{i}": ((3 * i) % 11) / 11 - 0.5 for i in range(BIG_INPUTS)}}


def big_hash():
    v = ",".join(f"{k}:{x!r}" for k, x in BIG_VALUES.items())
    return f"expr={quote(BIG_EXPR)}&v={quote(v)}"


def zoom(page):
    return float(page.get_attribute("#w-graph", "data-zoom"))


def text_px(page, selector):
    """The rendered height of a graph text's font, in screen pixels."""
    return page.evaluate("""(sel) => {
        const t = document.querySelector(sel);
        return parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a; }""", selector)


def test_zoom_by_buttons_wheel_and_keys_and_text_stays_readable(page, server):
    open_walk(page, server, big_hash())
    page.wait_for_selector("#w-graph g.node[data-name='w49']")
    assert page.locator("#w-graph g.node").count() == 200
    k0 = zoom(page)
    assert text_px(page, "#w-graph g.node[data-name='x0'] text.data") >= 11 - 1e-9
    assert page.is_visible("#w-graph .gv-mini")  # an overview past a screenful
    page.click("#w-graph button[aria-label='zoom in']")
    assert zoom(page) == pytest.approx(k0 * 1.25)
    page.click("#w-graph button[aria-label='zoom out']")
    assert zoom(page) == pytest.approx(k0)
    box = page.locator("#w-graph .gv-port").bounding_box()
    page.mouse.move(box["x"] + 200, box["y"] + 100)
    page.mouse.wheel(0, -300)
    page.wait_for_function(f"Number(document.querySelector('#w-graph').dataset.zoom) > {k0}")
    page.focus("#w-graph .gv-port")
    page.keyboard.press("0")  # fit: the whole 16,000-px graph on screen
    kfit = zoom(page)
    assert kfit < k0 and not page.is_visible("#w-graph .gv-mini")
    page.keyboard.press("+")
    assert zoom(page) == pytest.approx(kfit * 1.25)
    page.keyboard.press("1")
    assert zoom(page) == pytest.approx(1.0)
    page.click("#w-graph button[aria-label='fit the whole graph']")
    assert zoom(page) == pytest.approx(kfit)


def test_drag_and_arrow_keys_pan(page, server):
    open_walk(page, server, big_hash())
    node = "#w-graph g.node[data-name='x0']"
    x0 = page.locator(node).bounding_box()["x"]
    box = page.locator("#w-graph .gv-port").bounding_box()
    page.mouse.move(box["x"] + box["width"] - 50, box["y"] + 40)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] - 250, box["y"] + 40, steps=5)
    page.mouse.up()
    assert page.locator(node).bounding_box()["x"] == pytest.approx(x0 - 200, abs=1)
    page.focus("#w-graph .gv-port")
    page.keyboard.press("ArrowLeft")  # look further left: the drawing moves right
    assert page.locator(node).bounding_box()["x"] == pytest.approx(x0 - 140, abs=1)
    assert page.inner_text("#w-order-list") == "(empty)"  # a drag is no click on a node


def test_every_node_the_steps_name_is_named_and_free_variables_get_fields(page, server):
    open_walk(page, server, "preset=square")
    page.fill("#w-expr", "tanh(x1*w1 + x2*w2 + b)")
    page.click("#w-go")
    page.wait_for_selector("#w-ask-values:not([hidden])")
    fields = page.locator("#w-ask-values-fields input")
    assert [fields.nth(i).get_attribute("data-free") for i in range(fields.count())] == [
        "x1", "w1", "x2", "w2", "b"]
    values = {"x1": 2.0, "w1": -3.0, "x2": 0.0, "w2": 1.0, "b": 6.8813735870195432}
    for name, x in values.items():
        page.fill(f"#w-free-{name}", repr(x))
    page.click("#w-ask-values-go")
    page.wait_for_selector("#w-ask-values", state="hidden")
    page.wait_for_selector("#w-graph g.node[data-name='n9']")
    page.click("#w-all")
    truth = engine("tanh(x1*w1 + x2*w2 + b)", values)
    for name in values:
        assert cell(page, name, "grad") == pytest.approx(truth[name].grad, abs=1e-4)
    # every node the steps and the order buttons name carries that name in the drawing
    named = page.eval_on_selector_all("#w-order-buttons button", "bs => bs.map(b => b.textContent)")
    for name in named:
        label = page.locator(f"#w-graph g.node[data-name='{name}'] text.lbl")
        assert label.count() == 1 and label.text_content() == name
    page.click("#w-reset")
    for _ in range(3):
        page.click("#w-fwd")
    first = page.inner_text("#w-step").split()[1]  # "forward: n2 = x1*w1 = ..."
    assert page.locator(f"#w-graph g.node[data-name='{first}'] text.lbl").count() == 1


def test_a_neuron_folds_into_one_box_and_opens_again(page, server):
    open_walk(page, server, "preset=neuron")
    page.click("#w-all")
    page.click("#w-graph button[data-fold]")
    page.wait_for_selector("#w-graph g.fold")
    fold = page.locator("#w-graph g.fold")
    assert fold.count() == 1 and "neuron o" in fold.text_content()
    assert "grad 1.0000" in fold.text_content() and "data 0.7071" in fold.text_content()
    assert not page.is_visible("#w-graph g.node[data-name='x1w1']")
    page.focus("#w-graph g.fold")
    page.keyboard.press("Enter")  # opens again
    assert page.locator("#w-graph g.fold").count() == 0
    assert page.is_visible("#w-graph g.node[data-name='x1w1']")
    assert page.get_attribute("#w-graph button[data-fold]", "aria-pressed") == "false"
    # two neurons sharing their inputs: the inputs stay, their edges run dashed to the box
    source = ("x1 = 1; x2 = 2; a1 = 0.5; a2 = -1; b1 = 0.1; c1 = 2; c2 = 0.3; d1 = -0.2; "
              "h1 = tanh(x1*a1 + x2*a2 + b1); h2 = tanh(x1*c1 + x2*c2 + d1); y = h1 + h2")
    open_walk(page, server, f"expr={quote(source)}")
    page.wait_for_selector("#w-graph g.node[data-name='h2']")  # the new graph, not the last
    page.click("#w-graph button[data-fold='g0']")
    page.wait_for_selector("#w-graph path.foldedge")  # drawn after the click (a loaded
    assert page.locator("#w-graph path.foldedge").count() == 2  # machine may lag)
    assert page.is_visible("#w-graph g.node[data-name='x1']")
    assert not page.is_visible("#w-graph g.node[data-name='a1']")
    assert page.is_visible("#w-graph g.node[data-name='c1']")  # the other neuron stays open
    port = page.locator("#w-graph .gv-port").bounding_box()
    box = page.locator("#w-graph g.fold").bounding_box()  # brought on screen
    assert port["x"] <= box["x"] and box["x"] + box["width"] <= port["x"] + port["width"]
    assert "neuron h1" in page.text_content("#w-graph g.fold")


# ---------------------------------------------------------------------------------------
# questions
# ---------------------------------------------------------------------------------------


def test_question_under_the_graph_is_checked_with_a_hint(page, server):
    open_walk(page, server, "preset=sum_times&questions=grad")
    assert page.inner_text("#w-q-text") == "With a = 2, b = -3, c = 10, what is df/da?"
    page.fill("#w-q-answer", "-10")
    page.click("#w-q-check")
    page.wait_for_selector("#w-q-out.bad")
    assert "sign" in page.inner_text("#w-q-out")
    truth = engine(PRESETS["sum_times"].expr)["a"].grad
    page.fill("#w-q-answer", repr(truth))
    page.press("#w-q-answer", "Enter")
    page.wait_for_selector("#w-q-out.good")
    assert page.inner_text("#w-q-out") == f"right: df/da = {truth:.4f}"
    page.fill("#w-q-answer", "ten")
    page.click("#w-q-check")
    assert "type a number" in page.inner_text("#w-q-out")


def test_a_teachers_lesson_link_asks_its_own_question(page, server):
    source = "x = 0.5; y = x*x; z = exp(y) * x"
    open_walk(page, server, f"expr={quote(source)}&ask=x&of=y&questions=grad")
    assert page.inner_text("#w-q-text") == "With x = 0.5, what is dy/dx?"
    truth = engine("x = 0.5; y = x*x")["x"].grad
    page.fill("#w-q-answer", repr(truth))
    page.click("#w-q-check")
    page.wait_for_selector("#w-q-out.good")
    page.fill("#w-q-answer", repr(engine(source)["x"].grad))  # dz/dx is not the question
    page.click("#w-q-check")
    page.wait_for_selector("#w-q-out.bad")


# ---------------------------------------------------------------------------------------
# the reused-node lesson
# ---------------------------------------------------------------------------------------


def recursive_backward(source):
    """A recursive backward without a topological sort, on the Values themselves
    (the engine's own local derivatives): push, then recurse into every input."""
    root = parse(source)
    grads = {id(root): 1.0}

    def visit(v):
        for p, d in zip(v._prev, local_derivatives(v)):
            grads[id(p)] = grads.get(id(p), 0.0) + grads[id(v)] * d
        for p in v._prev:
            visit(p)

    visit(root)
    return {name: grads.get(id(v), 0.0) for name, v in leaves(root).items()}


def test_the_reused_preset_shows_the_recursive_mistake(page, server):
    open_walk(page, server, "preset=diamond&recursive=1")
    lesson = page.inner_text("#w-mode-lesson")
    assert "Nothing goes wrong here because no inner node" in lesson  # why the diamond survives
    page.click("#w-all")
    assert cell(page, "a", "grad") == engine(PRESETS["diamond"].expr)["a"].grad
    page.click("#w-order-reused")  # the visit-order experiment offers the preset too
    # the reused preset drawn: a b, and no d (the diamond has a b too)
    page.wait_for_function("document.querySelector(\"#w-graph g.node[data-name='b']\") && "
                           "!document.querySelector(\"#w-graph g.node[data-name='d']\")")
    assert page.input_value("#w-preset") == "reused" and page.input_value("#w-mode") == "recursive"
    assert "inner node b is reached by 2 paths" in page.inner_text("#w-mode-lesson")
    page.click("#w-all")
    wrong = recursive_backward(PRESETS["reused"].expr)
    truth = engine(PRESETS["reused"].expr)
    assert cell(page, "a", "grad") == wrong["a"] != truth["a"].grad
    assert f"correct {truth['a'].grad:g}" in page.inner_text("#w-notes")
    # the visit-order experiment: visiting a before b's second user is done loses it
    page.select_option("#w-mode", "correct")
    page.wait_for_function("!location.hash.includes('mode=recursive')")
    for name in "bca":
        page.click(f"#w-order-buttons button:text-is('{name}')")
    page.click("#w-order-run")
    page.wait_for_selector("#w-order-result .bad")
    assert "lost" in page.inner_text("#w-order-result")


# ---------------------------------------------------------------------------------------
# keyboard, phone, labels, contrast, history
# ---------------------------------------------------------------------------------------


def test_keyboard_walk_with_visible_focus(page, server):
    open_walk(page, server, "preset=diamond")
    page.focus("#w-fwd")
    page.keyboard.press("Enter")
    assert counter(page)[0] == "1"
    # Tab from the graph's own stop reaches its nodes and edges, each drawn with a focus ring
    page.focus("#w-graph .gv-port")
    seen = []
    for _ in range(30):
        page.keyboard.press("Tab")
        info = page.evaluate("""() => { const a = document.activeElement;
            const g = a.closest('[data-node],[data-edge]');
            if (!g) return null;
            const shape = g.dataset.node ? g.querySelector('.record rect')
                                         : g.querySelector('path.vis');
            return [g.dataset.node ? 'node' : 'edge', g.dataset.name || g.dataset.edge,
                    getComputedStyle(shape).strokeWidth]; }""")
        if info is None:
            break
        seen.append(info)
    kinds = {k for k, _, _ in seen}
    # the diamond: a, 1, b, 3, c, d and six edges, every one of them a Tab stop
    assert kinds == {"node", "edge"} and len(seen) == 6 + 6
    assert all(float(w.rstrip("px")) >= 4 for _, _, w in seen)  # the focus ring
    page.focus("#w-graph g.node[data-name='d']")
    page.keyboard.press("Enter")  # a node: placed in the visit order
    page.focus("#w-graph g.node[data-name='b']")
    page.keyboard.press(" ")
    assert page.inner_text("#w-order-list") == "d → b"
    edge = page.locator("#w-graph g.edge").first
    edge.focus()
    page.keyboard.press("Enter")  # an edge: its local derivative
    assert "local derivative" in page.inner_text("#w-edge")
    # the buttons and fields of the page show a focus outline too
    page.focus("#w-bwd")
    page.keyboard.press("Tab")
    outline = page.evaluate("getComputedStyle(document.activeElement).outlineWidth")
    assert float(outline.rstrip("px")) >= 2


@pytest.mark.parametrize("preset", ["neuron", "lecture", "reused"])
def test_phone_size_without_sideways_scrolling(browser, server, preset):
    pg = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True,
                          has_touch=True)
    try:
        pg.goto(f"{server}#page=walk&preset={preset}")
        pg.wait_for_selector("#w-graph g.node")
        pg.click("#w-all")
        pg.click("#w-order-topo")
        pg.click("#w-order-run")
        pg.wait_for_selector("#w-order-result div")
        width = pg.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, width
        for sel in ["#w-fwd", "#w-q-answer", "#w-graph button[aria-label='zoom in']",
                    "#w-order-run", "#w-nudge"]:
            b = pg.locator(sel).bounding_box()
            assert b["x"] >= 0 and b["x"] + b["width"] <= 390, sel
        if preset == "neuron":
            ARTIFACTS.mkdir(exist_ok=True)
            pg.screenshot(path=str(ARTIFACTS / "walk-phone.png"))
    finally:
        pg.close()


def test_every_control_has_a_label(page, server):
    open_walk(page, server, "preset=neuron")
    missing = page.evaluate("""() => [...document.querySelectorAll(
        '#page-walk input, #page-walk select, #page-walk button, #page-walk [tabindex]')]
        .filter(el => el.offsetParent !== null || el.closest('svg'))
        .filter(el => !((el.labels && el.labels.length && el.labels[0].textContent.trim())
                        || el.getAttribute('aria-label') || el.textContent.trim()))
        .map(el => el.outerHTML.slice(0, 80))""")
    assert missing == []


def _luminance(rgb):
    def lin(c):
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = rgb
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)


def contrast(fg, bg):
    hi, lo = sorted([_luminance(fg), _luminance(bg)], reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_text_contrast_is_at_least_4_5(page, server):
    open_walk(page, server, "preset=neuron")
    page.click("#w-fwd")
    colours = page.evaluate("""() => {
        const rgb = (s) => s.match(/[\\d.]+/g).slice(0, 3).map(Number);
        const bgOf = (el) => { for (; el; el = el.parentElement) {
            const c = getComputedStyle(el).backgroundColor;
            if (c && !c.endsWith(', 0)') && c !== 'transparent') return rgb(c); }
            return [255, 255, 255]; };
        const out = [];
        for (const el of document.querySelectorAll('#page-walk *')) {
            if (el.closest('svg') || !el.offsetParent) continue;
            const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
            if (own && !el.disabled) out.push([el.tagName + '#' + el.id + '.' + el.className,
                rgb(getComputedStyle(el).color), bgOf(el)]);
        }
        const input = document.querySelector('#w-q-answer');
        out.push(['placeholder', rgb(getComputedStyle(input, '::placeholder').color), bgOf(input)]);
        for (const sel of ['text.dim', 'text.data', 'text.lbl']) {
            const t = document.querySelector('#w-graph ' + sel);
            const rect = t.closest('g.record').querySelector('rect');
            out.push([sel, rgb(getComputedStyle(t).fill), rgb(getComputedStyle(rect).fill)]);
        }
        return out; }""")
    low = [(what, round(contrast(fg, bg), 2)) for what, fg, bg in colours
           if contrast(fg, bg) < 4.5]
    assert low == [] and len(colours) > 20


def wait_for_diamond(page):
    """The diamond drawn (the lecture's graph has a node d too, but also an L)."""
    page.wait_for_function("document.querySelector(\"#w-graph g.node[data-name='d']\") && "
                           "!document.querySelector(\"#w-graph g.node[data-name='L']\")")


def test_back_and_forward_move_between_states(page, server):
    open_walk(page, server, "preset=lecture")
    page.select_option("#w-preset", "diamond")
    wait_for_diamond(page)
    page.select_option("#w-mode", "recursive")
    page.wait_for_function("location.hash.includes('mode=recursive')")
    page.fill("#w-leaf-a", "5")
    page.press("#w-leaf-a", "Enter")
    page.wait_for_function("location.hash.includes('v=a%3A5')")
    page.go_back()
    page.wait_for_function("!location.hash.includes('v=a%3A5')")
    page.wait_for_function("document.querySelector('#w-graph g.node[data-name=\"a\"] "
                           "text.data').textContent === 'data 2.0000'")
    assert page.input_value("#w-mode") == "recursive"
    page.go_back()
    page.wait_for_function("!location.hash.includes('mode=recursive')")
    # the page follows the URL once it has redrawn (a loaded machine can lag behind)
    page.wait_for_function("document.querySelector('#w-preset').value === 'diamond' && "
                           "document.querySelector('#w-mode').value === 'correct'")
    assert page.input_value("#w-mode") == "correct" and page.input_value("#w-preset") == "diamond"
    page.go_back()
    page.wait_for_selector("#w-graph g.node[data-name='L']")
    assert page.input_value("#w-preset") == "lecture" and page.url.startswith(server)
    page.go_forward()
    wait_for_diamond(page)
    assert page.input_value("#w-preset") == "diamond"
    page.click("#tab-play")
    page.wait_for_function("location.hash.includes('page=play')")
    page.go_back()
    page.wait_for_function("!document.querySelector('#page-walk').hidden")
    assert page.url.startswith(server)


# ---------------------------------------------------------------------------------------
# speed
# ---------------------------------------------------------------------------------------


def test_a_200_node_graph_is_laid_out_and_drawn_and_timed(page, server):
    """From the request to the painted frame: the server parses, walks and lays out the
    graph, the page draws it. The figure (target: under 300 ms) is printed and written to
    test-artifacts/walk-speed.txt with the load at the time; it is reported, not asserted,
    since this 2-core machine is shared (speed is measured, not a timed test)."""
    open_walk(page, server, "preset=square")
    runs = []
    for _ in range(7):
        runs.append(page.evaluate("""async ([expr, values]) => {
            const t0 = performance.now();
            const walk = document.querySelector("#page-walk").walk;
            const doc = await walk.client.call("walk", { expr, values });
            const t1 = performance.now();
            await walk.load({ expr, values }, false);  // the page's own path, drawn
            const t2 = performance.now();
            await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
            const t3 = performance.now();
            return [t1 - t0, t3 - t1, t3 - t2, doc.graph.nodes.length]; }""",
            [BIG_EXPR, BIG_VALUES]))
    assert page.locator("#w-graph g.node").count() == 200 and runs[0][3] == 200
    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    server_ms = sorted(r[0] for r in runs)
    total = sorted(r[1] for r in runs)  # request + layout + drawing + first paint
    mid = len(runs) // 2
    line = (f"200-node graph, request to painted frame: best {total[0]:.0f} ms, median "
            f"{total[mid]:.0f} ms (server alone: best {server_ms[0]:.0f}, median "
            f"{server_ms[mid]:.0f} ms); runs {[round(t) for t in total]}; {load}")
    print("\n" + line)
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "walk-speed.txt").write_text(line + "\n")
    assert all(t > 0 for t in total), line


def test_a_mode_switched_while_a_preset_loads_is_kept(page, server):
    """The preset's answer comes last (held back here): the later request, the diamond
    in the recursive mode, is what the page shows, with no error and no stale values."""
    open_walk(page, server, "preset=lecture")
    page.evaluate("""() => {
        const walk = document.querySelector('#page-walk').walk, real = walk.client;
        let first = true;
        walk.client = { farewell: real.farewell, call(name, request) {
            const late = first && name === 'walk' && request.preset === 'diamond';
            if (late) first = false;
            const wait = new Promise((r) => setTimeout(r, late ? 1500 : 0));
            return wait.then(() => real.call(name, request)); } };
    }""")
    page.select_option("#w-preset", "diamond")
    page.select_option("#w-mode", "recursive")
    wait_for_diamond(page)
    page.wait_for_timeout(2000)  # the held-back answer has come, and was set aside
    assert page.input_value("#w-mode") == "recursive" and page.is_hidden("#w-error")
    assert "mode=recursive" in page.url and "preset=diamond" in page.url
    assert "no inner node is used twice" in page.inner_text("#w-mode-lesson")
    page.click("#w-all")
    assert cell(page, "a", "grad") == engine(PRESETS["diamond"].expr)["a"].grad

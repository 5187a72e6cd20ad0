"""The Walk page in a real headless Chromium (Debian's, through playwright) against a real
``micrograd serve`` on 127.0.0.1 (started as tests/test_web_browser.py does). Every
number is read off the page and compared with micrograd's own engine run here
(``micrograd.expr`` + ``Value.backward()``), or with an independent recursive backward.
"""

import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from micrograd.expr import evaluate
from micrograd.web.walkview import PRESETS

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="module")
def server():
    """``micrograd serve --port 0`` in a subprocess; yields the address it prints."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src") + os.pathsep
               + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-m", "micrograd", "serve", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env, cwd=ROOT)
    first = []
    reader = threading.Thread(target=lambda: first.append(proc.stdout.readline()))
    reader.start()
    reader.join(30)
    try:
        line = first[0] if first else ""
        m = re.search(r"http://127\.0\.0\.1:\d+/", line)
        if not m:
            proc.kill()
            raise RuntimeError(f"micrograd serve did not print its address: {line!r} "
                               f"{proc.stderr.read()!r}")
        yield m.group(0)
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:  # pragma: no cover
            proc.kill()
            proc.wait()
        proc.stdout.close()
        proc.stderr.close()


@pytest.fixture(scope="module")
def browser():
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


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
    truth = engine(PRESETS[preset].source)
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
    truth = engine(PRESETS["lecture"].source, {"a": 3.0})
    assert cell(page, "L", "data") == truth["L"].data
    assert cell(page, "b", "grad") == pytest.approx(truth["b"].grad)
    assert "v=a%3A3" in page.url or "v=a:3" in page.url


def test_walk_visit_order_experiment_on_the_diamond(page, server):
    open_walk(page, server, "preset=diamond")
    for name in "adbc":
        page.click(f"#o-buttons button:text-is('{name}')")
    assert page.inner_text("#o-order") == "a → d → b → c"
    page.click("#o-run")
    page.wait_for_selector("#o-result .bad")
    result = page.inner_text("#o-result")
    assert "d -> b -> a is lost" in result and "d -> c -> a is lost" in result
    assert cell(page, "a", "grad") == 0.0
    page.click("#o-clear")
    for name in "dbca":  # clicking the drawn nodes places them too
        page.locator(f"#w-graph g.node[data-name='{name}']").dispatch_event("click")
    page.click("#o-run")
    page.wait_for_selector("#o-result .good")
    assert "grad[a] = 15" in page.inner_text("#o-result")
    assert cell(page, "a", "grad") == engine(PRESETS["diamond"].source)["a"].grad


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
    page.check("#w-assign")
    page.wait_for_function("location.hash.includes('assign=1')")
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
    assert slope == pytest.approx(engine(PRESETS["neuron"].source)["w1"].grad, abs=1e-4)
    assert out.endswith("(ok)")

"""The page in a real headless Chromium (Debian's, driven by Python playwright), against
a real ``micrograd serve`` started on a free port. Every number is read off the page.

Screenshots of both pages go to test-artifacts/ (gitignored). These tests never skip:
a missing chromium fails them.
"""

import os
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from micrograd.expr import parse

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


def open_walk(page, server, preset):
    page.goto(f"{server}#page=walk&preset={preset}")
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


def click_until_disabled(page, sel, limit=200):
    n = 0
    while page.is_enabled(sel):
        page.click(sel)
        n += 1
        assert n < limit
    return n


# ---------------------------------------------------------------------------------------
# the walk
# ---------------------------------------------------------------------------------------

SEEDS = [  # preset, root, root data, expected grads (seeds 002/003)
    ("sum_times", "f", -10.0, {"a": 10.0, "b": 10.0, "c": -1.0}),
    ("lecture", "L", -8.0, {"a": 6.0, "b": -4.0, "c": -2.0, "f": 4.0}),
    ("neuron", "o", 0.7071, {"w1": 1.0, "w2": 0.0, "x2": 0.5, "b": 0.5}),
    ("square", "f", 9.0, {"a": 6.0}),
    ("diamond", "d", 18.0, {"a": 15.0, "b": 6.0, "c": 3.0}),
]


@pytest.mark.parametrize("preset, root, value, grads", SEEDS, ids=[s[0] for s in SEEDS])
def test_walk_preset_forward_and_backward(page, server, preset, root, value, grads):
    open_walk(page, server, preset)
    k, n = counter(page)
    assert k == "0" and int(n) > 0
    assert page.inner_text("#w-phase") == "idle"
    nfwd = click_until_disabled(page, "#w-fwd")
    assert page.inner_text("#w-phase") == "forward done"
    assert counter(page) == (str(nfwd), n)
    assert cell(page, root, "data") == pytest.approx(value, abs=1e-4)
    for name in grads:
        assert page.locator(f"g.node[data-name='{name}'] text.grad").text_content() == "grad ·"
    page.click("#w-bwd")  # the seed
    assert "grad[" + root + "] = 1" in page.inner_text("#w-step")
    assert cell(page, root, "grad") == 1.0
    page.click("#w-bwd")  # the root's visit: its += lines, the root highlighted
    assert page.locator(f"g.node.current[data-name='{root}']").count() == 1
    assert f"+= grad[{root}] · local" in page.inner_text("#w-step")
    if preset == "lecture":
        page.screenshot(path=str(ARTIFACTS / "walk.png"), full_page=True)
    click_until_disabled(page, "#w-bwd")
    assert counter(page) == (n, n) and page.inner_text("#w-phase") == "done"
    for name, g in grads.items():
        assert cell(page, name, "grad") == pytest.approx(g, abs=1e-4), name
    page.click("#w-reset")
    assert counter(page) == ("0", n)


def test_walk_edge_shows_local_derivative(page, server):
    open_walk(page, server, "sum_times")
    e = page.get_attribute("g.node[data-name='e']", "data-node")
    f = page.get_attribute("g.node[data-name='f']", "data-node")
    page.locator(f"g.edge[data-src='{e}'][data-dst='{f}']").dispatch_event("click")
    text = page.inner_text("#w-edge")
    assert "local derivative ∂f/∂e" in text and text.split("=")[1].split()[0] == "10"
    c = page.get_attribute("g.node[data-name='c']", "data-node")
    page.locator(f"g.edge[data-src='{c}'][data-dst='{f}']").dispatch_event("click")
    assert "∂f/∂c (input 2 of 2) = -1" in page.inner_text("#w-edge")


def test_walk_leaf_edit_recomputes_on_the_server(page, server):
    open_walk(page, server, "lecture")
    page.fill("#w-leaf-a", "3")
    page.press("#w-leaf-a", "Enter")
    page.wait_for_function("document.querySelector('#w-graph g.node[data-name=\"a\"]')"
                           ".dataset.data === '3'")
    page.click("#w-all")
    root = parse("a = 3; b = -3; c = 10; f = -2; e = a * b; d = e + c; L = d * f")
    root.backward()
    assert cell(page, "L", "data") == root.data
    assert cell(page, "b", "grad") == pytest.approx(-6.0)
    assert "v=a%3A3" in page.url or "v=a:3" in page.url


def test_walk_visit_order_experiment_on_the_diamond(page, server):
    open_walk(page, server, "diamond")
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
    assert cell(page, "a", "grad") == 15.0


def test_walk_invalid_expression_shows_its_error(page, server):
    open_walk(page, server, "square")
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
    open_walk(page, server, "square")
    page.check("#w-assign")
    page.wait_for_function("document.querySelector('#w-graph g.node[data-name=\"a\"]') "
                           "&& location.hash.includes('assign=1')")
    page.click("#w-all")
    assert cell(page, "a", "grad") == 3.0
    assert "grad[a] = 3, correct 6" in page.inner_text("#w-notes")
    page.select_option("#w-preset", "neuron")
    page.wait_for_selector("#w-graph g.node[data-name='w1']")
    page.select_option("#w-nudge-leaf", "w1")
    page.click("#w-nudge")
    page.wait_for_function("document.querySelector('#w-nudge-out').textContent.length > 0")
    out = page.inner_text("#w-nudge-out")
    slope = float(re.search(r"/ 2h = (\S+)", out).group(1))
    assert slope == pytest.approx(1.0, abs=1e-4) and "(agree)" in out


def test_walk_state_in_the_url(page, server):
    page.goto(f"{server}#page=walk&preset=diamond&v=a:3")
    page.wait_for_selector("#w-graph g.node")
    assert page.get_attribute("g.node[data-name='a']", "data-data") == "3"


# The playground's browser tests are in tests/test_web_play_browser.py.

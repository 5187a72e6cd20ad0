"""The static site's Playground in a real headless Chromium: ``micrograd site`` served by
``python -m http.server`` on 127.0.0.1 (nothing else running), every request to another
host aborted and counted. Python runs in the site's worker (Pyodide) and the session
trains through its lowered program on the JavaScript runner beside it: the circle
(``disk``) trained to 90% test accuracy, the live one-point graph and the parameter
table shown, and a link that reopens the same set-up.
"""

import sys
import subprocess

import pytest

from browser_kit import ARTIFACTS, ROOT, StaticServer, chromium, guard

pytestmark = pytest.mark.browser

DISK = ("page=play&ds=disk&noise=0&n=200&ratio=0.5&seed=1&hidden=8,8&act=tanh"
        "&loss=mse&opt=sgd&lr=0.1&batch=0&iseed=0&pt=0.3:0.2")
PLAY = ("Object.defineProperty(window, 'Play', "
        "{get: () => document.querySelector('#page-play')?.playground})")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site") / "out"
    proc = subprocess.run([sys.executable, "-m", "micrograd", "site", str(out)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    server = StaticServer(out, tmp_path_factory.mktemp("log") / "server.log")
    yield server.url
    server.stop()


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


@pytest.fixture
def context(browser):
    ctx = browser.new_context(viewport={"width": 1280, "height": 1400})
    seen = guard(ctx)
    ctx.add_init_script(PLAY)
    ctx.errors = []
    yield ctx, seen
    ctx.close()
    assert seen["foreign"] == [], seen["foreign"]


def open_play(ctx, url):
    page = ctx.new_page()
    page.on("pageerror", lambda e: ctx.errors.append(str(e)))
    page.goto(url)
    page.wait_for_function("window.Play && Play.state && Play.accepted", timeout=120_000)
    return page


def test_the_static_playground_trains_the_circle_on_the_executor(context, site):
    ctx, seen = context
    page = open_play(ctx, f"{site}#{DISK}")
    assert page.evaluate("Play.state.execution") == "lowered"
    assert page.evaluate("Play.state.engine") == "runner"  # the field's old name and value
    assert page.inner_text("#p-execution-name") == "lowered"
    page.wait_for_function("Play.pointGraph.graph !== null", timeout=60_000)
    page.click("#p-play")
    page.wait_for_function("Number(document.querySelector('#p-teacc').dataset.value) >= 0.9"
                           " && Play.state.step >= 50", timeout=120_000)
    if page.evaluate("Play.playing"):
        page.click("#p-play")
    page.wait_for_function("!Play.inflight")
    s = page.evaluate("JSON.parse(JSON.stringify(Play.state))")
    assert s["metrics"]["test_acc"] >= 0.9
    # the live one-point graph carries the last step's numbers, drawn
    assert page.evaluate("Play.pointGraph.graph.values") == s["graph"]["values"]
    assert page.locator("#p-gbox svg, #p-gbox canvas").count() >= 1
    # the parameter table: a row per parameter, the values the state holds
    rows = page.locator("#p-params tbody tr")
    assert rows.count() == s["nparams"] == len(s["params"]["rows"])
    first = rows.first.inner_text()
    assert s["params"]["rows"][0][0] in first
    assert f'{s["params"]["rows"][0][1]:.6f}'.rstrip("0")[:6] in first
    page.screenshot(path=str(ARTIFACTS / "site-playground.png"), full_page=True)
    # a link reopens the same set-up: the same points, network and weights at step 0
    link = page.url
    assert "ds=disk" in link and "hidden=8%2C8" in link
    other = open_play(ctx, link)
    assert other.evaluate("JSON.stringify(Play.points)") == page.evaluate(
        "JSON.stringify(Play.points)")
    assert other.evaluate("Play.state.network.sizes.join(',')") == "2,8,8,1"
    assert other.evaluate("Play.state.config") == s["config"]
    assert other.evaluate("Play.state.step") == 0
    assert ctx.errors == [], ctx.errors
    assert any(u.endswith("executor_port.js") for u in seen["local"])

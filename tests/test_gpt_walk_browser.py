"""The GPT tab's walk on one position in a real headless Chromium, served (``micrograd
serve``) and as the static site (Python in the page's worker): a name's position walked,
its blocks drawn as boxes with the numbers the answer holds, the MLP unfolded into its
parts and one neuron into its nodes, with data and grad; at 1280x800 and 390x844
(screenshots in test-artifacts/), and once with the keyboard only."""

import pytest

from browser_kit import ARTIFACTS, StaticServer, build_site, chromium, serve

pytestmark = pytest.mark.browser

GPT = "document.querySelector('#page-gpt')?.gpt"
WALK = "document.querySelector('#page-gpt .gpt-walk')?.gptWalk"
IN = "#page-gpt .gpt-walk"
SIZES = {"desktop": {"width": 1280, "height": 800}, "phone": {"width": 390, "height": 844}}


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


@pytest.fixture(scope="module")
def served():
    with serve() as address:
        yield address


@pytest.fixture(scope="module")
def static_site(tmp_path_factory):
    out, _ = build_site(tmp_path_factory.mktemp("site"))
    server = StaticServer(out, tmp_path_factory.mktemp("log") / "server.log")
    yield server.url
    server.stop()


@pytest.fixture(params=["served", "static"])
def site(request):
    return request.param, request.getfixturevalue(
        "served" if request.param == "served" else "static_site")


def open_gpt(browser, url, size):
    page = browser.new_page(viewport=SIZES[size])
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.goto(f"{url}#page=gpt")
    page.wait_for_function(f"{GPT} && {GPT}.sid && {WALK}", timeout=180_000)
    return page


def answer(page, what):
    return page.evaluate(f"JSON.parse(JSON.stringify({WALK}.{what}))")


def check_folded(page):
    out = answer(page, "folded")
    assert (out["name"], out["position"]) == ("emma", 2)
    boxes = page.locator(f"{IN} [data-role=boxes] .gwbox")
    assert boxes.count() == len(out["boxes"]) <= out["cap"]
    # a block is a button; an input from outside a summary card
    assert page.locator(f"{IN} [data-role=boxes] button.gwbox").count() == 15
    mlp = next(b for b in out["boxes"] if b["name"] == "layer0.mlp")
    text = page.inner_text(f"{IN} .gwbox[data-box={mlp['id']}]")
    assert "layer0.mlp" in text and f"{mlp['nodes']:,} nodes" in text
    assert "data " in text and "grad " in text and "‖grad‖" in text
    assert page.locator(f"{IN} .gwedges path").count() == len(out["edges"])
    assert "folded into 15 blocks" in page.inner_text(f"{IN} [data-role=note]")
    return mlp


def check_unfolded(page, mlp):
    page.click(f"{IN} .gwbox[data-box={mlp['id']}]")
    page.wait_for_function(f"{WALK}.detail && {WALK}.detail.kind === 'parts'", timeout=120_000)
    parts = answer(page, "detail")
    assert len(parts["boxes"]) == 80 <= parts["cap"]
    assert page.locator(f"{IN} [data-role=parts] .gwbox").count() == 80
    assert "folded one level down into 80 parts" in page.inner_text(f"{IN} [data-role=detail-note]")
    page.click(f"{IN} [data-role=parts] .gwbox[data-box=p70]")
    page.wait_for_function(f"{WALK}.detail && {WALK}.detail.kind === 'nodes'", timeout=120_000)
    nodes = answer(page, "detail")
    assert nodes["title"] == "layer0.mlp" and nodes["path"] == [70]
    drawn = page.locator(f"{IN} [data-role=graph] g.node")
    assert drawn.count() == nodes["nodes"] == len(nodes["graph"]["nodes"])
    last = nodes["graph"]["nodes"][-1]
    texts = page.locator(f"{IN} [data-role=graph] g.node[data-node={last['id']}] .record text")
    # its record: mlp[6] | data ... | grad ...
    assert texts.evaluate_all("ts => ts.map((t) => t.textContent)") == last["cells"]
    assert last["cells"][0] == "mlp[6]" and last["cells"][2].startswith("grad ")
    assert "mlp[6]" in page.inner_text(f"{IN} [data-role=trail]")


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_walk_a_position_and_unfold_a_block(browser, site, size):
    kind, url = site
    page = open_gpt(browser, url, size)
    page.fill(f"{IN} [data-role=name]", "emma")
    page.fill(f"{IN} [data-role=pos]", "2")
    page.click(f"{IN} [data-role=go]")
    page.wait_for_function(f"{WALK}.folded", timeout=120_000)
    mlp = check_folded(page)
    assert page.evaluate("document.documentElement.scrollWidth") <= SIZES[size]["width"]
    page.locator(f"{IN}").screenshot(path=str(ARTIFACTS / f"gpt-walk-{kind}-{size}.png"))
    check_unfolded(page, mlp)
    assert page.evaluate("document.documentElement.scrollWidth") <= SIZES[size]["width"]
    page.locator(f"{IN} [data-role=detail]").screenshot(
        path=str(ARTIFACTS / f"gpt-walk-{kind}-{size}-unfolded.png"))
    # another position, from the row of the name's positions
    page.click(f"{IN} [data-role=tokens] button >> nth=4")
    page.wait_for_function(f"{WALK}.folded.position === 4", timeout=120_000)
    assert answer(page, "folded")["target"] == "<BOS>"
    assert page.is_hidden(f"{IN} [data-role=detail]")
    assert page.errors == [], page.errors
    page.close()


def test_keyboard_only(browser, served):
    page = open_gpt(browser, served, "desktop")
    page.focus(f"{IN} [data-role=name]")
    page.keyboard.type("anna")
    page.keyboard.press("Enter")  # the form: the last position of "anna"
    page.wait_for_function(f"{WALK}.folded", timeout=120_000)
    assert answer(page, "folded")["position"] == 4

    def tab_to(selector, most=80):
        for _ in range(most):
            page.keyboard.press("Tab")
            if page.evaluate(f"document.activeElement === document.querySelector('{selector}')"):
                assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") \
                    != "none"
                return
        raise AssertionError(f"Tab never reached {selector}")

    tab_to(f"{IN} .gwbox[data-box=b6]")  # layer0.head0
    page.keyboard.press("Enter")
    page.wait_for_function(f"{WALK}.detail && {WALK}.detail.kind === 'nodes'", timeout=120_000)
    # the focus moved to what opened, its heading
    assert page.evaluate("document.activeElement.dataset.role") == "detail-h"
    assert "layer0.head0" in page.inner_text(f"{IN} [data-role=detail-h]")
    tab_to(f"{IN} [data-role=trail] button")
    page.keyboard.press("Enter")
    assert page.is_hidden(f"{IN} [data-role=detail]")
    tab_to(f"{IN} .gwbox[data-box=b3]")  # layer0.attn.q: over the cap, in parts
    page.keyboard.press("Enter")
    page.wait_for_function(f"{WALK}.detail && {WALK}.detail.kind === 'parts'", timeout=120_000)
    tab_to(f"{IN} [data-role=parts] .gwbox[data-box=p5]")
    page.keyboard.press("Enter")
    page.wait_for_function(f"{WALK}.detail && {WALK}.detail.path[0] === 5", timeout=120_000)
    assert answer(page, "detail")["kind"] == "nodes"
    page.screenshot(path=str(ARTIFACTS / "gpt-walk-served-keyboard.png"), full_page=True)
    assert page.errors == [], page.errors
    page.close()

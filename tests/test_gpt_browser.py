"""The GPT tab in a real headless Chromium, served (``micrograd serve``) and as the
static site (``micrograd site``, Python in the page's worker): a few steps trained with
Train and Stop, the loss curve, steps/s and the runner shown, names sampled (new ones
marked), every head's attention drawn with the letters on its axes; at 1280x800 and at
390x844 (screenshots in test-artifacts/), and once with the keyboard only. The steps a
second the page shows go to test-artifacts/gpt-steps-per-second.txt."""

import pytest

from browser_kit import ARTIFACTS, StaticServer, build_site, chromium, serve

pytestmark = pytest.mark.browser

GPT = "document.querySelector('#page-gpt')?.gpt"
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
    # a teacher's trained weights, beside the site (what `micrograd gpt --save` writes)
    from micrograd.gpt.train import Run
    from micrograd.gpt.weights import save

    trained = Run.start(seed=7, steps=20)
    for _ in range(5):
        trained.step()
    save(trained.model, trained.tokenizer, out / "lesson-gpt.json", meta={"steps": 5})
    server = StaticServer(out, tmp_path_factory.mktemp("log") / "server.log")
    yield server.url
    server.stop()


@pytest.fixture(params=["served", "static"])
def site(request):
    return request.param, request.getfixturevalue(
        "served" if request.param == "served" else "static_site")


def open_gpt(browser, url, size):
    page = browser.new_page(viewport=SIZES[size])
    page.errors, page.foreign = [], []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.on("request", lambda r: None if r.url.startswith(("http://127.0.0.1", "data:",
                                                           "blob:"))
            else page.foreign.append(r.url))
    page.goto(f"{url}#page=gpt")
    page.wait_for_function(f"{GPT} && {GPT}.run && {GPT}.sid", timeout=180_000)
    return page


def train_a_few(page, steps=6):
    page.click("#g-train")
    page.wait_for_function(f"{GPT}.run.step >= {steps}", timeout=180_000)
    page.click("#g-stop")
    page.wait_for_function(f"!{GPT}.training", timeout=60_000)
    assert page.is_enabled("#g-train") and not page.is_enabled("#g-stop")


def check_drawn(page, runner="eager"):
    run = page.evaluate(f"JSON.parse(JSON.stringify({GPT}.run))")
    losses = page.evaluate(f"{GPT}.losses")
    assert len(losses) == run["step"] and [r[0] for r in losses] == list(range(1, run["step"] + 1))
    assert page.inner_text("#g-step") == str(run["step"])
    assert page.inner_text("#g-runner") == runner
    assert float(page.inner_text("#g-rate")) > 0
    assert page.locator("#g-curve polyline.each").count() == 1
    # the samples, each marked new or in the list as the answer says
    page.click("#g-sample")
    page.wait_for_function(f"{GPT}.attention && {GPT}.samples.length === 10", timeout=120_000)
    samples = page.evaluate(f"{GPT}.samples")
    marks = page.locator("#g-drawn li span").all_inner_texts()
    assert marks == ["in the list" if s["in_list"] else "new" for s in samples]
    # the attention: four heads, a grid of len(tokens)^2 cells, letters on both axes
    seen = page.evaluate(f"JSON.parse(JSON.stringify({GPT}.attention))")
    assert seen["name"] == samples[0]["name"]
    n = len(seen["tokens"])
    assert page.locator("#g-heads figure").count() == 4
    first = page.locator("#g-heads svg").first
    assert first.locator("rect").count() == n * n
    assert first.locator("text.tok").evaluate_all("ts => ts.map((t) => t.textContent)") == [
        t for tok in seen["tokens"] for t in [("·" if tok == "<BOS>" else tok)] * 2]
    return page.inner_text("#g-rate")


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_train_sample_and_see_the_attention(browser, site, size):
    kind, url = site
    page = open_gpt(browser, url, size)
    door = page.evaluate("document.querySelector('meta[name=micrograd-door]')?.content ?? 'http'")
    assert door == ("pyodide" if kind == "static" else "http")  # Python in the page's worker
    train_a_few(page)
    runner = "lowered" if kind == "static" else "eager"  # the static site's: gpt_runners.py
    rate = check_drawn(page, runner)
    # a name typed in: its own attention
    page.fill("#g-att-name", "emma")
    page.click("#g-att-go")
    page.wait_for_function(f"{GPT}.attention.name === 'emma'", timeout=60_000)
    assert page.locator("#g-heads svg").first.locator("rect").count() == 25
    assert "a training name" in page.inner_text("#g-att-name-shown")
    # nothing wider than the screen
    assert page.evaluate("document.documentElement.scrollWidth") <= SIZES[size]["width"]
    page.screenshot(path=str(ARTIFACTS / f"gpt-{kind}-{size}.png"), full_page=True)
    with open(ARTIFACTS / "gpt-steps-per-second.txt", "a") as f:
        f.write(f"{kind} {size}: {rate} steps/s (runner {runner})\n")
    assert page.errors == [] and page.foreign == [], (page.errors, page.foreign)
    page.close()


def test_keyboard_only(browser, served):
    page = open_gpt(browser, served, "desktop")
    page.focus("#tab-gpt")

    def tab_to(selector, most=40):
        for _ in range(most):
            page.keyboard.press("Tab")
            if page.evaluate(f"document.activeElement === document.querySelector('{selector}')"):
                # the focus is seen: an outline drawn around it
                assert page.evaluate("getComputedStyle(document.activeElement).outlineStyle") \
                    != "none"
                return
        raise AssertionError(f"Tab never reached {selector}")

    tab_to("#g-train")
    page.keyboard.press("Enter")
    page.wait_for_function(f"{GPT}.run.step >= 3", timeout=120_000)
    # training moved the focus to Stop
    assert page.evaluate("document.activeElement.id") == "g-stop"
    page.keyboard.press("Enter")
    page.wait_for_function(f"!{GPT}.training", timeout=60_000)
    assert page.evaluate("document.activeElement.id") == "g-train"
    tab_to("#g-sample")
    page.keyboard.press("Enter")
    page.wait_for_function(f"{GPT}.attention && {GPT}.samples.length", timeout=60_000)
    tab_to("#g-temp")
    page.keyboard.press("ArrowRight")
    assert page.inner_text("#g-temp-out") == "0.6"
    tab_to("#g-drawn li:nth-child(2) button")
    second = page.evaluate(f"{GPT}.samples[1].name")
    page.keyboard.press("Enter")
    page.wait_for_function(f"{GPT}.attention.name === {second!r}", timeout=60_000)
    tab_to("#g-att-name")
    page.keyboard.type("anna")
    page.keyboard.press("Enter")
    page.wait_for_function(f"{GPT}.attention.name === 'anna'", timeout=60_000)
    page.screenshot(path=str(ARTIFACTS / "gpt-served-keyboard.png"), full_page=True)
    assert page.errors == [], page.errors
    page.close()


def test_the_static_site_trains_on_the_lowered_program(browser, static_site):
    """The static site's runner is the lowered program (web/gpt_runners.py): its losses
    are the eager run's (CPython, the same seed) to 1e-9; the steps a second, as the page
    shows them and over the wall time of the training (requests, turns and drawing
    included), go to test-artifacts/ (no speed asserted)."""
    from micrograd.gpt.train import Run

    page = open_gpt(browser, static_site, "desktop")
    page.click("#g-train")
    page.wait_for_function(f"{GPT}.run.step >= 10", timeout=180_000)
    clock = f"[performance.now(), {GPT}.run.step]"
    t1, s1 = page.evaluate(clock)
    page.wait_for_function(f"{GPT}.run.step >= {s1 + 150}", timeout=180_000)
    t2, s2 = page.evaluate(clock)
    page.click("#g-stop")
    page.wait_for_function(f"!{GPT}.training", timeout=60_000)
    assert page.inner_text("#g-runner") == "lowered"
    shown = page.inner_text("#g-rate")
    losses = page.evaluate(f"{GPT}.losses")
    eager = Run.start(seed=42, steps=1000)
    want = [eager.step() for _ in range(min(len(losses), 200))]
    got = [loss for _, loss in losses[:len(want)]]
    assert all(abs(g - w) <= 1e-9 * abs(w) for g, w in zip(got, want)), (got, want)
    page.screenshot(path=str(ARTIFACTS / "gpt-static-lowered-desktop.png"), full_page=True)
    with open(ARTIFACTS / "gpt-steps-per-second.txt", "a") as f:
        f.write(f"static lowered: {shown} steps/s shown, {(s2 - s1) / (t2 - t1) * 1000:.1f} "
                f"steps/s over the wall time of steps {s1}-{s2}\n")
    assert page.errors == [] and page.foreign == [], (page.errors, page.foreign)
    page.close()


def test_new_run_with_every_gpt_place_taken_keeps_the_tab_going(browser, served):
    """Every GPT place taken (the page's run and others'): New run gives the tab's own
    place to the new run (the old one deleted first), never leaves the tab without one;
    a name past the context says how many letters were left out."""
    import json
    import urllib.error
    import urllib.request

    def post(path, body=None, method="POST"):
        req = urllib.request.Request(served + path.lstrip("/"), method=method,
                                     data=json.dumps(body or {}).encode(),
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as err:
            return err.code, json.loads(err.read())

    page = open_gpt(browser, served, "desktop")
    old = page.evaluate(f"{GPT}.sid")
    others = []
    while True:  # the places left, taken
        status, made = post("/api/gpt", {"steps": 5})
        if status != 200:
            assert status == 503
            break
        others.append(made["sid"])
        assert len(others) <= 3
    try:
        page.click("#g-new")
        page.wait_for_function(f"{GPT}.sid && {GPT}.sid !== {old!r} && !{GPT}.making",
                               timeout=60_000)
        assert page.is_enabled("#g-train") and page.is_hidden("#g-banner")
        assert post(f"/api/gpt/{old}/step", {"steps": 1})[0] == 404  # none orphaned
        train_a_few(page, 3)
        # a long name sampled or typed: the heading says what was left out
        page.evaluate(f"{GPT}.look('abcdefghijklmnopqrstu')")
        page.wait_for_function(f"{GPT}.attention && {GPT}.attention.left_out === 6",
                               timeout=60_000)
        assert "first 15 letters; 6 left out" in page.inner_text("#g-att-name-shown")
    finally:
        for sid in others:
            post(f"/api/gpt/{sid}", method="DELETE")
    assert page.errors == [], page.errors
    page.close()


@pytest.mark.parametrize("size", ["desktop", "phone"])
def test_a_lesson_link_with_a_weights_file_beside_the_site(browser, static_site, size):
    """#page=gpt&weights=lesson-gpt.json&hide=train,walk&temp=0.8&name=emma: the run
    starts from the file beside the site, the hidden groups are hidden, the temperature
    and the name are the link's; a link naming another site's file is refused in words
    and the run is the seed's."""
    page = browser.new_page(viewport=SIZES[size])
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.goto(f"{static_site}#page=gpt&weights=lesson-gpt.json&hide=train,walk&temp=0.8"
              "&name=emma")
    page.wait_for_function(f"{GPT} && {GPT}.sid && {GPT}.attention", timeout=180_000)
    assert page.evaluate(f"{GPT}.run.weights_file") == "lesson-gpt.json"
    assert "lesson-gpt.json" in page.inner_text("#g-about")
    assert page.is_hidden("#g-train") and page.is_hidden("#g-walk")
    assert page.is_visible("#g-sample") and page.is_visible("#g-heads")
    assert page.input_value("#g-temp") == "0.8"
    assert page.evaluate(f"{GPT}.attention.name") == "emma"
    page.click("#g-sample")
    page.wait_for_function(f"{GPT}.samples.length === 10", timeout=120_000)
    assert "temperature 0.8" in page.inner_text("#g-samples-h")
    assert page.evaluate("document.documentElement.scrollWidth") <= SIZES[size]["width"]
    page.screenshot(path=str(ARTIFACTS / f"gpt-lesson-static-{size}.png"), full_page=True)
    assert page.errors == [], page.errors
    page.close()


@pytest.mark.parametrize("file", ["https://example.com/gpt.json", "//example.com/g.json",
                                  "missing.json"])
def test_a_weights_file_that_fails_is_said_and_the_run_is_the_seeds(browser, static_site,
                                                                     file):
    page = browser.new_page(viewport=SIZES["desktop"])
    page.goto(f"{static_site}#page=gpt&weights={file}")
    page.wait_for_function(f"{GPT} && {GPT}.sid && !{GPT}.making", timeout=180_000)
    page.wait_for_function("!document.querySelector('#g-banner').hidden", timeout=30_000)
    said = page.inner_text("#g-banner")
    assert file in said and "the seed's weights instead" in said, said
    assert page.evaluate(f"{GPT}.run.weights_file") is None
    assert page.is_enabled("#g-train")
    page.close()

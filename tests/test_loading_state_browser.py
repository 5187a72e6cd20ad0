"""The page while Python starts (issue 31), in the static site (``micrograd site`` served
by ``python -m http.server``, every other host blocked) in a real headless Chromium: the
first visit takes seconds, and meanwhile the page shows its frame: the tabs, the chosen
tab selected, that page's controls drawn greyed and inert, and a card that says Python
is starting and how far it got. When Python is ready the card goes, the page is the
component's, and nothing has moved: above the Playground's plot, and anywhere on the
Walk's first screen (its timeline, the mode's sentence, the graph, the question, the side
panel, drawn or kept free while Python starts).

One browser, one site, two page loads (1280x800 and a touch phone, 390x844), each opening
the Walk by its link and going to the Playground while Python starts.
"""

import time

import pytest

from browser_kit import ARTIFACTS, StaticServer, build_site, chromium, guard

pytestmark = pytest.mark.browser

#: what the page shows, read in one go while it starts and once ready
LOOK = """() => {
  const box = (sel) => { const e = document.querySelector(sel);
                         if (!e) return null; const r = e.getBoundingClientRect();
                         return [r.left, r.top, r.width]; };
  const play = document.getElementById('page-play'), loading = document.getElementById('loading');
  if (!document.body || !play || !loading) return { starting: false, ready: false };
  const page = document.querySelector('main.page:not([hidden])');
  return {
    starting: document.body.dataset.starting === '1',
    ready: document.body.dataset.ready === '1',
    loading: loading.hidden ? '' : loading.textContent,
    progress: !loading.hidden && !!loading.querySelector('progress'),
    selected: [...document.querySelectorAll('#tabs button')]
      .filter((b) => b.getAttribute('aria-selected') === 'true').map((b) => b.dataset.page),
    shown: ['walk', 'play', 'mistakes'].filter((p) => !document.getElementById('page-' + p).hidden),
    inert: page && page.inert, greyed: page && page.classList.contains('starting'),
    buttons: page ? page.querySelectorAll('button').length : 0,
    opacity: page ? Number(getComputedStyle(page).opacity) : 1,
    tabs: box('#tabs'), controls: box('#page-play .controls'),
    plot: box('#page-play canvas.boundary'),
    walk: Object.fromEntries(WALK.map((sel) => [sel, box('#page-walk ' + sel)])),
  };
}""".replace("WALK", str([".bar", ".controls", "[data-role=timeline]", ".modelesson",
                           ".graphbox", ".question", ".side", ".order"]))


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    top = tmp_path_factory.mktemp("site")
    out, _ = build_site(top)
    server = StaticServer(top, tmp_path_factory.mktemp("log") / "server.log")
    yield server.url + "course/micrograd/"
    server.stop()


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def watch(page, url):
    """Open `url` (the Walk); what the page showed while it started (each look: three of
    the Walk, then, the Playground's tab pressed, the Playground's) and once ready."""
    page.goto(url, wait_until="commit")
    looks, started, width = [], time.monotonic(), page.viewport_size["width"]
    while True:
        look = page.evaluate(LOOK)
        if look["ready"]:
            return looks, look
        if look["starting"]:
            looks.append(look)
            if len(looks) in (3, 6):
                name = "walk" if len(looks) == 3 else "play"
                page.screenshot(path=str(ARTIFACTS / f"loading-{name}-{width}.png"))
            if len(looks) == 3:
                page.click("#tab-play")
        assert time.monotonic() - started < 120, "the page never got ready"
        page.wait_for_timeout(100)


@pytest.mark.parametrize("phone", [False, True], ids=["1280x800", "390x844"])
def test_the_frame_while_python_starts(browser, site, phone):
    kind = (dict(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True,
                 device_scale_factor=2) if phone else dict(viewport={"width": 1280, "height": 800}))
    ctx = browser.new_context(**kind)
    seen = guard(ctx)
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    looks, ready = watch(page, site + "#page=walk&preset=lecture&hidden=4,2")
    # a first visit takes seconds: the frame was seen, and said what was going on
    walk, looks = looks[:3], looks[3:]
    assert len(walk) == 3 and len(looks) >= 3, looks
    for name, seen_there in (("walk", walk), ("play", looks)):
        for look in seen_there:
            assert look["selected"] == [name] and look["shown"] == [name], look
            assert look["inert"] and look["greyed"] and look["opacity"] < 0.6, look
            assert look["buttons"] >= 5, look  # the controls, drawn (play, step, ...)
    said = [look["loading"] for look in walk + looks if look["loading"]]
    assert said and all(s.startswith("Starting Python in this page") for s in said), said
    assert any("loading Python" in s for s in said), said
    assert all(look["progress"] for look in walk + looks if look["loading"])
    # ready: the card gone, the page the component's, nothing above the plot moved
    page.wait_for_function("document.querySelector('#page-play').playground.state")
    ready = page.evaluate(LOOK)
    assert not ready["starting"] and ready["loading"] == "" and not ready["inert"]
    assert not ready["greyed"] and ready["opacity"] == 1
    assert ready["selected"] == ["play"]
    first = looks[0]
    assert ready["tabs"] == first["tabs"] and ready["controls"] == first["controls"]
    assert abs(ready["plot"][1] - first["plot"][1]) <= 2, (first["plot"], ready["plot"])
    page.screenshot(path=str(ARTIFACTS / f"loaded-play-{page.viewport_size['width']}.png"))
    # the Walk: what its frame drew or kept free on the first screen, or what ends up
    # there, is within 3 px of where the other had it (the question, hidden while
    # Python starts, comes into its room)
    page.click("#tab-walk")
    page.wait_for_function("document.querySelectorAll('#page-walk g.node').length > 0 &&"
                           " document.querySelector('#page-walk .modelesson').innerText")
    page.wait_for_timeout(500)  # the Walk's own fitting is done
    ready, height = page.evaluate(LOOK)["walk"], page.viewport_size["height"]
    framed = walk[0]["walk"]
    on_screen = [sel for sel, box in ready.items()
                 if min(box[1], framed[sel][1]) < height and framed[sel][2]]
    assert {".bar", "[data-role=timeline]", ".graphbox"} <= set(on_screen), ready
    for sel in on_screen:
        was, now = framed[sel], ready[sel]
        assert max(abs(a - b) for a, b in zip(was, now)) <= 3, (sel, was, now)
    page.screenshot(path=str(ARTIFACTS / f"loaded-walk-{page.viewport_size['width']}.png"))
    assert errors == []
    assert seen["foreign"] == []
    ctx.close()

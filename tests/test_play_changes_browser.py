"""What a change of one Playground field implies, in a real headless Chromium, through
both doors (``micrograd serve``, and the static site's worker): the set-ups the page ends
with after the data set, the number of classes and the loss are changed with points
added by hand, removed, and of one's own.

The rules themselves are tested one by one in tests/test_experiment_changes.py; here, the
page applies what they answer, and ends where it always has. Screenshots at desktop and
phone size go to test-artifacts/ (gitignored). These tests never skip.
"""

import json
import subprocess
import sys
import time

import pytest
from browser_kit import ROOT, StaticServer, guard
from test_web_play_browser import (ARTIFACTS, PLAY, browser,  # noqa: F401
                                   srv)  # browser, srv: the fixtures

pytestmark = pytest.mark.browser
# ruff: noqa: F811  (the fixtures browser and srv, imported, are the tests' arguments)

#: the circle with two points added by hand (classes +1 and -1) and one removed
EDITED = ("page=play&ds=circle&noise=0.1&n=60&ratio=0.5&seed=2&hidden=4&act=tanh&loss=mse"
          "&opt=sgd&lr=0.1&batch=0&iseed=0&add=0.25:-0.5:1;1.5:0.125:-1&rm=3")
#: eight points of one's own, two classes (+1, -1)
OWN = ("page=play&ds=own&ratio=0.5&hidden=4&loss=mse&iseed=0&pts=0.5:0.5:1;-0.5:-0.5:-1;"
       "0.6:0.4:1;-0.4:-0.6:-1;0.7:0.2:1;-0.3:-0.8:-1;0.2:0.9:1;-0.9:-0.1:-1")
#: your own points of three classes (0, 1, 2), trained with the softmax
OWN3 = ("page=play&ds=own&ratio=0.5&hidden=4&k=3&loss=ce&iseed=0&pts=0.5:0.5:1;-0.5:-0.5:0;"
        "0.6:0.4:2;-0.4:-0.6:0;0.7:0.2:1;-0.3:-0.8:2;0.2:0.9:1;-0.9:-0.1:0")
#: the fields of a set-up these tests follow
WATCHED = ("dataset", "classes", "loss", "added", "removed", "points", "seed")

ADDED = [[0.25, -0.5], [1.5, 0.125]]
MINE = [[0.5, 0.5], [-0.5, -0.5], [0.6, 0.4], [-0.4, -0.6], [0.7, 0.2], [-0.3, -0.8],
        [0.2, 0.9], [-0.9, -0.1]]


def labelled(xy, labels):
    return [[x, y, float(v)] for (x, y), v in zip(xy, labels)]


#: (control, value typed or chosen, the set-up the page ends with): one run of changes
#: from EDITED
EDITED_RUN = [
    # a loss on 0/1 logits: the hand-added points keep their -1/+1 (the page's own
    # convention for added points of one output)
    ("loss", "bce", {"loss": "bce", "added": labelled(ADDED, [1, -1]), "removed": [3]}),
    ("loss", "ce", {"loss": "ce", "added": labelled(ADDED, [1, 0]), "removed": [3]}),
    ("loss", "hinge", {"loss": "hinge", "added": labelled(ADDED, [1, -1])}),
    ("loss", "mse", {"loss": "mse", "added": labelled(ADDED, [1, -1]), "removed": [3]}),
    # a new seed: new points, so the hand edits go
    ("seed", "3", {"seed": 3, "added": [], "removed": []}),
    # a set that takes more classes: still 2; to 3, the loss on one output per class
    ("dataset", "spiral", {"dataset": "spiral", "classes": 2, "loss": "mse", "added": []}),
    ("classes", "3", {"dataset": "spiral", "classes": 3, "loss": "ce"}),
    # a regression set: its own loss and 2 classes
    ("dataset", "plane", {"dataset": "plane", "classes": 2, "loss": "mse", "points": []}),
    ("dataset", "spiral", {"dataset": "spiral", "classes": 2, "loss": "mse"}),
    ("classes", "3", {"classes": 3, "loss": "ce"}),
    # back to 2 classes: the loss field's default
    ("classes", "2", {"classes": 2, "loss": "mse"}),
    ("classes", "4", {"classes": 4, "loss": "ce"}),
    # a two-class set: 2 classes
    ("dataset", "moons", {"dataset": "moons", "classes": 2, "loss": "ce"}),
]
#: from OWN: your own points carry the loss's labels, and keep their class
OWN_RUN = [
    ("loss", "bce", {"dataset": "own", "loss": "bce", "points": labelled(MINE, [1, 0] * 4)}),
    ("loss", "ce", {"loss": "ce", "points": labelled(MINE, [1, 0] * 4)}),
    ("loss", "mse", {"loss": "mse", "points": labelled(MINE, [1, -1] * 4)}),
    ("loss", "hinge", {"loss": "hinge", "points": labelled(MINE, [1, -1] * 4)}),
    # three classes: the softmax, and the points' classes as indices
    ("classes", "3", {"classes": 3, "loss": "ce", "points": labelled(MINE, [1, 0] * 4)}),
    ("classes", "2", {"classes": 2, "loss": "mse", "points": labelled(MINE, [1, -1] * 4)}),
]
#: from OWN3: a class index above 1 is kept, so two classes are refused (nothing changes)
OWN3_RUN = [
    ("classes", "2", None),
    ("loss", "bce", None),
]


def settled(page):
    """every edit answered and nothing on its way"""
    page.wait_for_function("Play.edits === 0 && !Play.inflight")


def accepted(page):
    return page.evaluate("JSON.parse(JSON.stringify(Play.accepted))")


def change(page, name, value):
    """the learner changes one control, as a learner does (a menu chosen, a number typed
    and Enter)"""
    sel = f"#p-{name}"
    if page.evaluate(f"document.querySelector('{sel}').tagName") == "SELECT":
        page.select_option(sel, value)
    else:
        page.fill(sel, value)
        page.press(sel, "Enter")
        # the learner moves on (the form leaves the field being typed into as it is)
        page.eval_on_selector(sel, "e => e.blur()")
    settled(page)


def follow(page, run):
    """each change of ``run`` in turn; the set-up after each, against what it should be
    (None: the change is refused, the accepted set-up stays and the control is marked)"""
    for name, value, want in run:
        before = accepted(page)
        change(page, name, value)
        got = accepted(page)
        if want is None:
            assert got == before, (name, value)
            assert page.get_attribute(f"#p-{name}", "aria-invalid") == "true", (name, value)
            continue
        assert {k: got[k] for k in want} == want, (name, value, got)
        # the session trains what the page holds, and the link says so
        assert page.evaluate("JSON.stringify(Play.state.config) === "
                             "JSON.stringify(Play.accepted)"), (name, value)
        assert page.get_attribute(f"#p-{name}", "aria-invalid") is None, (name, value)


def opened(page, url, ready):
    """``url`` opened and the Playground ready on the page it makes: a Playground link
    opened over a Playground reloads the page (app.js), so the page is marked first and
    ``ready`` waits on a page without the mark (not on the old page's state)"""
    page.evaluate("window.beforeOpen = true")
    page.goto(url)
    ready("!window.beforeOpen && window.Play && Play.state && Play.accepted")


def every_run(page, open_url):
    """the three runs of changes on one page; the time each change took"""
    times = []
    for url, run in ((EDITED, EDITED_RUN), (OWN, OWN_RUN), (OWN3, OWN3_RUN)):
        open_url(url)
        t0 = time.perf_counter()
        follow(page, run)
        times.append((time.perf_counter() - t0) / len(run))
    return times


#: the time the page waits for what a change implies (play.change), in ms: the median of
#: 30 calls of the first run's changes, the one round trip a change makes before it is
#: proposed
ROUND_TRIP = """async () => {
  const runs = %s, ms = [];
  for (let i = 0; i < 30; i++) {
    const [name, text] = runs[i %% runs.length], t0 = performance.now();
    const value = Play.controls.field(name).kind === "choice" ? text : Number(text);
    await Play.client.call("play.change", { setup: Play.accepted, field: name, value });
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  return [ms[15], ms[ms.length - 1]];
}"""


def round_trip(page):
    """play.change's median and slowest time (ms) from the page: far under what a learner
    notices (100 ms), a small part of the new session a change makes anyway"""
    median, slowest = page.evaluate(ROUND_TRIP % json.dumps(
        [[name, value] for name, value, _ in EDITED_RUN]))
    assert median < 100, (median, slowest)
    return median, slowest


def test_each_change_ends_in_the_same_set_up_served(browser, srv):
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.add_init_script(PLAY)

    def open_url(url):
        opened(page, f"{srv.url}#{url}", page.wait_for_function)
    times = every_run(page, open_url)
    trip = round_trip(page)
    page.screenshot(path=str(ARTIFACTS / "play_changes_desktop.png"), full_page=True)
    # the phone: a regression set from the edited circle, then three classes
    page.set_viewport_size({"width": 390, "height": 844})
    open_url(EDITED)
    follow(page, EDITED_RUN[:7])
    page.screenshot(path=str(ARTIFACTS / "play_changes_phone.png"), full_page=True)
    page.close()
    assert errors == [], errors
    (ARTIFACTS / "play_changes_served.txt").write_text(
        "seconds per change (a new session each), served: "
        + ", ".join(f"{t:.3f}" for t in times)
        + f"; play.change alone: median {trip[0]:.1f} ms, slowest {trip[1]:.1f} ms\n")


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site") / "out"
    proc = subprocess.run([sys.executable, "-m", "micrograd", "site", str(out)],
                          capture_output=True, text=True, cwd=ROOT, timeout=180)
    assert proc.returncode == 0, proc.stderr
    server = StaticServer(out, tmp_path_factory.mktemp("log") / "server.log")
    yield server.url
    server.stop()


def test_each_change_ends_in_the_same_set_up_in_the_static_site(browser, site):
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    seen = guard(ctx)
    ctx.add_init_script(PLAY)
    page = ctx.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))

    def open_url(url):
        opened(page, f"{site}#{url}",
               lambda expr: page.wait_for_function(expr, timeout=180_000))
        settled(page)
    times = every_run(page, open_url)
    trip = round_trip(page)
    ctx.close()
    assert errors == [], errors
    assert seen["foreign"] == [], seen["foreign"]
    (ARTIFACTS / "play_changes_static.txt").write_text(
        "seconds per change (a new session each), static site: "
        + ", ".join(f"{t:.3f}" for t in times)
        + f"; play.change alone: median {trip[0]:.1f} ms, slowest {trip[1]:.1f} ms\n")

"""The walks of a lesson on another origin share one Python, in a real headless Chromium.

Each walk of such a lesson is an iframe of the site (embed.js makes it); the frames of
one page join one module SharedWorker, named by the page, so Pyodide is loaded once for
the whole lesson, not once per walk. Counted where it cannot be faked: the site's
server log says how many times it sent Pyodide's WebAssembly (the test contexts route
every request, which turns the browser's HTTP cache off, so each Python started asks for
it). With SharedWorker taken away from every frame (as in a browser without it) each
frame starts its own dedicated worker, and the walks work the same; so they do where
the browser refuses a shared worker to a frame of another site (Chromium does when
third-party storage is blocked, as in these test contexts). A frame that goes
away stops its jobs: the shared Python is not left training for a page that is gone.
The lesson's load time goes to test-artifacts/site-shared-python-times.json.
"""

import json
import time
from urllib.parse import urlparse

import pytest

import test_site_walk_browser as walk_tests
from browser_kit import ARTIFACTS, StaticServer
from test_site_walk_browser import LECTURE_GRADS, cell, run_all

# the Walk's site tests' fixtures: the site built once, its servers, the browser
served, servers = walk_tests.served, walk_tests.servers
playwright, browser, context = walk_tests.playwright, walk_tests.browser, walk_tests.context

pytestmark = pytest.mark.browser

WASM = "/course/micrograd/pyodide/pyodide.asm.wasm"
NO_SHARED_WORKER = "delete window.SharedWorker;"  # in every frame, before its scripts


@pytest.fixture(params=["127.0.0.1", "localhost"], ids=["same-site", "cross-site"])
def lesson(request, served, servers, tmp_path):
    """The sample lesson served from another origin (another port), of the same site
    (127.0.0.1) or of another one (localhost), its script the site's; yields its
    address."""
    text = (served / "lesson.html").read_text()
    text = text.replace('<script src="embed.js">', f'<script src="{servers["sub"]}embed.js">')
    text = text.replace('<script src="file_check.js"></script>\n', "")
    (tmp_path / "lesson.html").write_text(text)
    other = StaticServer(tmp_path, tmp_path / "other.log")
    assert urlparse(other.url).port != urlparse(servers["sub"]).port
    yield other.url.replace("127.0.0.1", request.param) + "lesson.html"
    other.stop()


def open_every_walk(page, url):
    """Open the lesson, bring each walk's frame into view and wait for its graph;
    (the four frames, seconds from the request to the last graph)."""
    started = time.monotonic()
    page.goto(url)
    frames = page.locator("micrograd-walk iframe")
    frames.first.wait_for()
    assert frames.count() == 4
    walks = []
    for i in range(4):
        frames.nth(i).scroll_into_view_if_needed()
        walk = page.frame_locator("micrograd-walk iframe").nth(i)
        walk.locator("g.node").first.wait_for(timeout=120_000)
        walks.append(walk)
    return walks, time.monotonic() - started


def the_lectures_numbers(walks):
    lecture, neuron, diamond, reused = walks
    run_all(lecture)
    assert {n: cell(lecture, n, "grad") for n in "abcf"} == LECTURE_GRADS
    run_all(neuron)
    assert cell(neuron, "w1", "grad") == pytest.approx(1.0, abs=1e-4)
    run_all(diamond)
    assert cell(diamond, "a", "grad") == 15.0
    run_all(reused)
    assert cell(reused, "a", "grad") == 8.0  # mode="recursive": the lesson's wrong number


def record(name, seconds):
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / "site-shared-python-times.json"
    times = json.loads(path.read_text()) if path.exists() else {}
    times[name] = round(seconds, 2)
    path.write_text(json.dumps(times, indent=1) + "\n")
    print(f"\n{name}: {seconds:.2f} s")


def test_a_lessons_four_walks_in_frames_start_one_python(context, servers, lesson):
    sent = servers["sub server"].sent(WASM)
    page = context.new_page()
    walks, seconds = open_every_walk(page, lesson)
    cross_site = "localhost" in lesson
    record(f"{'cross' if cross_site else 'same'}-site lesson, 4 walks drawn (first load)", seconds)
    the_lectures_numbers(walks)
    loads = servers["sub server"].sent(WASM) - sent
    if cross_site:  # a shared worker where the browser allows it, else one per frame
        assert loads in (1, 4), loads
    else:
        assert loads == 1  # one Pyodide for four walks


def test_without_shared_worker_each_frame_starts_its_own_and_works(context, servers, lesson):
    context.add_init_script(NO_SHARED_WORKER)
    sent = servers["sub server"].sent(WASM)
    page = context.new_page()
    walks, _ = open_every_walk(page, lesson)
    assert page.frames[1].evaluate("typeof SharedWorker") == "undefined"
    the_lectures_numbers(walks)
    assert servers["sub server"].sent(WASM) - sent == 4  # the fallback: one per frame


TRAIN = """async ({ name, calls }) => {
  const { workerClient } = await import(new URL("static/client.js", location.href));
  const client = workerClient({ shared: name });
  const { sid } = await client.call("play.create", {});
  for (let i = 0; i < calls; i++) client.call("play.step", { sid, steps: 20 }).catch(() => {});
  return sid;
}"""
CALLS = 100  # of 20 steps each: jobs that take Python minutes, a turn at a time

STEP_OF = """async ({ name, sid }) => {
  const { workerClient } = await import(new URL("static/client.js", location.href));
  return (await workerClient({ shared: name }).call("play.get", { sid })).step;
}"""


def test_a_frame_that_goes_away_leaves_no_job_running(context, servers):
    # a page of the site's origin and a frame of it, on one shared Python: the frame
    # starts a long training, then is removed; the page watches the session's step
    site = servers["sub"]
    page = context.new_page()
    page.goto(site + "embed.html#preset=square")
    page.wait_for_selector("body[data-ready]", timeout=120_000)
    page.evaluate("""(src) => new Promise((done) => {
      const frame = document.createElement("iframe");
      frame.src = src; frame.onload = done; document.body.appendChild(frame);
    })""", site + "embed.html#preset=square")
    frame = page.frames[1]
    sid = frame.evaluate(TRAIN, {"name": "goodbye", "calls": CALLS})

    def step():
        return page.evaluate(STEP_OF, {"name": "goodbye", "sid": sid})

    started = step()
    while step() == started:  # the frame's job is training, turn by turn
        pass
    page.evaluate("document.querySelector('iframe').remove()")
    last, now = step(), None
    deadline = time.monotonic() + 60
    while now != last:  # ... until the frame has gone: then its job stops
        assert time.monotonic() < deadline, f"still training: step {now}"
        page.wait_for_timeout(500)
        last, now = now, step()
    assert now < CALLS * 20

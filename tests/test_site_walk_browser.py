"""The Walk in the static site and in lessons, in a real headless Chromium: written by
``micrograd site``, served by ``python -m http.server`` (nothing else running), at the
root and under a sub-path, every request to another host aborted and counted. Every
number read here was computed by Python in the page's worker.

* the site's page: the lecture's grads read off the drawing, the loading shown, a link
  that reopens the same set-up, the load times (first visit and from the cache);
* the sample lesson: its four walks on one Python, their numbers;
* a lesson on another origin (a second http.server on another port): each walk in an
  iframe of the site, working;
* text from an attribute or a link shown as text; the file:// notice.
The load times go to test-artifacts/site-walk-load-times.json.
"""

import json
import re
import time
from urllib.parse import quote, urlparse

import pytest
from playwright.sync_api import sync_playwright

from browser_kit import (ARGS, ARTIFACTS, CHROMIUM, NO_OTHER_HOST, SUB, StaticServer,
                         build_site, foreign, guard)

pytestmark = pytest.mark.browser

LECTURE_GRADS = {"a": 6.0, "b": -4.0, "c": -2.0, "f": 4.0}
TIMES = {}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """The site in served/course/micrograd/; yields its folder."""
    out, _ = build_site(tmp_path_factory.mktemp("served"))
    yield out
    if not TIMES:  # a run of other tests: keep the last figures
        return
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "site-walk-load-times.json").write_text(json.dumps(TIMES, indent=1) + "\n")
    print("\nthe Walk in the static site:", json.dumps(TIMES, indent=1))


@pytest.fixture(scope="module")
def servers(served, tmp_path_factory):
    logs = tmp_path_factory.mktemp("logs")
    at_root = StaticServer(served, logs / "root.log")
    at_sub = StaticServer(served.parent.parent, logs / "sub.log")
    yield {"root": at_root.url, "sub": at_sub.url + SUB + "/", "sub server": at_sub}
    at_root.stop()
    at_sub.stop()


@pytest.fixture(scope="module")
def playwright():
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="module")
def browser(playwright):
    b = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
    yield b
    b.close()


@pytest.fixture
def context(browser):
    """A fresh context with other hosts blocked; after the test: none was asked, no
    error on any page."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})
    seen = guard(ctx)
    errors = []
    ctx.on("page", lambda page: page.on("pageerror", lambda e: errors.append(str(e))))
    ctx.seen = seen
    yield ctx
    ctx.close()
    assert seen["foreign"] == [], seen["foreign"]
    assert errors == [], errors


def cell(scope, name, what):
    """The number in a node's data or grad cell, as drawn."""
    text = scope.locator(f"g.node[data-name='{name}'] text.{what}").first.text_content()
    m = re.fullmatch(rf"{what} (\S+)", text.strip())
    assert m, text
    return float(m.group(1))


def run_all(scope):
    """Click *run all*; wait until the walk says it is done."""
    scope.locator("[data-role=all]").click()
    scope.locator("[data-role=phase]", has_text=re.compile("^done$")).wait_for()


def open_site(context, url, hash_=""):
    """Open the site's page; the progress seen while Python loads; seconds to the
    first graph."""
    page = context.new_page()
    started = time.monotonic()
    page.goto(url + ("#" + hash_ if hash_ else ""))
    progress = set()
    while not page.locator("#w-graph g.node").count():
        text = page.evaluate("(() => { const l = document.getElementById('loading');"
                             " return l && !l.hidden ? l.textContent : ''; })()")
        if text:
            progress.add(text)
        assert time.monotonic() - started < 90, "no graph after 90 s"
        page.wait_for_timeout(50)
    return page, progress, time.monotonic() - started


@pytest.mark.parametrize("where", ["root", "sub"])
def test_the_walk_opens_in_the_site_with_the_lectures_numbers(context, servers, where):
    url = servers[where]
    page, progress, seconds = open_site(context, url, "page=walk&preset=lecture&questions=grad")
    assert any("loading Python" in p for p in progress), progress
    assert page.locator("#loading").is_hidden()
    run_all(page)
    assert {n: cell(page, n, "grad") for n in "abcf"} == LECTURE_GRADS
    assert cell(page, "L", "data") == -8.0
    # the question, checked by Python against the engine
    page.fill("#w-q-answer", "6")
    page.click("#w-q-check")
    page.wait_for_selector("#w-q-out.good")
    prefix = urlparse(url).path
    assert all(urlparse(u).path.startswith(prefix) for u in context.seen["local"])
    TIMES[f"first graph, first visit, site at {prefix}"] = round(seconds, 2)


def test_a_link_reopens_the_same_set_up(context, servers):
    url = servers["sub"]
    page, _, _ = open_site(context, url, "page=walk&preset=diamond")
    page.fill("#w-leaf-a", "3")
    page.press("#w-leaf-a", "Enter")
    page.wait_for_function("location.hash.includes('v=a%3A3') || location.hash.includes('v=a:3')")
    page.select_option("#w-mode", "assign")
    page.wait_for_function("location.hash.includes('mode=assign')")
    for _ in range(2):
        page.click("#w-fwd")
    page.wait_for_function("location.hash.includes('step=2')")
    link = page.url
    data_c = cell(page, "c", "data")
    page.close()
    again = context.new_page()
    again.goto(link)
    again.wait_for_selector("#w-graph g.node[data-name='c']")
    assert again.input_value("#w-mode") == "assign"
    assert again.input_value("#w-leaf-a") == "3"
    assert again.inner_text("#w-k") == "2"
    assert cell(again, "c", "data") == data_c == 9.0
    run_all(again)
    assert cell(again, "a", "grad") != 21.0  # a = 3: with '=' one path's share is lost
    assert cell(again, "d", "data") == 36.0


def test_the_walks_edits_nudge_order_and_errors_in_the_site(context, servers):
    page, _, _ = open_site(context, servers["root"], "page=walk&preset=diamond")
    page.click("#w-nudge")
    page.wait_for_function("document.querySelector('#w-nudge-out').textContent.length > 0")
    assert "15" in page.inner_text("#w-nudge-out")
    page.click("#w-order-topo")
    page.click("#w-order-run")
    page.wait_for_selector("#w-order-result .good")
    page.fill("#w-expr", "a = 2; b = a *")
    page.click("#w-go")
    page.wait_for_selector("#w-error:not([hidden])")
    assert "column" in page.inner_text("#w-error")


def test_a_second_visit_draws_the_first_graph_from_the_cache(playwright, servers, tmp_path):
    url = servers["sub"]
    wasm = urlparse(url).path + "pyodide/pyodide.asm.wasm"
    sent_before = servers["sub server"].sent(wasm)
    times = []
    for _ in range(2):  # one profile folder: the second visit finds the runtime cached
        ctx = playwright.chromium.launch_persistent_context(
            str(tmp_path / "profile"), executable_path=CHROMIUM, args=ARGS + [NO_OTHER_HOST],
            viewport={"width": 1280, "height": 800})
        requests = []
        ctx.on("request", lambda r, seen=requests: seen.append(r.url))
        page, _, seconds = open_site(ctx, url, "page=walk&preset=lecture")
        ctx.close()
        assert [u for u in requests if foreign(u)] == []
        times.append(seconds)
    TIMES["first graph, persistent profile, first visit"] = round(times[0], 2)
    TIMES["first graph, persistent profile, second visit (cache)"] = round(times[1], 2)
    assert servers["sub server"].sent(wasm) == sent_before + 1  # the second: from the cache


# ---------------------------------------------------------------------------------------
# the sample lesson: walks inside a page
# ---------------------------------------------------------------------------------------

def walks_ready(page, n):
    page.wait_for_function(
        f"document.querySelectorAll('micrograd-walk[data-ready]').length === {n}",
        timeout=90_000)


def test_the_sample_lessons_walks_share_one_python_and_work(context, servers):
    page = context.new_page()
    workers = []
    page.on("worker", lambda w: workers.append(w.url))
    page.goto(servers["sub"] + "lesson.html")
    walks_ready(page, 4)
    page.wait_for_function("[...document.querySelectorAll('micrograd-walk')]"
                           ".every((e) => e.querySelector('g.node'))", timeout=60_000)
    assert [urlparse(u).path.rsplit("/", 1)[-1] for u in workers] == ["pyodide_worker.js"]
    lecture, neuron, diamond, reused = page.locator("micrograd-walk").all()
    assert lecture.get_attribute("data-ready") == "1"  # in the page, not in a frame
    run_all(lecture)
    assert {n: cell(lecture, n, "grad") for n in "abcf"} == LECTURE_GRADS
    run_all(neuron)
    assert cell(neuron, "w1", "grad") == pytest.approx(1.0, abs=1e-4)
    assert neuron.locator("[data-role=order-run]").is_hidden()  # hide="order,nudge"
    assert lecture.locator("[data-role=nudge]").is_visible()
    run_all(diamond)
    assert cell(diamond, "a", "grad") == 15.0
    run_all(reused)
    assert cell(reused, "a", "grad") == 8.0  # mode="recursive": the lesson's wrong number
    assert reused.locator("select[id$=mode]").input_value() == "recursive"
    assert page.evaluate("location.hash") == ""  # a walk in a lesson keeps to itself


def test_a_lesson_on_another_origin_embeds_each_walk_in_an_iframe(context, served,
                                                                  servers, tmp_path):
    site = servers["sub"]
    lesson = (served / "lesson.html").read_text()
    lesson = lesson.replace('<script src="embed.js">', f'<script src="{site}embed.js">')
    lesson = lesson.replace('<script src="file_check.js"></script>\n', "")
    (tmp_path / "lesson.html").write_text(lesson)
    other = StaticServer(tmp_path, tmp_path / "other.log")
    try:
        assert urlparse(other.url).port != urlparse(site).port
        page = context.new_page()
        page.goto(other.url.replace("127.0.0.1", "localhost") + "lesson.html")
        walks_ready(page, 4)
        assert page.locator("micrograd-walk iframe").count() == 4
        frame = page.frame_locator("micrograd-walk iframe").first
        frame.locator("g.node[data-name='L']").wait_for(timeout=90_000)
        run_all(frame)
        assert {n: cell(frame, n, "grad") for n in "abcf"} == LECTURE_GRADS
        page.locator("micrograd-walk iframe").nth(2).scroll_into_view_if_needed()
        diamond = page.frame_locator("micrograd-walk iframe").nth(2)
        diamond.locator("g.node[data-name='d']").wait_for(timeout=90_000)
        run_all(diamond)
        assert cell(diamond, "a", "grad") == 15.0
        height = page.locator("micrograd-walk iframe").first.evaluate("f => f.offsetHeight")
        assert 300 < height != 640  # fitted to the walk by the frame's message
    finally:
        other.stop()


ERRORS = """async () => {
  const { workerClient, httpClient } = await import(new URL("static/client.js", location.href));
  const client = workerClient();
  const outcome = (name, request) => client.call(name, request).then(
    (data) => ({ data }),
    (e) => ({ name: e.name, kind: e.kind, field: e.field, data: e.data, message: e.message }));
  return {
    free: await outcome("walk", { expr: "tanh(x*w)" }),
    preset: await outcome("walk", { preset: "nope" }),
    lost: await outcome("play.step", { sid: "gone", steps: 1 }),
    unknown: await outcome("walk.nope", {}),
    another: workerClient() !== client,  // another client, the same worker
    door: client.door,
  };
}"""


def test_the_worker_doors_errors_are_the_http_doors_kinds(context, servers):
    page = context.new_page()
    page.goto(servers["sub"] + "lesson.html")
    walks_ready(page, 4)
    got = page.evaluate(ERRORS)
    assert got["door"] == "pyodide" and got["another"]
    # what client.js's HTTP door makes of a 400 with free names, a 404 on a preset and
    # on a session, and a bug (tests/test_web_page_browser.py drives that door)
    assert got["free"]["kind"] == "refused" and got["free"]["name"] == "ClientError"
    assert got["free"]["data"] == {"free": ["x", "w"]} and got["free"]["field"] == "values"
    assert got["preset"]["kind"] == "refused" and got["preset"]["field"] == "preset"
    assert "unknown preset 'nope'" in got["preset"]["message"]
    assert got["lost"]["kind"] == "lost" and got["lost"]["field"] == "sid"
    assert got["unknown"]["kind"] == "bug" and "no route named" in got["unknown"]["message"]
    workers = [w.url for w in page.workers]
    assert len(workers) == 1  # the lesson's walks and this client: one Python


MODULE_LESSON = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>a walk</title><script type="module" src="micrograd/embed.js"></script></head>
<body><p>a * a</p><micrograd-walk preset="square" hide="order"></micrograd-walk></body></html>
"""


def test_embed_js_loaded_as_a_module_next_to_the_site_works_too(context, served, servers):
    # a lesson in the folder above the site's: the script finds its folder by its src
    (served.parent / "module-lesson.html").write_text(MODULE_LESSON)
    page = context.new_page()
    page.goto(servers["sub"] + "../module-lesson.html")
    walks_ready(page, 1)
    walk = page.locator("micrograd-walk")
    walk.locator("g.node[data-name='f']").wait_for(timeout=90_000)
    assert walk.get_attribute("data-ready") == "1" and walk.locator("iframe").count() == 0
    run_all(walk)
    assert cell(walk, "a", "grad") == 6.0


HOSTILE = '<img src=x onerror="document.body.dataset.owned=1">'


def test_text_from_attributes_and_links_is_shown_as_text(context, servers, tmp_path):
    page = context.new_page()
    page.goto(servers["root"] + "lesson.html")
    walks_ready(page, 4)
    page.evaluate("""(hostile) => {
      const w = document.createElement("micrograd-walk");
      w.id = "hostile";
      w.setAttribute("expr", "a = 2; b = " + hostile);
      w.setAttribute("ask", hostile);
      document.body.appendChild(w);
    }""", HOSTILE)
    page.wait_for_selector("#hostile[data-ready] [data-role=error]:not([hidden])")
    assert page.locator("#hostile img").count() == 0
    assert page.locator("#hostile [data-role=expr]").input_value().endswith(HOSTILE)
    assert "column" in page.inner_text("#hostile [data-role=error]")
    link = page.context.new_page()
    link.goto(servers["root"] + "#page=walk&expr=" + quote("x = 2; y = x*x") + "&ask="
              + quote(HOSTILE))
    # Python: no node of that name; the graph is drawn, the question left out and said
    link.wait_for_selector("#w-said:not([hidden])")
    assert HOSTILE in link.inner_text("#w-said")  # the name, as text
    assert link.locator("main img").count() == 0
    page.wait_for_timeout(300)
    assert page.evaluate("document.body.dataset.owned") is None
    assert link.evaluate("document.body.dataset.owned") is None


@pytest.mark.parametrize("name", ["index.html", "lesson.html"])
def test_opened_from_a_file_the_page_says_to_serve_the_folder(browser, served, name):
    page = browser.new_page()
    page.goto(served.joinpath(name).as_uri())
    note = page.wait_for_selector("#served-from-file", timeout=10_000).inner_text()
    assert f'python -m http.server -d "{served}"' in note
    page.close()

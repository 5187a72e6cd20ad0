"""The static site in a real headless Chromium (Debian's, through playwright): written by
``micrograd site``, served by ``python -m http.server`` on 127.0.0.1 (nothing else
running), at the root and under a sub-path, with every request to another host aborted
and counted. Python runs in the site's module worker (Pyodide); the grads are the ones it
computed there. The load times (first visit, then from the browser's cache) are written
to test-artifacts/site-load-times.json.
"""

import json
import time
from urllib.parse import urlparse

import pytest
from playwright.sync_api import sync_playwright

from browser_kit import (ARGS, ARTIFACTS, CHROMIUM, NO_OTHER_HOST, SUB, StaticServer,
                         build_site, foreign, guard)

pytestmark = pytest.mark.browser

LECTURE_GRADS = {"a": 6, "b": -4, "c": -2, "f": 4}
TIMES = {}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """The site in served/course/micrograd/; yields its folder."""
    out, printed = build_site(tmp_path_factory.mktemp("served"))
    TIMES["size"] = printed.splitlines()[0]
    yield out
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "site-load-times.json").write_text(json.dumps(TIMES, indent=1) + "\n")
    print("\nstatic site:", json.dumps(TIMES, indent=1))


@pytest.fixture(scope="module")
def servers(served, tmp_path_factory):
    """One server of the site's own folder (the site at /) and one of the folder two
    levels up (the site at /course/micrograd/)."""
    logs = tmp_path_factory.mktemp("logs")
    at_root = StaticServer(served, logs / "root.log")
    at_sub = StaticServer(served.parent.parent, logs / "sub.log")
    yield {"root": (at_root, at_root.url), "sub": (at_sub, at_sub.url + SUB + "/")}
    at_root.stop()
    at_sub.stop()


def open_check_page(context, url):
    """Open the check page; wait for Python's answer; return (state, seconds)."""
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    started = time.monotonic()
    page.goto(url + "pyodide-check.html")
    page.wait_for_function("document.body.dataset.state", timeout=90_000)
    seconds = time.monotonic() - started
    state = page.evaluate("({...document.body.dataset})")
    text = page.inner_text("#grads")
    page.close()
    assert errors == [], errors
    return state, text, seconds


@pytest.fixture(scope="module")
def playwright():
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="module")
def browser(playwright):
    b = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
    yield b
    b.close()


@pytest.mark.parametrize("where", ["root", "sub"])
def test_python_in_the_worker_computes_the_lectures_grads(browser, servers, where):
    server, url = servers[where]
    context = browser.new_context()
    seen = guard(context)
    state, text, seconds = open_check_page(context, url)
    context.close()
    assert state["state"] == "done", state
    assert state["python"].startswith("3.14")
    assert json.loads(state["grads"]) == LECTURE_GRADS
    assert text == "dL/da = 6, dL/db = -4, dL/dc = -2, dL/df = 4"
    assert seen["foreign"] == []
    prefix = urlparse(url).path
    assert server.sent(prefix + "pyodide/pyodide.asm.wasm") >= 1
    assert server.sent(prefix + "micrograd.zip") >= 1
    assert all(urlparse(u).path.startswith(prefix) for u in seen["local"]), seen["local"]
    TIMES[f"first visit, site at {prefix}"] = round(seconds, 2)


def test_a_second_visit_loads_python_from_the_browsers_cache(playwright, servers, tmp_path):
    server, url = servers["sub"]
    wasm = urlparse(url).path + "pyodide/pyodide.asm.wasm"
    sent_before = server.sent(wasm)
    times = []
    for _ in range(2):  # the same profile folder: the second visit finds the cache
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path / "profile"), executable_path=CHROMIUM, args=ARGS + [NO_OTHER_HOST])
        requests = []
        context.on("request", lambda r, seen=requests: seen.append(r.url))
        state, _, seconds = open_check_page(context, url)
        context.close()
        assert state["state"] == "done" and json.loads(state["grads"]) == LECTURE_GRADS
        assert [u for u in requests if foreign(u)] == []
        assert any(u.endswith("pyodide.asm.wasm") for u in requests)  # the worker's too
        times.append(seconds)
    assert server.sent(wasm) == sent_before + 1  # the second visit did not download it
    TIMES["persistent profile: first visit"] = round(times[0], 2)
    TIMES["persistent profile: second visit (cache)"] = round(times[1], 2)


CALLS = """async () => {
  const { startPython } = await import(new URL("pyodide_client.js", location.href));
  const progress = [];
  const python = startPython({ onProgress: (text) => progress.push(text) });
  const meta = await python.ready;
  const outcome = (promise) => promise.then((data) => ({ data }),
                                            (err) => ({ kind: err.kind, message: err.message }));
  let deep = {};
  for (let i = 0; i < 100; i++) deep = { values: deep };
  const [unknown, refused, nested, a, b] = await Promise.all([
    outcome(python.call("walk.nope", {})),
    outcome(python.call("walk", { expr: "a = 2; b = a *" })),
    outcome(python.call("walk", deep)),
    outcome(python.call("walk", { preset: "lecture", values: { a: 3 } })),
    outcome(python.call("walk", { expr: "x = 0.5; y = x*x" })),
  ]);
  const grads = (r) => Object.fromEntries(
    r.data.graph.nodes.filter((n) => n.leaf && /^[a-z]/.test(n.name)).map((n) => [n.name, n.grad]));
  python.terminate();
  return { progress, meta, unknown, refused, nested, a: grads(a), b: grads(b) };
}"""


def test_the_workers_messages_answers_and_errors(browser, servers):
    _, url = servers["sub"]
    context = browser.new_context()
    seen = guard(context)
    page = context.new_page()
    page.goto(url + "pyodide-check.html")
    page.wait_for_function("document.body.dataset.state", timeout=90_000)
    got = page.evaluate(CALLS)
    context.close()
    assert got["progress"] == ["loading Python", "loading micrograd", "importing micrograd"]
    assert got["meta"]["entry"] == "micrograd.web.pyodide.door:call"
    assert got["meta"]["platform"] == "emscripten" and got["meta"]["seconds"] > 0
    assert got["unknown"]["kind"] == "unknown"
    assert "no route named 'walk.nope'" in got["unknown"]["message"]
    assert got["refused"]["kind"] == "refused" and "column" in got["refused"]["message"]
    assert got["nested"] == {"kind": "refused",
                             "message": "the request is nested over 64 levels deep"}
    # answers go to their own calls, each computed by Python in the worker
    assert got["a"] == {"a": 6, "b": -6, "c": -2, "f": 1}  # L = (3*-3 + 10) * -2
    assert got["b"] == {"x": 1}  # y = x*x: dy/dx = 2x
    assert seen["foreign"] == []


def test_opened_from_a_file_it_says_to_serve_the_folder(browser, served):
    page = browser.new_page()
    page.goto(served.joinpath("pyodide-check.html").as_uri())
    note = page.wait_for_selector("#served-from-file", timeout=10_000).inner_text()
    assert f'python -m http.server -d "{served}"' in note
    assert "opened from a file" in note
    page.wait_for_timeout(500)
    assert page.evaluate("document.body.dataset.state") is None  # no worker was started
    page.close()

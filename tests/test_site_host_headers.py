"""The static site under the headers a teacher's host may send, in a real Chromium.

The headers docs/web.md recommends (read from the doc itself) keep the Walk and the
Playground working; a policy that forbids WebAssembly makes the page say so instead of
waiting for ever; and what the doc says breaks a lesson on another site does: a frame
refused on ``embed.html``, a ``Cross-Origin-Resource-Policy`` on ``embed.js``.
"""

import functools
import http.server
import re
import threading
import time

import pytest
from browser_kit import ROOT, StaticServer, build_site, chromium

pytestmark = pytest.mark.browser

DOC = ROOT / "docs" / "web.md"
MARK = "<!-- the site's host headers -->"


def recommended():
    """The header lines of the doc's block after MARK, as (name, value) pairs."""
    text = DOC.read_text()
    block = re.search(re.escape(MARK) + r"\n```text\n(.*?)\n```", text, re.S).group(1)
    return [tuple(part.strip() for part in line.split(":", 1)) for line in block.splitlines()]


def policy_without(directive_source):
    return [(k, v.replace(f" {directive_source}", "")) for k, v in recommended()]


class Host:
    """The site's folder served with ``headers`` on every file, and ``extra[path]`` on
    that file alone."""

    def __init__(self, folder, headers, extra=None):
        extra = extra or {}

        class Handler(http.server.SimpleHTTPRequestHandler):
            extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                              ".wasm": "application/wasm", ".js": "text/javascript",
                              ".mjs": "text/javascript"}

            def end_headers(self):
                for name, value in [*headers, *extra.get(self.path.split("?")[0], ())]:
                    self.send_header(name, value)
                super().end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(
            ("127.0.0.1", 0), functools.partial(Handler, directory=str(folder)))
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_port}/"

    def stop(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out, _ = build_site(tmp_path_factory.mktemp("host"))
    return out


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


def test_the_doc_names_a_policy_for_the_site():
    names = dict(recommended())
    assert "'wasm-unsafe-eval'" in names["Content-Security-Policy"]
    assert "unsafe-inline" not in names["Content-Security-Policy"]
    assert " 'unsafe-eval'" not in names["Content-Security-Policy"]


def test_the_site_works_under_the_recommended_headers(site, browser):
    host = Host(site, recommended())
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.add_init_script("window.__v = []; document.addEventListener("
                             "'securitypolicyviolation', (e) => window.__v.push("
                             "e.violatedDirective + ' ' + e.blockedURI));")
        page.goto(host.url + "#page=walk&preset=lecture")
        page.wait_for_selector("#w-graph g.node", timeout=120_000)
        page.click("#tab-play")
        page.wait_for_selector("#p-tracc[data-value]", timeout=120_000)
        page.click("#p-step")
        page.wait_for_function("() => document.querySelector('#p-stepn').textContent !== '0'")
        assert page.evaluate("window.__v") == [] and errors == []
        page.close()
    finally:
        host.stop()


def test_a_host_that_forbids_webassembly_is_named(site, browser):
    host = Host(site, policy_without("'wasm-unsafe-eval'"))
    try:
        page = browser.new_page()
        page.goto(host.url + "#page=walk&preset=lecture")
        page.wait_for_function(
            "() => document.body.textContent.includes('forbids WebAssembly')", timeout=60_000)
        assert "'wasm-unsafe-eval'" in page.inner_text("body")
        page.close()
    finally:
        host.stop()


def lesson_on_another_site(tmp_path, site_url):
    (tmp_path / "lesson.html").write_text(
        "<!doctype html><title>a lesson</title>"
        f'<script src="{site_url}embed.js"></script>'
        '<micrograd-walk preset="lecture"></micrograd-walk>')
    other = StaticServer(tmp_path, tmp_path / "lesson.log")
    return other, other.url.replace("127.0.0.1", "localhost") + "lesson.html"


@pytest.mark.parametrize("extra, refused", [
    ({}, None),
    ({"/embed.html": [("X-Frame-Options", "SAMEORIGIN")]}, "embed.html"),
    ({"/embed.js": [("Cross-Origin-Resource-Policy", "same-origin")]}, "embed.js"),
], ids=["recommended", "embed.html not frameable", "embed.js same-origin only"])
def test_what_breaks_a_lesson_on_another_site(site, browser, tmp_path, extra, refused):
    host = Host(site, recommended(), extra)
    other, url = lesson_on_another_site(tmp_path, host.url)
    try:
        page = browser.new_page()
        failed = []
        page.on("requestfailed", lambda r: failed.append((r.url.split("#")[0], r.failure)))
        page.goto(url)
        if refused is None:
            page.frame_locator("micrograd-walk iframe").locator("g.node").first.wait_for(
                timeout=120_000)
            assert failed == []
        else:  # the browser refuses the file, as the doc says
            deadline = time.monotonic() + 60  # a bound on a hang, not a measure
            while not failed and time.monotonic() < deadline:
                page.wait_for_timeout(100)
            assert [f for u, f in failed if u == host.url + refused
                    and f.startswith("net::ERR_BLOCKED_BY_RESPONSE")], failed
        page.close()
    finally:
        other.stop()
        host.stop()

"""``micrograd serve`` under a page on another site: no framing, nothing from another
host, no work asked by another site's ``<img>``, no state changed by a GET.

The browser tests open a hostile page at ``http://localhost:PORT2/`` (another site than
the server's ``http://127.0.0.1:PORT/``: the browser sends ``Sec-Fetch-Site:
cross-site``) and the served page itself with a listener for every
``securitypolicyviolation``.
"""

import json
import urllib.request
import warnings

import pytest
from browser_kit import StaticServer, chromium, serve

with warnings.catch_warnings():  # starlette warns about httpx vs httpx2 at import time
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from micrograd.web import create_app
from micrograd.web.server.headers import CONTENT_SECURITY_POLICY

OWN = {"sec-fetch-site": "same-origin"}


def policy(r):
    """The answer's Content-Security-Policy as {directive: sources}."""
    text = r.headers["content-security-policy"]
    return {d.split()[0]: d.split()[1:] for d in text.split(";") if d.strip()}


def test_every_answer_forbids_framing_and_other_hosts():
    c = TestClient(create_app())
    answers = {
        "page": c.get("/"),
        "static": c.get("/static/app.js"),
        "json": c.get("/api/meta"),
        "not found": c.get("/api/nothing"),
        "invalid": c.post("/api/walk", json={"preset": 3}),
        "foreign host": c.get("/api/meta", headers={"host": "evil.example"}),
        "cross-site": c.get("/api/meta", headers={"sec-fetch-site": "cross-site"}),
        "too big": c.post("/api/walk", content=b"x" * 10_000_000,
                          headers={"content-type": "application/json"}),
    }
    for name, r in answers.items():
        assert r.headers["x-frame-options"] == "SAMEORIGIN", name
        assert r.headers["x-content-type-options"] == "nosniff", name
        p = policy(r)
        assert p["frame-ancestors"] == ["'self'"], name
        for directive in ("default-src", "script-src", "style-src", "connect-src"):
            assert p[directive] == ["'self'"], (name, directive)  # no host, no 'unsafe-*'
        assert p["object-src"] == ["'none'"]
    assert answers["page"].status_code == 200 and answers["too big"].status_code == 413
    # one header each, never the app's and ours side by side
    assert answers["page"].headers.get_list("content-security-policy") == [
        CONTENT_SECURITY_POLICY]


def test_no_docs_page_loading_scripts_from_a_cdn():
    c = TestClient(create_app())
    for path in ("/docs", "/redoc", "/docs/oauth2-redirect"):
        assert c.get(path).status_code == 404, path
    spec = c.get("/openapi.json")  # the routes' description stays, as data
    assert spec.status_code == 200 and "/api/walk" in spec.json()["paths"]


@pytest.mark.parametrize("site", ["cross-site", "same-site", "CROSS-SITE", "junk"])
def test_another_sites_request_for_work_is_refused(site):
    c = TestClient(create_app())
    for method, path in (("GET", "/api/mistakes/recursive_backward"), ("GET", "/api/meta"),
                         ("POST", "/api/walk")):
        r = c.request(method, path, json={"preset": "lecture"} if method == "POST" else None,
                      headers={"sec-fetch-site": site})
        assert r.status_code == 403, (site, method, path)
        assert "another site" in r.json()["error"]
    # the page itself may be opened from a link on another site (framing is the
    # headers' job)
    assert c.get("/", headers={"sec-fetch-site": site}).status_code == 200


def test_the_own_page_a_typed_address_and_a_script_are_served():
    c = TestClient(create_app())
    for headers in (OWN, {"sec-fetch-site": "none"}, {"sec-fetch-site": " Same-Origin "},
                    {}):
        assert c.get("/api/mistakes/recursive_backward", headers=headers).status_code == 200
        assert c.post("/api/walk", json={"preset": "lecture"},
                      headers=headers).status_code == 200


def test_a_get_from_another_origin_is_refused_even_without_fetch_metadata():
    c = TestClient(create_app())
    r = c.get("/api/mistakes/recursive_backward", headers={"origin": "http://evil.example"})
    assert r.status_code == 403 and "another site" in r.json()["error"]
    assert c.get("/api/meta", headers={"origin": "http://testserver"}).status_code == 200


def test_a_get_never_resets_the_timing_log():
    with TestClient(create_app(timing=True)) as c:
        c.post("/api/walk", json={"preset": "lecture"})
        r = c.get("/api/debug/turns?reset=true")
        assert r.status_code == 400 and "DELETE" in r.json()["error"]
        assert c.get("/api/debug/turns").json()["routes"]["walk"]["jobs"] == 1
        r = c.delete("/api/debug/turns", headers={"origin": "http://evil.example"})
        assert r.status_code == 403
        assert c.get("/api/debug/turns").json()["routes"]["walk"]["jobs"] == 1
        assert c.delete("/api/debug/turns").json()["routes"]["walk"]["jobs"] == 1
        assert c.get("/api/debug/turns").json() == {"routes": {}, "threads": {}}


# ---------------------------------------------------------------------------------------
# in chromium
# ---------------------------------------------------------------------------------------

#: counts every Content-Security-Policy violation the page reports, before any script of
#: the page runs
WATCH = """window.__violations = [];
document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(
  `${e.violatedDirective} ${e.blockedURI} ${e.sourceFile}:${e.lineNumber}`));"""


@pytest.fixture(scope="module")
def server():
    with serve() as address:
        yield address


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


@pytest.mark.browser
def test_the_served_page_works_under_its_policy(browser, server):
    """Walk, Playground and gallery used as a learner would, not one violation."""
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.add_init_script(WATCH)
    page.goto(f"{server}#page=walk&preset=lecture")
    page.wait_for_selector("body[data-ready='1']")
    page.wait_for_selector("#w-graph g.node")
    page.click("#w-all")
    page.click("#tab-play")
    page.wait_for_selector("#p-tracc[data-value]")  # its first state
    page.click("#p-step")
    page.wait_for_function("() => [...document.querySelectorAll('[data-role=stepn]')]"
                           ".some((b) => b.textContent.trim() !== '0')")
    page.click("#tab-mistakes")
    page.wait_for_selector("#page-mistakes[data-state=ready]", timeout=120_000)
    assert page.evaluate("window.__violations") == []
    assert errors == []
    page.close()


def hostile_site(tmp_path, server):
    """A page on another site that frames the served Playground and points an <img> at
    a gallery entry (which runs the learner's code when asked)."""
    (tmp_path / "hostile.html").write_text(
        "<!doctype html><title>another site</title>"
        f'<iframe id="f" src="{server}#page=play&ds=xor"></iframe>'
        f'<img id="i" src="{server}api/mistakes/recursive_backward">')
    return StaticServer(tmp_path, tmp_path / "http.log")


def jobs(server):
    """The jobs the server ran, by route (``--timing``'s log, asked by a script: no
    browser headers)."""
    with urllib.request.urlopen(f"{server}api/debug/turns", timeout=30) as r:
        return {route: v["jobs"] for route, v in json.load(r)["routes"].items()}


@pytest.mark.browser
def test_another_site_cannot_frame_the_page_or_ask_for_work(browser, tmp_path):
    with serve("--timing") as server:
        other = hostile_site(tmp_path, server)
        try:
            page = browser.new_page()
            done, framed_doc = [], []
            page.on("requestfailed", lambda r: done.append((r.url, r.failure)))
            page.on("response", lambda r: framed_doc.append(r) if r.url == server else None)
            page.goto(other.url.replace("127.0.0.1", "localhost") + "hostile.html")
            page.wait_for_load_state("load")
            gallery = f"{server}api/mistakes/recursive_backward"
            page.wait_for_function("() => document.getElementById('i').complete")
            # the <img>'s request reached the server, whose guard refused it before any
            # job ran (the browser hides a cross-site answer from the page either way)
            assert gallery in [u for u, _ in done]
            # the frame: sent with the headers that refuse it, so its script never ran
            # and never asked for a session
            assert framed_doc and framed_doc[0].headers["x-frame-options"] == "SAMEORIGIN"
            assert (server, "net::ERR_BLOCKED_BY_RESPONSE") in done
            assert page.frame_locator("#f").locator("body[data-ready='1']").count() == 0
            page.wait_for_timeout(500)  # a framed page's first request would be out by now
            assert jobs(server) == {}, jobs(server)
            page.close()
        finally:
            other.stop()

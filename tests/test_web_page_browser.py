"""The page as modules and components: index.html loads one module and no script defines
a global (read from the sources, and counted in a real Chromium); the Walk and the
Playground live more than once on one page, each on its own set-up (a lesson page
under tests/pages, served beside the page's own files by the test)."""

import re
from pathlib import Path

import pytest

from browser_kit import ROOT, chromium, serve

STATIC = ROOT / "src" / "micrograd" / "web" / "static"
PAGES = Path(__file__).resolve().parent / "pages"
MODULES = sorted(p.name for p in STATIC.glob("*.js"))  # the page's own
#: every script under static/, the page's and the ones it serves to others (a worker's)
SCRIPTS = sorted(p.relative_to(STATIC).as_posix() for p in STATIC.rglob("*.js"))

IMPORT = re.compile(r"""^\s*import\s+(?:[^'"]*?\s+from\s+)?["']\./([\w.]+)["'];?""", re.M)
GLOBAL_WRITE = re.compile(r"\b(?:window|globalThis|self)\s*(?:\.\s*[\w$]+|\[[^\]]*\])\s*=(?!=)"
                          r"|Object\.define\w*\(\s*(?:window|globalThis|self)\b")


@pytest.fixture(scope="module")
def server():
    """``micrograd serve --port 0`` in a subprocess; yields the address it prints."""
    with serve() as address:
        yield address


@pytest.fixture(scope="module")
def browser():
    with chromium() as b:
        yield b


@pytest.fixture
def new_page(browser, server):
    """new_page() -> a page whose errors and requests outside the server fail the test"""
    pages = []

    def make():
        pg = browser.new_page(viewport={"width": 1280, "height": 800})
        pg.errors, pg.foreign = [], []
        pg.on("pageerror", lambda e: pg.errors.append(str(e)))
        pg.on("request", lambda r: None if r.url.startswith((server, "data:"))
              else pg.foreign.append(r.url))
        pages.append(pg)
        return pg

    yield make
    for pg in pages:
        pg.close()
        assert pg.errors == [] and pg.foreign == [], (pg.errors, pg.foreign)


def imports(name):
    return IMPORT.findall((STATIC / name).read_text())


# ---------------------------------------------------------------------------------------
# read from the sources
# ---------------------------------------------------------------------------------------


def test_index_loads_one_module_and_nothing_else():
    html = (STATIC / "index.html").read_text()
    scripts = re.findall(r"<script\b[^>]*>", html)
    assert scripts == ['<script type="module" src="static/app.js">'], scripts
    assert not re.search(r"\son\w+\s*=", html)  # no inline handler (they run as globals)


def test_every_script_is_a_module_reached_from_the_entry():
    """Each file is imported (so it runs as a module, never as a classic script), and
    each but the entry exports what the others import."""
    seen, todo = set(), ["app.js"]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        assert (STATIC / name).is_file(), f"an import of a missing module: {name}"
        todo.extend(imports(name))
    assert sorted(seen) == MODULES
    for name in SCRIPTS:
        if name != "app.js":
            assert re.search(r"^export ", (STATIC / name).read_text(), re.M), name


@pytest.mark.parametrize("name", SCRIPTS)
def test_no_module_writes_a_global(name):
    text = (STATIC / name).read_text()
    code = re.sub(r"/\*.*?\*/|//[^\n]*", "", text, flags=re.S)  # comments may say "window.x"
    assert not GLOBAL_WRITE.search(code), GLOBAL_WRITE.search(code).group(0)


def test_the_static_check_sees_a_global_write():
    for bad in ("window.Walk = Walk;", "globalThis.x = 1", "self['y'] = 2",
                "Object.defineProperty(window, 'z', {})"):
        assert GLOBAL_WRITE.search(bad), bad
    for fine in ("window.addEventListener('x', f)", "if (window.x === 1) f()",
                 "const w = window.innerHeight;"):
        assert not GLOBAL_WRITE.search(fine), fine


# ---------------------------------------------------------------------------------------
# in a real Chromium
# ---------------------------------------------------------------------------------------

#: the window's own names before any of the page's scripts run, kept where Object.keys
#: does not look (and left out of the comparison)
BEFORE = ("Object.defineProperty(window, '__namesBefore', {enumerable: false, value: "
          "[Object.keys(window), Object.getOwnPropertyNames(window)]})")
NEW_NAMES = """() => {
    const [keys, names] = window.__namesBefore;
    return [Object.keys(window).filter((k) => !keys.includes(k)),
            Object.getOwnPropertyNames(window).filter((k) => !names.includes(k)
                                                        && k !== '__namesBefore')];
}"""


@pytest.mark.browser
def test_no_script_defines_a_global(new_page, server):
    page = new_page()
    page.add_init_script(BEFORE)
    page.goto(f"{server}#page=walk&preset=diamond")
    page.wait_for_selector("body[data-ready='1']")
    page.wait_for_selector("#w-graph g.node")
    page.click("#tab-play")
    page.wait_for_function("document.querySelector('#p-execution-name').textContent !== '·'")
    page.click("#p-step")
    page.wait_for_function("document.querySelector('#p-stepn').textContent === '1'")
    assert page.evaluate(NEW_NAMES) == [[], []]
    loaded = page.evaluate("performance.getEntriesByType('resource').map((e) => e.name)"
                           ".filter((n) => n.endsWith('.js'))")
    assert sorted(u.rsplit("/", 1)[1] for u in loaded) == MODULES  # all of them, as modules
    # the check sees a global when there is one
    page.evaluate("window.someName = 1")
    assert page.evaluate(NEW_NAMES)[0] == ["someName"]


def open_lesson(page, server, query=""):
    """The lesson page of tests/pages, served at the page's own origin beside static/."""
    html = (PAGES / "two_walks.html").read_text()
    page.route(f"{server}lesson.html*", lambda route: route.fulfill(
        status=200, content_type="text/html", body=html))
    page.goto(f"{server}lesson.html{query}")
    page.wait_for_selector("body[data-ready='1']")


def texts(page, root):
    """Everything a walk shows: its counter, phase, step text and every cell of its graph."""
    return page.evaluate("""(root) => {
        const r = document.getElementById(root);
        return [r.querySelector('[data-role=k]').textContent,
                r.querySelector('[data-role=phase]').textContent,
                r.querySelector('[data-role=step]').textContent,
                [...r.querySelectorAll('g.node text')].map((t) => t.textContent)];
    }""", root)


def part(root, role):
    return f"#{root} [data-role='{role}']"


@pytest.mark.browser
def test_two_walks_on_one_page_work_independently(new_page, server):
    page = new_page()
    open_lesson(page, server)
    page.wait_for_selector("#walk-a g.node[data-name='d']")
    page.wait_for_selector("#walk-b g.node[data-name='L']")
    ids = page.evaluate("[...document.querySelectorAll('[id]')].map((e) => e.id)")
    assert len(ids) == len(set(ids)), "an id twice on the page"
    assert page.evaluate("[...document.querySelectorAll('label[for]')]"
                         ".every((l) => document.getElementById(l.htmlFor))")
    assert page.input_value("#walk-b select[id$='-mode']") == "recursive"
    assert page.input_value("#walk-a select[id$='-mode']") == "correct"
    b0 = texts(page, "walk-b")
    assert b0[0] == "0"
    # stepping the first walk to its end leaves the second as it was
    page.click(part("walk-a", "all"))
    a1 = texts(page, "walk-a")
    assert a1[1] == "done" and "grad 1.0000" in a1[3]
    assert texts(page, "walk-b") == b0
    # and the second steps on its own: its first step, the first walk still at its end
    page.click(part("walk-b", "fwd"))
    b1 = texts(page, "walk-b")
    assert b1[0] == "1" and b1 != b0 and texts(page, "walk-a") == a1
    # a leaf edited in one graph is that graph's alone
    page.fill(part("walk-a", "leaves") + " input[data-leaf='a']", "5")
    page.press(part("walk-a", "leaves") + " input[data-leaf='a']", "Enter")
    page.wait_for_function("document.querySelector(\"#walk-a g.node[data-name='a'] "
                           "text.data\").textContent === 'data 5.0000'")
    assert texts(page, "walk-b") == b1
    # each view's arrows point at its own marker
    markers = page.evaluate("[...document.querySelectorAll('marker')].map((m) => m.id)")
    assert len(markers) == len(set(markers)) == 2
    assert page.url.endswith("lesson.html")  # no URL state written by either


@pytest.mark.browser
def test_two_playgrounds_on_one_page_train_independently(new_page, server):
    page = new_page()
    open_lesson(page, server, "?play=1")
    page.wait_for_function("document.getElementById('play-a').playground?.state && "
                           "document.getElementById('play-b').playground?.state")
    sids = page.evaluate("['play-a', 'play-b'].map((id) => "
                         "document.getElementById(id).playground.sid)")
    assert sids[0] != sids[1]
    for _ in range(3):
        page.click(part("play-a", "step"))
    page.wait_for_function("document.querySelector(\"#play-a [data-role='stepn']\")"
                           ".textContent === '3'")
    assert page.inner_text(part("play-b", "stepn")) == "0"
    page.fill("#play-b input[id$='-lr']", "0.5")  # a field's control: the prefix + its name
    page.press("#play-b input[id$='-lr']", "Enter")
    page.wait_for_function("document.getElementById('play-b').playground.state.lr === 0.5")
    assert page.evaluate("document.getElementById('play-a').playground.state.lr") == 0.1


# ---------------------------------------------------------------------------------------
# the client: errors as data, whatever the door
# ---------------------------------------------------------------------------------------

KIND_OF = """async ([name, request]) => {
    const { httpClient, ClientError } = await import(new URL('static/client.js', location.href));
    const client = httpClient({ retry: false });
    try { await client.call(name, request); return ['answered']; }
    catch (e) { return [e instanceof ClientError, e.kind, e.field, e.message, e.data]; }
}"""


@pytest.mark.browser
def test_the_client_says_what_kind_of_failure_each_is(new_page, server):
    page = new_page()
    page.goto(f"{server}#page=walk&preset=square")
    page.wait_for_selector("body[data-ready='1']")
    ok, kind, field, message, data = page.evaluate(KIND_OF, ["walk", {"expr": "a*b"}])
    assert (ok, kind) == (True, "refused") and data["free"] == ["a", "b"]
    assert page.evaluate(KIND_OF, ["walk", {"preset": "nope"}])[1] == "refused"
    ok, kind, field, message, _ = page.evaluate(KIND_OF, ["play.create", {"lr": -1}])
    assert (kind, field) == ("refused", "lr") and "lr" in message
    lost = page.evaluate(KIND_OF, ["play.step", {"sid": "gone", "steps": 1}])
    assert lost[1] == "lost" and "no playground session" in lost[3]
    assert page.evaluate(KIND_OF, ["play.nothing", {}])[1] == "bug"
    # what the server cannot say itself: no answer, every place taken, a failure
    page.route(f"{server}api/meta", lambda route: route.abort())
    assert page.evaluate(KIND_OF, ["meta", {}])[1] == "down"
    page.unroute(f"{server}api/meta")
    for status, headers, kind in [(503, {"Retry-After": "5"}, "busy"), (500, {}, "bug")]:
        page.route(f"{server}api/meta", answering(status, headers))
        assert page.evaluate(KIND_OF, ["meta", {}])[1:4] == [kind, None, "x"]
        page.unroute(f"{server}api/meta")
    assert page.evaluate(KIND_OF, ["meta", {}]) == ["answered"]


def answering(status, headers):
    """A route handler that answers with this status (a handler of one argument: one of
    two would be given the request too)."""
    return lambda route: route.fulfill(status=status, headers=headers,
                                       content_type="application/json", body='{"error": "x"}')

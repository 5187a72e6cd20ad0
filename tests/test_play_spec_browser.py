"""The Playground draws what the catalogue (``/api/meta``: ``Experiment.spec()``) says, in
a real headless Chromium against a real ``micrograd serve``: a catalogue changed on its
way to the page (a group renamed, the bar's groups in another order, a field moved to
another place, a smaller seed range) changes the page with it.

These tests never skip."""

import json
import urllib.request

import pytest
from test_web_play_browser import (ARTIFACTS, PLAY, browser, play_ready,  # noqa: F401
                                   srv)  # browser, srv: the fixtures

pytestmark = pytest.mark.browser
# ruff: noqa: F811  (the fixtures browser and srv, imported, are the test's arguments)

SETUP = "page=play&ds=circle&noise=0&n=60&ratio=0.5&seed=1&hidden=3&iseed=4"


def changed_catalogue(srv):
    meta = json.loads(urllib.request.urlopen(srv.url + "api/meta", timeout=30).read())
    spec = meta["experiment"]
    groups = {g["name"]: g for g in spec["groups"]}
    groups["data"]["text"] = "the points themselves"
    # the optimizer's group first among the bar's groups
    spec["groups"] = [groups["opt"]] + [g for g in spec["groups"] if g["name"] != "opt"]
    for f in spec["fields"]:
        if f["name"] == "bias_init":  # from above the network to the bar
            f["place"] = "bar"
        if f["name"] == "init_seed":  # the seeds wrap at 4
            f["max"] = 4
    return meta


def test_the_playground_reads_its_groups_places_and_seed_range_from_the_catalogue(
        browser, srv):
    meta = changed_catalogue(srv)
    page = browser.new_page(viewport={"width": 1280, "height": 800})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.add_init_script(PLAY)
    page.route("**/api/meta", lambda route: route.fulfill(
        status=200, content_type="application/json", body=json.dumps(meta)))
    page.goto(f"{srv.url}#{SETUP}")
    play_ready(page)
    hide = page.eval_on_selector_all("#page-play [data-role=hide-list] label",
                                     "ls => ls.map((l) => l.textContent)")
    assert [t.strip() for t in hide[:3]] == ["hide optimizer", "hide the points themselves",
                                             "hide layers and neurons"]
    assert hide[-1].strip() == "hide parameter table"  # the page's views after the groups
    bar = page.eval_on_selector_all("#page-play [data-role=hyper] label",
                                    "ls => ls.map((l) => [l.dataset.ctl, l.textContent])")
    assert bar[0][0] == "opt", bar
    # the fields moved to the bar from their group's place come after the bar's groups
    assert [ctl for ctl, _ in bar[-2:]] == ["network", "data"], bar
    assert "initial biases" in bar[-2][1] and "batch" in bar[-1][1]
    assert not page.locator("#page-play [data-role=network-fields] select").count()
    assert page.evaluate("Play.accepted.init_seed") == 4
    page.click("#page-play [data-role=reset]")  # the next seed after the last: the first
    page.wait_for_function("Play.accepted.init_seed === 0 && Play.state.step === 0")
    page.screenshot(path=str(ARTIFACTS / "play-spec-changed.png"))
    page.close()
    assert errors == [], errors

"""A question's verdict is the verdict on the answer just sent, in a real headless
Chromium against a real ``micrograd serve``: while an answer is being checked the last
verdict is gone (the page says it is checking), so neither a learner nor a test reads an
old "not quite" as the new answer's. The check request is held with Playwright's routing
and then sent on, unchanged, to the real server."""

import pytest
from test_web_walk_browser import browser, open_walk, page, server  # noqa: F401 (fixtures)

pytestmark = pytest.mark.browser


def test_a_new_answer_clears_the_last_verdict_until_its_own_comes(page, server):  # noqa: F811
    open_walk(page, server, "preset=lecture&questions=local")
    page.fill("#w-q-answer", "5")
    page.press("#w-q-answer", "Enter")
    page.wait_for_selector("#w-q-out.bad")
    held = []
    page.route("**/api/walk/check", lambda route: held.append(route))
    page.fill("#w-q-answer", "-2")  # dL/dd = f = -2: right
    page.press("#w-q-answer", "Enter")
    page.wait_for_function("document.getElementById('w-q-out').textContent === 'checking…'")
    assert page.get_attribute("#w-q-out", "class") == "qout"
    for _ in range(1200):  # until the request reaches the route (events run while waiting)
        if held:
            break
        page.wait_for_timeout(50)
    assert held, "the check was never sent"
    held[0].continue_()
    page.wait_for_selector("#w-q-out.good")
    assert page.inner_text("#w-q-out").startswith("right")

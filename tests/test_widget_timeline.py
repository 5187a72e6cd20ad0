"""The Walk widget's timeline and its modes' explanations: its Python model (back as
well as forward, every number the same; the same WalkSetup as the page), and its page in
a real headless Chromium wired to the real Python model in place of Jupyter's comm (the
pattern of tests/test_widget.py)."""

import pytest

from micrograd.walk_setup import CONVENTIONS, MODES, PRESETS, WalkSetup
from micrograd.widget import WalkModel
from browser_kit import chromium
from test_widget import widget_page


def shown(m):
    """What the widget draws at its current step (the error line aside)."""
    s = m.state()
    return {k: v for k, v in s.items() if k != "error"}


@pytest.mark.parametrize("preset, mode", [("lecture", "correct"), ("diamond", "assign"),
                                          ("reused", "recursive"),
                                          ("lecture", "no_zero_grad")])
def test_going_back_shows_every_number_the_way_forward_showed_it(preset, mode):
    m = WalkModel(preset, mode=mode)
    n = m.state()["steps_total"]
    assert n == len(m.walk.forward) + len(m.walk.backward) > 0
    forward = [shown(m)]
    for k in range(1, n + 1):
        m.next()
        assert m.state()["step"] == k and m.error is None
        forward.append(shown(m))
    m.next()  # at the end: nothing moves
    assert m.state()["step"] == n
    for k in range(n - 1, -1, -1):
        m.previous()
        assert shown(m) == forward[k], k
    m.previous()
    assert shown(m) == forward[0]
    # the slider's jumps land on the same pictures
    for k in (n, 0, n // 2, 1):
        m.go_to(k)
        assert shown(m) == forward[k]
    # the forward steps come first, then the backward ones: step_backward agrees
    m.go_to(len(m.walk.forward))
    m.step_backward()
    assert shown(m) == forward[len(m.walk.forward) + 1]


def test_a_refused_step_is_a_message():
    m = WalkModel("lecture")
    n = m.state()["steps_total"]
    for bad in (-1, n + 1, 2.5, "3", True, None):
        m.handle({"action": "go_to", "step": bad})
        assert m.state()["error"] == f"a step is a whole number 0 to {n}, got {bad!r}"
        assert m.state()["step"] == 0


def test_the_widget_reads_and_writes_the_pages_walk_setup():
    link = {"preset": "lecture", "v": "a:3", "mode": "no_zero_grad", "step": "12"}
    m = WalkModel(WalkSetup.from_url(link))
    s = m.state()
    assert s["step"] == 12 and s["mode"] == "no_zero_grad" and s["link"] == link
    m.previous()
    assert m.setup() == WalkSetup.from_url({**link, "step": "11"})
    again = WalkModel(WalkSetup.from_url(m.state()["link"]))
    assert shown(again) == shown(m)
    assert WalkModel("a = 2; b = a*a").setup().expr == "a = 2; b = a*a"


def test_each_mode_shows_its_lesson_and_no_zero_grad_both_conventions():
    m = WalkModel("lecture")
    for key, mode in MODES.items():
        m.set_mode(key)
        s = m.state()
        assert s["mode_lesson"] == mode.lesson and s["mode_titles"][key] == mode.title
        assert (s["conventions"] is None) == (key != "no_zero_grad")
    rows = {r["name"]: r for r in m.state()["conventions"]["rows"]}
    # micrograd's published engine pushes on interior sums (24); PyTorch's and ours: 12
    assert (rows["a"]["micrograd"], rows["a"]["pytorch"], rows["a"]["one_pass"]) == (24, 12, 6)
    assert [c["key"] for c in m.state()["conventions"]["conventions"]] == list(CONVENTIONS)
    # the timeline's stretches: forward, then the two passes
    assert m.state()["scale"] == [["forward", 3], ["backward, pass 1", 8],
                                  ["backward, pass 2", 8]]


def record(page):
    """Everything the widget shows that a step changes."""
    return page.evaluate("""() => ({
        svg: document.querySelector('.mg-walk .graph').innerHTML,
        step: document.querySelector('.mg-walk .step').textContent,
        status: document.querySelector('.mg-walk .status').textContent,
        slider: document.querySelector('.mg-walk input.slider').value,
        log: document.querySelector('.mg-walk .log').textContent})""")


def wait_step(page, k):
    page.wait_for_function(f"window.lastState && window.lastState.step === {k} && "
                           f"document.querySelector('.mg-walk input.slider').value === '{k}'")


@pytest.mark.browser
def test_the_widgets_timeline_and_modes_in_chromium():
    m = WalkModel("diamond")
    n = m.state()["steps_total"]
    with chromium() as browser:
        page = widget_page(browser, m)
        errors = page.errors
        assert page.is_disabled('button[data-action="previous"]')
        seen = [record(page)]
        for k in range(1, n + 1):
            page.click('button[data-action="next"]')
            wait_step(page, k)
            seen.append(record(page))
        assert page.is_disabled('button[data-action="next"]')
        assert "grad 15.0000" in seen[-1]["svg"]
        for k in range(n - 1, -1, -1):
            page.click('button[data-action="previous"]')
            wait_step(page, k)
            assert record(page) == seen[k], k
        # the slider from the keyboard: End, Home, the arrows
        page.focus("input.slider")
        page.keyboard.press("End")
        wait_step(page, n)
        assert record(page) == seen[n]
        page.keyboard.press("Home")
        wait_step(page, 0)
        page.keyboard.press("ArrowRight")
        wait_step(page, 1)
        assert record(page) == seen[1]
        # the modes explain themselves; no zero_grad shows both conventions
        page.select_option("select.mode", "no_zero_grad")
        page.wait_for_selector(".conventions [data-convention=micrograd]")
        assert page.inner_text(".lesson") == MODES["no_zero_grad"].lesson
        assert page.locator("select.mode option:checked").inner_text() \
            == MODES["no_zero_grad"].title
        rows = {c: page.locator(f".conventions [data-convention={c}] tr").all_inner_texts()
                for c in CONVENTIONS}
        want = {r["name"]: r for r in m.state()["conventions"]["rows"]}
        for c in CONVENTIONS:
            for line in rows[c][1:]:
                name, one, last = line.split("\t")
                row = want[name.removesuffix(" (leaf)")]
                assert (one, last) == (row["texts"]["one_pass"], row["texts"][c])
        # micrograd's second pass: b = 12 and c = 6 pushed on, a = 15 + 12 + 6*3 = 45
        assert rows["micrograd"][-1].split("\t") == ["a (leaf)", "15", "45"]
        assert rows["pytorch"][-1].split("\t") == ["a (leaf)", "15", "30"]
        page.select_option("select.mode", "correct")
        page.wait_for_selector(".conventions", state="hidden")
        assert page.inner_text(".lesson") == MODES["correct"].lesson
        assert page.inner_text(".link") == "the Walk page at this step: " \
            "#page=walk&preset=diamond"
        assert errors == []


def test_every_preset_opens_in_the_widget_at_every_step():
    for key in PRESETS:
        m = WalkModel(key)
        n = m.state()["steps_total"]
        m.go_to(n)
        assert m.state()["phase"] == "done" and m.state()["summary"] == [
            "every grad is correct"]

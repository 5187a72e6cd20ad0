"""The Walk widget: its Python model against PyTorch float64, and its page in a real
headless Chromium, wired to the real Python model in place of Jupyter's comm."""

import json

import pytest
import torch
from browser_kit import chromium

from micrograd.engine import Value
from micrograd.walk_setup import MODES
from micrograd.widget import PRESETS, WalkModel, walk_widget



def torch_grads(fn, **leaves):
    t = {k: torch.tensor(v, dtype=torch.double, requires_grad=True) for k, v in leaves.items()}
    fn(**t).backward()
    return {k: v.grad.item() for k, v in t.items()}


def walked(what, **kw):
    m = WalkModel(what, **kw)
    m.run_forward()
    m.run_backward()
    return m.state()


def test_presets_match_pytorch():
    g = walked("lecture")["grads"]
    want = torch_grads(lambda a, b, c, f: (a * b + c) * f, a=2.0, b=-3.0, c=10.0, f=-2.0)
    assert {k: g[k] for k in want} == want  # 6, -4, -2, 4
    g = walked("neuron")["grads"]
    want = torch_grads(lambda x1, x2, w1, w2, b: torch.tanh(x1 * w1 + x2 * w2 + b),
                       x1=2.0, x2=0.0, w1=-3.0, w2=1.0, b=6.8813735870195432)
    for k, v in want.items():
        assert g[k] == pytest.approx(v, rel=1e-12, abs=1e-12), k
    g = walked("diamond")["grads"]
    assert g["a"] == torch_grads(lambda a: (a + 1) * (a * 3), a=2.0)["a"]  # 15
    g = walked("sum_times")["grads"]
    assert {k: g[k] for k in "abc"} == torch_grads(lambda a, b, c: (a + b) * c,
                                                   a=2.0, b=-3.0, c=10.0)


def test_stepping_forward_then_backward():
    m = WalkModel("sum_times")
    s = m.state()
    assert s["phase"] == "idle" and s["forward_total"] == 2 and s["grads"] == {}
    assert s["svg"].count("data ?") == 2 and s["svg"].count("grad ?") == 5
    m.step_backward()
    assert "step forward first" in m.state()["error"]
    m.step_forward()
    s = m.state()
    assert s["phase"] == "forward" and s["text"] == "e = a + b = 2 + (-3) = -1"
    assert s["current"] == "n2" and s["svg"].count("data ?") == 1
    m.step_forward()
    m.step_forward()
    assert "forward pass is done" in m.state()["error"]
    m.step_backward()
    s = m.state()
    assert s["text"] == "seed: grad[f] = 1" and s["grads"] == {"f": 1.0}
    m.step_backward()
    s = m.state()
    assert s["grads"] == {"f": 1.0, "e": 10.0, "c": -1.0} and s["error"] is None
    assert s["text"] == "visit f = e*c: grad[e] += 1 * 10 = 10; grad[c] += 1 * (-1) = -1"
    m.run_backward()
    s = m.state()
    assert s["phase"] == "done" and s["summary"] == ["every grad is correct"]
    assert "grad ?" not in s["svg"] and "grad 10.0000" in s["svg"]
    assert len(s["log"]) == s["forward_total"] + s["backward_total"]
    m.reset()
    assert m.state()["phase"] == "idle"
    json.dumps(m.state(), allow_nan=False)


def test_edge_derivatives():
    m = WalkModel("lecture")
    edges = {e.id: e for e in (el.edge for el in m._layout.edges)}
    # L = d*f: the edge d -> L carries dL/dd = f = -2
    eid = next(k for k, e in edges.items() if m.names[e.src] == "d")
    m.select_edge(eid)
    assert m.state()["edge_text"].startswith("edge d -> L: local derivative dL/dd = -2")
    m.run_backward()
    assert "grad[d] += 1 * (-2) = -2" in m.state()["edge_text"]
    m.select_edge("e99")
    assert m.state()["error"] == "no edge 'e99'" and m.state()["selected_edge"] == eid


def test_visit_order_experiment():
    m = WalkModel("diamond")
    m.set_order("d,a,b,c")
    s = walked("diamond", order="d,a,b,c")
    assert s["grads"]["a"] == 0.0  # a read its grad before b and c deposited theirs
    assert len(s["lost_edges"]) == 2
    assert s["summary"][-1] == "wrong: grad[a] = 0, correct 15"
    assert walked("diamond", order="d,b,c,a")["grads"]["a"] == 15.0
    m.set_order("d,zz")
    assert "no node named 'zz'" in m.state()["error"] and m.order == "d,a,b,c"
    m.set_order("")
    assert m.order is None


def test_teaching_modes():
    assert walked("square", mode="assign")["grads"]["a"] == 3.0  # = instead of +=
    assert walked("square")["grads"]["a"] == 6.0
    assert walked("a = 1; b = a + a; c = b + b", mode="recursive")["grads"]["a"] == 8.0
    s = walked("lecture", mode="no_zero_grad")
    assert s["grads"]["a"] == 24.0 and s["mode"] == "no_zero_grad"


def test_bad_input_is_a_message_not_an_exception():
    m = WalkModel("lecture")
    m.handle({"action": "fly"})
    assert m.state()["error"] == "unknown action 'fly'"
    m.handle("step")
    assert "must be a dict, got str" in m.state()["error"]
    m.handle({"action": "set_mode", "mode": "sideways"})
    assert "unknown mode 'sideways'" in m.state()["error"] and m.mode == "correct"
    m.handle({"action": "load", "what": "a = (2"})
    assert m.state()["error"].startswith("cannot load") and m.preset == "lecture"
    m.handle({"action": "load", "what": "diamond"})
    assert m.preset == "diamond" and m.state()["error"] is None
    with pytest.raises(ValueError, match="unknown mode"):
        WalkModel("lecture", mode="sideways")
    with pytest.raises(TypeError, match="got int"):
        WalkModel(3)


def test_a_value_can_be_walked():
    a = Value(3.0, label="a")
    f = a * a
    f.label = "f"
    s = walked(f)
    assert s["grads"]["a"] == 6.0 and s["preset"] is None
    assert a.grad == 0.0  # the walk never touches the Values' grads


def test_anywidget_round_trip():
    w = walk_widget("diamond")
    assert w.state["phase"] == "idle" and set(w.state["presets"]) == set(PRESETS)
    w._on_msg(w, {"action": "run_backward"}, [])
    assert w.state["grads"]["a"] == 15.0
    w._on_msg(w, {"action": "set_order", "order": "d,a,b,c"}, [])
    w._on_msg(w, {"action": "run_backward"}, [])
    assert w.state["grads"]["a"] == 0.0
    assert "export default" in w._esm


PAGE_JS = """
async ([src, first]) => {
  let state = first;
  const handlers = [];
  const model = {
    get: (k) => (k === "state" ? state : undefined),
    on: (ev, cb) => handlers.push(cb),
    send: async (msg) => {
      state = await window.pySend(msg);
      handlers.forEach((cb) => cb());
      window.lastState = state;
    },
  };
  const url = URL.createObjectURL(new Blob([src], { type: "text/javascript" }));
  const mod = await import(url);
  mod.default.render({ model, el: document.getElementById("root") });
}
"""


def widget_page(browser, model, viewport=None):
    """The widget's JavaScript for ``model`` on a page of its own: its messages go to the
    real Python model (the bridge stands in for Jupyter's comm, nothing else); the page's
    errors collect in ``page.errors``."""
    def py_send(msg):
        model.handle(msg)
        return model.state()

    page = browser.new_page(viewport=viewport) if viewport else browser.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.expose_function("pySend", py_send)
    page.set_content('<div id="root"></div>')
    page.evaluate(PAGE_JS, [walk_widget()._esm, model.state()])  # the one page script
    page.wait_for_selector(".mg-walk svg")
    return page


@pytest.mark.browser
def test_widget_page_in_chromium():
    """The widget's JavaScript in a real browser; its messages go to the real Python
    model (the bridge stands in for Jupyter's comm, nothing else)."""
    m = WalkModel("diamond")
    with chromium() as browser:
        page = widget_page(browser, m)
        errors = page.errors
        assert "idle" in page.inner_text(".status")

        page.click('button[data-action="step_backward"]')
        page.wait_for_selector(".error:has-text('step forward first')")
        page.click('button[data-action="run_forward"]')
        page.wait_for_selector(".status:has-text('forward done')")
        for _ in range(2):
            page.click('button[data-action="step_backward"]')
        page.wait_for_selector("g.node.current")
        assert page.inner_text(".step").startswith("visit d = b*c")
        page.click('button[data-action="run_backward"]')
        page.wait_for_selector(".summary.ok:has-text('every grad is correct')")
        assert "grad 15.0000" in page.inner_html(".graph")
        # click an edge for its local derivative
        page.click("path.edge >> nth=0", force=True)
        page.wait_for_selector(".edge-text:has-text('local derivative')")
        assert page.locator("path.edge.selected").count() == 1
        # the visit-order experiment
        page.fill("input.order", "d,a,b,c")
        page.click('button[data-action="set_order"]')
        page.wait_for_selector(".status:has-text('idle')")
        page.click('button[data-action="run_backward"]')
        page.wait_for_selector(".summary:has-text('wrong: grad[a] = 0, correct 15')")
        assert page.locator("path.edge.lost").count() == 2
        # a teaching mode, from the select
        page.select_option("select.mode", "assign")
        page.wait_for_selector(".status:has-text('grad = instead of +=')")
        assert page.inner_text(".lesson") == MODES["assign"].lesson
        page.select_option("select.preset", "square")
        page.wait_for_selector(".status:has-text('forward 0/1')")
        page.click('button[data-action="run_backward"]')
        page.wait_for_selector(".summary:has-text('wrong: grad[a] = 3, correct 6')")
        assert errors == []


def test_the_modules_examples_run():
    """The module docstring's examples (WalkModel, the timeline, setup()) run as written."""
    import doctest

    import micrograd.widget as widget
    result = doctest.testmod(widget)
    assert result.failed == 0 and result.attempted >= 5, result


@pytest.mark.browser
def test_the_widget_fits_a_phone_without_sideways_scroll():
    """At 390 px (a phone, or a narrow notebook column) the menus shrink to the width:
    the mode menu's longest title made the page 441 px wide."""
    with chromium() as browser:
        page = widget_page(browser, WalkModel("diamond"), {"width": 390, "height": 844})
        page.select_option("select.mode", "no_zero_grad")
        page.wait_for_selector(".lesson:has-text('Notice')")
        widths = page.evaluate("[document.documentElement.scrollWidth, innerWidth]")
    assert widths[0] <= widths[1], widths

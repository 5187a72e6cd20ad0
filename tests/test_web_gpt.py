"""The GPT tab's handlers (plain Python, as the static site's worker runs them) and its
HTTP routes (through TestClient): a run made, stepped a turn a step, sampled, looked
into; its refusals as data; its sessions counted apart and capped."""

import random
import warnings

import pytest

with warnings.catch_warnings():  # starlette warns about httpx vs httpx2 at import time
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

from micrograd.engine import no_grad
from micrograd.gpt.attention import BOS_LABEL, attention, forward
from micrograd.gpt.model import GPT, GPTConfig
from micrograd.gpt.train import Run
from micrograd.web import create_app, limits
from micrograd.web.handlers import LocalSessions, dispatch, run_to_end
from micrograd.web.server.sessions import SessionStore, StoreFull


def ok(route, request, sessions):
    out = run_to_end(dispatch(route, request, sessions))
    assert out["ok"], out
    return out["answer"]


def error(route, request, sessions):
    out = run_to_end(dispatch(route, request, sessions))
    assert not out["ok"], out
    return out["error"]


@pytest.fixture
def run():
    sessions = LocalSessions()
    made = ok("gpt.create", {"steps": 30}, sessions)
    return sessions, made


# ---------------------------------------------------------------------------------------
# the attention: GPT.gpt's numbers, and the softmax weights it gave
# ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("layers", [1, 2])
def test_forward_gives_the_models_logits_to_the_bit(layers):
    model = GPT(GPTConfig(vocab_size=27, n_layer=layers), random.Random(7))
    tokens = [26, 4, 12, 12, 0]
    k1, v1 = model.empty_cache()
    k2, v2 = model.empty_cache()
    with no_grad():
        for pos, tok in enumerate(tokens):
            want = [x.data for x in model.gpt(tok, pos, k1, v1)]
            got, weights = forward(model, tok, pos, k2, v2)
            assert [x.data for x in got] == want
            assert len(weights) == layers and all(len(w) == 4 for w in weights)
            for layer in weights:
                for head in layer:
                    assert len(head) == pos + 1 and abs(sum(head) - 1) < 1e-12


def test_attention_is_a_lower_triangle_of_rows_summing_to_one():
    run = Run.start(seed=1, steps=10)
    seen = attention(run.model, run.tokenizer, "christopher")
    assert seen["tokens"] == [BOS_LABEL, *"christopher"]
    (layer,) = seen["heads"]
    assert len(layer) == 4
    for head in layer:
        assert len(head) == 12 and all(len(row) == 12 for row in head)
        for i, row in enumerate(head):
            assert all(w is None for w in row[i + 1:])
            assert abs(sum(row[:i + 1]) - 1) < 1e-12 and all(w > 0 for w in row[:i + 1])


def test_a_long_name_is_cut_at_the_context_and_no_graph_is_left():
    run = Run.start(seed=1, steps=10)
    seen = attention(run.model, run.tokenizer, "a" * 30)
    assert len(seen["tokens"]) == run.model.config.block_size
    assert all(p.grad == 0.0 for p in run.model.params)


# ---------------------------------------------------------------------------------------
# the handlers
# ---------------------------------------------------------------------------------------

def test_create_says_what_the_run_is(run):
    _, made = run
    assert made["step"] == 0 and made["steps"] == 30 and made["seed"] == 42
    assert made["runner"] == "eager" and made["names"] == 5163
    assert (made["vocab"], made["parameters"], made["n_head"]) == (27, 4192, 4)
    assert made["mean"] is None


def test_steps_are_microgpts_losses_one_turn_each(run):
    sessions, made = run
    job = dispatch("gpt.step", {"sid": made["sid"], "steps": 3}, sessions)
    turns = 0
    try:
        while True:
            next(job)
            turns += 1
    except StopIteration as stop:
        out = stop.value["answer"]
    assert turns == 3
    want = Run.start(seed=42, steps=30)
    assert out["losses"] == [want.step() for _ in range(3)]
    assert round(out["losses"][0], 4) == 3.3962
    assert out["step"] == 3 and out["runner"] == "eager"
    assert out["mean"] == sum(out["losses"]) / 3 and out["mean_of"] == 3
    assert out["steps_per_second"] > 0


def test_the_mean_is_of_the_last_ones():
    sessions = LocalSessions()
    sid = ok("gpt.create", {"steps": 200}, sessions)["sid"]
    session = sessions.get(sid)
    session.losses.extend([9.0] * 150)  # as if 150 steps were run
    out = ok("gpt.step", {"sid": sid, "steps": 1}, sessions)
    assert out["mean_of"] == limits.GPT_MEAN_OF
    assert out["mean"] == pytest.approx((9.0 * 99 + out["losses"][0]) / 100)


def test_a_run_ends_at_its_steps(run):
    sessions = LocalSessions()
    sid = ok("gpt.create", {"steps": 3}, sessions)["sid"]
    out = ok("gpt.step", {"sid": sid, "steps": 5}, sessions)
    assert len(out["losses"]) == 3 and out["step"] == 3
    err = error("gpt.step", {"sid": sid, "steps": 1}, sessions)
    assert err["kind"] == "refused" and "steps are done" in err["message"]


def test_samples_say_which_names_are_in_the_list(run):
    sessions, made = run
    out = ok("gpt.sample", {"sid": made["sid"], "count": 12, "temperature": 0.5}, sessions)
    assert len(out["samples"]) == 12
    names = set(sessions.get(made["sid"]).run.docs)
    for s in out["samples"]:
        assert s["in_list"] == (s["name"] in names)
    assert out["new"] == sum(not s["in_list"] for s in out["samples"])
    # the same seed, the same draws as Run.sample's
    again = Run.start(seed=42, steps=30)
    assert [s["name"] for s in out["samples"]] == [again.sample(0.5) for _ in range(12)]


@pytest.mark.parametrize("t", [0.05, 2.5, 0, -1])
def test_a_temperature_outside_its_range_is_refused_plainly(run, t):
    sessions, made = run
    for route in ("gpt.sample", "gpt.attention"):
        err = error(route, {"sid": made["sid"], "temperature": t}, sessions)
        assert err["kind"] == "invalid" and err["field"] == "temperature"
        assert "outside 0.1...2" in err["message"]


def test_attention_of_a_name_and_of_a_sampled_one(run):
    sessions, made = run
    out = ok("gpt.attention", {"sid": made["sid"], "name": "emma"}, sessions)
    assert out["tokens"] == [BOS_LABEL, "e", "m", "m", "a"] and not out["sampled"]
    assert out["in_list"] and len(out["heads"]) == 1 and len(out["heads"][0]) == 4
    drawn = ok("gpt.attention", {"sid": made["sid"]}, sessions)
    assert drawn["sampled"] and len(drawn["tokens"]) == min(len(drawn["name"]) + 1, 16)
    err = error("gpt.attention", {"sid": made["sid"], "name": "Émile"}, sessions)
    assert err["kind"] == "refused" and err["field"] == "name" and "'É'" in err["message"]


def test_fields_are_bounded(run):
    sessions, made = run
    sid = made["sid"]
    for route, request, field in [
            ("gpt.step", {"sid": sid, "steps": limits.GPT_MAX_STEPS_PER_REQUEST + 1}, "steps"),
            ("gpt.step", {"sid": sid, "steps": 0}, "steps"),
            ("gpt.sample", {"sid": sid, "count": limits.GPT_MAX_SAMPLES + 1}, "count"),
            ("gpt.create", {"steps": limits.GPT_MAX_STEPS + 1}, "steps"),
            ("gpt.create", {"seed": -1}, "seed"),
            ("gpt.create", {"names": ["a"]}, None),
            ("gpt.attention", {"sid": sid, "name": "x" * 41}, "name")]:
        err = error(route, request, sessions)
        assert err["kind"] == "invalid" and err["field"] == field, (route, err)


def test_a_lost_session_and_another_kinds_sid(run):
    sessions, made = run
    play = ok("play.create", {"dataset": "xor", "hidden": [2], "samples": 40}, sessions)
    err = error("gpt.step", {"sid": play["sid"]}, sessions)
    assert err["kind"] == "lost" and err["field"] == "sid"
    assert error("play.get", {"sid": made["sid"]}, sessions)["kind"] == "lost"
    assert ok("gpt.delete", {"sid": made["sid"]}, sessions) == {"deleted": True}
    assert error("gpt.sample", {"sid": made["sid"]}, sessions)["kind"] == "lost"
    assert error("gpt.delete", {"sid": made["sid"]}, sessions)["kind"] == "lost"


def test_one_user_keeps_the_newest_gpt_sessions():
    sessions = LocalSessions(caps={"gpt": 2})
    play = ok("play.create", {"dataset": "xor", "hidden": [2], "samples": 40}, sessions)
    sids = [ok("gpt.create", {"steps": 5}, sessions)["sid"] for _ in range(3)]
    assert error("gpt.sample", {"sid": sids[0]}, sessions)["kind"] == "lost"
    assert ok("gpt.sample", {"sid": sids[2], "count": 1}, sessions)
    assert ok("play.get", {"sid": play["sid"]}, sessions)  # the Playground's stays


def test_the_server_store_caps_gpt_sessions_apart():
    now = [0.0]
    store = SessionStore(max_sessions=5, evict_after=60, clock=lambda: now[0],
                         caps={"gpt": 2})
    store.create("play")
    a, b = store.create("g1", "gpt"), store.create("g2", "gpt")
    with pytest.raises(StoreFull, match="all 2 GPT sessions"):
        store.room("gpt")
    with pytest.raises(StoreFull, match="GPT"):
        store.create("g3", "gpt")
    store.room()  # a Playground session still fits
    store.create("play2")
    now[0] = 61.0
    store.get(b)
    store.create("g3", "gpt")  # the resting GPT session gave its place
    with pytest.raises(KeyError):
        store.get(a)
    assert store.get(b) == "g2" and len(store) == 4
    store.delete(b)
    store.create("g4", "gpt")  # a deleted one's place is free


# ---------------------------------------------------------------------------------------
# over HTTP
# ---------------------------------------------------------------------------------------

@pytest.fixture
def client():
    return TestClient(create_app(max_gpt_sessions=2), base_url="http://127.0.0.1:8000")


def test_http_a_run_trained_sampled_and_looked_into(client):
    made = client.post("/api/gpt", json={"steps": 20, "seed": 42})
    assert made.status_code == 200, made.text
    sid = made.json()["sid"]
    out = client.post(f"/api/gpt/{sid}/step", json={"steps": 2}).json()
    assert out["step"] == 2 and len(out["losses"]) == 2 and out["runner"] == "eager"
    assert round(out["losses"][0], 4) == 3.3962 and out["steps_per_second"] > 0
    got = client.post(f"/api/gpt/{sid}/sample", json={"count": 5, "temperature": 1.0}).json()
    assert len(got["samples"]) == 5 and got["temperature"] == 1.0
    seen = client.post(f"/api/gpt/{sid}/attention", json={"name": "ann"}).json()
    assert seen["tokens"] == [BOS_LABEL, "a", "n", "n"]
    assert seen["heads"][0][0][0] == [1.0, None, None, None]
    assert client.delete(f"/api/gpt/{sid}").json() == {"deleted": True}
    assert client.post(f"/api/gpt/{sid}/step", json={}).status_code == 404


def test_http_refusals(client):
    sid = client.post("/api/gpt", json={"steps": 20}).json()["sid"]
    r = client.post(f"/api/gpt/{sid}/sample", json={"temperature": 3})
    assert r.status_code == 422 and "outside 0.1...2" in r.json()["error"]
    assert r.json()["field"] == "temperature"
    r = client.post(f"/api/gpt/{sid}/step", json={"steps": 11})
    assert r.status_code == 422 and r.json()["error"].startswith("steps")
    r = client.post(f"/api/gpt/{sid}/attention", json={"name": "Zoë"})
    assert r.status_code == 400 and r.json()["field"] == "name"
    r = client.post("/api/gpt", json={"names": "x"})
    assert r.status_code == 422


def test_http_gpt_places_full_is_busy_and_the_playground_still_opens(client):
    for _ in range(2):
        assert client.post("/api/gpt", json={"steps": 5}).status_code == 200
    r = client.post("/api/gpt", json={"steps": 5})
    assert r.status_code == 503 and "GPT sessions" in r.json()["error"]
    assert int(r.headers["Retry-After"]) > 0
    assert client.post("/api/play", json={"dataset": "xor", "hidden": [2],
                                          "samples": 40}).status_code == 200


def test_meta_reports_the_gpt_caps(client):
    caps = client.get("/api/meta").json()["limits"]
    assert caps["max_gpt_sessions"] == limits.MAX_GPT_SESSIONS
    assert caps["gpt_max_steps_per_request"] == limits.GPT_MAX_STEPS_PER_REQUEST


def test_attention_says_how_many_letters_are_past_the_context():
    run = Run.start(seed=1, steps=10)
    full = "a" * 15  # BOS + 15 letters: the 16 positions
    assert attention(run.model, run.tokenizer, full)["left_out"] == 0
    seen = attention(run.model, run.tokenizer, "b" + full + "cd")
    assert seen["left_out"] == 3 and seen["tokens"] == [BOS_LABEL, "b", *"a" * 14]
    assert attention(run.model, run.tokenizer, "emma")["left_out"] == 0


# ---------------------------------------------------------------------------------------
# a run that diverged: a step whose loss is not finite is refused, nothing changed
# ---------------------------------------------------------------------------------------

def _blown_up(sessions, sid):
    """lm_head's weights times 1e6 (through session.run): the next loss is inf."""
    session = sessions.get(sid)
    for row in session.run.model.state_dict["lm_head"]:
        for v in row:
            v.data *= 1e6
    return session, session.run.model.weights()


def test_an_eager_step_whose_loss_is_not_finite_is_refused_and_changes_nothing(run):
    sessions, made = run
    ok("gpt.step", {"sid": made["sid"], "steps": 1}, sessions)
    session, before = _blown_up(sessions, made["sid"])
    err = error("gpt.step", {"sid": made["sid"], "steps": 3}, sessions)
    assert err["kind"] == "refused" and err["field"] == "steps"
    assert "step 2: the loss on" in err["message"] and "not a finite number" in err["message"]
    assert "no weight was changed" in err["message"]
    assert session.run.model.weights() == before and session.done == 1
    assert len(session.losses) == 1
    assert all(p.grad == 0.0 for p in session.run.model.params)
    # the run still samples (its weights are what they were)
    assert ok("gpt.sample", {"sid": made["sid"], "count": 2}, sessions)["step"] == 1


def test_the_steps_before_a_diverged_one_are_answered(run):
    sessions, made = run
    session = sessions.get(made["sid"])
    real = session.runner.step
    calls = []

    def second_one_blows_up(r):
        calls.append(1)
        if len(calls) == 2:
            _blown_up(sessions, made["sid"])
        return real(r)

    session.runner.step = second_one_blows_up
    out = ok("gpt.step", {"sid": made["sid"], "steps": 3}, sessions)
    assert out["step"] == 1 and len(out["losses"]) == 1
    assert error("gpt.step", {"sid": made["sid"]}, sessions)["kind"] == "refused"


def test_the_lowered_runners_traced_step_error_is_refused_in_words(run):
    from micrograd.gpt.traced import TracedStepError

    sessions, made = run

    class Diverged:  # what LoweredRunner raises for a loss that is not finite
        name = "lowered"

        def step(self, r):
            raise TracedStepError(float("nan"), "step 1: the loss is nan, not a finite "
                                                "number; no weight was changed")

        def sync(self, r):
            pass

    sessions.get(made["sid"]).runner = Diverged()
    err = error("gpt.step", {"sid": made["sid"], "steps": 2}, sessions)
    assert err == {"kind": "refused", "field": "steps",
                   "message": "step 1: the loss is nan, not a finite number; no weight "
                              "was changed"}


def test_http_a_diverged_step_is_a_400_in_words(client):
    sid = client.post("/api/gpt", json={"steps": 20}).json()["sid"]
    session = client.app.state.sessions.get(sid)
    for row in session.run.model.state_dict["lm_head"]:
        for v in row:
            v.data *= 1e6
    r = client.post(f"/api/gpt/{sid}/step", json={"steps": 2})
    assert r.status_code == 400 and "not a finite number" in r.json()["error"]
    assert r.json()["field"] == "steps"


# ---------------------------------------------------------------------------------------
# a run started from a weights file (what `micrograd gpt --save` writes)
# ---------------------------------------------------------------------------------------

def _saved(tmp_path, steps=3, **start):
    from micrograd.gpt.weights import save

    trained = Run.start(seed=42, steps=10, **start)
    for _ in range(steps):
        trained.step()
    path = tmp_path / "gpt.json"
    save(trained.model, trained.tokenizer, path, meta={"steps": steps})
    return trained, path.read_text()


def test_a_run_starts_from_a_weights_file_and_trains_on(tmp_path):
    trained, text = _saved(tmp_path)
    sessions = LocalSessions()
    made = ok("gpt.create", {"weights": text, "weights_file": "gpt.json", "steps": 20},
              sessions)
    assert made["weights_file"] == "gpt.json" and made["step"] == 0
    session = sessions.get(made["sid"])
    assert session.run.model.weights() == trained.model.weights()
    # the same seed's names in the same order, from the file's weights with a fresh Adam
    again = Run.start(seed=42, steps=20, model=GPT(trained.model.config,
                                                   weights=trained.model.weights()),
                      tokenizer=trained.tokenizer)
    out = ok("gpt.step", {"sid": made["sid"], "steps": 2}, sessions)
    assert out["losses"] == [again.step() for _ in range(2)]
    assert ok("gpt.sample", {"sid": made["sid"], "count": 3}, sessions)["samples"]
    assert ok("gpt.create", {}, sessions)["weights_file"] is None


@pytest.mark.parametrize("text, words", [
    ("", "empty"),
    ("{not json", "not valid JSON"),
    ('{"format": "micrograd", "version": 1}', "not a micrograd GPT file"),
])
def test_a_bad_weights_file_is_refused_in_words_and_nothing_made(text, words):
    sessions = LocalSessions()
    err = error("gpt.create", {"weights": text, "weights_file": "w.json"}, sessions)
    assert err["kind"] == "refused" and err["field"] == "weights"
    assert err["message"].startswith("cannot load 'w.json'") and words in err["message"]
    assert len(sessions) == 0


def test_a_weight_that_is_not_finite_or_a_matrix_of_the_wrong_shape(tmp_path):
    import json

    _, text = _saved(tmp_path)
    doc = json.loads(text)
    doc["weights"]["wte"] = doc["weights"]["wte"][:-1]
    err = error("gpt.create", {"weights": json.dumps(doc)}, LocalSessions())
    assert err["kind"] == "refused" and "wte must be 27 rows of 16 numbers" in err["message"]
    err = error("gpt.create", {"weights": text.replace("[", "[NaN, ", 3)}, LocalSessions())
    assert err["kind"] == "refused" and "NaN is not a JSON number" in err["message"]


def test_weights_for_another_vocabulary_do_not_fit_the_names(tmp_path):
    _, text = _saved(tmp_path, names=["abc", "cab", "bca"])
    err = error("gpt.create", {"weights": text, "weights_file": "abc.json"}, LocalSessions())
    assert err["kind"] == "refused" and err["field"] == "weights"
    assert "'abc.json' does not fit the packaged names" in err["message"]
    assert "it knows 'abc'" in err["message"]


def test_an_oversized_weights_file_is_refused_in_words(client):
    big = "x" * (limits.GPT_MAX_WEIGHTS_CHARS + 1)
    err = error("gpt.create", {"weights": big}, LocalSessions())
    assert err["kind"] == "refused" and err["field"] == "weights"
    assert f"at most {limits.GPT_MAX_WEIGHTS_CHARS:,}" in err["message"]
    r = client.post("/api/gpt", json={"weights": big})
    assert r.status_code == 400 and "at most" in r.json()["error"]


def test_http_a_run_from_a_weights_file(client, tmp_path):
    _, text = _saved(tmp_path)
    r = client.post("/api/gpt", json={"weights": text, "weights_file": "gpt.json"})
    assert r.status_code == 200, r.text
    assert r.json()["weights_file"] == "gpt.json"
    r = client.post("/api/gpt", json={"weights": "{}"})
    assert r.status_code == 400 and r.json()["field"] == "weights"


def test_a_new_run_replaces_the_pages_own_when_every_place_is_taken():
    sessions = LocalSessions(caps={"gpt": 2})
    mine = ok("gpt.create", {"steps": 5}, sessions)["sid"]
    other = ok("gpt.create", {"steps": 5}, sessions)["sid"]
    new = ok("gpt.create", {"steps": 5, "replace": mine}, sessions)["sid"]
    assert error("gpt.sample", {"sid": mine}, sessions)["kind"] == "lost"
    assert ok("gpt.sample", {"sid": other, "count": 1}, sessions)  # the other page's stays
    # a refused file keeps the run it would have replaced
    assert error("gpt.create", {"weights": "{}", "replace": new}, sessions)["kind"] == "refused"
    assert ok("gpt.sample", {"sid": new, "count": 1}, sessions)
    # a lost one to replace: a new run as any other
    assert ok("gpt.create", {"replace": mine}, sessions)["sid"]


def test_http_new_run_replaces_with_every_place_taken(client):
    sids = [client.post("/api/gpt", json={"steps": 5}).json()["sid"] for _ in range(2)]
    assert client.post("/api/gpt", json={"steps": 5}).status_code == 503
    r = client.post("/api/gpt", json={"steps": 5, "replace": sids[0]})
    assert r.status_code == 200, r.text
    assert client.post(f"/api/gpt/{sids[0]}/step", json={}).status_code == 404

"""The GPT tab's requests: make a run of microgpt's GPT on the packaged names, train it
a few steps at a time, sample names from it, look at where its heads attend, drop it.

Each handler takes the request (a dict; a session's id under ``"sid"``) and the store of
sessions, and gives the answer as plain data. Training is a job of many turns: one turn
per step (a step builds a graph of about 100,000 nodes, freed when the step ends), so a
driver hands the turns in between to other work and the page's Stop acts between two
requests of a few steps each. A store holds at most ``limits.MAX_GPT_SESSIONS`` GPT
sessions (a kind of its own: ``web/server/sessions.py``); one more is answered ``busy``.

    >>> sessions = LocalSessions()
    >>> made = run_to_end(dispatch("gpt.create", {"steps": 50}, sessions))["answer"]
    >>> out = run_to_end(dispatch("gpt.step", {"sid": made["sid"], "steps": 2}, sessions))
    >>> out["answer"]["step"], len(out["answer"]["losses"]), out["answer"]["runner"]
    (2, 2, 'eager')
"""

from __future__ import annotations

from ...gpt.data import UnknownCharacterError
from ...gpt.train import DEFAULT_STEPS
from ...gpt.weights import ModelFileError, parse
from .. import limits
from ..gpt_session import GptSession
from . import gpt_walk
from .errors import Failure, StoreFull, clip
from .request_fields import Field, read
from .walk import WALK as _WALK

#: the kind of session the store counts apart (its cap: limits.MAX_GPT_SESSIONS)
KIND = "gpt"
#: microgpt's temperature for its samples
DEFAULT_TEMPERATURE = 0.5
MIN_TEMPERATURE, MAX_TEMPERATURE = 0.1, 2.0

SID = (Field("sid", "str", max_length=100, description="the GPT session's id"),)
CREATE = (
    Field("seed", "int", 42, ge=0, le=2**32 - 1,
          description="shuffles the names and draws the weights (microgpt's: 42)"),
    Field("steps", "int", DEFAULT_STEPS, ge=1, le=limits.GPT_MAX_STEPS,
          description="the run's length: the learning rate decays to 0 over it"),
    Field("weights", "str", None, nullable=True, max_length=limits.GPT_MAX_WEIGHTS_CHARS,
          description="a weights file's text (what `micrograd gpt --save` writes), "
                      "checked whole as --load checks it: the run starts from it"),
    Field("weights_file", "str", None, nullable=True, max_length=200,
          description="the file's name, said in the answer and the messages"),
    Field("replace", "str", None, nullable=True, max_length=100,
          description="the page's run the new one replaces: deleted once the new one is "
                      "made, its place the new one's (kept when the new one is refused)"),
)
STEP = SID + (
    Field("steps", "int", 1, ge=1, le=limits.GPT_MAX_STEPS_PER_REQUEST,
          description="steps to train now, one name each (fewer when the run ends)"),
)
TEMPERATURE = Field("temperature", "float", DEFAULT_TEMPERATURE, ge=MIN_TEMPERATURE,
                    le=MAX_TEMPERATURE, description="divides the logits: low, the likely "
                                                    "letters; high, anything goes")
SAMPLE = SID + (
    Field("count", "int", 10, ge=1, le=limits.GPT_MAX_SAMPLES, description="names to draw"),
    TEMPERATURE,
)
ATTENTION = SID + (
    Field("name", "str", None, nullable=True, max_length=40,
          description="the name to feed (letters the names hold); null: one sampled now"),
    TEMPERATURE,
)

POSITION = Field("position", "int", None, nullable=True, ge=0, le=10_000,
                 description="the position (0: <BOS>, then each letter) whose loss "
                             "-log softmax(logits)[next token] is walked; null: the last")
WALK = ATTENTION + (POSITION,)
WALK_BLOCK = SID + (
    Field("name", "str", max_length=40, description="the name the walk shows"),
    Field("position", "int", ge=0, le=10_000, description="the position the walk shows"),
    Field("block", "str", max_length=20, description="a box's id in the walk's answer"),
    Field("path", "list", [], items="int", max_items=8,
          description="down a block folded over the cap: each level's part, by index"),
) + tuple(f for f in _WALK if f.name in ("rankdir", "stack", "stagger"))


def _session(sessions, sid):
    try:
        session = sessions.get(sid)
        if not isinstance(session, GptSession):  # another tab's kind (a Playground's)
            raise KeyError(sid)
        return session
    except KeyError:
        raise Failure("lost", f"no GPT session {clip(sid)} (it may have expired: sessions "
                              f"idle for {limits.SESSION_IDLE_SECONDS} s are dropped, and "
                              f"one resting for {sessions.evict_after:g} s may give its "
                              "place to a new one); start a new run with POST /api/gpt",
                      field="sid") from None


def _temperature(request):
    """A temperature outside 0.1..2 refused in words a learner reads (before the
    field's own bounds would say it shorter)."""
    t = request.get("temperature") if isinstance(request, dict) else None
    if isinstance(t, (int, float)) and not isinstance(t, bool) and \
            not MIN_TEMPERATURE <= t <= MAX_TEMPERATURE:
        raise Failure("invalid", f"temperature: {t!r} is outside {MIN_TEMPERATURE:g}..."
                                 f"{MAX_TEMPERATURE:g}; below it every draw is the likeliest "
                                 "letter, above it the letters are close to random",
                      field="temperature")


def create(request, sessions):
    """``POST /api/gpt``: a new run on the packaged names (microgpt's set-up from
    ``seed``, ``steps`` long; from a weights file's text when ``weights`` is given); its
    id and what it is. ``replace``: the page's own run, deleted once the new one is
    made (its place the new one's, so New run is never busy; a refused file keeps
    it)."""
    _weights_size(request)
    req = read(CREATE, request)
    old = req["replace"]
    if old is not None:
        try:
            _session(sessions, old)
        except Failure:  # gone already (or another kind's): nothing to replace
            old = None
    try:
        if old is None:
            sessions.room(KIND)  # before building anything: its places may be full
        session = _new_session(req)
        if old is not None:
            sessions.delete(old)  # the new run exists: the old one's place is its
        sid = sessions.create(session, KIND)
    except StoreFull as err:
        raise Failure("busy", str(err), retry_after=5) from None
    return {"sid": sid, **session.summary(), "mean": None, "mean_of": 0}


def _weights_size(request):
    """A weights file over the cap refused in words (before the field's bound)."""
    text = request.get("weights") if isinstance(request, dict) else None
    if isinstance(text, str) and len(text) > limits.GPT_MAX_WEIGHTS_CHARS:
        raise Failure("refused", f"the weights file is {len(text):,} characters; the page "
                                 f"takes at most {limits.GPT_MAX_WEIGHTS_CHARS:,} "
                                 "(microgpt's default model is about 93,000)",
                      field="weights")


def _new_session(req):
    """The run of a create request: from the weights file when one came (checked
    whole, as ``micrograd gpt --load`` checks it; refused in words, nothing made)."""
    if req["weights"] is None:
        return GptSession(seed=req["seed"], steps=req["steps"])
    name = req["weights_file"] or "the weights file"
    try:
        model, tokenizer, _ = parse(req["weights"], name)
        return GptSession(seed=req["seed"], steps=req["steps"],
                          loaded=(model, tokenizer, name))
    except ModelFileError as err:
        raise Failure("refused", f"cannot load {clip(name)}: {err}", field="weights") \
            from None
    except UnknownCharacterError as err:
        raise Failure("refused", f"{clip(name)} does not fit the packaged names: {err}",
                      field="weights") from None


def step(request, sessions):
    """``POST /api/gpt/{sid}/step``: ``steps`` steps, one turn each; their losses, the
    mean of the last ones, and the steps a second (the wall time of the steps alone).
    A step whose loss is not finite (the run diverged) changes nothing and is refused
    in words, by either runner; steps before it in the request are answered."""
    req = read(STEP, request)
    session = _session(sessions, req["sid"])
    if session.done >= session.steps:
        raise Failure("refused", f"this run's {session.steps} steps are done (the learning "
                                 "rate has decayed to 0); sample from it, or start a new "
                                 "run", field="steps")
    try:
        losses, seconds = yield from session.train(req["steps"])
    except FloatingPointError as err:  # either runner's: a loss not finite, no change
        raise Failure("refused", str(err), field="steps") from None
    mean, mean_of = session.mean()
    return {"sid": req["sid"], **session.summary(), "losses": losses, "mean": mean,
            "mean_of": mean_of,
            "steps_per_second": len(losses) / seconds if seconds > 0 else None}


def sample(request, sessions):
    """``POST /api/gpt/{sid}/sample``: ``count`` names drawn at ``temperature``, each
    marked when the training names hold it."""
    _temperature(request)
    req = read(SAMPLE, request)
    session = _session(sessions, req["sid"])
    samples = session.sample(req["count"], req["temperature"])
    return {"sid": req["sid"], "step": session.done, "temperature": req["temperature"],
            "samples": samples, "new": sum(not s["in_list"] for s in samples)}


def attention(request, sessions):
    """``POST /api/gpt/{sid}/attention``: where each head attends over ``name`` (or a
    name sampled now at ``temperature``): per layer, per head, a positions x positions
    matrix of softmax weights (rows the queries; null after the query)."""
    _temperature(request)
    req = read(ATTENTION, request)
    session = _session(sessions, req["sid"])
    name, sampled = req["name"], req["name"] is None
    if sampled:
        name = session.sample(1, req["temperature"])[0]["name"]
    try:
        seen = session.attention(name)
    except UnknownCharacterError as err:
        raise Failure("refused", str(err), field="name") from None
    return {"sid": req["sid"], "step": session.done, **seen, "sampled": sampled,
            "in_list": name in session.known}


def _walked(session, name, position):
    """The position's graph of ``name`` (its characters refused in words)."""
    try:
        return gpt_walk.position_graph(session, name, position)[2]
    except UnknownCharacterError as err:
        raise Failure("refused", str(err), field="name") from None


def walk(request, sessions):
    """``POST /api/gpt/{sid}/walk``: one position's graph of ``name`` (or a name sampled
    now), built, backward() run, folded into the model's blocks: a box a block and a box
    an input, with data and grad; the graph dropped after the answer."""
    _temperature(request)
    req = read(WALK, request)
    session = _session(sessions, req["sid"])
    name, sampled = req["name"], req["name"] is None
    if sampled:
        name = session.sample(1, req["temperature"])[0]["name"]
    yield  # the sample's turn, then the graph's
    pg = _walked(session, name, req["position"])
    return {"sid": req["sid"], **gpt_walk.walk_answer(session, name, pg),
            "sampled": sampled, "in_list": name in session.known}


def walk_block(request, sessions):
    """``POST /api/gpt/{sid}/walk/block``: one box of the walk unfolded: its nodes with
    data, grad and edges (laid out), or, over the graph cap, its parts."""
    req = read(WALK_BLOCK, request)
    session = _session(sessions, req["sid"])
    pg = _walked(session, req["name"], req["position"])
    yield
    layout = {k: req[k] for k in ("rankdir", "stack", "stagger")}
    out = yield from gpt_walk.block_answer(session, req["name"], pg, req["block"],
                                           req["path"], layout)
    return {"sid": req["sid"], **out}


def delete(request, sessions):
    """``DELETE /api/gpt/{sid}``: drop the session."""
    req = read(SID, request)
    _session(sessions, req["sid"])  # a lost one (or another kind's) says so
    sessions.delete(req["sid"])
    return {"deleted": True}

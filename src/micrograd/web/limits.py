"""The documented caps of ``micrograd serve``: a request over a cap is refused with a
message (a 4xx over HTTP; error data from a handler).

The caps of a set-up are declared with it: the Walk's in ``micrograd.walk_setup``, an
experiment's in ``micrograd.experiment``; they are named here again only so that the
server's caps read in one list. Change the others here; ``GET /api/meta`` reports them
all to the page and docs/web.md lists them.
"""

from .. import points_csv as _points_csv
from ..experiment import MAX_EDITS, MAX_LAYERS, MAX_NEURONS, MAX_PARAMETERS, MAX_SAMPLES
from ..walk_setup import MAX_EXPR_CHARS, MAX_NAME_CHARS, MAX_VALUES
from ..walk_setup import MAX_NODE_CHARS
from ..walk_setup import MAX_STEP as MAX_STEPS

__all__ = ["MAX_EDITS", "MAX_LAYERS", "MAX_NEURONS", "MAX_PARAMETERS", "MAX_SAMPLES",
           "MAX_EXPR_CHARS", "MAX_NAME_CHARS", "MAX_VALUES", "MAX_NODE_CHARS", "MAX_STEPS"]

#: the walk: expressions (characters, nesting), graph nodes, steps, visit orders
MAX_EXPR_DEPTH = 50
MAX_GRAPH_NODES = 300      # a graph the page draws with no wait a person notices
MAX_ORDER_LEN = 300

#: the playground: work per request, history, pictures, one point's graph
MAX_STEPS_PER_REQUEST = 20   # the page asks for 1; 20 steps of the largest network: one short wait
MAX_HISTORY = 4000         # metric rows kept per session (older rows are thinned)
GRID = 40                  # the decision boundary is sampled on GRID x GRID points
THUMB = 20                 # each neuron's picture is THUMB x THUMB (every other grid cell)
MAX_POINT_GRAPH_NODES = 2000  # one point's graph is drawn up to this size (its layout is slow)

#: the GPT tab (micrograd.gpt, web/gpt_session.py): a run's length (microgpt's default
#: 1000 steps), the steps a request runs (each a turn: ~30-70 ms of CPU served, a few
#: times that in the static site's Python), the names drawn at once, the mean's window
GPT_MAX_STEPS = 5000
GPT_MAX_STEPS_PER_REQUEST = 10
GPT_MAX_SAMPLES = 20
GPT_MEAN_OF = 100
#: a weights file a page starts a run from (gpt.create's ``weights``: the text that
#: ``micrograd gpt --save`` writes; microgpt's default model is ~93,000 characters), so
#: its request stays under MAX_BODY_BYTES; the page checks it too before it sends it
GPT_MAX_WEIGHTS_CHARS = 200_000
#: live GPT sessions at once (each ~1 MB between its turns; a step's graph, ~100,000
#: nodes and tens of MB, lives only during its turn, one turn at a time on the training
#: thread): counted apart from the Playground's and within MAX_SESSIONS; one more is
#: answered busy (server/sessions.py)
MAX_GPT_SESSIONS = 3

#: the server: sessions and request size
MAX_SESSIONS = 16          # live playground sessions (<= ~8 MB each); see server/sessions.py
SESSION_IDLE_SECONDS = 900  # a session unused this long is dropped
SESSION_EVICTABLE_SECONDS = 60  # a full store gives a place only from a session resting this long
#: walks of a big graph in progress (each holds its graph, steps and layout between its
#: turns: ~9 MB for the largest the caps allow, ~14 MB during its turn), at once in all
#: and from one page; one more is answered 503 busy (server/schedule.py)
MAX_WALKS_IN_TURNS = 4
MAX_WALKS_IN_TURNS_PER_PAGE = 2
#: a request body, sized for the largest data set on purpose: a set-up with MAX_SAMPLES
#: points of your own (three repr floats a point, at most ~78 bytes as JSON: ~156 KB),
#: MAX_EDITS points added (~16 KB) and MAX_PARAMETERS weights restored (~38 KB); or a
#: CSV file of MAX_SAMPLES points (MAX_CSV_CHARS, ~160 KB, a little more as JSON text)
MAX_BODY_BYTES = 256 * 1024
#: the longest CSV file of points read (micrograd.points_csv: a header and MAX_SAMPLES
#: lines of three repr floats)
MAX_CSV_CHARS = _points_csv.MAX_CSV_CHARS
#: the most points a link carries: as many as the hand edits (a larger data set of your
#: own travels as a CSV file, and the page says so)
MAX_URL_POINTS = MAX_EDITS
CLIP_CHARS = 60            # how much of a client's text an error message may quote
MAX_ERROR_CHARS = 800      # the longest error message sent (a longer one is cut, and says so)
#: the server process's resident memory stays under this: a ~50 MB process, 16 of the
#: largest sessions at ~8 MB (MAX_GPT_SESSIONS of them may be GPT sessions, smaller
#: between turns; one GPT step's graph at most, in its turn), MAX_WALKS_IN_TURNS of the
#: largest walks (~9 MB each between turns), and what requests in flight hold (bodies
#: up to MAX_BODY_BYTES, 2,000 points of one's own, parsed) in the arenas of the event
#: loop and the two work threads, with room for the allocator's arenas;
#: tests/test_web_hardening.py drives it
MEMORY_BOUND_MB = 288


def as_dict():
    """Every cap by its lower-case name (``max_expr_chars``: 1000, ...)."""
    return {k.lower(): v for k, v in globals().items() if k.isupper() and not k.startswith("_")}

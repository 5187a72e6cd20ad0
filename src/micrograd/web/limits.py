"""The documented caps of ``micrograd serve``: a request over a cap gets a 4xx with a message.

Change them here; ``GET /api/meta`` reports them to the page and docs/web.md lists them.
"""

#: the walk: characters in an expression, nodes in its graph, backward visits
MAX_EXPR_CHARS = 1000
MAX_GRAPH_NODES = 300  # the page draws 200 nodes in well under 300 ms

MAX_ORDER_LEN = 300
MAX_NAME_CHARS = 100       # a leaf name given in 'values'

#: the playground: data, network, work per request, history
MAX_SAMPLES = 2000         # points in a data set (train + test)
MAX_HIDDEN_LAYERS = 4
MAX_NEURONS = 32           # per hidden layer
MAX_PARAMETERS = 1500      # weights + biases of one network
MAX_STEPS_PER_REQUEST = 20   # the page asks for 1; a max-size network takes ~80 ms a step
MAX_HISTORY = 4000         # metric rows kept per session (older rows are thinned)
GRID = 40                  # the decision boundary is sampled on GRID x GRID points

#: the server: sessions and request size
MAX_SESSIONS = 16          # live playground sessions (<= ~8 MB each); see sessions.py
SESSION_IDLE_SECONDS = 900  # a session unused this long is dropped
SESSION_EVICTABLE_SECONDS = 60  # a full store gives a place only from a session resting this long
MAX_BODY_BYTES = 64 * 1024
CLIP_CHARS = 60            # how much of a client's text an error message may quote
MAX_ERROR_CHARS = 800      # the longest error message sent (a longer one is cut, and says so)
#: the server process's resident memory stays under this (a ~50 MB process, 16 of the
#: largest sessions at ~8 MB, requests in flight); tests/test_web_hardening.py drives it
MEMORY_BOUND_MB = 256


def as_dict():
    return {k.lower(): v for k, v in globals().items() if k.isupper()}

#: the walk (continued): nesting depth of an expression, steps of one walk
MAX_EXPR_DEPTH = 50
MAX_STEPS = 2000

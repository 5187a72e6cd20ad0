"""Ctrl-C at a chosen line: a trace function that raises KeyboardInterrupt at the n-th
line run inside the given code objects, as a press landing there would."""

import sys


def interrupt_at_line(codes, n, skip_line=None):
    """A trace function for ``sys.settrace`` and a counter ``seen`` (a one-item list):
    the n-th line event inside ``codes`` (not ``skip_line``) raises KeyboardInterrupt;
    ``seen[0] < n`` afterwards says the run ended before reaching it."""
    seen = [0]

    def tracer(frame, event, arg):
        if frame.f_code not in codes:
            return None

        def line(f, e, a):
            if e == "line" and f.f_lineno != skip_line:
                seen[0] += 1
                if seen[0] == n:
                    sys.settrace(None)
                    raise KeyboardInterrupt
            return line
        return line

    return tracer, seen

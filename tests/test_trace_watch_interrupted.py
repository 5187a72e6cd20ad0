"""Recording a sample patches ``Value``'s special methods for the length of the run: an
interrupt while they are being put in place still leaves ``Value`` as it was."""

import pytest

from micrograd.engine import Value
from micrograd.trace import recording


def test_an_interrupt_while_the_watch_is_installed_puts_value_back(monkeypatch):
    before = dict(Value.__dict__)
    real_wrap = recording._Watch._wrap
    calls = []

    def wrap_then_interrupt(self, name):
        calls.append(name)
        if len(calls) == 3:  # part-way: .data and two special methods already patched
            raise KeyboardInterrupt
        real_wrap(self, name)

    monkeypatch.setattr(recording._Watch, "_wrap", wrap_then_interrupt)
    with pytest.raises(KeyboardInterrupt):
        recording.record(lambda x: x * 2.0, [1.0], ["x"])
    assert len(calls) == 3
    assert dict(Value.__dict__) == before  # every patched name restored
    assert (Value(3.0) * 2.0).data == 6.0

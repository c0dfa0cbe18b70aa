"""The event stream: one JSON object per line, the same on every runtime.

Every line is ``{"ev": kind, "t": us, ...}`` with ``t`` the microseconds since the
firmware started (for a press: when its first edge happened). The other keys follow in
sorted order, so a board, the simulator on CPython and the simulator on the MicroPython
unix port print byte-identical lines for the same input. docs/events.md documents every
kind and field; ``courtside.STREAM`` is the version.
"""

import json


def _value(v):
    if isinstance(v, dict):
        return "{" + ",".join(json.dumps(k) + ":" + _value(v[k]) for k in sorted(v)) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ",".join(_value(x) for x in v) + "]"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if v is None:
        return "null"
    return json.dumps(v)


def line(kind, t, fields):
    """The text of one event line (without the newline)."""
    head = '{"ev":' + json.dumps(kind) + ',"t":' + str(t)
    if not fields:
        return head + "}"
    return head + "," + _value(fields)[1:]

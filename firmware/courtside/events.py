"""The event stream: every kind of event, its fields, and its line of text, in one place.

Each event is one line of JSON, ``{"ev": kind, "t": us, ...}``, with ``t`` the
microseconds since the firmware started (for a press: when its first edge happened) and
the other keys in sorted order, so a board, the simulator on CPython and the simulator on
the MicroPython unix port print byte-identical lines for the same input. Strings are
written in ASCII on every runtime (``\\u00e9``, ``\\b``, DEL as ``\\u007f``, a lone
surrogate as ``\\ud800``), whatever the interpreter's own ``json`` would do.

``FIELDS`` names the fields of every kind. The firmware writes every line through ``line``; the
laptop reads them back with ``parse``; docs/events.md and docs/deathball.md document the
same table (a test keeps them in step).

    text = line("join", 120000, {"p": 2})     # '{"ev":"join","t":120000,"p":2}'
    kind, t, fields = parse(text)            # ("join", 120000, {"p": 2})
"""

import json

from courtside import STREAM  # noqa: F401 - the stream's version, kept with VERSION

# Every kind and its fields, one kind a line: the fields it always has, then after "|"
# the ones it has only sometimes. One string, not a dict: a board that only writes lines
# keeps a few hundred bytes of it rather than a table of objects.
FIELDS = """
hello fw stream mode capture boxes settings
pong fw stream mode capture
mode mode
settings tie_us contest_ms answer_ms debounce_ms stuck_ms long_ms brightness sound capture
help commands
cmd line
ok cmd
error msg line
button p b
release p b
stuck p b
unstuck p b
fault kind p | closed
overflow dropped new
unsent lines total
lobby game
join p
refused why players
start mode players
press n p b c lag early
ignored p b why
verdict c order tie_us
tie c rank players draw gap
withdrawn n p why
referee players
roll purpose face forced | p
initiative tied face
order order
setup p square
turn p round
skip p round
move p arrows start end
push p by start end
undo p arrows
refuse p reason arrows
bounce ball square template face forced incoming heading
ball ball step start end heading
death p square cause | by ball
shrink ring size corners
clamp start end | p ball
winner p together
position text phase
"""

def kinds():
    """Every event kind, in the table's order."""
    return [row.split(" ", 1)[0] for row in FIELDS.strip().split("\n")]


def fields_of(kind):
    """(always, sometimes): the field names of ``kind``; KeyError for an unknown kind."""
    at = FIELDS.find("\n" + kind + " ")
    if at < 0:
        raise KeyError(kind)
    row = FIELDS[at + len(kind) + 2:FIELDS.index("\n", at + 1)]
    always, _, sometimes = row.partition("|")
    return always.split(), sometimes.split()


def check(kind, fields):
    """Raise ValueError unless ``fields`` are exactly what ``kind`` may carry."""
    try:
        always, sometimes = fields_of(kind)
    except KeyError:
        raise ValueError("unknown event kind %r" % kind) from None
    for name in always:
        if name not in fields:
            raise ValueError("%s event without %r" % (kind, name))
    for name in fields:
        if name not in always and name not in sometimes:
            raise ValueError("%s event with unknown field %r" % (kind, name))


_SHORT = {8: "\\b", 9: "\\t", 10: "\\n", 12: "\\f", 13: "\\r", 34: '\\"', 92: "\\\\"}


def _string(s):
    try:
        raw = s.encode()
    except UnicodeError:    # a lone surrogate (CPython cannot encode it): spelled below
        raw = b""
    if len(raw) == len(s):  # ASCII: the interpreter's json agrees unless a control char or DEL
        for c in raw:
            if c < 32 or c == 127:
                break
        else:
            return json.dumps(s)
    out = ['"']
    for ch in s:
        c = ord(ch)
        if c in _SHORT:
            out.append(_SHORT[c])
        elif 32 <= c < 127:
            out.append(ch)
        elif c < 0x10000:
            out.append("\\u%04x" % c)
        else:  # outside the basic plane: a surrogate pair, as JSON spells it
            c -= 0x10000
            out.append("\\u%04x\\u%04x" % (0xD800 + (c >> 10), 0xDC00 + (c & 0x3FF)))
    out.append('"')
    return "".join(out)


def _value(v):
    if isinstance(v, str):
        return _string(v)
    if isinstance(v, dict):
        return "{" + ",".join(_string(k) + ":" + _value(v[k]) for k in sorted(v)) + "}"
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
    head = '{"ev":' + _string(kind) + ',"t":' + str(t)
    if not fields:
        return head + "}"
    return head + "," + _value(fields)[1:]


def parse(text):
    """(kind, t, fields) from one line, or None for a line that is not an event (a REPL
    banner, a traceback, a damaged line). ``fields`` excludes ``ev`` and ``t``."""
    text = text.strip()
    if not text.startswith("{"):
        return None
    try:
        obj = json.loads(text)
    except (ValueError, RuntimeError, MemoryError):  # not JSON, or nested past recursion
        return None
    if not isinstance(obj, dict):
        return None
    kind = obj.pop("ev", None)
    t = obj.pop("t", None)
    if not isinstance(kind, str) or type(t) is not int or t < 0:
        return None
    return kind, t, obj

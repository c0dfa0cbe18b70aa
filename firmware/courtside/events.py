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
import sys

from micropython import const

from courtside import STREAM  # noqa: F401 - the stream's version, kept with VERSION

_SHELF_MASK = const(15)   # the shelves of quoted names (``_QUOTED``, below) less one

# Every kind and its fields, one kind a line: the fields it always has, then after "|"
# the ones it has only sometimes. One string, not a dict: a board that only writes lines
# keeps a few hundred bytes of it rather than a table of objects.
FIELDS = """
hello fw stream mode capture boxes settings can_save
pong fw stream mode capture
mode mode
settings tie_us contest_ms answer_ms debounce_ms stuck_ms long_ms brightness sound capture | pace
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
mem heap_used heap_free | stack_peak stack_size collect_us
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
cursor p square
setup p square
turn p round phase
hold why
ready p
skip p round
move p arrows start end
push p by start end
pending p arrows
undo p arrows
refuse p reason arrows
bounce ball square template face forced incoming heading
ball ball step start end heading
death p square cause | by ball
shrink border size corners
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


def line(kind, t, fields):
    """The text of one event line (without the newline)."""
    return encode(kind, t, fields).decode()


def _value(v):
    """One value as the stream writes it (text): for tests and tools."""
    out = bytearray()
    _put(out, v)
    return out.decode()


def encode(kind, t, fields):
    """The bytes of one event line (without the newline), as ``line`` spells it: what a
    board sends. It is built from bytes, so it makes no new ``str``: on MicroPython each
    new string is first looked for among the interned ones, a search through every name
    the firmware's modules brought, and an event line of text made dozens of them.

    On MicroPython the line is built in one buffer kept between calls and copied out
    once: a ``bytearray`` grown by ``+=`` is reallocated to the exact new size at every
    step, a dozen reallocations a line, which on a board was a tenth of a storm's time.
    (CPython, where a server's threads may encode at once, builds each line afresh.)"""
    out = _scratch if _REUSE else bytearray()
    if _REUSE:
        out[:] = b""             # emptied, its room kept
    _head(out, kind, t)
    if fields:
        out += b","
        _items(out, fields)
    out += b"}"
    if not _REUSE:
        return out
    line = bytearray(out)
    if len(out) > _SCRATCH_KEEP:
        _fresh_scratch()         # a storm's verdict does not keep its room for ever
    return line


def _head(out, kind, t):
    """What every line starts with: its kind, then its time."""
    out += b'{"ev":'
    _text(out, kind)
    out += b',"t":'
    out += b"%d" % t


_REUSE = sys.implementation.name == "micropython"
_SCRATCH_KEEP = 512
_scratch = bytearray()


def _fresh_scratch():
    global _scratch
    _scratch = bytearray()


# A list longer than this is written a part at a time (``parts``). On the chip an item of
# a verdict (a dict of seven fields) took 1.4 ms to encode: 16 items a part made a part
# longer than a pass may be (22 ms), 4 make it about 6 ms.
PART_ITEMS = 4


def long(fields):
    """True when ``fields`` hold a list longer than ``PART_ITEMS`` (a storm's verdict):
    a board sends such a line in ``parts``."""
    for v in fields.values():
        if type(v) is list and len(v) > PART_ITEMS:
            return True
    return False


def parts(kind, t, fields):
    """The bytes of ``encode(kind, t, fields)`` in parts, as a generator: each long list
    is cut after every ``PART_ITEMS`` items. A board sends a storm's verdict this way a
    part per step, so no pass spends a long line's whole encoding at once, and no buffer
    of the whole line is ever made."""
    out = bytearray(_PART_ROOM)
    out[:] = b""              # its room kept: each part is built without growing it
    _head(out, kind, t)
    keys = sorted(fields)
    for key in keys:
        out += b","
        _text(out, key)
        out += b":"
        v = fields[key]
        if type(v) is not list or len(v) <= PART_ITEMS:
            _put(out, v)
            continue
        out += b"["
        for j, item in enumerate(v):
            if j:
                out += b","
            _put(out, item)
            if (j + 1) % PART_ITEMS == 0 and j + 1 < len(v):
                yield bytearray(out)
                out[:] = b""
        out += b"]"
    out += b"}"
    yield bytearray(out)


# The room a part is built in, kept from part to part and copied out once, as ``encode``
# keeps its buffer: MicroPython grows a ``bytearray`` by ``+=`` to the exact new size
# every time, and on a board each growth may be a new block from a fragmented heap.
_PART_ROOM = 640


def _items(out, d):
    """The members of dict ``d``, keys in sorted order. A name already quoted (every
    field name a board writes, once seen) and a value that is an int are written here,
    not by a call each: on the chip a call costs more than the writing."""
    keys = sorted(d)
    i = 0
    while i < len(keys):
        if i:
            out += b","
        key = keys[i]
        q = _QUOTED[hash(key) & _SHELF_MASK].get(key)
        if q is None:
            _text(out, key)
        else:
            out += q
        out += b":"
        v = d[key]
        if type(v) is int:
            out += b"%d" % v
        else:
            _put(out, v)
        i += 1


def _put(out, v):
    t = type(v)                 # one call, then identity tests: cheaper than isinstance()s
    if t is int:
        out += b"%d" % v
    elif t is str:
        _text(out, v)
    elif v is True:
        out += b"true"
    elif v is False:
        out += b"false"
    elif v is None:
        out += b"null"
    elif t is dict:
        out += b"{"
        _items(out, v)
        out += b"}"
    elif t is list or t is tuple:
        _list(out, v)
    else:
        _other(out, v)


def _other(out, v):
    """A value of a subclass (CPython's IntEnum, an OrderedDict), or any other type."""
    if isinstance(v, str):
        _text(out, v)
    elif isinstance(v, int):
        out += b"%d" % v
    elif isinstance(v, dict):
        out += b"{"
        _items(out, v)
        out += b"}"
    elif isinstance(v, (list, tuple)):
        _list(out, v)
    else:
        out += json.dumps(v).encode()


def _list(out, v):
    out += b"["
    i = 0
    while i < len(v):
        if i:
            out += b","
        _put(out, v[i])
        i += 1
    out += b"]"


# str -> its quoted bytes: the names and words a board writes again and again, kept on 16
# shelves by the string's hash rather than in one dict. MicroPython's collector marks depth
# first with a stack of 64 blocks on the rp2 port, and an object waits on it from the moment
# its parent is looked into until its own turn: marking one shelf, the other shelves of the
# tuple and that shelf's words wait together, on top of whatever waits above the tuple.
# More than the stack has room for makes it sweep the whole heap for marked blocks again: a
# collection on the chip took 21-22 ms where it takes 9-11 when this was one dict of 54
# names (docs/firmware.md, "Memory"). About 200 names: 16 shelves of about 12 keep the
# sum near its least (32 of about 6 left 6 of 227 collections overflowing, 16 none).
_QUOTED: tuple = tuple({} for _ in range(_SHELF_MASK + 1))


def _text(out, s):
    """A string: as it is when it is printable ASCII with nothing to escape (every name
    the firmware writes), else spelled by ``_string``. A kind or field name of ``FIELDS``,
    or a word given to ``words``, is written from ``_QUOTED`` once seen (each costs a few
    dozen bytes: names only, never text from outside); anything else is looked at byte by
    byte, which on a board costs a bytecode loop."""
    shelf = _QUOTED[hash(s) & _SHELF_MASK]
    q = shelf.get(s)
    if q is not None:
        out += q
        return
    raw = s.encode("utf-8", "surrogatepass")   # a lone surrogate too (CPython refuses it)
    if len(raw) == len(s):
        if _named(s):
            q = b'"' + raw + b'"'
            shelf[s] = q
            out += q
            return
        if _plain(raw):
            out += b'"'
            out += raw
            out += b'"'
            return
    out += _string(s).encode()


def words(*texts):
    """Strings the firmware writes as values again and again (button names, reasons):
    spelled once and kept, like the names of ``FIELDS``. Each must be printable ASCII."""
    for s in texts:
        raw = s.encode()
        if not _plain(raw) or len(raw) != len(s):
            raise ValueError("not a plain word: %r" % s)
        _QUOTED[hash(s) & _SHELF_MASK][s] = b'"' + raw + b'"'


def _named(s):
    """True for a kind or field name of ``FIELDS``."""
    if " " in s or "\n" in s:
        return False
    at = FIELDS.find(s)
    while at >= 0:
        end = at + len(s)
        if FIELDS[at - 1] in " \n" and (end == len(FIELDS) or FIELDS[end] in " \n"):
            return True
        at = FIELDS.find(s, at + 1)
    return False


def _plain(raw):
    for c in raw:
        if c < 32 or c > 126 or c == 34 or c == 92:  # noqa: PLR1714 - no tuple built per byte
            return False
    return True


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

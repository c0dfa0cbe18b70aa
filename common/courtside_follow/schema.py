"""The stream's one schema: every kind, its fields (``courtside.events.FIELDS``) and the
type of every field (``TYPES``), and the reading of one line against them.

    record, problem = read('{"ev":"join","t":120000,"p":2}')   # ({"ev": ..}, None)
    check({"ev": "join", "t": 5, "p": "two"})   # 'join event: p is not a player'

A record is an event as a dict, ``ev`` and ``t`` included (a log line as JSON reads).
``check`` says why a record cannot be the event it claims to be (an unknown kind, a field
missing or unknown, a field of the wrong type or out of range, text a board cannot
write), or None. Runs on CPython and on the MicroPython unix port.
"""

from courtside import events
from courtside import settings as config
from courtside.pins import ARROWS, BUTTONS

MAX_T = 1 << 40          # us, about 12.7 days: no board session logs a later time
MAX_BOXES = 4
INT_MAX = 1 << 31

# The type of every field, by name, one type a line. ``order`` is a list of players in
# ``order`` and a list of presses in ``verdict``; the fields of ``settings`` are the
# settings themselves (checked as ``courtside.settings`` checks them).
TYPES = """
count n c rank face round step ball by closed boxes stream tie_us size border dropped new lines total
time t
player p
signed lag gap
text b line msg mode why reason cause kind fw capture game purpose template text phase cmd
text square start end heading incoming
players players draw together tied
texts arrows corners commands
flag forced tie can_save
early early
settings settings
order order
"""
NULLABLE = ("winner p", "refuse arrows", "ready p", "move end")
# Fields a kind has always had only since a stream version: an older stream's record
# may lack them.
SINCE = {"hello settings": 2, "hello can_save": 4, "turn phase": 4}
# Fields renamed, by kind: (old name, new name, the first stream version with the new name).
# A record of an older stream is read with the new name (``upgrade``).
RENAMED = {"shrink": (("ring", "border", 6),)}
INPUTS = ("press", "ignored", "button", "release", "stuck", "unstuck")
BUTTON_NAMES = BUTTONS + ARROWS + ("MAIN",)     # the pin map's names, as the stream says them
PRESS_FIELDS = (("n", int), ("p", int), ("rank", int), ("lag", int), ("b", str), ("tie", bool))

_TYPE_OF = {}
for _row in TYPES.strip().split("\n"):
    _names = _row.split()
    for _name in _names[1:]:
        _TYPE_OF[_name] = _names[0]
del _row, _names, _name

try:
    _ascii = ascii
except NameError:        # MicroPython has no ascii(): its repr, as near as it gets
    _ascii = repr
# ASCII text cannot hold a lone surrogate: a quick answer where str knows (not MicroPython's)
_ASCII = hasattr("", "isascii")


def shown(value):
    """A value from a log, short and printable, for a message."""
    text = _ascii(value)
    return text if len(text) <= 40 else text[:37] + "..."


def lone_surrogate(value, depth=0):
    """True when ``value`` holds text with a lone surrogate (not text a board writes in
    UTF-8), in any string, key or nested value. (MicroPython's text cannot hold one.)"""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeError:
            return True
        return False
    if depth > 3:
        return False          # deeper values are refused by their type anyway
    if isinstance(value, dict):
        for k in value:
            if lone_surrogate(k) or lone_surrogate(value[k], depth + 1):
                return True
    elif isinstance(value, list):
        for v in value:
            if lone_surrogate(v, depth + 1):
                return True
    return False


SURROGATE = "holds a lone surrogate (not text a board writes in UTF-8)"


def _list_of(value, want):
    if not isinstance(value, list):
        return False
    for x in value:
        if type(x) is not want:
            return False
    return True


def _players(value):
    if not _list_of(value, int):
        return "is not a list of whole numbers"
    for x in value:
        if not 0 <= x <= MAX_BOXES:
            return "holds a player that is not 1 to %d" % MAX_BOXES
    return None


def _text(value):
    if not isinstance(value, str):
        return "is not text"
    return SURROGATE if lone_surrogate(value) else None


def type_problem(kind, name, value):  # noqa: PLR0911 - one answer a type
    """Why ``value`` cannot be field ``name`` of a ``kind`` event, or None."""
    if value is None:
        return None if kind + " " + name in NULLABLE else "is null"
    want = _TYPE_OF.get(name)
    if want in ("count", "time", "signed", "player"):
        if type(value) is not int:
            return "is not a whole number"
        low, high = 0, INT_MAX
        if want == "signed":
            low, high = -MAX_T, MAX_T
        elif want == "time":
            high = MAX_T
        elif want == "player":
            high = MAX_BOXES
        return None if low <= value <= high else "is out of range"
    if want == "text":
        return _text(value)
    if want == "players" or (want == "order" and kind == "order"):
        return _players(value)
    if want == "texts":
        if not _list_of(value, str):
            return "is not a list of texts"
        return SURROGATE if lone_surrogate(value) else None
    if want == "flag":
        return None if type(value) is bool else "is not true or false"
    if want == "early":
        return None if type(value) is bool else "is not true, false or a reason" \
            if not isinstance(value, str) else _text(value)
    if want == "order":
        return _presses(value)
    if want == "settings":
        if not isinstance(value, dict):
            return "are not an object"
        problem = _settings(value)
        return None if problem is None else "are not a board's: " + problem
    return None


def _presses(order):
    """A verdict's order: presses, each ``{n, p, b, rank, lag, tie, early}``."""
    if not isinstance(order, list) or not order:
        return "is not a list of presses"
    for item in order:
        if not isinstance(item, dict):
            return "holds a malformed press"
        for name, want in PRESS_FIELDS:
            if type(item.get(name)) is not want:
                return "holds a malformed press"
        for name in item:
            if name != "early" and name not in ("n", "p", "rank", "lag", "b", "tie"):
                return "holds a malformed press"
        if not 1 <= item["p"] <= MAX_BOXES or item["b"] not in BUTTON_NAMES or \
                type_problem("verdict", "early", item.get("early", False)):
            return "holds a malformed press"
        if not 0 <= item["rank"] <= INT_MAX or not -MAX_T <= item["lag"] <= MAX_T or item["n"] < 0:
            return "holds a number out of range"
    return None


def _settings(value):
    """Why the dict ``value`` is not settings a board has, or None."""
    try:
        config.merged(config.DEFAULTS, value)
    except (ValueError, TypeError) as e:
        return str(e)
    return None


_KINDS = {}     # kind -> (fields it always has, {every field it may have: its type})


def _fields(kind):
    """The fields of ``kind`` (met before: from ``_KINDS``), or None for no such kind."""
    known = _KINDS.get(kind)
    if known is None:
        try:
            always, sometimes = events.fields_of(kind)
        except KeyError:
            return None
        allowed = {"ev": None, "t": None}
        for name in always + sometimes:     # a settings event's fields: checked as settings
            allowed[name] = None if kind == "settings" else _TYPE_OF.get(name, "any")
        known = _KINDS[kind] = (always, allowed)
    return known


def upgrade(record, stream=events.STREAM):
    """``record``, of a stream of version ``stream``, with this version's field names: a
    field an older stream named otherwise (``RENAMED``) is renamed, in place. Returns the
    record.

        upgrade({"ev": "shrink", "t": 9, "ring": 1, "size": 6, "corners": ["b2", "g7"]}, 5)
        # {"ev": "shrink", "t": 9, "border": 1, ...}"""
    kind = record.get("ev")
    renamed = RENAMED.get(kind) if type(kind) is str else None
    if renamed is not None:
        for old, new, since in renamed:
            if stream < since and old in record and new not in record:
                record[new] = record.pop(old)
    return record


def check(record, stream=events.STREAM):
    """Why ``record`` cannot be the event it claims to be, or None; ``stream``: the
    version of the stream it comes from (its session's ``hello``). A record of an older
    stream is first given this version's field names, in place (``upgrade``)."""
    kind = record.get("ev")
    if type(kind) is str and kind in RENAMED:
        upgrade(record, stream)
    known = _KINDS.get(kind) if type(kind) is str else None     # a kind met before
    if known is None:
        known = _fields(kind) if type(kind) is str else None
        if known is None:
            if not isinstance(kind, str) or lone_surrogate(kind):
                return "a record whose kind is not text a board writes"
            return "unknown event kind %s" % shown(kind)
    t = record.get("t")
    if type(t) is not int or not 0 <= t <= MAX_T:
        return "%s event: t %s" % (kind, type_problem(kind, "t", t))
    if kind == "hello" and type(record.get("stream")) is int:
        stream = record["stream"]            # a session's hello says its own version
    always, allowed = known
    for name in always:
        if name not in record and SINCE.get(kind + " " + name, 0) <= stream:
            return "%s event without %s" % (kind, name)
    for name, value in record.items():
        if name not in allowed:
            return "%s event with unknown field %s" % (kind, shown(name))
        want = allowed[name]
        held = type(value)           # the common cases first, without a call
        if held is int:
            if want == "count" and 0 <= value <= INT_MAX or want == "player" and 0 <= value <= MAX_BOXES \
                    or want == "signed" and -MAX_T <= value <= MAX_T:
                continue
        elif held is str:
            if want == "text" and _ASCII and value.isascii():
                continue
        elif held is bool and want in ("flag", "early"):
            continue
        if want is None:             # ev and t, checked above; a settings event's settings
            continue
        problem = type_problem(kind, name, value)
        if problem:
            return "%s event: %s %s" % (kind, name, problem)
    return _kind_problem(kind, record)


def _kind_problem(kind, record):
    """What one kind asks beyond its fields' types."""
    if kind in INPUTS:
        p, b = record["p"], record["b"]
        if b not in BUTTON_NAMES or (p == 0) != (b == "MAIN"):
            return "%s event: no button %s of box %s" % (kind, shown(b), p)
    elif kind in ("roll", "bounce") and not 1 <= record["face"] <= 6:
        return "%s event: face %s" % (kind, record["face"])
    elif kind == "settings":
        fields = {}
        for name in record:
            if name not in ("ev", "t"):
                fields[name] = record[name]
        problem = _settings(fields)
        if problem:
            return "settings event: " + problem
    elif kind == "hello":
        return board_problem(record)
    return None


def board_problem(hello):
    """Why the stream version, boxes or mode a hello gives (each of its type) cannot be a
    board's, or None; a field it lacks is taken as a board's."""
    from courtside.core import MODES
    if not 1 <= hello.get("stream", 1):
        return "hello event: stream %s" % hello["stream"]
    if not 1 <= hello.get("boxes", 1) <= MAX_BOXES:
        return "hello event: %s boxes, where a board has 1 to %d" % (hello["boxes"], MAX_BOXES)
    if hello.get("mode", MODES[0]) not in MODES:
        return "hello event: the mode %s, which this firmware does not have" % shown(hello["mode"])
    return None


def record(text):
    """The event of one line as a record (a dict with its ``ev`` and ``t``), unchecked; None
    for a line that is not an event at all (a REPL banner, a traceback, a line cut short)."""
    got = events.parse(text)
    if got is None:
        return None
    kind, t, fields = got
    fields["ev"] = kind
    fields["t"] = t
    return fields


def read(text, stream=events.STREAM):
    """(record, problem) for one line of the stream: ``problem`` None when the record is
    an event as the schema has them. None for a line that is not an event at all."""
    got = record(text)
    if got is None:
        return None
    return got, check(got, stream)

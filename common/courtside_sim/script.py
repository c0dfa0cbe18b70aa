"""Scripts of timed inputs for the simulator, read as a stream and checked first.

A script is JSON lines (docs/simulator.md): ``{"t": us, "p": 1..4 or 0, "b": button,
"e": "down" | "up" | "tap"}`` for an edge (``p`` 0 with ``b`` "MAIN" is the main-unit
button; "tap" is a clean 80 ms press), or ``{"t": us, "cmd": "line"}`` for a laptop
command. Blank lines and lines starting with ``#`` are comments.

``Script`` checks every line before anything runs (so a bad line at the end of an hour's
script is refused before the first event), then hands the inputs out in time order.
A script whose lines are already in time order is streamed from the file, so its size
does not matter; the releases of its taps wait in a queue (constant work per tap), at
most ``PENDING_MAX`` at once. One out of order is sorted in memory as one number per
input (its time and its place in the file) and read again line by line in that order;
it may hold at most ``SORTED_MAX`` inputs. Both limits are checked before anything runs,
the same on CPython and the unix port, so every script gets one verdict on both.

    script = Script(lambda: open(path, "rb"), pins)    # ScriptError naming the line
    while script.next_time() is not None:
        t, kind, a, b = script.take()   # ("edge", button id, closed) or ("cmd", line, None)
"""

import json

_KEYS = {}      # a button's name (THROW or UP) -> its place in a box: from courtside.pins
TAP_US = 80000
MAX_T = 8 * 3600 * 1000000   # eight hours of play, in us
LINE_MAX = 4096              # bytes in one script line
DEPTH_MAX = 16               # arrays and objects nested in one script line
PENDING_MAX = 4096           # taps whose releases wait at once (taps within 80 ms of each other)
SORTED_MAX = 20000           # inputs in a script whose lines are out of time order
_CHUNK = 128
_PLACE = 23                  # bits of a sorted input's number below its time


class ScriptError(ValueError):
    pass


def button_id(p, b, pins, where="script line"):
    """The button id for box ``p`` (or 0 with MAIN) and button name ``b``."""
    if b == "MAIN" and p in (0, None):
        return pins.main_id
    if type(p) is not int or not 1 <= p <= pins.boxes:
        raise ScriptError("%s: \"p\" must be a box from 1 to %d (or 0 with MAIN)" % (where, pins.boxes))
    if not isinstance(b, str):
        raise ScriptError("%s: \"b\" must be a button name" % where)
    k = _button_keys().get(b)
    if k is None:
        raise ScriptError("%s: unknown button '%s'" % (where, shown(b)))
    return 4 * (p - 1) + k


def _button_keys():
    """The buttons' names (``courtside.pins``, where they are defined once), each in Dodge
    Ball's and in Deathball's words, by place in a box; loaded when first used (see
    ``_decode``)."""
    if not _KEYS:
        from courtside.pins import ARROWS, BUTTONS
        for k in range(4):
            _KEYS[BUTTONS[k]] = _KEYS[ARROWS[k]] = k
    return _KEYS


def _decode(number, raw):
    # courtside's modules are imported when used: on the virtual Pico this module is
    # loaded before the flash that holds them is mounted.
    from courtside.text import utf8
    try:
        return utf8(raw).strip(" \t\r\n")
    except UnicodeError:
        raise ScriptError("script line %d: not UTF-8 text" % number) from None


def shown(text):
    """A line's start as it can be shown in a message: ASCII, control characters and
    whatever is not ASCII escaped alike on every runtime."""
    out = []
    for ch in text[:60]:
        c = ord(ch)
        out.append(ch if 32 <= c < 127 and ch != "\\" else "\\\\" if ch == "\\" else
                   "\\x%02x" % c if c < 256 else "\\u%04x" % c if c < 0x10000 else "\\U%08x" % c)
    return "".join(out)


def _paired(s):
    """``s`` with each escaped surrogate pair made the one character it spells, as
    CPython's ``json`` makes it (MicroPython's leaves two halves, which count twice)."""
    if isinstance(s, str):
        for ch in s:
            if 0xD800 <= ord(ch) < 0xE000:
                break
        else:
            return s
    else:
        return s
    out = []
    i, n = 0, len(s)
    while i < n:
        c = ord(s[i])
        if 0xD800 <= c < 0xDC00 and i + 1 < n and 0xDC00 <= ord(s[i + 1]) < 0xE000:
            out.append(chr(0x10000 + ((c - 0xD800) << 10) + ord(s[i + 1]) - 0xDC00))
            i += 2
        else:
            out.append(s[i])
            i += 1
    return "".join(out)


def parse_line(number, text, pins):
    """(input, release) for one stripped script line: its input as (t, kind, a, b), and
    for a tap the release 80 ms later (else None); (None, None) for a comment."""
    if not text or text.startswith("#"):
        return None, None
    from courtside.jsoncheck import strict_json
    try:
        if not strict_json(text, DEPTH_MAX):
            raise ValueError
        item = json.loads(text)
    except (ValueError, RuntimeError, MemoryError):   # RuntimeError: nested too deep
        raise ScriptError("script line %d: not JSON: %s" % (number, shown(text))) from None
    if not isinstance(item, dict) or type(item.get("t")) is not int or not 0 <= item["t"] <= MAX_T:
        raise ScriptError("script line %d: needs a whole time \"t\" in us from 0 to %d"
                          % (number, MAX_T))
    t = item["t"]
    for key in ("cmd", "b", "e"):
        if key in item:
            item[key] = _paired(item[key])
    if "cmd" in item:
        if not isinstance(item["cmd"], str):
            raise ScriptError("script line %d: \"cmd\" must be a string" % number)
        return (t, "cmd", item["cmd"], None), None
    button = button_id(item.get("p"), item.get("b"), pins, "script line %d" % number)
    edge = item.get("e", "tap")
    if edge == "down":
        return (t, "edge", button, True), None
    if edge == "up":
        return (t, "edge", button, False), None
    if edge == "tap":
        return (t, "edge", button, True), (t + TAP_US, "edge", button, False)
    raise ScriptError("script line %d: \"e\" must be down, up or tap" % number)


class _Queue:
    """First in, first out, with constant work per item on both runtimes (MicroPython's
    deque cannot be looked into)."""

    def __init__(self):
        self._in = []
        self._out = []

    def __len__(self):
        return len(self._in) + len(self._out)

    def push(self, item):
        self._in.append(item)

    def first(self):
        if not self._out:
            self._in.reverse()
            self._in, self._out = self._out, self._in
        return self._out[-1] if self._out else None

    def pop(self):
        item = self.first()
        self._out.pop()
        return item


class Script:
    """The inputs of a script file in time order (stable: equal times keep file order)."""

    def __init__(self, open_lines, pins):
        self.pins = pins
        self._open = open_lines
        self.last = 0                 # the time of the last input
        ordered = self._check()
        self._items = self._stream() if ordered else self._sorted()
        self._next = None
        self._advance()

    def _lines(self):
        """(where, number, text) for every line, ``where`` the byte it starts at; a line
        longer than LINE_MAX is refused."""
        source = self._open()
        try:
            line = bytearray()
            number = 0
            long = False
            read = 0                  # bytes before the chunk
            where = 0                 # where the line being read starts
            while True:
                chunk = source.read(_CHUNK)
                if not chunk:
                    break
                start = 0
                while True:
                    end = chunk.find(b"\n", start)
                    piece = chunk[start:] if end < 0 else chunk[start:end]
                    if len(line) + len(piece) > LINE_MAX:
                        long = True
                    else:
                        line.extend(piece)
                    if end < 0:
                        break
                    number += 1
                    if long:
                        raise ScriptError("script line %d: longer than %d bytes" % (number, LINE_MAX))
                    yield where, number, _decode(number, line)
                    line = bytearray()
                    start = end + 1
                    where = read + start
                read += len(chunk)
            if line or long:
                number += 1
                if long:
                    raise ScriptError("script line %d: longer than %d bytes" % (number, LINE_MAX))
                yield where, number, _decode(number, line)
        finally:
            source.close()

    def _check(self):
        """Read every line once; True when the lines come in time order. The limits are
        checked here, before anything runs."""
        ordered = True
        before = 0
        inputs = 0
        self._sorts = 0               # inputs and tap releases: what _sorted must hold
        waiting = _Queue()            # release times of taps still to come, in time order
        for _, number, text in self._lines():
            item, release = parse_line(number, text, self.pins)
            if item is None:
                continue
            inputs += 1
            self._sorts += 2 if release else 1
            if item[0] < before:
                ordered = False
            before = item[0]
            last = release[0] if release else item[0]
            self.last = max(self.last, last)
            if ordered:
                while len(waiting) and waiting.first() <= item[0]:
                    waiting.pop()
                if release:
                    waiting.push(release[0])
                    if len(waiting) > PENDING_MAX:
                        raise ScriptError("script line %d: more than %d taps within %d ms of each other"
                                          % (number, PENDING_MAX, TAP_US // 1000))
        if not ordered and inputs > SORTED_MAX:
            raise ScriptError("script: %d inputs out of time order; a script out of order may hold "
                              "at most %d: put its lines in time order" % (inputs, SORTED_MAX))
        return ordered

    def _stream(self):
        pending = _Queue()            # releases of taps still to come, in time order
        for _, number, text in self._lines():
            item, release = parse_line(number, text, self.pins)
            if item is None:
                continue
            while len(pending) and pending.first()[0] <= item[0]:
                yield pending.pop()
            yield item
            if release:               # a tap's release: 80 ms after it, so after every other
                pending.push(release)
        while len(pending):
            yield pending.pop()

    def _sorted(self):
        from array import array
        # Both made at their full size at once: grown an item at a time, the list would at
        # some point need its old and its doubled block together (on the unix port's heap,
        # beside the array, more than there is room for at SORTED_MAX).
        keys = [0] * self._sorts      # time << _PLACE | the input's number: one int each
        places = array("q", range(self._sorts))  # per input: where its line starts << 1, | 1 for a release
        n = 0
        for where, number, text in self._lines():
            item, release = parse_line(number, text, self.pins)
            for got, bit in ((item, 0), (release, 1)):
                if got is not None:
                    keys[n] = got[0] << _PLACE | n
                    places[n] = where << 1 | bit
                    n += 1
        keys.sort()
        source = self._open()
        try:
            mask = (1 << _PLACE) - 1
            for key in keys:
                place = places[key & mask]
                source.seek(place >> 1)
                text = _decode(0, source.readline(LINE_MAX + 1).rstrip(b"\n"))
                item, release = parse_line(0, text, self.pins)
                yield release if place & 1 else item
        finally:
            source.close()

    def _advance(self):
        try:
            self._next = next(self._items)
        except StopIteration:
            self._next = None

    def next_time(self):
        """The time of the next input, or None when the script is done."""
        return None if self._next is None else self._next[0]

    def take(self):
        item = self._next
        self._advance()
        return item

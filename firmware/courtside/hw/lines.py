"""USB serial lines: commands in, event lines out, without holding up the game.

``Sender`` queues whole lines (the encoder's own buffers, not copies) in a ring of
slots and writes them in chunks of up to ``chunk`` bytes, each after a writable poll,
straight from the line (``write(buf, off, n)``: no copy, no new object). MicroPython's
USB serial write on the rp2 port takes what its 256-byte buffer has room for and waits
for the rest (up to 500 ms while the laptop does not read), and a writable poll only
promises one free byte; so a chunk can wait, for as long as the laptop takes to read one
USB packet (a millisecond) while it reads. A chunk that comes back short means the laptop
stopped reading: then the sender writes one byte per writable poll, which can never wait,
for ``careful_ms`` before it tries chunks again. A line that does not fit the queue is
dropped whole and counted in ``unsent``. The hardware layer takes no command line while
the queue lacks room for its answers, so a burst of commands waits in the laptop's
buffer, not in a full queue.

``Receiver`` reads bytes, at most ``per_pass`` each call: control characters are dropped
(a stray Ctrl-B from a laptop tool is not part of the next command), bytes outside ASCII
become ``?`` (so bad UTF-8 can never stop a line being decoded), and a line longer than
``limit`` is dropped whole and counted in ``overlong``.

Both take the stream and a ``ready()`` function (a zero-timeout poll) from the hardware
layer, so the unix port and CPython run them on pipes and fakes.

    rx = Receiver(sys.stdin.buffer, readable)
    tx = Sender(sys.stdout.buffer, writable)
    line = rx.read_line()        # a str, or None
    tx.write_line(events.line("pong", t, fields))   # queued; False (counted) if it does not fit
    tx.pass_begin(); tx.flush()  # once a pass (and while the loop waits): what the budget allows
"""

from micropython import const

from courtside.clock import diff

_NL = const(10)
_CR = const(13)


def poller(stream, event):
    """A ``ready()`` for ``stream``: True when ``event`` (``select.POLLIN`` or ``POLLOUT``)
    holds now. It waits for nothing, and ``ipoll`` reuses its result: no allocation."""
    import select
    poll = primed(select.poll())
    poll.register(stream, event)

    def ready():
        for _ in poll.ipoll(0):
            return True
        return False
    return ready


def primed(poll):
    """``poll`` after one ``ipoll``: a poll object's first ``ipoll`` makes the result tuple
    every later one reuses (MicroPython's ``select``), so that one allocation comes now,
    at start-up, not in an idle pass of the game (on the chip it came about a second
    after the lobby, when the loop first asked for the laptop's lines)."""
    for _ in poll.ipoll(0):
        break
    return poll


class Receiver:
    """Command lines from the laptop, read a byte at a time while the port has bytes, at
    most ``per_pass`` bytes a call. Control characters are dropped, other bytes above
    ASCII read as ``?``, and a line longer than ``limit`` is cut to ``limit + 1``
    characters, so the core refuses it as too long (and says so), never acts on a part."""

    def __init__(self, stream, ready, limit=200, per_pass=128):
        self._stream = stream
        self._ready = ready
        self._one = bytearray(1)
        self._line = bytearray(limit + 1)
        self._limit = limit
        self._n = 0
        self._per_pass = per_pass
        self.overlong = 0        # lines longer than ``limit``

    def read_line(self):
        one = self._one
        budget = self._per_pass
        while budget > 0 and self._ready():
            if self._stream.readinto(one) != 1:
                return None
            budget -= 1
            b = one[0]
            if b == _NL or b == _CR:  # noqa: PLR1714 - a tuple of names would be built per byte
                n = self._n
                self._n = 0
                if n > self._limit and self.overlong < 0x3FFFFFFF:
                    self.overlong += 1
                if n:
                    return self._line[:n].decode()
                continue
            if b < 32 or b == 127:
                continue                 # control characters are not part of a command
            if b > 127:
                b = 63                   # "?": the line stays readable ASCII
            if self._n <= self._limit:
                self._line[self._n] = b
                self._n += 1
        return None


class Sender:
    """Event lines queued as they are (the encoder's fresh ``bytearray``, its newline
    appended in place) in a ring of ``slots``, at most ``limit`` bytes in all, and written
    straight from them: nothing is copied on the way out."""

    def __init__(self, stream, ready, slots=128, limit=8192, per_pass=4096, chunk=64,
                 ticks_ms=None, careful_ms=1000):
        if slots < 2 or slots & (slots - 1):
            raise ValueError("slots must be a power of two")
        self._write_part = _part_writer(stream)
        self._ready = ready
        self._lines = [None] * slots
        self._smask = slots - 1
        self._head = 0           # the line being sent
        self._tail = 0           # the next free slot
        self._off = 0            # bytes of the head line already sent
        self._bytes = 0          # bytes queued, the head line's unsent part included
        self._limit = limit
        self._per_pass = per_pass
        self._budget = per_pass
        self._chunk = chunk
        self._ticks = ticks_ms
        self._careful_ms = careful_ms
        self._careful_since = None   # ticks_ms of the last short write, while careful
        self.unsent = 0          # lines dropped because the queue was full
        self.short = 0           # chunks the port took only part of (the laptop stopped reading)
        self._open = False       # a line's parts are queued, its end not yet

    def queued(self):
        return self._bytes

    def room(self):
        """Bytes a new line (with its newline) may take now: any size when the queue is
        empty (a line bigger than the limit is already made; it goes out on its own)."""
        if (self._tail + 1) & self._smask == self._head:
            return 0
        if self._head == self._tail:
            return 0x3FFFFFFF
        return self._limit - self._bytes

    def write_line(self, text):
        if isinstance(text, bytearray):
            data = text
        else:
            data = bytearray(text.encode() if isinstance(text, str) else text)
        if len(data) + 1 > self.room():
            if self.unsent < 0x3FFFFFFF:
                self.unsent += 1
            return False
        self.write_part(data, True)     # a whole line: its one part, and its end
        return True

    def write_part(self, data, end):
        """Queue one part of a line (``events.parts``), its newline after the ``end`` part.
        A part is never dropped, whatever the room (a line cut short would be damaged):
        the caller asks for ``room()`` before it makes the next part. Between the first
        part and the end, ``mid_line`` is True."""
        if not isinstance(data, bytearray):
            data = bytearray(data)
        if end:
            data.append(_NL)
        self._lines[self._tail] = data
        self._tail = (self._tail + 1) & self._smask
        self._bytes += len(data)
        self._open = not end
        self.flush()

    def pass_begin(self):
        """A new pass of the loop: a fresh byte budget."""
        self._budget = self._per_pass

    def flush(self):
        """Send queued bytes while the port takes them and the budget lasts; returns how many."""
        sent = 0
        short = self.short
        while self._budget > 0 and self._head != self._tail and self._ready():
            n = self._write(self._lines[self._head])
            sent += n
            if n <= 0 or self.short != short:
                break                # the port took less than it was given: it is full
        return sent

    def _write(self, line):
        """One write from the head line: the rest of it, within the budget and the chunk
        (one byte while careful); the line leaves the queue once it is all sent."""
        off = self._off
        n = len(line) - off
        if n > self._budget:  # noqa: PLR1730 - min() is a call, and calls are what cost on a board
            n = self._budget
        if n > self._chunk:  # noqa: PLR1730
            n = self._chunk
        if self._careful_since is not None:
            if self._ticks is None or diff(self._ticks(), self._careful_since) < self._careful_ms:
                n = 1
            else:
                self._careful_since = None
        k = self._write_part(line, off, n) or 0
        if k < n and self._ticks is not None:
            self.short += 1
            self._careful_since = self._ticks()
        self._budget -= k
        self._bytes -= k
        off += k
        if off < len(line):
            self._off = off
            return k
        self._off = 0
        self._lines[self._head] = None
        self._head = (self._head + 1) & self._smask
        return k

    def mid_line(self):
        """True when the laptop has the start of a line whose rest is still queued, or a
        line's parts stop short of its end."""
        return self._off > 0 or self._open

    def finish(self, ms):
        """Send everything queued, waiting for the port up to ``ms`` in all (when the
        firmware stops: an ``error`` line must start on a line of its own)."""
        self._budget = self._limit
        waited = 0
        while self._head != self._tail and waited < ms:
            if not self.flush():
                waited += 1
                _sleep_ms(1)
        return self._head == self._tail


def _part_writer(stream):
    """``write(buf, off, n)``: MicroPython's streams take an offset and a length, so no
    slice is made; elsewhere (CPython, the tests' fakes) a memoryview slice stands in."""
    import sys
    if sys.implementation.name == "micropython":
        return stream.write
    return lambda buf, off, n: stream.write(memoryview(buf)[off:off + n])


def _sleep_ms(ms):
    import time
    time.sleep_ms(ms) if hasattr(time, "sleep_ms") else time.sleep(ms / 1000)

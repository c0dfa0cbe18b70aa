"""USB serial lines that never wait: commands in, event lines out, a byte at a time.

MicroPython's USB serial write waits (up to 500 ms on the rp2 port) until its buffer has
room for what it is given, while a writable poll only promises one free byte. So
``Sender`` queues whole lines in a preallocated ring and writes them one byte per
writable poll: a write the poll allowed can never wait. A line that does not fit the queue
is dropped whole and counted in ``unsent``; bytes written per pass are capped, so a long
burst of lines (a Deathball round) goes out over several passes.

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
    tx.pass_begin(); tx.flush()  # once a pass: sends what the byte budget allows
"""

from micropython import const

_NL = const(10)
_CR = const(13)


def poller(stream, event):
    """A ``ready()`` for ``stream``: True when ``event`` (``select.POLLIN`` or ``POLLOUT``)
    holds now. It waits for nothing, and ``ipoll`` reuses its result: no allocation."""
    import select
    poll = select.poll()
    poll.register(stream, event)

    def ready():
        for _ in poll.ipoll(0):
            return True
        return False
    return ready


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
    def __init__(self, stream, ready, size=2048, per_pass=192):
        if size < 2 or size & (size - 1):
            raise ValueError("queue size must be a power of two")
        self._stream = stream
        self._ready = ready
        self._q = bytearray(size)
        self._qmask = size - 1
        self._head = 0           # next byte to send
        self._tail = 0           # next free byte
        self._one = bytearray(1)
        self._per_pass = per_pass
        self._budget = per_pass
        self.unsent = 0          # lines dropped because the queue was full

    def queued(self):
        return (self._tail - self._head) & self._qmask

    def write_line(self, text):
        data = text.encode() if isinstance(text, str) else text
        if len(data) + 1 > self._qmask - self.queued():
            if self.unsent < 0x3FFFFFFF:
                self.unsent += 1
            return False
        self._queue(data)
        self.flush()
        return True

    def _queue(self, data):
        """Copy ``data`` and a newline into the queue (apart from ``write_line``, and a
        while rather than a for, so that no frame passes 11 words and goes on the heap)."""
        q = self._q
        m = self._qmask
        t = self._tail
        i = 0
        n = len(data)
        while i < n:
            q[t] = data[i]
            t = (t + 1) & m
            i += 1
        q[t] = _NL
        self._tail = (t + 1) & m

    def pass_begin(self):
        """A new pass of the loop: a fresh byte budget."""
        self._budget = self._per_pass

    def flush(self):
        """Send queued bytes while the port takes them and the budget lasts; returns how many."""
        sent = 0
        one = self._one
        q = self._q
        m = self._qmask
        h = self._head
        while self._budget > 0 and h != self._tail and self._ready():
            one[0] = q[h]
            if not self._stream.write(one):
                break
            h = (h + 1) & m
            self._budget -= 1
            sent += 1
        self._head = h
        return sent

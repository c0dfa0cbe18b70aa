"""The press timeline: wrap-safe arithmetic on microsecond ticks, in one place.

A Pico's ``time.ticks_us()`` counts modulo 2**30 (about 17.9 minutes) and MicroPython's
unix port modulo 2**62. Courtside always works modulo 2**30, the board's period, so that
the simulator and tests meet the same wraparound the board meets. Every comparison of two
stamps goes through ``diff``; nothing else in the firmware subtracts ticks.

    >>> diff(5, MASK)          # 5 us after the wrap is 6 us later than MASK
    6
"""

from micropython import const

MASK = const(0x3FFFFFFF)  # ticks period 2**30, minus one (2**30 itself is not a small int)
_HALF = const(0x20000000)


def wrap(t):
    """Reduce any integer microsecond count onto the tick circle."""
    return t & MASK


def add(t, delta):
    """The tick ``delta`` microseconds after ``t`` (delta may be negative).

    ``(t + delta) & MASK`` would pass through 2**30 and more whenever the sum crosses the
    wrap, a heap int on a 32-bit port; this takes the same value by a path that stays small.
    """
    r = (t & MASK) - (MASK - (delta & MASK)) - 1     # t + delta - 2**30, reduced
    if r < 0:
        r = r + MASK + 1
    return r


def diff(a, b):
    """Signed microseconds from ``b`` to ``a``; valid while they are < 2**29 us apart.

    Written so that no intermediate leaves the small-int range of a 32-bit port.
    """
    d = (a - b) & MASK
    if d >= _HALF:
        return d - MASK - 1
    return d


class Timeline:
    """Unwraps ticks into microseconds since start, for the log.

    ``advance(ticks)`` must be called at least once every 2**29 us (about 9 minutes); the
    main loop calls it on every pass. It keeps laps of the tick circle and the place on
    it apart, both small ints, so a pass costs no heap however long the game has run;
    only ``elapsed()`` and ``at(stamp)``, asked for when an event is written, build the
    full count, which passes 2**30 after eighteen minutes.
    """

    def __init__(self, ticks):
        self.last = ticks
        self.laps = 0
        self.pos = 0          # us into the current lap, 0..MASK

    def advance(self, ticks):
        d = diff(ticks, self.last)
        self.last = ticks
        pos = add(self.pos, d)
        if d > 0 and pos < self.pos:
            self.laps += 1
        elif d < 0 and pos > self.pos:
            self.laps -= 1
        self.pos = pos

    def elapsed(self):
        """Microseconds since start, at the last ``advance``."""
        return self.laps * (MASK + 1) + self.pos if self.laps else self.pos

    def now(self, ticks):
        """``advance`` then ``elapsed``."""
        self.advance(ticks)
        return self.elapsed()

    def at(self, stamp):
        """Microseconds since start of an earlier (or later) tick ``stamp``."""
        return self.elapsed() + diff(stamp, self.last)

"""Debounce: raw level snapshots in, presses out, each stamped at its first edge.

A press counts at the first edge of the contact closing; the bounce that follows is
ignored for ``debounce_us`` *after* that edge, so filtering never delays a timestamp.
When the lock ends the button's latest raw level decides whether it was released in the
meantime. A button held longer than ``stuck_us`` is reported stuck once, and nothing
more is heard from it until it is released (reported as unstuck).

    d = Debouncer(pins.button_gpio, 20_000, 3_000_000, hw.levels(), now)
    d.feed(stamp, levels, out)   # out gets (kind, button, stamp) tuples
    d.poll(now, out)             # ends locks, finds stuck buttons
"""

from courtside.clock import diff

PRESS = 1
RELEASE = 2
STUCK = 3
UNSTUCK = 4


class Debouncer:
    def __init__(self, gpio, debounce_us, stuck_us, levels, now):
        n = len(gpio)
        self.bits = tuple(1 << g for g in gpio)
        self.debounce_us = debounce_us
        self.stuck_us = stuck_us
        self.raw = bytearray(n)      # 1 = contact closed, as last seen
        self.raw_at = [now] * n      # stamp of the last raw change
        self.down = bytearray(n)     # debounced state
        self.since = [now] * n       # stamp of the last accepted transition
        self.locked = bytearray(n)   # 1 while bounce after a transition is ignored
        self.stuck = bytearray(n)
        for i in range(n):
            # A button already closed at start-up is down but never pressed: if it stays
            # closed it is reported stuck, and it counts again only after a release.
            closed = 0 if levels & self.bits[i] else 1
            self.raw[i] = self.down[i] = closed

    def feed(self, stamp, levels, out):
        bits = self.bits
        for i in range(len(bits)):
            closed = 0 if levels & bits[i] else 1
            if closed != self.raw[i]:
                self.raw[i] = closed
                self.raw_at[i] = stamp
                if not self.locked[i] and closed != self.down[i]:
                    self._turn(i, stamp, out)

    def poll(self, now, out):
        for i in range(len(self.bits)):
            if self.locked[i] and diff(now, self.since[i]) >= self.debounce_us:
                self.locked[i] = 0
                if self.raw[i] != self.down[i]:
                    # The contact changed again during the lock: its last change is the edge.
                    self._turn(i, self.raw_at[i], out)
            if self.down[i] and not self.stuck[i] and diff(now, self.since[i]) >= self.stuck_us:
                self.stuck[i] = 1
                out.append((STUCK, i, now))

    def _turn(self, i, stamp, out):
        self.down[i] = self.raw[i]
        self.since[i] = stamp
        self.locked[i] = 1
        if self.down[i]:
            out.append((PRESS, i, stamp))
        elif self.stuck[i]:
            self.stuck[i] = 0
            out.append((UNSTUCK, i, stamp))
        else:
            out.append((RELEASE, i, stamp))

    def held_us(self, i, now):
        """How long button ``i`` has been down (0 when up)."""
        return diff(now, self.since[i]) if self.down[i] else 0

    def busy(self):
        """True while a lock or a held button needs the main loop to keep polling."""
        for i in range(len(self.bits)):
            if self.locked[i] or (self.down[i] and not self.stuck[i]):
                return True
        return False

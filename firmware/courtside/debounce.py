"""Debounce: raw level snapshots in, presses out, each judged at its own stamp.

A press counts at the first edge of the contact closing; the bounce that follows is
ignored for ``debounce_us`` *after* that edge, so filtering never delays a timestamp.
When the lock ends the button's raw level at that moment decides whether it was
released in the meantime. A button held longer than ``stuck_us`` is reported stuck once
(at the moment it became so), and nothing more is heard from it until it is released
(reported as unstuck).

Everything is judged on the stamps alone, never on when a pass of the main loop happens
to come round: before a snapshot is taken, every lock and stuck timeout that ended
before its stamp is ended first, in time order. So a pass that comes 500 ms late sees
the same presses and releases, in the same order and with the same stamps, as passes a
millisecond apart (``tests/test_pass_timing.py``).

    d = Debouncer(pins.button_gpio, 20_000, 3_000_000, hw.levels(), now)
    d.feed(stamp, levels, out)   # out gets (kind, button, stamp) tuples
    d.poll(now, out)             # ends the locks and timeouts due by now
    d.wait_us(now)               # when a pass is next needed for them (-1: never)

Give ``long_i`` (the main-unit button) and ``long_us`` and that button's hold is also
reported, once a press, as a ``LONG`` at the moment it reached ``long_us``.
"""

from micropython import const

from courtside.clock import diff

_MASK = const(0x3FFFFFFF)
_HALF = const(0x20000000)

PRESS = 1
RELEASE = 2
STUCK = 3
UNSTUCK = 4
LONG = 5      # the button named by ``long_i`` has been held ``long_us`` (once a press)


class Debouncer:
    def __init__(self, gpio, debounce_us, stuck_us, levels, now, long_i=-1, long_us=0):
        n = len(gpio)
        self.n = n
        self.bits = tuple(1 << g for g in gpio)
        self._id = {}                # GPIO bit -> button id
        for i in range(n):
            self._id[self.bits[i]] = i
        self.debounce_us = debounce_us
        self.stuck_us = stuck_us
        self.raw = bytearray(n)      # 1 = contact closed, as last seen
        self.raw_at = [now] * n      # stamp of the last raw change
        self.down = bytearray(n)     # debounced state
        self.since = [now] * n       # stamp of the last accepted transition
        self.locked = bytearray(n)   # 1 while bounce after a transition is ignored
        self.stuck = bytearray(n)
        self.level = levels          # the last snapshot's levels
        self._stamp = now            # the snapshot being taken, and where its edges go
        self._into = None
        self.long_i = long_i         # the one button whose long hold is reported
        self.long_us = long_us
        self.long_done = True        # its long hold was reported (or it is not down)
        self.due_i = -1              # the button whose lock or timeout ends first
        self.due_at = now            # ... and when
        self.due_long = False        # ... and whether it is the long hold
        for i in range(n):
            # A button already closed at start-up is down but never pressed: if it stays
            # closed it is reported stuck, and it counts again only after a release.
            closed = 0 if levels & self.bits[i] else 1
            self.raw[i] = self.down[i] = closed
        self._plan()

    def feed(self, stamp, levels, out):
        """One snapshot: every lock and timeout due before ``stamp`` ends first."""
        if self.due_i >= 0:
            self.poll(stamp, out)
        changed = levels ^ self.level
        self.level = levels
        if changed:
            self._stamp = stamp
            self._into = out
            self._changes(changed, levels)

    def _changes(self, changed, levels):
        """Each button whose pin changed, in button order. Most snapshots change one pin:
        that one is found in one step, not by a look at every button."""
        if not changed & (changed - 1):
            i = self._id.get(changed, -1)
            if i >= 0:
                self._edge(i, levels)
            return
        i = 0
        while i < self.n:
            if changed & self.bits[i]:
                self._edge(i, levels)
            i += 1

    def _edge(self, i, levels):
        closed = 0 if levels & self.bits[i] else 1
        self.raw[i] = closed
        self.raw_at[i] = self._stamp
        if not self.locked[i] and closed != self.down[i]:
            self._turn(i, self._stamp, self._into)

    def poll(self, now, out):
        """End every lock and stuck timeout due by ``now``, earliest first."""
        while self.due_i >= 0 and diff(now, self.due_at) >= 0:
            i = self.due_i
            if self.locked[i]:
                self.locked[i] = 0
                if self.raw[i] != self.down[i]:
                    # The contact changed again during the lock: its last change is the edge.
                    self._turn(i, self.raw_at[i], out)
                    continue
            elif self.due_long:
                self.long_done = True
                out.append((LONG, i, self.due_at))
            else:
                self.stuck[i] = 1
                out.append((STUCK, i, self.due_at))
            self._plan()

    def _plan(self):
        """Find the lock or timeout that ends first (``due_i`` -1: none runs).

        It runs at every accepted edge, so it is one loop with no call inside: on a board
        a call costs more than the arithmetic, and more than the heap frame this function
        is given for its locals (it never runs in an idle pass): the arrays are read from
        locals, not attributes, since a board looks an attribute up in a map. ``clock.add`` and
        ``clock.diff`` are written out (tests/test_debounce.py holds it to them)."""
        best = -1
        best_at = 0
        best_long = False
        long_i = self.long_i if not self.long_done else -1
        locked = self.locked
        down = self.down
        stuck = self.stuck
        since = self.since
        n = self.n
        i = 0
        while i < n:
            if locked[i]:
                span = self.debounce_us
            elif down[i] and not stuck[i]:
                span = self.stuck_us
            else:
                i += 1
                continue
            t = since[i] & _MASK
            k = 2 if i == long_i and not locked[i] else 1
            while k:
                k -= 1
                if k:
                    span_k = self.long_us
                else:
                    span_k = span
                at = t - (_MASK - (span_k & _MASK)) - 1       # add(t, span_k)
                if at < 0:
                    at = at + _MASK + 1
                if best < 0 or ((at - best_at) & _MASK) >= _HALF:   # diff(at, best_at) < 0
                    best = i
                    best_at = at
                    best_long = k == 1
            i += 1
        self.due_i = best
        self.due_at = best_at if best >= 0 else self.due_at
        self.due_long = best_long

    def _turn(self, i, stamp, out):
        self.down[i] = self.raw[i]
        self.since[i] = stamp
        self.locked[i] = 1
        if self.down[i]:
            if i == self.long_i:
                self.long_done = False
            out.append((PRESS, i, stamp))
        elif self.stuck[i]:
            self.stuck[i] = 0
            out.append((UNSTUCK, i, stamp))
        else:
            out.append((RELEASE, i, stamp))
        if self.due_i < 0 or self.due_i == i:
            self._plan()
        else:
            self._sooner(i)

    def _sooner(self, i):
        """Button ``i`` has just been locked and what ran first was another's: that one
        still runs first unless ``i``'s lock ends sooner (or as soon, ``i`` being the
        lower button, as ``_plan`` would have it). Half the plans of a storm, in a step."""
        at = (self.since[i] & _MASK) - (_MASK - (self.debounce_us & _MASK)) - 1   # add(since, debounce_us)
        if at < 0:
            at = at + _MASK + 1
        if ((at - self.due_at) & _MASK) >= _HALF or at == self.due_at and i < self.due_i:
            self.due_i = i
            self.due_at = at
            self.due_long = False

    def configure(self, debounce_us, stuck_us, long_us):
        """New lock, stuck and long-hold times; the ones running are measured by them."""
        self.debounce_us = debounce_us
        self.stuck_us = stuck_us
        self.long_us = long_us
        self._plan()

    def wait_us(self, now):
        """Microseconds until the next lock or stuck timeout ends (0: overdue), or -1
        when none is running."""
        if self.due_i < 0:
            return -1
        left = diff(self.due_at, now)
        return left if left > 0 else 0

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

_LOCK = const(1)     # a button's timer: its lock after an accepted edge
_HELD = const(2)     # ... or, held down after the lock, its stuck timeout


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
        # The running timers (a lock, or a held button's stuck timeout), one a button at
        # most: ``timer`` says which, ``until`` when it ends, and ``_q`` is a ring of
        # their buttons in the order they end (see ``_insert``).
        self.timer = bytearray(n)
        self.until = [now] * n
        size = 1
        while size < n:
            size <<= 1
        self._q = bytearray(size)
        self._qmask = size - 1
        self._qh = 0                 # the slot of the timer that ends first
        self._qn = 0                 # timers running
        for i in range(n):
            # A button already closed at start-up is down but never pressed: if it stays
            # closed it is reported stuck, and it counts again only after a release.
            closed = 0 if levels & self.bits[i] else 1
            self.raw[i] = self.down[i] = closed
            if closed:
                self._arm(i, stuck_us, _HELD)
        self._plan()

    def feed(self, stamp, levels, out):
        """One snapshot: every lock and timeout due before ``stamp`` ends first (looked
        at here first: most snapshots find nothing due, and a call costs on a board)."""
        if self.due_i >= 0 and ((stamp - self.due_at) & _MASK) < _HALF:
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
        """End every lock and stuck timeout due by ``now``, earliest first (``diff(now,
        due_at) >= 0`` written out: it is asked at every snapshot)."""
        while self.due_i >= 0 and ((now - self.due_at) & _MASK) < _HALF:
            i = self.due_i
            if self.due_long:
                self.long_done = True
                out.append((LONG, i, self.due_at))
            elif self.locked[i]:
                self.locked[i] = 0
                if self.raw[i] != self.down[i]:
                    # The contact changed again during the lock: its last change is the edge.
                    self._turn(i, self.raw_at[i], out)
                    continue
                if self.down[i] and not self.stuck[i]:
                    self._arm(i, self.stuck_us, _HELD)     # held: its stuck timeout runs
                else:
                    self._disarm(i)
            else:
                self.stuck[i] = 1
                out.append((STUCK, i, self.due_at))
                self._disarm(i)
            self._plan()

    def _plan(self):
        """Say which lock or timeout ends first (``due_i`` -1: none runs): the queue's
        first, unless the main button's long hold ends sooner (or as soon: the long hold
        of a button comes before its other timer, a lower button before a higher).

        It runs at every accepted edge and every timer's end, so it looks at no more
        than those two: a look at every button's timer (as it was) cost about 0.5 ms on
        the chip at each of a storm's edges."""
        best = -1
        if self._qn:
            best = self._q[self._qh]
            self.due_at = self.until[best]
        self.due_long = False
        li = -1 if self.long_done else self.long_i
        if li >= 0 and self.down[li] and not self.locked[li] and not self.stuck[li]:
            at = self._end(li, self.long_us)
            if best < 0 or ((at - self.due_at) & _MASK) >= _HALF or at == self.due_at and li <= best:
                best = li
                self.due_at = at
                self.due_long = True
        self.due_i = best

    def _end(self, i, span):
        """The tick ``span`` us after button ``i``'s last accepted edge (``clock.add``,
        written out: no sum may reach 2**30, a heap integer on a board)."""
        at = (self.since[i] & _MASK) - (_MASK - (span & _MASK)) - 1
        if at < 0:
            at = at + _MASK + 1
        return at

    def _arm(self, i, span, kind):
        """Start button ``i``'s timer (``_LOCK`` or ``_HELD``), ending ``span`` us after
        its last accepted edge, in place of the one it had."""
        if self.timer[i]:
            if self._q[self._qh] == i:   # the timer that just ended: the queue's front
                self._qh = (self._qh + 1) & self._qmask
                self._qn -= 1
            else:
                self._disarm(i)
        at = (self.since[i] & _MASK) - (_MASK - (span & _MASK)) - 1    # _end(i, span)
        if at < 0:
            at = at + _MASK + 1
        self.until[i] = at
        self.timer[i] = kind
        self._insert(i, at)

    def _insert(self, i, at):
        """Put button ``i``, its timer ending at ``at``, into the queue after every timer
        that ends sooner, or as soon on a lower button. Every lock lasts as long, and so
        does every stuck timeout, so a new timer nearly always ends last: the look starts
        from the back and seldom moves anything."""
        q = self._q
        k = self._qh + self._qn          # the slot after the last, not yet wrapped
        while k != self._qh:
            j = q[(k - 1) & self._qmask]
            d = (self.until[j] - at) & _MASK
            if d >= _HALF or d == 0 and j < i:    # j ends sooner, or as soon and is lower
                break
            q[k & self._qmask] = j       # j ends later: one slot back
            k -= 1
        q[k & self._qmask] = i
        self._qn += 1

    def _disarm(self, i):
        """Button ``i``'s timer stops and leaves the queue (nearly always from its front:
        a timer that ended)."""
        if not self.timer[i]:
            return
        self.timer[i] = 0
        q = self._q
        k = self._qh
        if q[k] == i:
            self._qh = (k + 1) & self._qmask
            self._qn -= 1
            return
        end = k + self._qn - 1
        while q[k & self._qmask] != i:
            k += 1
        while k != end:
            q[k & self._qmask] = q[(k + 1) & self._qmask]
            k += 1
        self._qn -= 1

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
        self._arm(i, self.debounce_us, _LOCK)
        self._plan()

    def configure(self, debounce_us, stuck_us, long_us):
        """New lock, stuck and long-hold times; the ones running are measured by them."""
        self.debounce_us = debounce_us
        self.stuck_us = stuck_us
        self.long_us = long_us
        self._qn = 0
        for i in range(self.n):
            self.timer[i] = 0
        for i in range(self.n):
            if self.locked[i]:
                self._arm(i, debounce_us, _LOCK)
            elif self.down[i] and not self.stuck[i]:
                self._arm(i, stuck_us, _HELD)
        self._plan()

    def wait_us(self, now):
        """Microseconds until the next lock or stuck timeout ends (0: overdue), or -1
        when none is running."""
        if self.due_i < 0:
            return -1
        left = diff(self.due_at, now)
        return left if left > 0 else 0

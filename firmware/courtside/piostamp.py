"""PIO capture maths: decode the state machine's words and place them on the press timeline.

The PIO program (``courtside.piocode``) writes two kinds of 32-bit words, which the DMA
copies into a RAM buffer:

- a **levels** word (bit 31 set): the inverted button pins, bit 0 = GPIO ``in_base``;
- a **count** word (bits 31 and 30 clear): the loop counter at the sample that saw the
  change. The counter goes *down* by one every ``LOOP_CYCLES`` system cycles (48 ns at
  125 MHz), modulo 2**30; count -k is the sample 6k cycles after the state machine was
  enabled.

A levels word followed by its count word is one snapshot; a count word on its own is a
wrap mark (pushed each time the counter passes zero, every 2**30 loops, 51.5 s at
125 MHz; the program also pushes two zero words as it starts), which only moves the
anchor.

``Stamper`` turns counts into ticks of ``courtside.clock`` (microseconds modulo 2**30). It
keeps an anchor: a count, the tick it fell on, and the fraction of a microsecond beyond
that tick in units of 1/den us. The first anchor pairs count 0 with ``time.ticks_us()`` read
as the state machine is started; every later count word becomes the next anchor, so the
counter is unwrapped step by step and never accumulates rounding. The marks keep
consecutive count words less than 2**30 loops apart; should words be lost, the number of
whole 2**30-loop periods between anchor and word is taken from the tick clock at drain
time, rounded to the nearest period: correct while every word is drained within half a
period (25 s at 125 MHz) of being pushed.

``Drain`` reads new words from the DMA buffer and puts snapshots into the capture ``Ring``,
exactly the ``(stamp, levels)`` pairs ``courtside.capture.IrqCapture`` puts. Everything is
integer arithmetic on values below 2**30 (the buffer is read as 16-bit halves), so a drain
pass allocates nothing on a 32-bit port.
"""

from micropython import const

from courtside.clock import add, diff

LOOP_CYCLES = const(6)
_PERIOD = const(0x40000000)      # a count word's range: 2**30 loops
_COUNT_MASK = const(0x3FFFFFFF)
_TAG = const(0x8000)             # bit 31 of a word, seen in its high half


def _gcd(a, b):
    while b:
        a, b = b, a % b
    return a


class Stamper:
    """Counts to ticks: ``start(ticks)`` once, then ``place(count, now)`` for each count word."""

    def __init__(self, freq_hz, loop_cycles=LOOP_CYCLES):
        num = loop_cycles * 1000000
        g = _gcd(num, freq_hz)
        self.num = num // g          # microseconds per loop = num / den
        self.den = freq_hz // g
        self.pa, self.pb = divmod(_PERIOD, self.den)
        # one 2**30-loop period in whole microseconds (only used to count periods)
        self.period_us = self.pa * self.num + self.pb * self.num // self.den
        self.start(0)

    def start(self, ticks):
        """Anchor count 0 (the state machine's first sample) at ``ticks``."""
        self.count = 0
        self.ticks = ticks
        self.frac = 0

    def place(self, count, now):
        """The tick of a count word pushed at or before ``now``; the word becomes the anchor."""
        num = self.num
        den = self.den
        d = (self.count - count) & _COUNT_MASK       # loops since the anchor, modulo 2**30
        q = d // den                                  # (divmod would allocate a tuple)
        rem = (d - q * den) * num + self.frac
        us = q * num + rem // den
        k = 0
        late = diff(now, self.ticks) - us             # whole periods hidden in the 30 bits
        half = self.period_us >> 1
        if late > half:
            k = (late + half) // self.period_us
            rem += k * self.pb * num
            us = k * self.pa * num + q * num + rem // den
        self.frac = rem % den
        self.ticks = add(self.ticks, us)
        self.count = count
        return self.ticks

    def ns(self, loops):
        """Nanoseconds in ``loops`` loops (for the docs and the bench)."""
        return loops * self.num * 1000 // self.den


class Drain:
    """Moves snapshots from the DMA buffer into the capture ring.

    ``halves`` is the buffer seen as unsigned 16-bit halves (little-endian: word i is
    ``halves[2i]`` low, ``halves[2i+1]`` high); its length in words is a power of two.
    ``take(written, now)`` is given how many words the DMA has written in total so far
    and the current tick; it returns the number of snapshots put into the ring.
    """

    def __init__(self, ring, stamper, halves, in_base, width, mask):
        words = len(halves) >> 1
        if words < 2 or words & (words - 1):
            raise ValueError("the DMA buffer must hold a power-of-two number of words")
        self.ring = ring
        self.stamper = stamper
        self.halves = halves
        self.wmask = words - 1
        self.size = words
        self.in_base = in_base
        self.width_mask = (1 << width) - 1
        self.mask = mask
        self.restart()
        self.overrun = 0         # words the DMA overwrote before they were read
        self.unpaired = 0        # levels words whose count word never came
        self.marks = 0           # wrap marks seen
        self.noise = 0           # changes on non-button pins inside the window, skipped

    def restart(self):
        """Forget the words of an earlier run: the DMA counts from 0 again."""
        self.read = 0            # words consumed, counted like ``written``
        self.pending = False     # a levels word is waiting for its count word
        self.levels = 0
        self.last = -1           # the button levels last put into the ring

    def take(self, written, now):
        ring = self.ring
        h = self.halves
        ix = self.read
        behind = written - ix
        if behind < 0:           # a new DMA run that nobody announced: start over
            self.restart()
            ix = 0
            behind = written
        if behind > self.size:
            lost = behind - self.size
            self.overrun += lost
            self._lose((lost + 1) >> 1)
            ix = written - self.size
            self.pending = False
            self.last = -1           # what the ring last got may be stale: report the next as is
        moved = 0
        while ix != written:
            j = (ix & self.wmask) << 1
            hi = h[j + 1]
            if hi & _TAG:
                if self.pending:
                    self.unpaired += 1
                    self._lose(1)
                self.pending = True
                lv = ((~hi & 0xFFFF) << 16 | (~h[j] & 0xFFFF)) & self.width_mask
                self.levels = (lv << self.in_base) & self.mask
                ix += 1
                continue
            if self.pending and len(ring) >= ring.mask:
                break                # ring full: leave the pair in the buffer for next time
            stamp = self.stamper.place(hi << 16 | h[j], now)
            ix += 1
            if not self.pending:
                self.marks += 1
                continue
            self.pending = False
            if self.levels == self.last:
                self.noise += 1
                continue
            self.last = self.levels
            ring.put(stamp, self.levels)
            moved += 1
        self.read = ix
        return moved

    def _lose(self, n):
        # Lost edges are reported like ring overflows: the app already turns the ring's
        # dropped count into "overflow" events.
        ix = self.ring.ix
        ix[2] = min(ix[2] + n, 0x3FFFFFFF)

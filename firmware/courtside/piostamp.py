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
that tick in units of 1/den us (den is even, so half a microsecond is whole). The first
anchor pairs count 0 with the centre of the ``time.ticks_us()`` window the state machine
was enabled in (``courtside.hw.pio_capture`` picks that window); every later count word
becomes the next anchor, so the counter is unwrapped step by step and never accumulates
rounding. A stamp is the anchor's time rounded to the nearest microsecond (``ticks_us()``
floors, which makes a tick half a microsecond early on average; a rounded stamp is not
early on average, and a quarter of a microsecond off). The marks keep
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
_HALF_PERIOD = const(0x20000000)
_TAG = const(0x8000)             # bit 31 of a word, seen in its high half
# Words one take reads at most (64 snapshots). In a storm each pass drained all that came
# during the one before, and on the chip that made each pass longer than the last (71, 95,
# 122, 190, 375 ms); what is left waits in the DMA buffer, and ``advance`` takes more
# before the next pass whenever the ring is empty.
_TAKE_WORDS = const(128)


def _gcd(a, b):
    while b:
        a, b = b, a % b
    return a


class Stamper:
    """Counts to ticks: ``start(ticks)`` or ``start_window(t0, t1)`` once, then
    ``place(count, now)`` for each count word; it returns the word's tick, rounded."""

    def __init__(self, freq_hz, loop_cycles=LOOP_CYCLES):
        num = loop_cycles * 1000000
        g = _gcd(num, freq_hz)
        self.num = num // g          # microseconds per loop = num / den
        self.den = freq_hz // g
        if self.den & 1:             # keep half a microsecond whole
            self.num *= 2
            self.den *= 2
        self.half = self.den >> 1
        if (self.num + 1) * self.den >= _PERIOD:
            # place() multiplies a remainder below den by num: it must stay a small int
            raise ValueError("PIO capture: a %d Hz clock needs integers beyond 2**30 per stamp" % freq_hz)
        self.pa, self.pb = divmod(_PERIOD, self.den)
        # one 2**30-loop period in whole microseconds (only used to count periods)
        self.period_us = self.pa * self.num + self.pb * self.num // self.den
        self.start(0)

    def start(self, ticks, half=False):
        """Anchor count 0 (the state machine's first sample) at ``ticks``, or half a
        microsecond after it if ``half``."""
        self.count = 0
        self.ticks = ticks
        self.frac = self.half if half else 0

    def start_window(self, t0, t1):
        """Anchor count 0 at the centre of a window read as ``t0`` before and ``t1`` after
        the state machine was enabled: ``ticks_us()`` floors, so the enable lies in
        [t0, t1 + 1) and its centre is t0 + (t1 - t0 + 1) / 2."""
        w = diff(t1, t0) + 1
        self.start(add(t0, w >> 1), w & 1)

    def place(self, count, now):
        """The tick of a count word pushed at or before ``now``; the word becomes the anchor.

        It runs for every count word a drain reads, so the common case is written out in
        one function (a call costs more on a board than the arithmetic in it): the anchor
        moves on by the loops since it, the fraction of a microsecond kept in ``frac``."""
        d = (self.count - count) & _COUNT_MASK        # loops since the anchor
        self.count = count
        q = d // self.den                             # (divmod would allocate a tuple)
        rem = (d - q * self.den) * self.num + self.frac
        us = q * self.num + rem // self.den
        late = (now - self.ticks) & _COUNT_MASK       # diff(now, ticks), then less us:
        if late >= _HALF_PERIOD:                      # whole periods hidden in the 30 bits
            late = late - _COUNT_MASK - 1
        if late - us > self.period_us >> 1:
            self.frac = rem
            self._wrapped(q, late - us)
        else:
            self.frac = rem % self.den
            self.ticks = add(self.ticks, us)
        if self.frac >= self.half:
            return add(self.ticks, 1)
        return self.ticks

    def _wrapped(self, q, late):
        k = (late + (self.period_us >> 1)) // self.period_us
        rem = self.frac + k * self.pb * self.num
        self.frac = rem % self.den
        self.ticks = add(self.ticks, k * self.pa * self.num + q * self.num + rem // self.den)

    def ns(self, loops):
        """Nanoseconds in ``loops`` loops (for the docs and the bench)."""
        return loops * self.num * 1000 // self.den


class Windows:
    """Which enable window to keep, judged by the widths of windows of the same shape.

    A window is ``t0 = ticks_us()``, the state machine enabled, ``t1 = ticks_us()``. If
    its calls take D us, it reads as floor(D) or floor(D) + 1 wide, depending on where the
    microsecond edges fall inside it: the wider in a fraction frac(D) of windows (wider
    still, an interrupt ran inside it). Taking the enable at the window's centre, its
    error is then within (1 - frac(D)) / 2 us for a narrow window and frac(D) / 2 us for
    a wide one: the rarer kind pins it best. ``add(w)`` counts the width of a window
    measured with the state machine left stopped; ``keep(w)`` says whether an enable
    window of width ``w`` is of the rarer kind; ``spread_ns(w)`` is how far apart the
    places the enable can have within it lie, by those counts.
    """

    def __init__(self):
        self.low = -1        # the narrowest width seen
        self.n_low = 0       # windows of that width
        self.n_high = 0      # windows one microsecond wider

    def add(self, w):
        if self.low < 0 or w < self.low - 1:
            self.low, self.n_low, self.n_high = w, 1, 0
        elif w == self.low - 1:
            self.low, self.n_low, self.n_high = w, 1, self.n_low
        elif w == self.low:
            self.n_low += 1
        elif w == self.low + 1:
            self.n_high += 1

    def balance(self):
        """How often the rarer kind came: the shape with the most tells edges apart best."""
        return min(self.n_low, self.n_high)

    def keep(self, w):
        n = self.n_low + self.n_high
        if w == self.low:
            return 2 * self.n_high >= n
        return w == self.low + 1 and 2 * self.n_low >= n

    def spread_ns(self, w):
        n = self.n_low + self.n_high
        if n and w == self.low:
            return 1000 * self.n_low // n
        if n and w == self.low + 1:
            return 1000 * self.n_high // n
        return 1000 * (w + 1)


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
        self.fast = None         # machine code for the words (``use``), or None
        self.restart()
        self.overrun = 0         # words the DMA overwrote before they were read
        self.unpaired = 0        # levels words whose count word never came
        self.marks = 0           # wrap marks seen
        self.noise = 0           # changes on non-button pins inside the window, skipped

    def use(self, make):
        """Take the words with machine code from now on: ``make(self)`` builds it
        (``courtside.hw.native.DrainWords``, the same results many times faster). The
        bytecode loop stays for the words the machine code leaves to it: a levels word
        whose count word was lost, a count word whose anchor lies whole periods back."""
        self.fast = make(self)

    def restart(self):
        """Forget the words of an earlier run: the DMA counts from 0 again."""
        self.read = 0            # words consumed, counted like ``written``
        self.pending = False     # a levels word is waiting for its count word
        self.levels = 0
        self.last = -1           # the button levels last put into the ring

    def skip(self, written):
        """Leave the words written so far unread (a start-up try whose run was dropped)."""
        self.read = written
        self.pending = False

    def take(self, written, now):
        """Move the words written since the last take into the ring, at most
        ``_TAKE_WORDS`` of them (the rest wait in the buffer for the next take); returns
        how many snapshots were put. Nothing new (the idle case) costs one comparison."""
        if written == self.read:
            return 0
        return self._take(written, now)

    def _take(self, written, now):
        """The new words, ``_TAKE_WORDS`` at most: by the machine code (``use``) where
        there is some, each word it leaves by the bytecode loop; else all by the loop."""
        ix = self._first(written)
        if written - ix > _TAKE_WORDS:
            written = ix + _TAKE_WORDS
        if self.fast is None:
            return self._words(ix, written, now)
        moved = 0
        self.read = ix
        while ix != written:
            moved += self.fast.take(self, written, now)      # from self.read on
            ix = self.read
            if self.fast.code == 0:      # all taken, or the ring is full
                break
            moved += self._words(ix, ix + 1, now)
            if self.read == ix:
                break                    # the ring is full
            ix = self.read
        return moved

    def _words(self, ix, written, now):
        """Every word from ``ix`` up to ``written``, in order, in one loop: a levels word
        waits for its count word, and the pair becomes one snapshot (a board pays more
        for a call than for the work in it, so the pair is handled here, not in a
        function per word)."""
        h = self.halves
        ring = self.ring
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
            elif not self.pending:
                self.stamper.place(hi << 16 | h[j], now)    # a wrap mark: only the anchor moves
                self.marks += 1
            elif len(ring) >= ring.mask:
                break                # ring full: leave the pair in the buffer for next time
            else:
                stamp = self.stamper.place(hi << 16 | h[j], now)
                self.pending = False
                if self.levels == self.last:
                    self.noise += 1
                else:
                    self.last = self.levels
                    ring.put(stamp, self.levels)
                    moved += 1
            ix += 1
        self.read = ix
        return moved

    def _first(self, written):
        """The first word to read: the next one, or after a restart or an overrun the
        oldest the buffer still holds."""
        ix = self.read
        if written < ix:         # a new DMA run that nobody announced: start over
            self.restart()
            ix = 0
        if written - ix > self.size:
            lost = written - ix - self.size
            self.overrun += lost
            self._lose((lost + 1) >> 1)
            ix = written - self.size
            self.pending = False
            self.last = -1           # what the ring last got may be stale: report the next as is
        return ix

    def _lose(self, n):
        # Lost edges are reported like ring overflows: the app already turns the ring's
        # dropped count into "overflow" events.
        ix = self.ring.ix
        ix[2] = min(ix[2] + n, 0x3FFFFFFF)

"""The hardware layer's machine code: the IRQ handler, the PIO drain's loop, the frame
finisher and packer.

``NativeCapture`` is the hard-IRQ capture of ``courtside.capture.IrqCapture``,
``drain_words`` the loop over new words of ``courtside.piostamp.Drain`` (its stamper's
``place`` inside), ``finish`` the frame finisher of ``courtside.power.finish``
(brightness, then the power cap), and ``pack`` the frame packer of
``courtside.hw.chain``, written for MicroPython's viper emitter: the same results, many
times faster (bench/chip.py, bench/frame_cost.py; the drain's in the chip tier).

The handler reads the pins, then the clock, back to back: its first two loads are the
SIO ``GPIO_IN`` register (every pin at once) and the timer's raw low word ``TIMERAWL``
(the register ``time.ticks_us()`` reads on the rp2 port), a few instructions apart,
before anything else runs; the snapshot then goes straight into the capture ring's
arrays. No object is made: viper integers are machine words, so nothing here is a heap
int even above 2**30.

Register addresses come in as arguments: on the Pico they are the chip's registers, in
the tests they point at an ``array`` the test writes, so the very handler the board runs
is the one the unix port runs under ``micropython.heap_lock()``.

    cap = NativeCapture(ring, GPIO_IN, TIMERAWL, mask, bits, lags, Pin.IRQ_FALLING)
    pin.irq(cap.irq, Pin.IRQ_FALLING | Pin.IRQ_RISING, hard=True)

``StackMark`` measures the deepest the C stack has been: it paints the free stack below
the caller with a pattern once, and ``peak()`` later finds the lowest word no longer
holding it. Everything that ever ran on that stack counts (the loop's calls, interrupt
handlers, the USB stack's work), which no ``micropython.stack_use()`` call placed in the
code can promise.

``courtside deploy`` compiles this module with the ``-march`` of the board it deploys to
(``sys.implementation._mpy``); a board that cannot load it falls back to the bytecode
versions, and says so. ``bits``, ``lags`` and ``falling`` mean what they mean for
``IrqCapture``.
"""

from array import array

import micropython
from micropython import const

from courtside import display
from courtside.power import BUDGET_UNITS


class NativeCapture:
    name = "irq"
    native = True

    def __init__(self, ring, gpio_in, timer_low, mask, bits, lags, falling):
        self.ring = ring
        self._gpio_in = gpio_in
        self._timer_low = timer_low
        # One dict lookup per interrupt: pin -> lag << 5 | GPIO number.
        self._pins = {}
        for pin, bit in bits.items():
            gpio = 0
            while (1 << gpio) != bit:
                gpio += 1
            self._pins[pin] = lags.get(pin, 0) << 5 | gpio
        # Small numbers in one array: a single attribute load reaches them all.
        self._consts = array("I", (mask, falling, ring.mask))
        self._stamps = ring.stamps
        self._levels = ring.levels
        self._ix = ring.ix           # head, tail, dropped (courtside.ring)

    @micropython.viper
    def irq(self, pin):
        gpio_in = ptr32(self._gpio_in)
        timer = ptr32(self._timer_low)
        levels = gpio_in[0]
        stamp = timer[0]
        consts = ptr32(self._consts)
        levels &= consts[0]
        entry = int(self._pins[pin])
        stamp = (stamp - (entry >> 5)) & 0x3FFFFFFF
        if int(pin.irq().flags()) & consts[1]:
            levels &= ~(1 << (entry & 31))
        ix = ptr32(self._ix)
        head = ix[0]
        nxt = (head + 1) & consts[2]
        if nxt == ix[1]:
            if ix[2] < 0x3FFFFFFF:
                ix[2] = ix[2] + 1
            return
        stamps = ptr32(self._stamps)
        stamps[head] = stamp
        lv = ptr32(self._levels)
        lv[head] = levels
        ix[0] = nxt


@micropython.viper
def pack(frame, table, out):
    """``courtside.hw.chain.pack``: ``out[i] = frame[table[i]]`` for the 192 chain bytes."""
    src = ptr8(frame)
    order = ptr8(table)
    dst = ptr8(out)
    i = 0
    while i < 192:
        dst[i] = src[order[i]]
        i += 1
    return out


def finish(frame, brightness):
    """``courtside.power.finish``: the same bytes and the same scale returned. The two
    loops over the bytes are viper; the brightness table and the cap's one division stay
    in bytecode, as in ``courtside.display`` and ``courtside.power`` (every value small).
    Allocates nothing."""
    total = _map_sum(frame, display.levels(brightness))
    if total <= BUDGET_UNITS:
        return 256
    scale = BUDGET_UNITS * 256 // total      # as ``power.limit``: rounds down, as each byte does
    _cap(frame, scale)
    return scale


@micropython.viper
def _map_sum(frame, table) -> int:
    """Every byte of ``frame`` through the 256-entry ``table``, in place; returns the sum
    of the new bytes (at most 255 a byte)."""
    p = ptr8(frame)
    t = ptr8(table)
    n = int(len(frame))
    total = 0
    i = 0
    while i < n:
        v = t[p[i]]
        p[i] = v
        total += v
        i += 1
    return total


@micropython.viper
def _cap(frame, scale: int):
    """Every byte of ``frame`` times ``scale`` / 256, rounded down, in place."""
    p = ptr8(frame)
    n = int(len(frame))
    i = 0
    while i < n:
        p[i] = (p[i] * scale) >> 8
        i += 1


@micropython.viper
def enable_on_tick(timer_low, enable, bits: int, spins: int) -> int:
    """Wait for the microsecond timer to tick over, then write ``bits`` to ``enable`` at
    once: the PIO capture's anchor (``courtside.hw.pio_capture``). Returns the tick it
    turned to, which the write followed by a few instructions; -1 when it wrote nothing
    (no tick within ``spins`` reads, or the tick came more than one microsecond on, so
    something ran in between); -2 when it wrote, but the timer had moved on again by the
    read after the write (an interrupt landed between the tick and the write).

    ``enable`` is the PIO block's ``CTRL`` register at its atomic set alias, so the write
    sets this state machine's enable bit and touches no other. Nothing here turns
    interrupts off: an interrupt that lands between the tick and the write is seen by
    the reads around it, up to one that ends inside the same microsecond."""
    timer = ptr32(timer_low)
    reg = ptr32(enable)
    was = timer[0]
    n = spins
    while n > 0:
        t = timer[0]
        if t != was:
            if ((t - was) & 0x3FFFFFFF) != 1:
                return -1
            reg[0] = bits
            if timer[0] != t:
                return -2
            return t & 0x3FFFFFFF
        n -= 1
    return -1


# The PIO drain's words in machine code (``courtside.piostamp.Drain.use``): its state in
# one array of words, these places in it. Drain copies its attributes and its stamper's
# in before a call and out after it; the constants are written once.
_IX = const(0)          # the next word to read (counted like the DMA's words written)
_END = const(1)         # where to stop
_NOW = const(2)         # the tick of the take (places a count word's period)
_PENDING = const(3)     # a levels word waits for its count word
_LEVELS = const(4)      # ... its levels, on their GPIO bits
_LAST = const(5)        # the levels last put into the ring (-1: none yet)
_COUNT = const(6)       # the stamper's anchor: its count word,
_TICKS = const(7)       # ... its tick,
_FRAC = const(8)        # ... and the fraction of a microsecond beyond it
_MOVED = const(9)       # out: snapshots put into the ring
_NOISE = const(10)      # out: pairs that changed no button pin
_MARKS = const(11)      # out: wrap marks seen
_WMASK = const(12)      # the DMA buffer's words less one
_IN_BASE = const(13)
_WIDTH_MASK = const(14)
_MASK = const(15)       # the button pins
_NUM = const(16)        # microseconds per loop = NUM / DEN
_DEN = const(17)
_HALF = const(18)       # DEN / 2: half a microsecond
_PERIOD_HALF = const(19)    # half the counter's period, in whole microseconds
_RING_MASK = const(20)
DRAIN_WORDS = 21        # the state array's length


@micropython.viper
def drain_words(halves, st, stamps, levels, ix) -> int:
    """``courtside.piostamp.Drain``'s loop over new words, the stamper's ``place`` inside
    it, with the same results: a levels word waits for its count word, the pair becomes
    one snapshot in the capture ring (``stamps``, ``levels``, ``ix``: its arrays), a count
    word on its own is a wrap mark. It stops at ``st[_END]``, or short of a pair when the
    ring is full (0), or before a word it leaves to the bytecode loop: a levels word while
    one waits already (1), a count word whose anchor lies whole periods back (2)."""
    h = ptr16(halves)
    s = ptr32(st)
    rs = ptr32(stamps)
    rl = ptr32(levels)
    rix = ptr32(ix)
    i = s[_IX]
    pending = s[_PENDING]
    lv = s[_LEVELS]
    last = s[_LAST]
    count = s[_COUNT]
    ticks = s[_TICKS]
    frac = s[_FRAC]
    head = rix[0]
    s[_MOVED] = 0
    s[_NOISE] = 0
    s[_MARKS] = 0
    code = 0
    while i != s[_END]:
        j = (i & s[_WMASK]) << 1
        hi = int(h[j + 1])
        lo = int(h[j])
        if hi & 0x8000:
            if pending:
                code = 1
                break
            pending = 1
            lv = ((((~hi) & 0xFFFF) << 16 | ((~lo) & 0xFFFF)) & s[_WIDTH_MASK])
            lv = (lv << s[_IN_BASE]) & s[_MASK]
        else:
            if pending and ((head - int(rix[1])) & s[_RING_MASK]) >= s[_RING_MASK]:
                break                        # the ring is full: the pair waits
            c = hi << 16 | lo
            d = (count - c) & 0x3FFFFFFF     # loops since the anchor
            q = d // s[_DEN]
            rem = (d - q * s[_DEN]) * s[_NUM] + frac
            us = q * s[_NUM] + rem // s[_DEN]
            late = (s[_NOW] - ticks) & 0x3FFFFFFF
            if late >= 0x20000000:
                late = late - 0x3FFFFFFF - 1
            if late - us > s[_PERIOD_HALF]:
                code = 2
                break
            count = c
            frac = rem % s[_DEN]
            ticks = (ticks + us) & 0x3FFFFFFF
            if pending:
                pending = 0
                if lv == last:
                    s[_NOISE] += 1
                else:
                    last = lv
                    rs[head] = (ticks + 1) & 0x3FFFFFFF if frac >= s[_HALF] else ticks
                    rl[head] = lv
                    head = (head + 1) & s[_RING_MASK]
                    s[_MOVED] += 1
            else:
                s[_MARKS] += 1
        i += 1
    rix[0] = head
    s[_IX] = i
    s[_PENDING] = pending
    s[_LEVELS] = lv
    s[_LAST] = last
    s[_COUNT] = count
    s[_TICKS] = ticks
    s[_FRAC] = frac
    return code


class DrainWords:
    """``drain_words`` for one ``courtside.piostamp.Drain`` (``Drain.use``): its state
    array, the constants written once, the rest copied in and out around each call."""

    def __init__(self, drain):
        st = array("i", bytes(4 * DRAIN_WORDS))
        stamper = drain.stamper
        st[_WMASK] = drain.wmask
        st[_IN_BASE] = drain.in_base
        st[_WIDTH_MASK] = drain.width_mask
        st[_MASK] = drain.mask
        st[_NUM] = stamper.num
        st[_DEN] = stamper.den
        st[_HALF] = stamper.half
        st[_PERIOD_HALF] = stamper.period_us >> 1
        st[_RING_MASK] = drain.ring.mask
        self.st = st
        self._stamps = drain.ring.stamps
        self._levels = drain.ring.levels
        self._ix = drain.ring.ix
        self.code = 0            # why the last call stopped (``drain_words``)

    def take(self, drain, end, now):
        """Words from ``drain.read`` up to ``end``; returns the snapshots put, and leaves
        ``drain.read`` at the first word not taken."""
        self._copy_in(drain, end, now)
        self.code = drain_words(drain.halves, self.st, self._stamps, self._levels, self._ix)
        return self._copy_out(drain)

    def _copy_in(self, drain, end, now):
        st = self.st
        st[_IX] = drain.read
        st[_END] = end
        st[_NOW] = now
        st[_PENDING] = 1 if drain.pending else 0
        st[_LEVELS] = drain.levels
        st[_LAST] = drain.last
        stamper = drain.stamper
        st[_COUNT] = stamper.count
        st[_TICKS] = stamper.ticks
        st[_FRAC] = stamper.frac

    def _copy_out(self, drain):
        st = self.st
        drain.read = st[_IX]
        drain.pending = st[_PENDING] != 0
        drain.levels = st[_LEVELS]
        drain.last = st[_LAST]
        stamper = drain.stamper
        stamper.count = st[_COUNT]
        stamper.ticks = st[_TICKS]
        stamper.frac = st[_FRAC]
        drain.noise += st[_NOISE]
        drain.marks += st[_MARKS]
        return st[_MOVED]


_PATTERN = const(0x2BADF00D)         # below 2**30: a small int on a 32-bit port
_RAM = const(0x20000000)             # SRAM starts here on the RP2040 and the RP2350


@micropython.viper
def _paint(lo: int, hi: int):
    p = ptr32(_RAM + lo)
    n = (hi - lo) >> 2
    i = 0
    while i < n:
        p[i] = _PATTERN
        i += 1


@micropython.viper
def _untouched(lo: int, hi: int) -> int:
    """Bytes from ``lo`` up that still hold the pattern."""
    p = ptr32(_RAM + lo)
    n = (hi - lo) >> 2
    i = 0
    while i < n and p[i] == _PATTERN:
        i += 1
    return i << 2


class StackMark:
    """The C stack's high-water mark, in bytes used below its top.

    ``top`` is the stack's top as an offset from the start of SRAM (the rp2 port's linker
    script puts the main stack's ``size`` bytes, 8 KB, right below it: 0x20042000 on an
    RP2040), so ``top - micropython.stack_use()`` is about where the stack pointer is now.
    Painting stops ``margin`` bytes below that, clear of the painter's own frame."""

    def __init__(self, top, size=8192, margin=512):
        self.top = top
        self.size = size
        self.bottom = top - size
        _paint(self.bottom, top - micropython.stack_use() - margin)

    def peak(self):
        """The deepest the stack has been since the paint, in bytes below its top."""
        return self.size - _untouched(self.bottom, self.top)

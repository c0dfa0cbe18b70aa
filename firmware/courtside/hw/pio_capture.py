"""PIO capture backend: every button pin sampled in the same clock cycle, stamped to 48 ns.

A PIO state machine runs ``courtside.piocode``: it reads all button pins at once every 6
system cycles and, on any change, pushes the levels and its loop counter. A DMA channel
paced by the state machine's RX FIFO copies those words into a RAM buffer the moment they
appear (the DMA keeps running while the CPU is busy or has interrupts off), and
``drain()`` turns them into ``(stamp, levels)`` snapshots in the capture ``Ring``, the same
snapshots ``courtside.capture.IrqCapture`` makes, so debounce, order and contests run
unchanged. The maths lives in ``courtside.piostamp``; docs/pio-capture.md explains it.

    cap = PioCapture(ring, pins)           # allocates its DMA buffer (16 KB) at once: build it early
    cap.start()
    cap.drain()                            # from the main loop: each pass and each ms of its wait
    cap.stop()

Only the main loop drains. No timer or scheduled callback does: a scheduled callback runs
on top of whatever the loop is doing at that moment, so its call chain adds to the loop's
deepest one on the rp2 port's 8 KB C stack, which is how an earlier drain timer overflowed
it (docs/firmware.md, "The C stack"). The DMA keeps capturing while the loop is busy; the
buffer holds 1,024 changes, half a second of a press every millisecond (a storm's
longest pass measured on the chip was 410-550 ms, its verdict; with a 512-change buffer
that lost presses), and what it lost, were it ever too small, is counted as an overflow.

Requirements: ``rp2.DMA`` (MicroPython 1.22 or newer); the button GPIOs span at most 30
pins with no LED, buzzer or matrix pin among them (the default map uses GP0..GP16);
state machine 1 (PIO block 0, beside the matrix driver on state machine 0) is free, with
21 of the block's 32 instruction slots (block 1 is avoided: on a Pico W the wireless
driver claims state machine 4); the system clock does not change while capture runs.
"""

import time
from array import array

import machine
import rp2
from machine import Pin
from micropython import const
from uctypes import addressof

from courtside import piocode
from courtside.clock import diff
from courtside.piostamp import Drain, Stamper, Windows

_DMA_COUNT = const(0x0FFFFFFF)   # words before the DMA stops: 134 million changes
_PIO_BASE = const(0x50200000)    # PIO0 (PIO1 at +0x100000) on RP2040 and RP2350
_PIO_STRIDE = const(0x100000)
_RXF0 = const(0x20)              # RXF0..RXF3: one RX FIFO register per state machine
_SHAPES = const(4)               # anchor windows with 0..3 extra calls each side of the enable
_PROBES = const(16)              # windows measured per shape, the state machine stopped
_TRIES = const(24)               # enables tried for a window of the rarer width
_SET_ALIAS = const(0x2000)       # a write here sets bits of the register at offset 0 (CTRL)
_TICK_CYCLES = const(16)         # the enable's write lies up to this many cycles after the edge
                                 # (8-16 measured on the emulated RP2040, the Thumb version)
_SPINS = const(20000)            # timer reads the tick anchor waits for an edge (a few ms)


def window(pins):
    """(in_base, width) of the button pins; ValueError if an output pin sits inside."""
    gpio = pins.button_gpio
    base = min(gpio)
    width = max(gpio) - base + 1
    if width > 30:
        raise ValueError("PIO capture: the button pins span %d GPIOs, at most 30" % width)
    outputs = list(pins.leds) + [pins.buzzer, pins.matrix_pin]
    inside = [g for g in outputs if base <= g < base + width]
    if inside:
        raise ValueError("PIO capture: output pins %s lie among the button pins" % inside)
    return base, width


def _buffer(words):
    """A buffer of ``words`` 32-bit words aligned to its size (for the DMA ring), as 16-bit
    halves: ``(block, window)``.

    One block of twice the size is allocated, once, and the aligned window inside it is
    used: an aligned window of n bytes always lies inside 2n bytes. ``array("H", range(k))``
    is sized from the range's length and filled in place, so, unlike ``array("H",
    bytes(k))``, no temporary of the same size is made first. Its contents do not matter:
    the drain reads only words the DMA has written."""
    nbytes = 4 * words
    block = array("H", range(nbytes))        # 2 * nbytes bytes
    off = (-addressof(block)) & (nbytes - 1)
    return block, memoryview(block)[off >> 1:(off + nbytes) >> 1]


def fifo_address(sm_id):
    """The RX FIFO register of state machine ``sm_id`` (0-7), for the DMA to read."""
    pio, index = divmod(sm_id, 4)
    return _PIO_BASE + pio * _PIO_STRIDE + _RXF0 + 4 * index


class PioCapture:
    name = "pio"

    def __init__(self, ring, pins, flag=None, sm_id=1, buffer_words=2048, ticks_us=None):
        self.ring = ring
        self.flag = flag
        self.sm_id = sm_id
        self._ticks = ticks_us or time.ticks_us
        self.in_base, self.width = window(pins)
        self.mask = pins.button_mask
        # Pull-ups on every pin the program reads, so an unused pin in the window cannot float.
        self._inputs = [Pin(g, Pin.IN, Pin.PULL_UP)
                        for g in range(self.in_base, self.in_base + self.width)]
        self.program = rp2.asm_pio(**piocode.CONFIG)(piocode.program(self.width))
        self.freq = machine.freq()
        self.stamper = Stamper(self.freq)
        self._mem, halves = _buffer(buffer_words)
        self._halves = halves
        self.drainer = Drain(ring, self.stamper, halves, self.in_base, self.width, self.mask)
        self.resolution_ns = self.stamper.ns(1)
        self.anchor_tries = 0          # enables the last start took
        self.anchor_spread_ns = 0      # where in its window the enable can lie, by the widths
        self.anchored = ""             # "tick" or "window": how the last start anchored
        self._sm = None
        self._dma = None

    def start(self, on_tick=None, timer_low=0):
        """Capture from now on. ``on_tick`` (``courtside.hw.thumb.enable_on_tick``, or
        ``courtside.hw.native``'s, with the address of the timer's raw low word) anchors
        the stamps to a microsecond edge of the timer; without it, or should it never get
        a clean edge, the anchor comes from ``ticks_us()`` windows around the enable."""
        base = self.in_base
        sm = self._build()
        sm.active(0)                  # the program sets its own registers when it starts
        dma = rp2.DMA()
        pio, index = divmod(self.sm_id, 4)
        ring_bits = _log2(2 * len(self._halves))      # the buffer's size in bytes is 2**ring_bits
        ctrl = dma.pack_ctrl(size=2, inc_read=False, inc_write=True, ring_size=ring_bits,
                             ring_sel=True, treq_sel=8 * pio + 4 + index, high_pri=True)
        # The FIFO's register address, not ``read=sm``: a StateMachine is a DMA source only
        # from MicroPython 1.23, an address works wherever rp2.DMA exists (1.22).
        dma.config(read=fifo_address(self.sm_id), write=self._halves, count=_DMA_COUNT, ctrl=ctrl,
                   trigger=True)
        self._sm = sm
        self._dma = dma
        self.drainer.restart()
        lv = 0
        for i, p in enumerate(self._inputs):
            lv |= p.value() << (base + i)
        self.drainer.last = lv & self.mask      # the first report repeats this: not a change
        if on_tick is None or not self._anchor_on_tick(on_tick, timer_low, dma):
            self._anchor(self._sm, dma)

    def _anchor_on_tick(self, on_tick, timer_low, dma):
        """Enable the state machine a few instructions after the timer ticks over, in
        machine code, and anchor count 0 at that tick (docs/pio-capture.md, "The anchor").
        An enable that something delayed (an interrupt between the tick and the write) is
        undone and tried again; False when no try came clean."""
        pio, index = divmod(self.sm_id, 4)
        enable = _PIO_BASE + pio * _PIO_STRIDE + _SET_ALIAS
        for attempt in range(_TRIES):
            self.drainer.skip(_DMA_COUNT - dma.count)
            t = on_tick(timer_low, enable, 1 << index, _SPINS)
            if t >= 0:
                self.stamper.start(t)
                self.anchor_tries = attempt + 1
                self.anchor_spread_ns = _TICK_CYCLES * 1000 // (self.freq // 1000000)
                self.anchored = "tick"
                return True
            if t == -2:               # enabled, but late
                self._sm = self._build()
        return False

    def _build(self):
        """The state machine built (again): stopped, at its first instruction."""
        return rp2.StateMachine(self.sm_id, self.program, in_base=Pin(self.in_base))

    def _anchor(self, sm, dma):
        """Enable the state machine inside a tight ``ticks_us()`` window and anchor count 0
        at the window's centre (docs/pio-capture.md, "The anchor").

        First the window's shape: windows with 0..3 extra ``sm.active()`` calls on each side
        of the enable are measured with the state machine left stopped, and the shape whose
        two widths come most evenly is taken (its rarer width comes most often).
        Then the state machine is enabled inside such windows, stopped and set back to its
        first instruction again, until a window of the rarer width comes (no interrupt
        inside, the enable pinned best), or the tries run out."""
        ticks = self._ticks
        best = None
        k = 0
        for extra in range(_SHAPES):
            shape = Windows()
            for _ in range(_PROBES):
                t0, t1 = _window(ticks, sm, 0, extra)
                shape.add(diff(t1, t0))
            if best is None or shape.balance() > best.balance():
                best, k = shape, extra
        for attempt in range(_TRIES):
            self.drainer.skip(_DMA_COUNT - dma.count)     # the words of earlier tries are not this run's
            t0, t1 = _window(ticks, sm, 1, k)
            w = diff(t1, t0)
            if best.keep(w) or attempt == _TRIES - 1:
                break
            sm = self._sm = self._build()
        self.stamper.start_window(t0, t1)
        self.anchor_tries = attempt + 1
        self.anchor_spread_ns = best.spread_ns(w)
        self.anchored = "window"

    def drain(self):
        """Move new captures into the ring; returns how many snapshots were put. With
        nothing new it reads the DMA's count and compares: no call deeper, no allocation."""
        dma = self._dma
        if dma is None:
            return 0
        written = _DMA_COUNT - dma.count
        if written == self.drainer.read:
            return 0
        moved = self.drainer.take(written, self._ticks())
        if moved and self.flag is not None:
            self.flag.set()
        return moved

    def stop(self):
        if self._sm is not None:
            self._sm.active(0)
            # Free the 21 instructions, so a later start (or another Pico layer built in
            # the same session) fits the 32-word instruction memory again.
            rp2.PIO(self.sm_id // 4).remove_program(self.program)
        if self._dma is not None:
            self.drain()
            self._dma.active(0)
            self._dma.close()
            self._dma = None
        self._sm = None


def _window(ticks, sm, on, extra):
    """(t0, t1): ``ticks_us()`` read just before and just after ``sm.active(on)``, with
    ``extra`` calls of ``sm.active()`` on each side, which only widen the window."""
    t0 = ticks()
    for _ in range(extra):
        sm.active()
    sm.active(on)
    for _ in range(extra):
        sm.active()
    return t0, ticks()


def _log2(n):
    b = 0
    while (1 << b) < n:
        b += 1
    return b

"""The hardware layer's hot paths on the MicroPython unix port: handler cost, frame build time.

    micropython bench/chip.py [ROUNDS]

1. The IRQ handler against a minimal ring write (``buf[i & 63] = ticks_us()``), all under
   ``micropython.heap_lock()``, called the same way in the same run: the native handler
   (``courtside.hw.native``, viper), the bytecode fallback (``courtside.capture``)
   and the minimal write. The pin is a Python stand-in whose ``irq().flags()`` costs two
   Python calls (on the Pico they are C calls), so the handlers' ratios are upper bounds.
2. A frame, pixels to the bytes the DMA sends: ``display.scale``, ``power.limit``,
   ``hw.chain.pack`` and its viper twin ``hw.native.pack``, and, for comparison, the
   64-word loop the Pico layer used before (divmod per pixel, words up to 2**32).

3. Heap bytes per frame, per press (native handler, bytecode handler, PIO drain) and per
   event line queued, from ``gc.mem_alloc()`` around 100 repetitions, collection off.

Every figure is the median of ROUNDS batches (default 15). The unix port on a PC runs
bytecode some 50-100 times faster than an RP2040 at 125 MHz; compare ratios, not times.
"""

import sys
import time
from array import array

import micropython
import uctypes

sys.path.insert(0, (__file__.rsplit("/", 1)[0] if "/" in __file__ else ".") + "/../firmware")

from courtside import display, power
from courtside.capture import IrqCapture
from courtside.clock import MASK
from courtside.hw import chain
from courtside.hw.lines import Sender
from courtside.hw.native import NativeCapture
from courtside.hw.native import pack as native_pack
from courtside.piostamp import Drain, Stamper
from courtside.ring import Ring

ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 15
CALLS = 2000          # handler calls per batch
FRAMES = 50           # frames per batch


class FakePin:
    def irq(self):
        return self

    def flags(self):
        return 4      # a falling edge


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def batch(fn, arg, n):
    """ns per call of fn(arg) over n calls, heap locked."""
    micropython.heap_lock()
    t0 = time.ticks_us()
    i = 0
    while i < n:
        fn(arg)
        i += 1
    t1 = time.ticks_us()
    micropython.heap_unlock()
    return time.ticks_diff(t1, t0) * 1000 // n


def empty(_pin):
    pass


buf = array("I", bytes(4 * 64))
ix = array("I", [0])
ticks_us = time.ticks_us


def minimal(_pin):
    i = ix[0]
    buf[i & 63] = ticks_us()
    ix[0] = i + 1


pin = FakePin()
regs = array("I", [0x1FFFF, 12345])
base = uctypes.addressof(regs)


def reset(ring):
    ring.ix[0] = ring.ix[1] = 0      # keep the ring from filling: every call stores


class Native:
    def __init__(self):
        self.ring = Ring(4096)
        self.cap = NativeCapture(self.ring, base, base + 4, 0x1FFFF, {pin: 1 << 3}, {pin: 1}, 4)


class Bytecode:
    def __init__(self):
        self.ring = Ring(4096)
        self.cap = IrqCapture(self.ring, lambda: regs[0], lambda: ticks_us() & MASK, 0x1FFFF, None,
                              {pin: 1 << 3}, 4, {pin: 1})


def handler_figures():
    native, byte = Native(), Bytecode()
    runs = (("empty call", empty, None), ("minimal ring write", minimal, None),
            ("native handler", native.cap.irq, native.ring),
            ("bytecode handler", byte.cap.irq, byte.ring))
    per = [[] for _ in runs]
    for _ in range(ROUNDS):          # interleaved, so a busy moment hits every one alike
        for k, (_name, fn, ring) in enumerate(runs):
            if ring:
                reset(ring)
            per[k].append(batch(fn, pin, CALLS))
    results = [(run[0], median(p)) for run, p in zip(runs, per)]
    print("IRQ handler, ns per call (median of %d batches of %d, heap locked):" % (ROUNDS, CALLS))
    ns = dict(results)
    for name, t in results:
        print("  %-20s %6d ns   %.2fx the minimal ring write" % (name, t, t / ns["minimal ring write"]))
    work = max(1, ns["minimal ring write"] - ns["empty call"])
    native = (ns["native handler"] - ns["empty call"]) / work
    bytecode = (ns["bytecode handler"] - ns["empty call"]) / work
    print("  without the call itself: native %.2fx, bytecode %.2fx the minimal write" % (native, bytecode))


def old_words(frame, words, serpentine=False, grb=True):
    """The Pico layer's frame loop before the DMA: one 32-bit word per pixel."""
    for i in range(64):
        y, x = divmod(i, 8)
        if serpentine and y % 2:
            x = 7 - x
        j = 3 * i
        r, g, b = frame[j], frame[j + 1], frame[j + 2]
        words[8 * y + x] = ((g << 16 | r << 8 | b) if grb else (r << 16 | g << 8 | b)) << 8


def old_scale(frame, brightness):
    """display.scale before: a multiply and a floor division per byte."""
    if brightness < 255:
        for i in range(len(frame)):
            frame[i] = frame[i] * brightness // 255
    return frame


def frame_figures():
    frame = bytearray(192)
    src = bytes(range(192))
    out = bytearray(192)
    table = chain.order(True, True)
    words = [0] * 64
    display.scale(frame, 96)        # the brightness table is built once, on first use

    def timed(fn, locked=True):
        per = []
        for _ in range(ROUNDS):
            frame[:] = src
            if locked:
                micropython.heap_lock()
            t0 = time.ticks_us()
            for _ in range(FRAMES):
                fn()
            t1 = time.ticks_us()
            if locked:
                micropython.heap_unlock()
            per.append(time.ticks_diff(t1, t0) * 1000 // FRAMES)
        return median(per)

    scale = timed(lambda: display.scale(frame, 96))
    scale_before = timed(lambda: old_scale(frame, 96))
    limit = timed(lambda: power.limit(frame))
    full = bytearray(b"\xff" * 192)

    def limit_full():
        frame[:] = full
        power.limit(frame)
    capped = timed(limit_full)
    pack = timed(lambda: chain.pack(frame, table, out))
    fast = timed(lambda: native_pack(frame, table, out))
    old = timed(lambda: old_words(frame, words), locked=False)   # allocates on a 32-bit port
    print("Frame build, us per frame (median of %d batches of %d):" % (ROUNDS, FRAMES))
    print("  display.scale (brightness 96)    %7.1f us   (before: %.1f us, now %.2fx of it)"
          % (scale / 1000, scale_before / 1000, scale / scale_before))
    print("  power.limit (frame under budget) %7.1f us" % (limit / 1000))
    print("  power.limit (all white: capped)  %7.1f us" % (capped / 1000))
    print("  chain.pack (192 bytes, DMA order)%7.1f us" % (pack / 1000))
    print("  hw.native.pack (viper)           %7.1f us   (%.2fx chain.pack)" % (fast / 1000, fast / pack))
    print("  before: 64 pixel words           %7.1f us   (chain.pack is %.2fx of it, native %.2fx)"
          % (old / 1000, pack / old, fast / old))


def per_call_bytes(fn, n=100):
    import gc
    fn()
    gc.collect()
    gc.disable()
    before = gc.mem_alloc()
    for _ in range(n):
        fn()
    used = gc.mem_alloc() - before
    gc.enable()
    return used / n


def allocation_figures():
    native, byte = Native(), Bytecode()
    frame, out = bytearray(192), bytearray(192)
    table = chain.order(True, True)

    def one_frame():
        for i in range(192):
            frame[i] = 255
        display.scale(frame, 96)
        power.limit(frame)
        native_pack(frame, table, out)

    def native_press():
        reset(native.ring)
        native.cap.irq(pin)

    def bytecode_press():
        reset(byte.ring)
        byte.cap.irq(pin)

    halves = array("H", range(128))
    drain = Drain(Ring(64), Stamper(125000000), halves, 0, 17, 0x1FFFF)
    state = [0, 0]
    pair = [0, 0]

    def pio_press():
        j = 2 * (state[0] % 64)
        halves[j], halves[j + 1] = 0xFFFE, 0xFFFF          # GP0 pressed
        state[1] = (state[1] - 1000) & 0x3FFFFFFF
        j = 2 * ((state[0] + 1) % 64)
        halves[j], halves[j + 1] = state[1] & 0xFFFF, state[1] >> 16
        state[0] += 2
        drain.last = 0x1FFFF
        drain.take(state[0], 100)
        while drain.ring.get(pair):
            pass

    class Port:
        def write(self, b):
            return 1

    tx = Sender(Port(), lambda: True, per_pass=1 << 20)
    fields = (123456, 2, "THROW", 1)

    def one_line():
        tx.pass_begin()
        tx.write_line('{"ev":"press","t":%d,"p":%d,"b":"%s","rank":%d}' % fields)

    print("Heap bytes per call (gc.mem_alloc over 100 calls, 64-bit port):")
    print("  frame (scale, cap, pack)   %6.1f" % per_call_bytes(one_frame))
    print("  press, native handler      %6.1f" % per_call_bytes(native_press))
    print("  press, bytecode handler    %6.1f" % per_call_bytes(bytecode_press))
    print("  press, PIO drain           %6.1f" % per_call_bytes(pio_press))
    print("  event line, 52 chars        %5.1f   (formatting it, and write_line's encoded copy)"
          % per_call_bytes(one_line))


handler_figures()
frame_figures()
allocation_figures()

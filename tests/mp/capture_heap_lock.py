# Runs on the MicroPython unix port: the capture handler must not touch the heap.
# Under micropython.heap_lock() any allocation raises MemoryError, so running the very
# object the Pico's interrupt calls through a full ring and past it proves the point.
import asyncio
import sys
import time

import micropython

sys.path.insert(0, sys.argv[1])
from courtside.capture import IrqCapture
from courtside.clock import MASK
from courtside.ring import Ring

levels = [0x1FFFF]


def read_levels():
    return levels[0]


def ticks():
    return time.ticks_us() & MASK


class FakePin:
    """Stands in for a Pico Pin: irq().flags() says which edge raised the interrupt."""

    def __init__(self):
        self.flags_now = 0

    def irq(self):
        return self

    def flags(self):
        return self.flags_now


FALLING = 4
pin = FakePin()
ring = Ring(64)
flag = asyncio.ThreadSafeFlag()
capture = IrqCapture(ring, read_levels, ticks, 0x1FFFF, flag, {pin: 1 << 3}, FALLING)
handler = capture.irq
out = [0, 0]
i = 0
micropython.heap_lock()
try:
    while i < 200:                # 63 fit, the rest are dropped and counted
        levels[0] = 0x1FFFF ^ (1 << (i % 17))
        pin.flags_now = FALLING if i % 2 else 0
        handler(pin)
        i += 1
    stored = (ring.ix[0] - ring.ix[1]) & ring.mask
    first = ring.get(out)
    micropython.heap_unlock()
except MemoryError:
    micropython.heap_unlock()
    print("FAIL: the capture handler allocated")
    sys.exit(1)
print("stored", stored, "dropped", ring.dropped, "first", out[1], first)

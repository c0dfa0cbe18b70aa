# Runs on the MicroPython unix port: the native IRQ handler, as the Pico runs it, under
# micropython.heap_lock(). Its register addresses point at an array this script writes, so
# "GPIO_IN" and "TIMERAWL" are set to the top of their ranges (every bit set, the 32-bit
# timer about to wrap) and the handler must still stamp right and touch no heap.
# argv: the firmware folder (or a folder of .mpy files compiled for this port's -march).
import sys
from array import array

import micropython
import uctypes

sys.path.insert(0, sys.argv[1])
from courtside.hw.native import NativeCapture
from courtside.ring import Ring

regs = array("I", [0xFFFFFFFF, 0xFFFFFFFF])      # GPIO_IN, TIMERAWL
base = uctypes.addressof(regs)


class FakePin:
    """Stands in for a Pico Pin: irq().flags() says which edge raised the interrupt."""

    def __init__(self, flags):
        self.flags_now = flags

    def irq(self):
        return self

    def flags(self):
        return self.flags_now


FALLING = 4
low, high = FakePin(FALLING), FakePin(8)
bits = {low: 1 << 3, high: 1 << 29}
lags = {low: 1, high: 9}
ring = Ring(64)
capture = NativeCapture(ring, base, base + 4, 0x3FFFFFFF, bits, lags, FALLING)
handler = capture.irq
out = [0, 0]
i = 0
micropython.heap_lock()
try:
    handler(low)                  # falling edge: its own pin counts as closed
    handler(high)                 # rising edge: taken as the register says
    regs[1] = 3                   # the timer wrapped: 3 - lag(9) must wrap on the 2**30 circle
    handler(high)
    while i < 200:                # 63 fit, the rest are dropped and counted
        handler(low)
        i += 1
    micropython.heap_unlock()
except MemoryError:
    micropython.heap_unlock()
    print("FAIL: the native handler allocated")
    sys.exit(1)
got = []
while ring.get(out):
    got.append(out[0])
    got.append(out[1])
print("stored", len(got) // 2, "dropped", ring.dropped, *got[:6])

# Runs on the MicroPython unix port: a PIO drain pass must not touch the heap.
# The DMA buffer is filled with 40 press/release snapshots (levels word + count word each)
# whose counts cross the 30-bit wrap; then take() runs under micropython.heap_lock(),
# where any allocation raises MemoryError.
import sys
from array import array

import micropython

sys.path.insert(0, sys.argv[1])
from courtside.piostamp import Drain, Stamper
from courtside.ring import Ring

WORDS = 128
halves = array("H", bytes(4 * WORDS))
written = 0


def write(word):
    global written
    j = 2 * (written % WORDS)
    halves[j] = word & 0xFFFF
    halves[j + 1] = (word >> 16) & 0xFFFF
    written += 1


levels = 0x1FFFF
for i in range(40):
    levels ^= 1 << (i % 17)
    loops = (i + 1) * 1000
    write(0x80000000 | (~levels & 0x7FFFFFFF))
    write((5000 - loops) & 0x3FFFFFFF)

ring = Ring(64)
stamper = Stamper(125000000)
stamper.start(100)
stamper.count = 5000
drain = Drain(ring, stamper, halves, 0, 17, 0x1FFFF)
drain.last = 0x1FFFF
now = 100 + 1920 + 300
micropython.heap_lock()
try:
    moved = drain.take(written, now)
    micropython.heap_unlock()
except MemoryError:
    micropython.heap_unlock()
    print("FAIL: the drain allocated")
    sys.exit(1)
out = [0, 0]
last = 0
while ring.get(out):
    last = out[0]
print("moved", moved, "dropped", ring.dropped, "last", last)

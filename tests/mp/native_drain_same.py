# Runs on the MicroPython unix port: the PIO drain's words taken by the machine code
# (courtside.hw.native.DrainWords) give what the bytecode loop gives. Two drains, each
# with its own DMA buffer, ring and stamper, are fed the same words and taken at the
# same moments; after each take one line says what each holds. The plan comes on stdin
# as JSON: {"words", "ring", "in_base", "width", "mask", "freq", "start", "takes"}, each
# take [words to write first, now]. A last take of the native drain runs under
# micropython.heap_lock(), where any allocation raises MemoryError.
import json
import sys
from array import array

import micropython

sys.path.insert(0, sys.argv[1])
from courtside.hw import native
from courtside.piostamp import Drain, Stamper
from courtside.ring import Ring

plan = json.loads(sys.stdin.read())
WORDS = plan["words"]
codes = [0, 0, 0]          # why the machine code stopped, counted: done or ring full, lost count, late


class Counted(native.DrainWords):
    def take(self, drain, end, now):
        moved = native.DrainWords.take(self, drain, end, now)
        codes[self.code] += 1
        return moved


class Side:
    def __init__(self, fast):
        self.halves = array("H", bytes(4 * WORDS))
        self.written = 0
        self.ring = Ring(plan["ring"])
        self.stamper = Stamper(plan["freq"])
        self.stamper.start(plan["start"])
        self.drain = Drain(self.ring, self.stamper, self.halves, plan["in_base"], plan["width"], plan["mask"])
        if fast:
            self.drain.use(Counted)

    def write(self, word):
        j = 2 * (self.written % WORDS)
        self.halves[j] = word & 0xFFFF
        self.halves[j + 1] = (word >> 16) & 0xFFFF
        self.written += 1

    def take(self, now):
        moved = self.drain.take(self.written, now)
        got = []
        out = [0, 0]
        while self.ring.get(out):
            got.append(out[0])
            got.append(out[1])
        d = self.drain
        s = self.stamper
        return [moved, got, self.ring.dropped, d.read, d.pending, d.levels, d.last, d.overrun,
                d.unpaired, d.marks, d.noise, s.count, s.ticks, s.frac]


sides = (Side(False), Side(True))
for words, now in plan["takes"]:
    for side in sides:
        for w in words:
            side.write(w)
    print(json.dumps([side.take(now) for side in sides]))
print(json.dumps(codes))
fast = sides[1]
fast.drain.fast = native.DrainWords(fast.drain)      # the plain one, for the heap check
for w in plan["last"]:
    fast.write(w)
micropython.heap_lock()
try:
    fast.drain.take(fast.written, plan["last_now"])
    micropython.heap_unlock()
except MemoryError:
    micropython.heap_unlock()
    print("FAIL: the machine code's drain allocated")
    sys.exit(1)
print("heap untouched")

"""Heap in steady state, and its growth over 100,000 simulated presses.

Runs the whole firmware (the core: debounce, arbiter, lobby, Dodge Ball, event stream,
driven by the board's own loop) on the MicroPython unix port with the simulated board in
virtual time, two to four
players pressing in contests that include bounce and ties. Every 10,000 presses it
collects garbage and prints the live heap; the goal is no growth.

    micropython bench/heap.py [PRESSES]

The unix port is a 64-bit build: every object header and pointer is twice the size of
a Pico's, so figures here are an upper bound for the board.
"""

import gc
import sys

sys.path.insert(0, (__file__.rsplit("/", 1)[0] if "/" in __file__ else ".") + "/../firmware")
sys.path.insert(0, (__file__.rsplit("/", 1)[0] if "/" in __file__ else ".") + "/../common")

import asyncio

from courtside import driver, pinmap
from courtside.core import Core
from courtside.fair import Fair, seeded
from courtside_sim.board import SimBoard

ROOT = (__file__.rsplit("/", 1)[0] if "/" in __file__ else ".") + "/.."


class Stream:
    """A script generated as it plays (the interface of ``courtside_sim.script.Script``),
    so the script itself takes no heap."""

    def __init__(self, presses):
        self.lines_out = 0
        self.last = 0
        self.presses = presses
        self.done = 0
        self.next_t = 100000
        self.queue = [(0, "cmd", "join 1", None), (0, "cmd", "join 2", None), (0, "cmd", "join 3", None),
                      (10000, "cmd", "start", None)]
        # preallocated, and filled with small ints only, so measuring allocates nothing
        self.at = [0] * (presses // 10000 + 2)
        self.live = [0] * (presses // 10000 + 2)
        self.taken = 0

    def count(self, text):
        self.lines_out += 1

    def _more(self):
        # a contest: three presses, the last two 600 us apart (a tie), each with bounce
        t = self.next_t
        k = self.done
        for i, offset in enumerate((0, 250000, 250600)):
            box = (k + i) % 3
            button = 4 * box + (i + k) % 4
            at = t + offset
            self.queue.append((at, "edge", button, True))
            self.queue.append((at + 300, "edge", button, False))
            self.queue.append((at + 900, "edge", button, True))
            self.queue.append((at + 60000, "edge", button, False))
        self.queue.sort()
        self.done += 3
        self.next_t = t + 2000000
        if self.done % 10000 < 3:
            gc.collect()
            self.live[self.taken] = gc.mem_alloc()
            self.at[self.taken] = self.done
            self.taken += 1

    def next_time(self):
        if not self.queue and self.done < self.presses:
            self._more()
        return self.queue[0][0] if self.queue else None

    def take(self):
        item = self.queue.pop(0)
        self.last = item[0]
        return item


def main():
    presses = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
    pins = pinmap.load(ROOT + "/hardware/pinmap.json")
    hw = Stream(presses)
    board = SimBoard(pins, script=hw, out=hw.count)
    core = Core(pins, None, Fair(seeded(3)), now=board.ticks_us(), levels=board.levels())
    asyncio.run(driver.run(core, board))
    points = list(zip(hw.at[:hw.taken], hw.live[:hw.taken]))
    print("heap over %d presses (%s, %d event lines)" % (hw.done, sys.implementation.name, hw.lines_out))
    for done, alloc in points:
        print("  after %6d presses: %6d bytes live" % (done, alloc))
    steady = points[1][1] if len(points) > 1 else points[0][1]
    print("steady state %d bytes; growth from %d to %d presses: %+d bytes" % (
        steady, points[1][0], points[-1][0], points[-1][1] - steady))


main()

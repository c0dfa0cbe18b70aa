"""Deathball engine speed and referee heap, on CPython and the MicroPython unix port.

Plays whole games (automatic players picking any legal move, fair seeded die) with the
firmware's engine under both interpreters and prints games per second side by side
(median of several runs), then referees a whole game through RefereeMode on the unix port
in a Pico-sized heap and prints the heap it holds, the most it allocates between
collections (``gc.mem_alloc``) and the longest a single press took to handle.

    python bench/deathball_speed.py [--games 300] [--runs 5]
"""

import argparse
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIRMWARE = os.path.join(ROOT, "firmware")

# Runs unchanged on both interpreters: prints one line "games seconds".
SPEED = """
import sys
sys.path.insert(0, %(firmware)r)
try:
    from time import ticks_ms, ticks_diff
except ImportError:
    import time
    def ticks_ms():
        return int(time.perf_counter() * 1000)
    def ticks_diff(a, b):
        return a - b
from courtside.fair import Fair, seeded
from courtside.deathball.die import Dice
from courtside.deathball.engine import Game, SETUP, PLAY

def game(seed):
    g = Game([0, 1, 2, 3], Dice(Fair(seeded(seed))))
    pick = Fair(seeded(seed + 1))
    g.initiative()
    while g.phase == SETUP:
        free = g.free_setup_squares()
        g.setup(g.turn, free[pick.below(len(free))])
    while g.phase == PLAY:
        legal = g.legal_moves(g.turn)
        a, b = legal[pick.below(len(legal))]
        g.move(g.turn, a, b)
        g.events = []

t0 = ticks_ms()
for i in range(%(games)d):
    game(%(seed)d + i)
print(%(games)d, ticks_diff(ticks_ms(), t0) / 1000)
"""

# Unix port only: a referee game driven through the mode, heap measured at each move.
HEAP = """
import gc, sys, time
sys.path.insert(0, %(firmware)r)
gc.collect()
base = gc.mem_alloc()
from courtside.fair import Fair, seeded
from courtside.deathball.modes import RefereeMode
from courtside.deathball import engine
from courtside import clock
gc.collect()
code = gc.mem_alloc() - base

class App:
    def __init__(self):
        self.players = [0, 1, 2, 3]
        self.rng = Fair(seeded(%(seed)d))
        self.now = 0
    def emit(self, kind, **fields):
        pass
    def show(self, frame):
        pass
    def led(self, box, on):
        pass
    def tone(self, name):
        pass
    def ticks(self):
        return self.now

app = App()
mode = RefereeMode(app)
gc.collect()
start = gc.mem_alloc()
peak = 0
held = 0
mode.start()
mode.main(0)

def settle():
    global peak
    for _ in range(2000):
        wait = mode.poll(app.now)
        peak = max(peak, gc.mem_alloc() - start)
        if wait is None or not (mode.queue or mode.roll is not None or mode.until is not None):
            return
        app.now = clock.add(app.now, max(1, wait) * 1000)

settle()
moves = 0
games = 0
slowest = 0
pick = Fair(seeded(%(seed)d + 5))
while moves < 200:
    g = mode.game
    while g.phase == engine.SETUP:
        mode.press(g.turn, 0, app.now)
    while g.phase == engine.PLAY:
        legal = g.legal_moves(g.turn)
        a, b = legal[pick.below(len(legal))]
        box = g.turn
        mode.press(box, a, app.now)
        t0 = time.ticks_us()
        mode.press(box, b, app.now)  # the whole move, the deathballs' run, the next turn's check
        slowest = max(slowest, time.ticks_diff(time.ticks_us(), t0))
        peak = max(peak, gc.mem_alloc() - start)
        settle()
        gc.collect()
        held = max(held, gc.mem_alloc() - start)
        moves += 1
    games += 1
    mode.main(app.now)   # ROLL after the end: a new game
    mode.main(app.now)   # ROLL: initiative
    settle()
print(code, held, peak, "%%d/%%d" %% (moves, games), slowest)
"""


def run(exe, code, extra=()):
    out = subprocess.run([exe, *extra, "-c", code], capture_output=True, text=True, check=False,
                         timeout=600)
    if out.returncode:
        raise SystemExit("%s failed:\n%s" % (exe, out.stderr[-2000:]))
    return out.stdout.split()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--heap", default="192k", help="unix-port heap for the referee (Pico-sized)")
    args = parser.parse_args()
    mpy = os.path.join(os.path.dirname(sys.executable), "micropython")
    code = SPEED % {"firmware": FIRMWARE, "games": args.games, "seed": args.seed}
    rates = {"cpython": [], "micropython": []}
    for _ in range(args.runs):
        for name, exe in (("cpython", sys.executable), ("micropython", mpy)):
            games, seconds = run(exe, code)
            rates[name].append(int(games) / float(seconds))
    cp = statistics.median(rates["cpython"])
    mp = statistics.median(rates["micropython"])
    print("Deathball engine, %d four-player games of random players, median of %d runs"
          % (args.games, args.runs))
    print("  CPython %s        %8.0f games/s" % (sys.version.split()[0], cp))
    print("  MicroPython unix port %8.0f games/s   (%.2fx CPython)" % (mp, mp / cp))
    code, held, peak, moves, slowest = run(mpy, HEAP % {"firmware": FIRMWARE, "seed": args.seed},
                                  ("-X", "heapsize=" + args.heap))
    print("Referee heap on the unix port (heap %s, 64-bit: a Pico's 32-bit objects are smaller)"
          % args.heap)
    print("  deathball modules imported   %6d bytes" % int(code))
    print("  game held between moves      %6d bytes (most after gc.collect; moves/games %s)"
          % (int(held), moves))
    print("  most allocated between collections %6d bytes" % int(peak))
    print("  slowest second arrow (move, deathballs' run, next turn) %d us" % int(slowest))


if __name__ == "__main__":
    main()

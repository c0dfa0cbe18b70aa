"""Deathball engine speed and referee heap, on CPython and the MicroPython unix port.

Plays whole games (automatic players picking any legal move, fair seeded die) with the
firmware's engine under both interpreters and prints games per second side by side
(median of several runs), then referees whole games through the core on the unix port in
a Pico-sized heap, its presses going through the capture ring and the debouncer as on a
board, and prints the heap the game holds, the most it allocates between collections
(``gc.mem_alloc``) and the slowest single pass of the loop.

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
from courtside.run import load_pins
from courtside.clock import add
from courtside.core import Core
from courtside.fair import Fair, seeded
from courtside.ring import Ring
gc.collect()
base = gc.mem_alloc()
from courtside.deathball import engine
from courtside.deathball import modes  # noqa: F401
gc.collect()
code = gc.mem_alloc() - base

# The whole core, stepped as the board's loop steps it: presses are snapshots in the ring.
pins = load_pins(%(pinmap)r)
ring = Ring(256)
now = [0]
core = Core(pins, None, Fair(seeded(%(seed)d)), now=0, levels=pins.button_mask, mode="referee")
peak = 0
slowest = 0

def step(lines=()):
    global peak, slowest
    t0 = time.ticks_us()
    wait = core.step(now[0], ring, lines)
    slowest = max(slowest, time.ticks_diff(time.ticks_us(), t0))
    del core.effects[:]
    peak = max(peak, gc.mem_alloc() - start)
    return wait

def edge(bid, closed):
    bit = 1 << pins.button_gpio[bid]
    ring.put(now[0], pins.button_mask & ~bit if closed else pins.button_mask)
    step()

def wait_ms(ms):
    while ms > 0:
        w = max(1, min(step(), ms))
        now[0] = add(now[0], w * 1000)
        ms -= w

def press(box, button):
    edge(4 * box + button, True)
    wait_ms(30)
    edge(4 * box + button, False)
    wait_ms(30)

def settle():
    stage = core.stage
    for _ in range(5000):
        wait = step()
        if not (stage.queue or stage.roll is not None or stage.until is not None or stage.game.running):
            return
        now[0] = add(now[0], max(1, wait) * 1000)

gc.collect()
start = gc.mem_alloc()
step(["join 1", "join 2", "join 3", "join 4", "start"])
wait_ms(500)                   # the lobby has loaded the referee's modules
edge(pins.main_id, True); wait_ms(30); edge(pins.main_id, False)   # ROLL: initiative
settle()
moves = 0
games = 0
held = 0
pick = Fair(seeded(%(seed)d + 5))
slowest = 0                    # from here on: passes of play
while moves < 200:
    g = core.stage.game
    while g.phase == engine.SETUP:
        press(g.turn, 0)
    while g.phase == engine.PLAY:
        legal = g.legal_moves(g.turn)
        a, b = legal[pick.below(len(legal))]
        box = g.turn
        press(box, a)
        press(box, b)          # the move; at a round's end the run goes on pass by pass
        settle()
        gc.collect()
        held = max(held, gc.mem_alloc() - start)
        moves += 1
    games += 1
    for _ in range(2):         # ROLL after the end: a new game; ROLL: its initiative
        edge(pins.main_id, True); wait_ms(30); edge(pins.main_id, False)
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
    heap = HEAP % {"firmware": FIRMWARE, "seed": args.seed,
                   "pinmap": os.path.join(ROOT, "hardware", "pinmap.json")}
    code, held, peak, moves, slowest = run(mpy, heap, ("-X", "heapsize=" + args.heap))
    print("Referee heap on the unix port (heap %s, 64-bit: a Pico's 32-bit objects are smaller)"
          % args.heap)
    print("  deathball modules imported   %6d bytes" % int(code))
    print("  game held between moves      %6d bytes (most after gc.collect; moves/games %s)"
          % (int(held), moves))
    print("  most allocated between collections %6d bytes" % int(peak))
    print("  slowest pass of the loop in play (a move, one step of the run, a frame) %d us"
          % int(slowest))


if __name__ == "__main__":
    main()

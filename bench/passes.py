"""The cost of one pass of the main loop, pass by pass, through whole games.

The core runs the worked Dodge Ball round and the two refereed Deathball games
(tests/scripts/) on the simulated board in virtual time, driven as the board's loop
drives it; every pass is timed with the interpreter's own clock and its work counted:
the events it wrote, the frames and the deathball steps it computed.

    micropython bench/passes.py        # the unix port
    python bench/passes.py             # CPython, for comparison

Prints, per script: passes, the median and slowest pass, the slowest pass's work, and
the most events and ball steps in any one pass; then passes per contest (Dodge Ball) and
per round (Deathball), and the passes a button held for two seconds costs. The budget
(docs/firmware.md) is one frame and one step of the deathballs' run per pass, whatever
the game does; a pass is asked for only when something is due.
"""

import sys

sys.path.insert(0, (__file__.rsplit("/", 1)[0] if "/" in __file__ else ".") + "/../firmware")
sys.path.insert(0, (__file__.rsplit("/", 1)[0] if "/" in __file__ else ".") + "/../common")

import time

from courtside.core import Core
from courtside.effects import EVENT, FRAME
from courtside.fair import Fair, seeded
from courtside.run import load_pins
from courtside_sim.board import SimBoard
from courtside_sim.script import Script

ROOT = (__file__.rsplit("/", 1)[0] if "/" in __file__ else ".") + "/.."
SCRIPTS = ("dodgeball_round", "deathball_game", "deathball_shrink")


def _clock():
    if hasattr(time, "ticks_us"):
        return time.ticks_us, time.ticks_diff
    return (lambda: time.perf_counter_ns() // 1000), (lambda a, b: a - b)


def run(name, pins, path=None):
    now_us, since = _clock()
    path = path or ROOT + "/tests/scripts/%s.jsonl" % name
    board = SimBoard(pins, script=Script(lambda: open(path, "rb"), pins), out=lambda text: None)
    core = Core(pins, None, Fair(seeded(1)), now=board.ticks_us(), levels=board.levels())
    lines = []
    wait = 0
    costs = []
    most_events = most_balls = 0
    slowest = (0, 0, 0)
    kinds = {}
    while board._advance(wait * 1000 if wait else 0):   # the virtual clock, as board.wait does
        line = board.read_line()
        while line is not None:
            lines.append(line)
            line = board.read_line()
        start = now_us()
        wait = core.step(board.ticks_us(), board.ring, lines)
        cost = since(now_us(), start)
        del lines[:]
        events = frames = balls = 0
        for effect in core.effects:
            if effect[0] == EVENT:
                events += 1
                balls += effect[1] == "ball"
                kinds[effect[1]] = kinds.get(effect[1], 0) + 1
            elif effect[0] == FRAME:
                frames += 1
        del core.effects[:]
        costs.append(cost)
        most_events = max(most_events, events)
        most_balls = max(most_balls, balls)
        if cost > slowest[0]:
            slowest = (cost, events, frames)
    costs.sort()
    print("  %-17s %5d passes: median %4d us, slowest %5d us (%d events, %d frames); "
          "most in one pass: %d events, %d ball steps"
          % (name, len(costs), costs[len(costs) // 2], slowest[0], slowest[1], slowest[2],
             most_events, most_balls))
    return len(costs), kinds


HELD = "/tmp/courtside-bench-held.jsonl"


def held(pins):
    """Passes a lobby costs with one button held two seconds, against one tapped."""
    out = []
    for hold_us in (80000, 2000000):
        with open(HELD, "w") as f:
            f.write('{"t": 100000, "p": 1, "b": "THROW", "e": "down"}\n')
            f.write('{"t": %d, "p": 1, "b": "THROW", "e": "up"}\n' % (100000 + hold_us))
        passes, _ = run("held %d ms" % (hold_us // 1000), pins, HELD)
        out.append(passes)
    print("  a button held 2 s costs %d passes more than a tap" % (out[1] - out[0]))


def main():
    pins = load_pins(ROOT + "/hardware/pinmap.json")
    print("main-loop passes (%s)" % sys.implementation.name)
    for name in SCRIPTS:
        passes, kinds = run(name, pins)
        if "verdict" in kinds:
            print("    %d contests: %.1f passes a contest" % (kinds["verdict"], passes / kinds["verdict"]))
        if "turn" in kinds:
            print("    %d turns: %.1f passes a turn" % (kinds["turn"], passes / kinds["turn"]))
    held(pins)


main()

"""The inputs the chip tier plays: phases of edges, and the same inputs as a simulator script.

A scenario is a list of phases. Each phase is an optional command line followed by button
edges at times relative to the moment the board has echoed that command (a board reads a
line at its next pass, so the edges wait for it). The simulator plays the same phases as
one script, which makes it the oracle: the board must report exactly the presses the
simulator reports for the same edges (the same debouncer decides on both).

Button numbers are ids (``4 * (box - 1) + k``, k 0..3 for THROW/UP .. PASS/RIGHT, and
``MAIN`` for the main-unit button); the pin map turns them into GPIOs.
"""

import json
import random

MAIN = 16
NAMES = ("THROW", "DODGE", "CATCH", "PASS")
ARROWS = ("UP", "DOWN", "LEFT", "RIGHT")
MS = 1000        # edge times are in microseconds


class Phase:
    def __init__(self, cmd=None, settle_ms=2500):
        self.cmd = cmd
        self.edges = []           # (button id, down?, us after the phase starts)
        self.presses = 0
        self.settle_ms = settle_ms

    def tap(self, button, at_us, hold_us):
        self.edges.append((button, True, at_us))
        self.edges.append((button, False, at_us + hold_us))
        self.presses += 1

    def length_us(self):
        return max((at for _, _, at in self.edges), default=0)


def _joins(phase, boxes, button=0):
    for box in range(boxes):
        phase.tap(4 * box + button, (200 + 100 * box) * MS, 60 * MS)
    phase.tap(MAIN, (200 + 100 * boxes + 200) * MS, 60 * MS)


def table_schedule(phase, rng, presses, boxes, start_us, every_ms=80):
    """``presses`` presses at a table's pace: one every ``every_ms`` on a random box and
    button, a third of them pairs 20 us - 1 ms apart on two boxes. Each is held 40-70 ms,
    so no box ever has more than one button down (nothing here is a box fault)."""
    at = start_us
    left = presses
    while left > 0:
        hold = rng.randrange(40, 71) * MS
        a = rng.randrange(boxes)
        phase.tap(4 * a + rng.randrange(4), at, hold)
        left -= 1
        if left and rng.random() < 0.5:
            b = (a + rng.randrange(1, boxes)) % boxes
            phase.tap(4 * b + rng.randrange(4), at + rng.randrange(20, 1001), hold)
            left -= 1
        at += every_ms * MS
    return at


def storm(phase, presses, boxes, start_us, step_us=1000, hold_us=1500):
    """A press every ``step_us`` across the boxes, each held ``hold_us``: the boxes take
    turns, so one box has at most one button down at a time."""
    order = [4 * box + k for k in range(4) for box in range(boxes)]
    for i in range(presses):
        phase.tap(order[i % len(order)], start_us + i * step_us + (i * 37) % 1000, hold_us)
    return start_us + presses * step_us


def dodgeball(rng, presses, storm_presses):
    join = Phase("mode dodgeball", settle_ms=600)
    _joins(join, 4)
    table = Phase(None, settle_ms=3000)
    table_schedule(table, rng, presses, 4, 100 * MS)
    burst = Phase(None, settle_ms=3000)
    storm(burst, storm_presses, 4, 100 * MS)
    return {"dodgeball table": [join, table], "dodgeball storm": [join, burst]}


def referee(rng, presses, storm_presses):
    """A refereed Deathball game for three: joined, the dice forced so the order is
    known, then presses on every box's arrows (moves, refusals, cursor steps: whatever
    they are, each is a ``button`` line)."""
    join = Phase("mode referee", settle_ms=600)
    _joins(join, 3)
    dice = Phase("dice 6 2 3 3 3", settle_ms=300)
    dice.tap(MAIN, 100 * MS, 60 * MS)
    table = Phase(None, settle_ms=3000)
    table_schedule(table, rng, presses, 3, 3000 * MS)
    burst = Phase(None, settle_ms=4000)
    storm(burst, storm_presses, 3, 3000 * MS)
    return {"referee table": [join, dice, table], "referee storm": [join, dice, burst]}


def script(phases, names):
    """The phases as a simulator script (JSON lines), each phase 2 s after the last one's
    end, its command at its start and its edges 50 ms later."""
    out = []
    t = 100 * MS
    for ph in phases:
        if ph.cmd:
            out.append({"t": t, "cmd": ph.cmd})
        base = t + 50 * MS
        for button, down, at in sorted(ph.edges, key=lambda e: e[2]):
            if button == MAIN:
                item = {"p": 0, "b": "MAIN"}
            else:
                item = {"p": button // 4 + 1, "b": names[button % 4]}
            item["t"] = base + at
            item["e"] = "down" if down else "up"
            out.append(item)
        t = base + ph.length_us() + ph.settle_ms * MS + 2000 * MS
    return "\n".join(json.dumps(x) for x in out) + "\n"


def from_script(path, reset, tap_us=80_000):
    """A simulator script (tests/scripts) as phases: each command starts a phase, after
    ``reset`` (a command that brings the board back to where a script starts)."""
    items = []
    with open(path) as f:
        for line in f:
            if line.strip() and not line.lstrip().startswith("#"):
                items.append(json.loads(line))
    items.sort(key=lambda x: x["t"])
    phases = [Phase(reset, settle_ms=600)]
    base = 0
    for it in items:
        if "cmd" in it:
            phases.append(Phase(it["cmd"], settle_ms=300))
            base = it["t"]
            continue
        if it["p"] == 0:
            button = MAIN
        else:
            k = NAMES.index(it["b"]) if it["b"] in NAMES else ARROWS.index(it["b"])
            button = 4 * (it["p"] - 1) + k
        at = it["t"] - base
        edge = it.get("e", "tap")
        ph = phases[-1]
        if edge == "tap":
            ph.tap(button, at, tap_us)
        else:
            ph.edges.append((button, edge == "down", at))
            ph.presses += edge == "down"
    phases[-1].settle_ms = 4000
    return phases


def scenarios(seed, presses, storm_presses, scripts=None):
    rng = random.Random(seed)
    out = {}
    if scripts:
        out["dodgeball round"] = from_script(scripts + "/dodgeball_round.jsonl", "mode dodgeball")
        out["referee game"] = from_script(scripts + "/deathball_game.jsonl", "mode dodgeball")
    out.update(dodgeball(rng, presses, storm_presses))
    out.update(referee(rng, presses, storm_presses))
    return out

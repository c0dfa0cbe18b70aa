"""A board that writes event lines more slowly than a burst of commands makes them: the
lines of a pass past its budget wait for the next pass (``driver.apply``), no command is
read while they wait, and what waits never passes ``EFFECTS_HELD``, so a burst of 2,000
commands is answered line by line in bounded memory (on the chip, unbounded waiting lines
ran the heap out after 604 of them)."""

import json

from conftest import ROOT
from courtside import driver
from courtside.core import Core
from courtside.fair import Fair, seeded
from courtside.pins import Pins
from courtside.ring import Ring
from quietboard import Quiet


class SlowBoard(Quiet):
    """Every tick read costs 4 ms, so a pass overruns its 10 ms budget at once."""
    budget_us = 10000

    def __init__(self, pins, lines):
        self.pins = pins
        self.ring = Ring(16)
        self.unsent = 0
        self.now = 0
        self.lines = list(lines)
        self.out = []
        self.most_waiting = 0
        self.core = None

    def ticks_us(self):
        self.now += 4000
        return self.now & 0x3FFFFFFF

    def read_line(self):
        return self.lines.pop(0) if self.lines else None

    def write_line(self, text):
        self.out.append(json.loads(text))

    def service(self, now):
        self.most_waiting = max(self.most_waiting, len(self.core.effects))

    def advance(self, ms):
        return bool(self.lines) or bool(self.core.effects) or self.now < 50_000_000


def test_a_burst_is_answered_with_what_waits_bounded():
    pins = Pins(json.loads((ROOT / "hardware" / "pinmap.json").read_text()))
    board = SlowBoard(pins, ["get"] * 2000 + ["ping"])
    board.core = Core(pins, None, Fair(seeded(1)))
    driver.run_until(board.core, board)
    kinds = [e["ev"] for e in board.out]
    assert kinds.count("settings") == 2000 and kinds[-1] == "pong"
    assert 0 < board.most_waiting <= driver.EFFECTS_HELD


class StormBoard(SlowBoard):
    """A press storm already in the ring (taps 1 ms apart across the boxes, each held
    1.5 ms), on a board whose every tick read costs 12 ms (a line a pass), or none
    (``budget_us`` 0: the simulator's passes, which take no time)."""

    def __init__(self, pins, budget_us):
        super().__init__(pins, [])
        self.budget_us = budget_us
        self.ring = Ring(4096)
        self.passes = 0
        level = pins.button_mask
        edges = []
        for k in range(400):
            bit = 1 << pins.button_gpio[(k * 5) % (4 * 4)]
            edges += [(5_000_000 + 1000 * k, bit, True), (5_000_000 + 1000 * k + 1500, bit, False)]
        for at, bit, closed in sorted(edges):
            level = level & ~bit if closed else level | bit
            self.ring.put(at, level)

    def ticks_us(self):
        self.now += 12000 if self.budget_us else 0
        return self.now & 0x3FFFFFFF

    def levels(self):
        return self.pins.button_mask

    def service(self, now):
        super().service(now)
        self.passes += 1

    def advance(self, ms):
        if not self.budget_us:
            self.now += 1000 * max(ms, 1)
        busy = len(self.ring) > 0 or bool(self.core.effects)
        return self.passes < 20_000 and (busy or self.now < 60_000_000)


def test_a_storm_in_the_ring_waits_there_while_the_lines_are_behind(monkeypatch):
    # A board that writes lines slower than the storm makes them takes no snapshot while
    # more than EFFECTS_HELD effects wait; its stream is the one a board without a budget
    # writes (the simulator's), line for line.
    pins = Pins(json.loads((ROOT / "hardware" / "pinmap.json").read_text()))
    behind = []
    held = driver._behind
    monkeypatch.setattr(driver, "_behind", lambda core, hw: behind.append(held(core, hw)) or behind[-1])
    streams = {}
    for budget in (0, 10000):
        board = StormBoard(pins, budget)
        board.core = Core(pins, None, Fair(seeded(3)))
        driver.run_until(board.core, board)
        streams[budget] = [(e["ev"], e.get("p"), e.get("b")) for e in board.out if e["ev"] != "settings"]
        if budget:
            assert board.most_waiting <= driver.EFFECTS_HELD + 40     # one pass's effects beyond it
    assert len([k for k in streams[0] if k[0] in ("button", "join", "press")]) > 100
    assert streams[10000] == streams[0]

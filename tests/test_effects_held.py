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

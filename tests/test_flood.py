"""A flood of command lines: answered line by line, nothing lost, the board still answers.

2,000 ``get`` lines sent in one burst once killed the firmware (a MemoryError in the core,
then a board at the REPL that no longer answered). Now a pass carries out at most
``LINES_PER_PASS`` lines and leaves the rest where they wait (a board's USB buffer; the
virtual Pico's standard input), so the laptop is held back rather than the heap filled.
"""

import json
import threading
import time

import pytest
from courtside import core as core_module
from courtside import driver
from courtside.core import LINES_PER_PASS, Core
from courtside.fair import Fair, seeded
from courtside.run import load_pins as load
from quietboard import Quiet

BURST = 2000


def _pins():
    from conftest import ROOT
    return load(str(ROOT / "hardware" / "pinmap.json"))


def test_a_burst_on_the_virtual_pico_is_answered_line_by_line(vpico):
    import serial
    from courtside_host.link import deploy as dep
    dep.deploy(vpico.port)
    port = serial.Serial(vpico.port, timeout=0.2)
    burst = b"get\n" * BURST + b"ping\n"
    sender = threading.Thread(target=port.write, args=(burst,), daemon=True)
    try:
        port.reset_input_buffer()
        sender.start()
        got, end = b"", time.monotonic() + 240
        while b'"ev":"pong"' not in got and time.monotonic() < end:
            got += port.read(65536)
        sender.join(10)
    finally:
        port.close()
    lines = [json.loads(x) for x in got.decode().splitlines() if x.startswith("{")]
    kinds = [e["ev"] for e in lines]
    assert kinds.count("settings") == BURST and "pong" in kinds
    assert "error" not in kinds and "hello" not in kinds     # no fault, no restart


def test_taps_of_one_button_do_not_hold_the_commands_behind_them(vpico):
    """2,000 ``sim 1 THROW tap`` lines once held the virtual Pico's line reader 80 ms each
    (``ping`` behind them waited 161 s); a tap's release now waits apart, and a button
    tapped again before its release is released then, as a fast finger would."""
    import serial
    from courtside_host.link import deploy as dep
    dep.deploy(vpico.port)
    port = serial.Serial(vpico.port, timeout=0.2)
    try:
        port.write(b"join 1\njoin 2\nstart\n")
        port.write(b"sim 1 THROW tap\n" * 2000 + b"ping\n")
        got, end = b"", time.monotonic() + 60        # 160 s of held lines before
        while b'"ev":"pong"' not in got and time.monotonic() < end:
            got += port.read(65536)
        got += port.read(65536)
    finally:
        port.close()
    lines = [json.loads(x) for x in got.decode().splitlines() if x.startswith("{")]
    kinds = [e["ev"] for e in lines]
    assert "pong" in kinds and "press" in kinds
    assert "error" not in kinds and "hello" not in kinds


class _Board(Quiet):
    """The hardware interface with a queue of lines waiting to be read."""

    def __init__(self, lines):
        from courtside.ring import Ring
        self.ring = Ring(256)
        self.waiting = list(lines)
        self.written = []
        self.unsent = 0
        self.t = 0

    def read_line(self):
        return self.waiting.pop(0) if self.waiting else None

    def ticks_us(self):
        return self.t

    def write_line(self, text):
        self.written.append(text)



def test_one_pass_takes_a_bounded_number_of_lines_and_asks_for_the_next_at_once():
    pins = _pins()
    board = _Board(["get"] * 50)
    core = Core(pins, None, Fair(seeded(1)), now=0)
    lines = []
    waits = []
    while board.waiting or not waits:
        waits.append(driver.one_pass(core, board, lines))
        board.t += 1000
    answers = [json.loads(x)["ev"] for x in board.written]
    assert answers.count("settings") == 50
    assert len(waits) >= 50 // LINES_PER_PASS and all(w == 0 for w in waits[1:-1])


@pytest.mark.parametrize("per_pass", [1, 2])
def test_the_effects_of_a_pass_stay_bounded_however_long_the_flood(per_pass, monkeypatch):
    monkeypatch.setattr(core_module, "LINES_PER_PASS", per_pass)
    monkeypatch.setattr(driver, "LINES_PER_PASS", per_pass)
    pins = _pins()
    board = _Board(["get", "help", "ping", "set tie_us=500", "bogus"] * 40)
    core = Core(pins, None, Fair(seeded(1)), now=0)
    lines = []
    driver.one_pass(core, board, lines)      # hello, the mode, its lobby, then the flood
    largest = 0
    while board.waiting:
        before = len(board.written)
        driver.one_pass(core, board, lines)
        largest = max(largest, len(board.written) - before)
        board.t += 500
    # each line is answered by its cmd and one answer (ok, an error, settings, ...)
    assert largest <= 2 * per_pass + 1

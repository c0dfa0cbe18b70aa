"""Bring-up: the pure helpers, the whole program against a fake board and against the
simulator, on CPython and on the MicroPython unix port."""

import asyncio
import io
import json
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT
from courtside import pinmap, power, tones
from courtside.clock import wrap
from courtside.ring import Ring
from courtside.run import bringup
from courtside_sim.board import SimBoard
from courtside_sim.script import Script

PINS = pinmap.load(str(ROOT / "hardware" / "pinmap.json"))
TWO = pinmap.load(str(ROOT / "hardware" / "variants" / "two_boxes.json"))
FAST = {"pixel_ms": 1, "fill_ms": 5, "led_ms": 5, "buttons_s": 3}


class FakeBoard:
    """Just enough of the hardware layer: a settable clock, scripted button edges that land
    in the ring as an interrupt would put them, and a record of what was shown and played."""

    def __init__(self, pins, edges=(), stop_at=None, t0=0):
        self.pins = pins
        self.ring = Ring(64)
        self.now = t0
        self.level = pins.button_mask
        self.edges = sorted(edges)          # (us, button id, pressed)
        self.stop_at = stop_at
        self.shown, self.leds, self.tones, self.lines = [], [], [], []
        self.serviced = 0

    def ticks_us(self):
        return wrap(self.now)

    def levels(self):
        return self.level

    async def wait(self, ms):
        self.now += ms * 1000
        while self.edges and self.edges[0][0] <= self.now:
            t, bid, down = self.edges.pop(0)
            bit = 1 << self.pins.button_gpio[bid]
            self.level = self.level & ~bit if down else self.level | bit
            self.ring.put(wrap(t), self.level)
        return self.stop_at is None or self.now < self.stop_at

    def show(self, frame):
        self.shown.append(bytes(frame))

    def led(self, box, on):
        self.leds.append((box, on))

    def tone(self, freq, ms):
        self.tones.append((freq, ms))

    def service(self, now):
        self.serviced += 1

    def write_line(self, text):
        self.lines.append(text)


def _run(board, **kw):
    return asyncio.run(bringup.run(board, **dict(FAST, **kw)))


# ---------------------------------------------------------------- pure helpers

def test_pixel_frame_lights_one_pixel():
    frame = bringup.pixel_frame(9, (1, 2, 3))
    assert frame[27:30] == bytes((1, 2, 3)) and sum(frame) == 6
    again = bringup.pixel_frame(63, (0, 0, 5), frame)
    assert again is frame and frame[189:192] == bytes((0, 0, 5)) and sum(frame) == 5
    assert sum(bringup.pixel_frame(None, None, frame)) == 0


def test_fill_frames_stay_inside_the_power_budget():
    for colour in [c for _, c in bringup.COLOURS] + [(255, 255, 255)]:
        frame, scale = bringup.fill_frame(colour)
        assert power.frame_ua(frame) <= power.MATRIX_BUDGET_MA * 1000
    assert scale < 256  # white is capped


def test_describe_names_box_button_arrow_and_pin():
    assert bringup.describe(PINS, 0) == "box 1 THROW / UP (GP0)"
    assert bringup.describe(PINS, 6) == "box 2 CATCH / LEFT (GP6)"
    assert bringup.describe(PINS, 16) == "main button (GP16)"
    assert bringup.describe(TWO, 8) == "main button (GP8)"


def test_changes_and_pressed_ids_read_active_low_levels():
    idle = PINS.button_mask | 1 << 25  # a pin outside the map changing is not a button
    pressed = idle & ~(1 << 5) & ~(1 << 16)
    assert bringup.pressed_ids(idle, PINS) == []
    assert bringup.pressed_ids(pressed, PINS) == [5, 16]
    assert bringup.changes(idle, pressed, PINS) == [(5, True), (16, True)]
    assert bringup.changes(pressed, idle ^ 1 << 25, PINS) == [(5, False), (16, False)]


def test_tunes_are_the_firmwares():
    assert [n for n, _ in bringup.tunes()] == sorted(tones.TUNES)
    assert bringup.tune_line("tie", tones.TUNES["tie"]) == "tone tie: 1319 Hz"


def test_checklist():
    check = bringup.Checklist(TWO)
    assert len(check.left()) == 9
    assert check.press(3) and not check.press(3)
    assert 3 not in check.left() and len(check.left()) == 8


# ---------------------------------------------------------------- the whole program

def _all_buttons(pins, start_us, gap_us=50000):
    edges = []
    for bid in range(pins.main_id + 1):
        t = start_us + bid * gap_us
        edges += [(t, bid, True), (t + gap_us // 2, bid, False)]
    return edges


def test_every_part_is_exercised_in_turn():
    board = FakeBoard(PINS, _all_buttons(PINS, 2_000_000))
    result = _run(board)
    assert result == {"missing": [], "stuck": [], "done": True}
    # the walk: each pixel alone, in each colour, in order
    walk = board.shown[:192]
    for n, frame in enumerate(walk):
        colour = bringup.COLOURS[n // 64][1]
        assert frame == bytes(bringup.pixel_frame(n % 64, colour))
    fills = board.shown[192:196]
    assert fills[:3] == [bytes(bringup.fill_frame(c)[0]) for _, c in bringup.COLOURS]
    assert [f.index(max(f)) for f in fills[:3]] == [0, 1, 2]  # red, green, blue in that order
    assert all(power.frame_ua(f) <= power.MATRIX_BUDGET_MA * 1000 for f in fills)
    assert board.shown[-1] == bytes(192)  # dark at the end of the matrix step
    assert board.leds == [(b, on) for b in range(4) for on in (True, False)]
    played = [t for t in board.tones if t != (0, 0)]
    assert played == [note for name in sorted(tones.TUNES) for note in tones.TUNES[name]]
    lines = "\n".join(board.lines)
    for bid in range(17):
        assert "%s pressed" % bringup.describe(PINS, bid) in lines
        assert "%s released" % bringup.describe(PINS, bid) in lines
    assert board.lines[-1] == "bring-up done: all 17 buttons work"
    assert board.serviced > 100  # the watchdog is fed throughout


def test_presses_during_the_light_show_are_reported_with_their_time():
    board = FakeBoard(TWO, [(300_000, 4, True), (400_000, 4, False)] + _all_buttons(TWO, 5_000_000))
    _run(board)
    first = [line for line in board.lines if "pressed" in line][0]
    assert first.split() == ["300", "ms", "box", "2", "THROW", "/", "UP", "(GP4)", "pressed", "(8", "to",
                             "go)"]
    assert board.lines.index(first) < board.lines.index("LED: box 1 on (GP17)")


def test_a_dead_button_is_named_when_time_runs_out():
    edges = [e for e in _all_buttons(PINS, 2_000_000) if e[1] not in (6, 16)]
    board = FakeBoard(PINS, edges)
    result = _run(board)
    assert result["missing"] == [6, 16] and result["done"]
    assert board.lines[-1] == ("bring-up done: never pressed: box 2 CATCH / LEFT (GP6), "
                               "main button (GP16)")


def test_a_button_shorted_to_ground_is_a_fault():
    board = FakeBoard(TWO, _all_buttons(TWO, 2_000_000))
    board.level &= ~(1 << TWO.button_gpio[2])
    result = _run(board)
    assert result["stuck"] == [2]
    assert board.lines[1].startswith("FAULT  box 1 CATCH / LEFT (GP2) reads pressed")


def test_the_board_saying_stop_ends_the_run_dark_and_silent():
    board = FakeBoard(PINS, stop_at=50_000)
    result = _run(board, pixel_ms=10)
    assert not result["done"] and len(result["missing"]) == 17
    assert board.lines[-1] == "bring-up stopped"
    assert board.shown[-1] == bytes(192) and board.tones[-1] == (0, 0)


def test_runs_across_the_tick_wrap():
    """Start 3 s before the 2**30 tick wrap; the buttons come after it."""
    board = FakeBoard(TWO, _all_buttons(TWO, (1 << 30) + 1_000_000), t0=(1 << 30) - 3_000_000)
    result = _run(board)
    assert result["done"] and result["missing"] == []


def script_of(lines, pins):
    data = "\n".join(lines).encode()
    return Script(lambda: io.BytesIO(data), pins)


def _sim_script(pins, start_s):
    names = {0: "THROW", 1: "DODGE", 2: "CATCH", 3: "PASS"}
    lines = []
    for bid in range(pins.main_id + 1):
        t = (start_s * 1000 + bid * 300) * 1000
        if bid == pins.main_id:
            lines.append(json.dumps({"t": t, "p": 0, "b": "MAIN", "e": "tap"}))
        else:
            lines.append(json.dumps({"t": t, "p": bid // 4 + 1, "b": names[bid % 4], "e": "tap"}))
    return lines


def test_runs_on_the_simulated_hardware_layer():
    out = []
    sim = SimBoard(PINS, script=script_of(_sim_script(PINS, 3), PINS), out=out.append)
    result = asyncio.run(bringup.run(sim, **FAST))
    assert result == {"missing": [], "stuck": [], "done": True}
    assert out[-1] == "bring-up done: all 17 buttons work"
    assert sim.leds == [False] * 4 and sim.frame == bytearray(192)


MP_SCRIPT = """
import json, sys
import asyncio
from courtside import pinmap
from courtside.run import bringup
from courtside_sim.board import SimBoard
import io
from courtside_sim.script import Script
pins = pinmap.load(sys.argv[1])
data = sys.stdin.read().encode()
out = []
sim = SimBoard(pins, script=Script(lambda: io.BytesIO(data), pins), out=out.append)
result = asyncio.run(bringup.run(sim, pixel_ms=1, fill_ms=5, led_ms=5, buttons_s=3))
print(json.dumps({"result": result, "lines": out}))
"""


def test_runs_on_micropython(micropython, firmware_env, tmp_path):
    script = tmp_path / "bringup_sim.py"
    script.write_text(MP_SCRIPT)
    path = str(ROOT / "hardware" / "variants" / "two_boxes.json")
    proc = subprocess.run([micropython, str(script), path], input="\n".join(_sim_script(TWO, 3)),
                          capture_output=True, text=True, env=firmware_env, timeout=60,
                          cwd=str(Path(ROOT)), check=False)
    assert proc.returncode == 0, proc.stderr + proc.stdout
    got = json.loads(proc.stdout)
    assert got["result"] == {"missing": [], "stuck": [], "done": True}
    assert got["lines"][-1] == "bring-up done: all 9 buttons work"
    assert sum(" pressed" in line for line in got["lines"]) == 9


@pytest.mark.vpico
def test_laptop_command_runs_it_on_a_virtual_board(tmp_path):
    """`courtside bringup` end to end: mpremote's transport, opened as every command opens
    a board (``link.port.connect``), runs the board's bring-up on the virtual Pico (the unix
    port on a pseudo-terminal) and its report comes back line by line."""
    import shutil
    import sys

    sys.path.insert(0, str(ROOT / "host"))
    from courtside_host.commands import bringup as cmd_bringup
    from courtside_host.vpico.runner import VirtualPico

    flash = tmp_path / "flash"
    shutil.copytree(ROOT / "firmware" / "courtside", flash / "courtside",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "hardware" / "variants" / "two_boxes.json", flash / "pinmap.json")
    code = cmd_bringup.board_code(True, 0)
    assert "from courtside.run.bringup import main\n" in code and "main(quick=True, buttons_s=0)" in code
    assert "from courtside_sim.start import bringup as main\n" in code     # the virtual Pico's board
    with VirtualPico(flash, run_main=False) as board:
        proc = subprocess.run([sys.executable, "-m", "courtside_host.cli", "bringup", "--port", board.port,
                               "--quick", "--buttons-seconds", "0"],
                              capture_output=True, text=True, timeout=120, check=False,
                              env=dict(__import__("os").environ, PYTHONPATH="%s:%s" % (
                                  ROOT / "host", ROOT / "firmware")))
    assert proc.returncode == 1, proc.stderr           # no button was pressed: a failed check
    assert proc.stderr.startswith("courtside bringup: never pressed: box 1 THROW / UP (GP0),")
    lines = proc.stdout.splitlines()[1:]                  # after the line naming the port
    assert lines[0] == "bring-up: Courtside for two players on a pico, 2 boxes, 9 buttons"
    assert "LED: box 2 on (GP18)" in lines and "LED: box 3 on (GP19)" not in lines
    assert sum(line.startswith("tone ") for line in lines) == len(tones.TUNES)
    assert lines[-1].startswith("bring-up done: never pressed: box 1 THROW / UP (GP0),")


def test_laptop_command_without_a_board(capsys):
    import argparse
    import sys

    sys.path.insert(0, str(ROOT / "host"))
    from courtside_host.commands import bringup as cmd_bringup

    parser = argparse.ArgumentParser()
    cmd_bringup.add_arguments(parser)
    args = parser.parse_args(["--port", "/dev/no-such-board", "--quick"])
    assert args.buttons_seconds == bringup.BUTTONS_S
    assert cmd_bringup.run(args) == 1
    assert "no serial port /dev/no-such-board" in capsys.readouterr().err


@pytest.mark.vpico
def test_the_laptop_command_fails_when_a_check_fails(tmp_path, capsys):
    """Buttons never pressed are a failed check: `courtside bringup` exits 1 and says which."""
    import argparse
    import shutil
    import sys

    sys.path.insert(0, str(ROOT / "host"))
    from courtside_host.commands import bringup as cmd_bringup
    from courtside_host.vpico.runner import VirtualPico

    assert cmd_bringup.outcome(["bring-up: x", "bring-up done: all 9 buttons work"]) is None
    assert "FAULT  box 1" in cmd_bringup.outcome(["FAULT  box 1 THROW reads pressed",
                                                  "bring-up done: all 9 buttons work"])
    assert "did not finish" in cmd_bringup.outcome(["bring-up stopped"])
    flash = tmp_path / "flash"
    shutil.copytree(ROOT / "firmware" / "courtside", flash / "courtside",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "hardware" / "variants" / "two_boxes.json", flash / "pinmap.json")
    with VirtualPico(flash, run_main=False) as board:
        args = argparse.Namespace(port=board.port, quick=True, buttons_seconds=0)
        assert cmd_bringup.run(args) == 1
    err = capsys.readouterr().err
    assert err.startswith("courtside bringup: never pressed: box 1 THROW / UP (GP0),")

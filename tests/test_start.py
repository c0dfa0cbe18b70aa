"""Start-up on a board: safe mode, a bad pin map, bad settings, a broken Pico layer.

``courtside.run`` starts the Pico hardware layer and nothing else; a stand-in for
``courtside.hw.pico`` (this machine has no Pico) records what start-up asks of it. The
virtual Pico's start-up (``courtside_sim.start``) passes the simulated board to the same
start, which then restarts after a fault in the same process instead of a reset."""

import json
import sys
import types

import pytest
from conftest import ROOT
from courtside import run as start
from quietboard import Quiet

PINMAP = str(ROOT / "hardware" / "pinmap.json")


@pytest.fixture
def board(monkeypatch):
    fake = types.ModuleType("courtside.hw.pico")
    fake.calls = []
    fake.held = True
    fake.main_held = lambda pins: fake.calls.append(("main_held", pins.main_id)) or fake.held
    fake.watchdog_off = lambda: fake.calls.append(("watchdog_off",))

    class Pico:  # must not be built in safe mode
        def __init__(self, pins, settings):
            fake.calls.append(("Pico", settings["tie_us"]))
            raise RuntimeError("stop here: the game would start")

    fake.Pico = Pico
    monkeypatch.setitem(sys.modules, "courtside.hw.pico", fake)
    import courtside.hw
    monkeypatch.setattr(courtside.hw, "pico", fake, raising=False)
    return fake


def test_holding_the_main_button_at_power_up_is_safe_mode(board, tmp_path, capsys):
    assert start.main(PINMAP, str(tmp_path / "settings.json")) is None
    assert board.calls == [("main_held", 16), ("watchdog_off",)]
    assert "safe mode" in capsys.readouterr().out


def test_without_the_button_the_game_starts_with_saved_settings(board, tmp_path):
    board.held = False
    saved = tmp_path / "settings.json"
    saved.write_text(json.dumps({"tie_us": 700}))
    with pytest.raises(RuntimeError, match="the game would start"):
        start.main(PINMAP, str(saved))
    assert board.calls[-1] == ("Pico", 700)


def test_a_bad_pin_map_starts_nothing_and_says_why(board, tmp_path, capsys):
    bad = tmp_path / "pinmap.json"
    data = json.loads(open(PINMAP).read())
    data["buzzer"] = 25
    bad.write_text(json.dumps(data))
    assert start.main(str(bad), str(tmp_path / "settings.json")) is None
    line = json.loads(capsys.readouterr().out.strip())
    assert line["ev"] == "error" and "GP25" in line["msg"] and "courtside deploy" in line["msg"]
    assert board.calls == []


def test_bad_settings_are_reported_and_the_defaults_used(board, tmp_path, capsys):
    board.held = False
    saved = tmp_path / "settings.json"
    saved.write_text(json.dumps({"tie_us": -5}))
    with pytest.raises(RuntimeError):
        start.main(PINMAP, str(saved))
    assert "settings ignored" in capsys.readouterr().out
    assert board.calls[-1] == ("Pico", 1000)


def test_on_a_board_a_broken_pico_layer_is_an_error_not_a_simulator(board, monkeypatch, tmp_path,
                                                                   capsys):
    """A half-deployed or incompatible board says why and leaves the REPL free; it never
    falls back to the simulated board, which would wait for commands on the USB port (the
    board's start cannot reach it: tests/test_layers.py)."""
    monkeypatch.setitem(sys.modules, "courtside.hw.pico", None)   # the import fails
    monkeypatch.delattr("courtside.hw.pico", raising=False)
    assert start.main(PINMAP, str(tmp_path / "settings.json")) is None
    line = json.loads(capsys.readouterr().out.strip())
    assert line["ev"] == "error" and "Pico layer" in line["msg"] and "courtside deploy" in line["msg"]
    assert board.calls == []


class _Reset(Exception):
    """What the stand-in's ``machine.reset`` raises: a real one never returns."""


def _failing_board(board, fail):
    """A Pico layer whose loop fails as ``fail`` says on its third pass."""
    from courtside.ring import Ring

    class Pico(Quiet):
        def __init__(self, pins, settings):
            self.pins = pins
            self.ring = Ring(16)
            self.capture = types.SimpleNamespace(name="irq")
            self.unsent = 0
            self.passes = 0
            board.calls.append(("Pico",))

        def ticks_us(self):
            return 1000 * self.passes

        def levels(self):
            return self.pins.button_mask

        def advance(self, ms):        # the board's loop waits here (driver.run_until)
            self.passes += 1
            if self.passes == 3:
                fail()
            return True

        def read_line(self):
            return None

        def write_line(self, text):
            board.calls.append(("line", json.loads(text)["ev"]))


        def random_bytes(self, n):
            return bytes(n)

        def release(self):
            board.calls.append(("release",))

    board.held = False
    board.Pico = Pico

    def reset():
        board.calls.append(("reset",))
        raise _Reset
    board.reset = reset


def test_a_fault_in_the_loop_restarts_the_board(board, tmp_path, capsys):
    """An exception nobody expected (here a MemoryError on the third pass) is reported,
    the hardware released, and the board reset: it comes back, never sits at the REPL."""
    def fail():
        raise MemoryError("memory allocation failed")
    _failing_board(board, fail)
    with pytest.raises(_Reset):
        start.main(PINMAP, str(tmp_path / "settings.json"))
    assert board.calls[-2:] == [("release",), ("reset",)]
    assert ("line", "hello") in board.calls
    (line,) = [json.loads(x) for x in capsys.readouterr().out.splitlines() if x.startswith("{")]
    assert line["ev"] == "error" and "MemoryError" in line["msg"] and "starting again" in line["msg"]


def test_ctrl_c_in_the_loop_stops_it_and_leaves_the_repl(board, tmp_path, capsys):
    def interrupt():
        raise KeyboardInterrupt
    _failing_board(board, interrupt)
    core = start.main(PINMAP, str(tmp_path / "settings.json"))
    assert core is not None and board.calls[-1] == ("release",)
    assert ("reset",) not in board.calls and "the REPL is free" in capsys.readouterr().out


def test_the_core_finishes_frames_with_the_boards_finisher(board, tmp_path):
    """A Pico layer's ``finish`` (``courtside.hw.native.finish`` where machine code loads)
    is what the core finishes every frame with: the lobby's first frame went through it."""
    from courtside import power
    finished = []

    def finish(frame, brightness):
        finished.append(brightness)
        return power.finish(frame, brightness)

    def interrupt():
        raise KeyboardInterrupt
    _failing_board(board, interrupt)
    board.Pico.finish = staticmethod(finish)
    core = start.main(PINMAP, str(tmp_path / "settings.json"))
    assert core._finish is finish and finished[:1] == [96]


def test_the_virtual_picos_start_is_the_same_start_with_its_own_board(tmp_path, monkeypatch):
    """``courtside_sim.start`` builds the simulated board and hands it to the board's own
    start-up: the same pin map and settings read, and after a fault a fresh start in the
    same process, never a reset of the machine."""
    import os

    from courtside_sim import start as sim_start
    from courtside_sim.live import LiveBoard
    saved = tmp_path / "settings.json"
    saved.write_text(json.dumps({"tie_us": 700}))
    hw, rng_source, loop, reset = sim_start.live_board(start.load_pins(PINMAP), {}, str(saved))
    assert isinstance(hw, LiveBoard) and rng_source is os.urandom and reset is None
    assert loop is sim_start._live
    made, runs, build = [], [], sim_start.live_board

    def live_board(pins, settings, settings_path):
        made.append((settings["tie_us"], settings_path))
        built = build(pins, settings, settings_path)

        def loop(core, hw):
            runs.append(core.settings["tie_us"])
            if len(runs) == 1:
                raise MemoryError("a fault")     # the first start fails, the second is stopped
            raise KeyboardInterrupt
        return built[0], built[1], loop, built[3]
    monkeypatch.setattr(sim_start, "live_board", live_board)
    core = sim_start.main(PINMAP, str(saved))
    assert core is not None and runs == [700, 700] and made == [(700, str(saved))] * 2
    from courtside import power
    assert core._finish is power.finish           # the simulated board has no finisher of its own

"""Ctrl-C always stops the firmware, with PIO capture too, and a fault restarts it.

The PIO backend runs no timer and no scheduled callback: the loop drains the DMA buffer
itself, a millisecond at a time while it waits (``Pico.advance``). So a Ctrl-C, whose
KeyboardInterrupt MicroPython raises in whatever bytecode runs, always lands in the loop,
and nothing runs on top of the loop's deepest call to eat into the 8 KB C stack. These
tests raise in the drain, inside the loop's wait, on CPython with the board stand-ins and
on the MicroPython unix port.
"""

import json
import subprocess
import sys

import pytest
from conftest import ROOT
from courtside import run
from courtside.pins import Pins
from courtside.settings import DEFAULTS

PINMAP = json.loads((ROOT / "hardware" / "pinmap.json").read_text())
GIVE_UP_US = 2_000_000          # a loop still running 2 s (virtual) after the exception did not stop


@pytest.fixture
def pio_pico(pico_layer, monkeypatch):
    """The Pico layer with PIO capture on the stand-ins and ``raise_at(exc, at_us)``: the
    loop's drain raises ``exc`` once the clock reaches ``at_us``. Returns (rig, hw,
    settings, raise_at, record)."""
    module, rig = pico_layer
    monkeypatch.setitem(sys.modules, "uctypes", rig.uctypes())
    sys.modules.pop("courtside.hw.pio_capture", None)      # imported afresh on these stand-ins
    module.mem32[0xD0000004] = 0x1FFFF                 # GPIO_IN: no button pressed
    record = {"drains_after": 0, "raised_at": None, "released": 0}
    def watchdog_off():                                 # the first thing release() does
        record["released"] += 1

    monkeypatch.setattr(module, "watchdog_off", watchdog_off)
    settings = dict(DEFAULTS)
    hw = module.Pico(Pins(json.loads(json.dumps(PINMAP))), settings)
    assert hw.capture.name == "pio"

    def raise_at(exc, at_us):
        drain = hw._drain

        def failing():
            if record["raised_at"] is not None:
                record["drains_after"] += 1
            elif rig.now >= at_us:
                record["raised_at"] = rig.now
                raise exc
            if rig.now > GIVE_UP_US:
                raise RuntimeError("the loop ran on after the exception")
            return drain()
        hw._drain = failing

    yield rig, hw, settings, raise_at, record
    sys.modules.pop("courtside.hw.pio_capture", None)      # built on this test's stand-ins


def run_firmware(hw, settings, monkeypatch):
    """The board's start-up path from the core on: ``courtside.run.play`` as on a Pico."""
    return run.play(hw, hw.pins, settings, None, hw.random_bytes)


def test_pio_capture_runs_no_timer(pio_pico):
    rig, hw, settings, raise_at, record = pio_pico
    assert rig.timers == []              # nothing scheduled on top of the loop


def test_ctrl_c_in_the_loops_wait_stops_the_firmware(pio_pico, monkeypatch, capsys):
    rig, hw, settings, raise_at, record = pio_pico
    raise_at(KeyboardInterrupt(), at_us=50_000)
    core = run_firmware(hw, settings, monkeypatch)
    out = capsys.readouterr().out
    assert record["raised_at"] is not None and core is not None
    assert "courtside: stopped, the REPL is free" in out and "Traceback" not in out
    assert record["drains_after"] == 0                  # stopped at once
    assert record["released"] == 1 and hw.capture._dma is None          # released: capture off
    assert rig.removed and rig.removed[-1][1] is hw.capture.program


def test_any_other_exception_restarts_the_board(pio_pico, monkeypatch, capsys):
    rig, hw, settings, raise_at, record = pio_pico
    raise_at(MemoryError("drain"), at_us=30_000)
    # anything but Ctrl-C is a fault: said, the board released, then reset to start again
    assert run_firmware(hw, settings, monkeypatch) == run.RESTART
    assert record["released"] == 1 and hw.capture._dma is None     # the board was still released
    out = capsys.readouterr().out
    assert "Traceback" not in out and "MemoryError('drain')" in out and "starting again" in out


@pytest.mark.parametrize("exc", ["KeyboardInterrupt", "MemoryError"])
def test_on_micropython_too(micropython, exc):
    run = subprocess.run([micropython, str(ROOT / "tests" / "pio_ctrl_c_mp.py"), str(ROOT / "firmware"),
                          str(ROOT / "tests" / "mp"), str(ROOT / "hardware" / "pinmap.json"), exc],
                         stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60, check=False)
    out = run.stdout
    assert run.returncode == 0, out + run.stderr
    figures = json.loads(out.strip().splitlines()[-1])
    assert figures == {"capture": "pio", "raised": True, "released": True}
    if exc == "KeyboardInterrupt":
        assert "courtside: stopped, the REPL is free" in out and "returned" in out
    else:   # a fault, not a stop: said, then the board reset to start again
        assert "MemoryError('drain',); starting again" in out and "reset\nrestart" in out
    assert "Traceback" not in out + run.stderr and "still running" not in out

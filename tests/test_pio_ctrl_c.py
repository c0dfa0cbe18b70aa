"""Ctrl-C always stops the firmware, with PIO capture too.

The PIO backend drains its DMA buffer from a 2 ms soft timer. On MicroPython a soft
timer's callback runs between two bytecodes of whatever is running, and an exception
raised inside it (a Ctrl-C whose KeyboardInterrupt lands there) is printed and dropped by
the scheduler; the stand-in timers (tests/pico_standins.py) do the same. The backend keeps
such an exception, stops its timer, and the loop's wait raises it at its next step.
"""

import asyncio
import json
import sys

import pytest
from conftest import ROOT
from courtside import start
from courtside.pins import Pins
from courtside.settings import DEFAULTS

PINMAP = json.loads((ROOT / "hardware" / "pinmap.json").read_text())
GIVE_UP_US = 2_000_000          # a loop still running 2 s (virtual) after the Ctrl-C did not stop


@pytest.fixture
def pio_pico(pico_layer, monkeypatch):
    """The Pico layer with PIO capture running on the stand-ins, a main loop that can run
    on CPython (asyncio.sleep_ms moves the stand-in clock and fires due soft timers), and
    ``raise_in_callback(exc, at_us)``: the drain raises ``exc`` once, inside the timer's
    callback, once the clock reaches ``at_us``. Returns (module, rig, hw, record)."""
    module, rig = pico_layer
    monkeypatch.setitem(sys.modules, "uctypes", rig.uctypes())
    sys.modules.pop("courtside.hw.pio_capture", None)      # imported afresh on these stand-ins
    module.mem32[0xD0000004] = 0x1FFFF                 # GPIO_IN: no button pressed
    record = {"sleeps_after": 0, "raised_at": None, "released": 0}

    def watchdog_off():                                 # the first thing release() does
        record["released"] += 1

    monkeypatch.setattr(module, "watchdog_off", watchdog_off)

    def sleep_ms(ms):
        rig.now += 1000 * max(ms, 0)
        rig.fire_timers()
        if record["raised_at"] is not None:
            record["sleeps_after"] += 1
        if rig.now > GIVE_UP_US:
            raise RuntimeError("the loop ran on after the exception in the timer's callback")
        yield

    monkeypatch.setattr(asyncio, "sleep_ms", sleep_ms, raising=False)
    import time
    monkeypatch.setattr(time, "ticks_add", lambda a, b: a + b, raising=False)
    settings = dict(DEFAULTS)
    hw = module.Pico(Pins(json.loads(json.dumps(PINMAP))), settings)
    assert hw.capture.name == "pio"
    (timer,) = rig.timers
    assert timer.period == 2 and timer.running

    def raise_in_callback(exc, at_us):
        inside = []
        poll = timer.callback
        take = hw.capture.drainer.take

        def callback(t):
            inside.append(t)
            try:
                poll(t)
            finally:
                inside.pop()

        def failing_take(written, now):
            if inside and rig.now >= at_us and record["raised_at"] is None:
                record["raised_at"] = rig.now
                raise exc
            return take(written, now)

        timer.callback = callback
        hw.capture.drainer.take = failing_take

    yield module, rig, hw, settings, raise_in_callback, record
    sys.modules.pop("courtside.hw.pio_capture", None)      # built on this test's stand-ins


def run_firmware(hw, settings, monkeypatch):
    """The board's start-up path from the core on: ``courtside.start._run`` as on a Pico."""
    monkeypatch.setattr(start, "ON_BOARD", True)
    return start._run(hw, hw.pins, settings, None, hw.random_bytes)


def test_ctrl_c_inside_the_drain_timers_callback_stops_the_firmware(pio_pico, monkeypatch, capsys):
    module, rig, hw, settings, raise_in_callback, record = pio_pico
    (timer,) = rig.timers
    raise_in_callback(KeyboardInterrupt(), at_us=50_000)
    core = run_firmware(hw, settings, monkeypatch)
    out = capsys.readouterr().out
    assert record["raised_at"] is not None and core is not None
    assert "courtside: stopped, the REPL is free" in out
    assert "Traceback" not in out                       # not printed and dropped
    assert record["sleeps_after"] <= 1                  # stopped at the wait's next step
    assert not timer.running                            # the timer stopped with it
    assert record["released"] == 1 and hw.capture._dma is None          # released: capture off
    assert rig.removed and rig.removed[-1][1] is hw.capture.program


def test_any_exception_inside_the_callback_reaches_the_loop(pio_pico, monkeypatch, capsys):
    module, rig, hw, settings, raise_in_callback, record = pio_pico
    raise_in_callback(MemoryError("drain"), at_us=30_000)
    # anything but Ctrl-C is a fault: said, the board released, then reset to start again
    assert run_firmware(hw, settings, monkeypatch) == start.RESTART
    assert record["sleeps_after"] <= 1
    assert record["released"] == 1 and hw.capture._dma is None     # the board was still released
    out = capsys.readouterr().out
    assert "Traceback" not in out and "MemoryError('drain')" in out and "starting again" in out


def test_without_an_exception_the_loop_runs_on_and_the_timer_drains(pio_pico, monkeypatch):
    # The stand-in itself: with nothing raised, the loop is still running when the test
    # gives up, and the timer's callback drained all along.
    module, rig, hw, settings, raise_in_callback, record = pio_pico
    (timer,) = rig.timers
    calls = []
    take = hw.capture.drainer.take
    hw.capture.drainer.take = lambda written, now: calls.append(now) or take(written, now)
    assert run_firmware(hw, settings, monkeypatch) == start.RESTART    # the stand-in's stop
    assert len(calls) > GIVE_UP_US // 2000               # the timer's passes and the wait's


@pytest.mark.parametrize("exc", ["KeyboardInterrupt", "MemoryError"])
def test_on_micropython_the_real_scheduler_hands_it_over_too(micropython, exc):
    # The unix port's own scheduler runs the soft callback (micropython.schedule from a
    # thread every 2 ms) and prints and drops what it raises; the loop still stops. A loop
    # that ran on would be ended by the time limit, and fail.
    import subprocess
    run = subprocess.run([micropython, str(ROOT / "tests" / "pio_ctrl_c_mp.py"), str(ROOT / "firmware"),
                          str(ROOT / "tests" / "mp"), str(ROOT / "hardware" / "pinmap.json"), exc],
                         stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30, check=False)
    out = run.stdout
    assert run.returncode == 0, out + run.stderr
    figures = json.loads(out.strip().splitlines()[-1])
    assert figures == {"capture": "pio", "raised": True, "timer running": False, "released": True}
    if exc == "KeyboardInterrupt":
        assert "courtside: stopped, the REPL is free" in out and "returned" in out
    else:   # a fault, not a stop: said, then the board reset to start again
        assert "MemoryError('drain',); starting again" in out and "reset\nrestart" in out
    assert "Traceback" not in out + run.stderr and "still running" not in out


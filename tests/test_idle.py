"""A pass of the main loop with nothing to do costs nothing: no heap on the MicroPython
unix port, and no int of 2**30 or more (a heap object on a Pico) however long the game
has run.

The core is stepped as the board's loop steps it, with the real capture ring and no
lines, in the lobby, in a Dodge Ball game between contests and in the die mode between
rolls; the clock starts just before the tick counter wraps and runs past the point where
the microseconds since start no longer fit a small int.
"""

import subprocess
import sys

import smallints
from conftest import FIRMWARE, ROOT

IDLE = """
import gc, sys
sys.path.insert(0, %(firmware)r)
from courtside.run import load_pins
from courtside.clock import add
from courtside.core import Core
from courtside.fair import Fair, seeded
from courtside.ring import Ring
pins = load_pins(%(pins)r)
ring = Ring(256)
lines = []
out = []
for mode, commands in (("dodgeball", []), ("dodgeball", ["join 1", "join 2", "start"]), ("die", [])):
    now = 0x3FFFFFFF - 5000000
    core = Core(pins, None, Fair(seeded(1)), now=now, levels=pins.button_mask, mode=mode)
    core.step(now, ring, commands)
    del core.effects[:]
    for _ in range(50):                 # warm up: whatever is made once, is made now
        now = add(now, 100000)
        core.step(now, ring, lines)
    del core.effects[:]
    gc.collect()
    gc.disable()
    before = gc.mem_alloc()
    for _ in range(2000):               # 200 s of idle passes, across the tick wrap
        now = add(now, 100000)
        core.step(now, ring, lines)
    used = gc.mem_alloc() - before
    gc.enable()
    out.append("%%s/%%d:%%d:%%d" %% (mode, len(commands), used, len(core.effects)))
print(" ".join(out))
"""


def test_an_idle_pass_allocates_nothing_on_the_unix_port(micropython):
    code = IDLE % {"firmware": str(FIRMWARE), "pins": str(ROOT / "hardware" / "pinmap.json")}
    run = subprocess.run([micropython, "-c", code], capture_output=True, text=True, timeout=120,
                         check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    results = run.stdout.split()
    assert len(results) == 3
    for result in results:
        mode, used, effects = result.split(":")
        assert (used, effects) == ("0", "0"), result


def test_idle_passes_keep_every_int_small_after_eighteen_minutes(monkeypatch):
    """Stepped for 25 minutes of idle play, the core's pass computes nothing of 2**30 or
    more (the microseconds since start pass 2**30 after 17.9 minutes; the core builds that
    count only when it writes an event)."""
    clock = smallints.load("courtside.clock")
    debounce = smallints.load("courtside.debounce", {"diff": clock.diff})
    lights = smallints.load("courtside.lights", {"add": clock.add, "diff": clock.diff})
    tones = smallints.load("courtside.tones", {"add": clock.add, "diff": clock.diff})
    stage = smallints.load("courtside.stage", {"lights": lights, "tones": tones})
    arbiter = smallints.load("courtside.arbiter", {"diff": clock.diff})
    dodgeball = smallints.load("courtside.dodgeball", {"Arbiter": arbiter.Arbiter, "diff": clock.diff})
    monkeypatch.setitem(sys.modules, "courtside.dodgeball", dodgeball)    # the core loads it at the start
    core = smallints.load("courtside.core", {"Timeline": clock.Timeline, "add": clock.add,
                                             "Debouncer": debounce.Debouncer, "Context": stage.Context})
    from courtside.fair import Fair, seeded
    from courtside.ring import Ring
    from courtside.run import load_pins
    pins = load_pins(str(ROOT / "hardware" / "pinmap.json"))
    now = clock.MASK - 5_000_000
    unit = core.Core(pins, None, Fair(seeded(1)), now=now, levels=pins.button_mask)
    ring = Ring(256)
    unit.step(now, ring, ["join 1", "join 2", "start"])
    assert isinstance(unit.stage, dodgeball.DodgeBall)
    for _ in range(50):                           # the start tune and lights play out
        now = clock.add(now, 100_000)
        unit.step(now, ring, ())
    del unit.effects[:]
    with smallints.watch():
        for _ in range(15_000):                   # 25 minutes in 100 ms passes
            now = clock.add(now, 100_000)
            unit.step(now, ring, ())
            assert not unit.effects
    assert unit.timeline.elapsed() >= 1 << 30     # the count itself is past 2**30 by now

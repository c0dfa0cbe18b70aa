"""Start-up: load the pin map and settings, pick the hardware layer, run the core.

The board is chosen once, by ``sys.platform``: on an RP2040 or RP2350 (``rp2``) the Pico
layer, anywhere else (the virtual Pico on a laptop) the simulated board, reading commands
and ``sim`` presses from standard input. On a board, a Pico layer that cannot be loaded
(a deploy cut off half way, an older MicroPython) is reported as an ``error`` event and
leaves the REPL free: it never turns into a simulator. Holding the main-unit button at
power-up is safe mode: nothing starts and the REPL stays free.
"""

import sys

from courtside import events
from courtside import pins as pin_map
from courtside import settings as config

PINMAP = "pinmap.json"  # relative: the flash root is the working directory
SETTINGS = "settings.json"
ON_BOARD = sys.platform == "rp2"


def _error(msg):
    print(events.line("error", 0, {"msg": msg, "line": ""}))


def main(pins_path=PINMAP, settings_path=SETTINGS):
    """Start the game; returns its core when it stops (None if it never started). An
    unexpected exception in the loop is reported and starts the firmware again: on a
    board by a reset, elsewhere (the virtual Pico) by a fresh start in the same process,
    so a fault never leaves a board that no longer answers."""
    while True:
        core = _start(pins_path, settings_path)
        if core is not RESTART:
            return core


RESTART = "restart"


def _start(pins_path, settings_path):
    try:
        pins = pin_map.load(pins_path)
    except (OSError, ValueError) as e:
        return _error("cannot start: %s (%s); fix it with: courtside deploy" % (e, pins_path))
    try:
        settings = config.load(settings_path)
    except ValueError as e:
        _error("settings ignored: %s" % e)
        settings = dict(config.DEFAULTS)
    if ON_BOARD:
        try:
            from courtside.hw import pico
        except Exception as e:
            return _error("cannot load the Pico layer: %r; fix it with: courtside deploy" % e)
        if pico.main_held(pins):
            pico.watchdog_off()
            print("courtside: safe mode (main button held), game not started")
            return None
        hw = pico.Pico(pins, settings)
        rng_source = hw.random_bytes
    else:
        from courtside_sim.live import LiveBoard
        hw = LiveBoard(pins, settings_path=settings_path)
        import os
        rng_source = os.urandom
    return _run(hw, pins, settings, settings_path, rng_source)


# A collection after every GC_EVERY bytes allocated, not only when the heap is full. The
# loop's idle passes allocate nothing, so this costs collections only while something
# happens; in return what survives a collection (a game's state, made as the game goes)
# stays packed low in the heap instead of being strewn across all of it, and the largest
# free block stays whole: from .mpy on the unix port, after a refereed game, 245 KB where
# it was 137 KB with no threshold (bench/heap_start.py; not measured on a chip).
GC_EVERY = 16 * 1024


def pack_heap():
    """Collect now and from now on every ``GC_EVERY`` bytes (MicroPython's gc.threshold)."""
    import gc
    gc.collect()
    if hasattr(gc, "threshold"):        # MicroPython's; CPython has no such call
        gc.threshold(GC_EVERY)


def _run(hw, pins, settings, settings_path, rng_source):
    pack_heap()

    from courtside import driver
    from courtside.core import Core
    from courtside.fair import Fair
    core = Core(pins, settings, Fair(rng_source), now=hw.ticks_us(), levels=hw.levels(),
                capture=hw.capture.name, can_save=settings_path is not None,
                figures=getattr(hw, "figures", None))
    failed = None
    try:
        if ON_BOARD:
            driver.run_until(core, hw)
        else:
            _live(core, hw)
    except KeyboardInterrupt:
        pass
    except Exception as e:
        failed = e
        core = None
    # The lines still queued go out first, a part-sent one included, so what is said
    # below starts on a line of its own and the stream a monitor saves stays whole.
    hw.release()
    if failed is None:
        print("courtside: stopped, the REPL is free")
        return core
    _error("courtside stopped on %r; starting again" % failed)
    import gc
    gc.collect()
    if ON_BOARD:
        from courtside.hw import pico
        pico.reset()
    return RESTART


def _live(core, hw):
    """The virtual Pico: the loop in real time beside the task that reads its console."""
    import asyncio
    try:
        asyncio.run(_virtual(core, hw))
    finally:
        asyncio.new_event_loop()


async def _virtual(core, hw):
    import asyncio

    from courtside_sim.console import stdin_lines

    from courtside import driver
    asyncio.create_task(stdin_lines(hw, timeline=core.timeline))
    await driver.run(core, hw)

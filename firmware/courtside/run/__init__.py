"""The board's drivers, apart from the core: what starts the core on a Pico.

The package itself is the start-up (``main.py`` calls ``courtside.run.main()``, so a start
loads no module more for it); ``courtside.run.bringup`` checks a newly built unit's wiring.
The loop they drive the core with is ``courtside.driver``. Nothing here knows a simulated
board: off a board (the virtual Pico) ``main.py`` starts the simulated board's own start-up
instead (``courtside_sim.start``), which passes its board to ``main`` here.

Start-up: load the pin map and settings, build the Pico layer, run the core. A Pico layer
that cannot be loaded (a deploy cut off half way, an older MicroPython, a port that is not
a Pico) is reported as an ``error`` event and leaves the REPL free: it never turns into a
simulator. Holding the main-unit button at power-up is safe mode: nothing starts and the
REPL stays free.
"""

import sys

from courtside import events
from courtside import settings as config
from courtside.pins import Pins

PINMAP = "pinmap.json"  # relative: the flash root is the working directory
SETTINGS = "settings.json"
RESTART = "restart"


def _error(msg):
    print(events.line("error", 0, {"msg": msg, "line": ""}))


def main(pins_path=PINMAP, settings_path=SETTINGS, board=None):
    """Start the game; returns its core when it stops (None if it never started). An
    unexpected exception in the loop is reported and starts the firmware again: on a
    board by a reset, elsewhere (the virtual Pico) by a fresh start in the same process,
    so a fault never leaves a board that no longer answers.

    ``board(pins, settings, settings_path)`` builds the hardware layer: None when nothing
    is to start, else ``(hw, rng_source, loop, reset)``, ``loop(core, hw)`` running the
    core and ``reset()`` (or None) what follows a fault. The Pico's (``pico_board``) unless
    another driver passes its own."""
    while True:
        core = _start(pins_path, settings_path, board or pico_board)
        if core is not RESTART:
            return core


def _start(pins_path, settings_path, board):
    try:
        pins = load_pins(pins_path)
    except (OSError, ValueError) as e:
        return _error("cannot start: %s (%s); fix it with: courtside deploy" % (e, pins_path))
    try:
        settings = config.load(settings_path)
    except ValueError as e:
        _error("settings ignored: %s" % e)
        settings = dict(config.DEFAULTS)
    made = board(pins, settings, settings_path)
    if made is None:
        return None
    hw, rng_source, loop, reset = made
    return play(hw, pins, settings, settings_path, rng_source, loop, reset)


def load_pins(path):
    """Read and check a pin map file (``courtside.pinmap``; PinMapError on a bad map) into
    the runtime view (``courtside.pins.Pins``), then drop the checker from memory unless
    someone else imported it first (the laptop tools keep it)."""
    kept = [name for name in ("pinmap", "jsoncheck") if "courtside." + name in sys.modules]
    from courtside import pinmap
    checked = pinmap.load(path)
    pins = Pins(checked.data)
    del pinmap, checked
    import courtside
    for name in ("pinmap", "jsoncheck"):
        if name not in kept:
            sys.modules.pop("courtside." + name, None)
            if hasattr(courtside, name):
                delattr(courtside, name)
    import gc
    gc.collect()
    return pins


def pico_board(pins, settings, settings_path):
    """The Pico layer, or None (said why) in safe mode or when it cannot be loaded."""
    try:
        from courtside.hw import pico
    except Exception as e:
        return _error("cannot load the Pico layer: %r; fix it with: courtside deploy" % e)
    if pico.main_held(pins):
        pico.watchdog_off()
        print("courtside: safe mode (main button held), game not started")
        return None
    hw = pico.Pico(pins, settings)
    return hw, hw.random_bytes, None, reset_pico


def reset_pico():
    from courtside.hw import pico
    pico.reset()


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


def play(hw, pins, settings, settings_path, rng_source, loop=None, reset=reset_pico):
    """Build the core on ``hw`` and run it with ``loop(core, hw)`` (the board's,
    ``driver.run_until``, when None) until it stops: the core when stopped (Ctrl-C),
    ``RESTART`` after a fault, said and followed by ``reset()`` when there is one."""
    pack_heap()

    from courtside import driver
    from courtside.core import Core
    from courtside.fair import Fair
    core = Core(pins, settings, Fair(rng_source), now=hw.ticks_us(), levels=hw.levels(),
                capture=hw.capture.name, can_save=settings_path is not None,
                figures=getattr(hw, "figures", None), finish=getattr(hw, "finish", None))
    failed = None
    try:
        (loop or driver.run_until)(core, hw)
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
    if reset is not None:
        reset()
    return RESTART

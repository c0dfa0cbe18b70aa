"""Start-up: load the pin map and settings, pick the hardware layer, run the app.

On a Pico the Pico layer is used; anywhere else (the virtual Pico on a laptop) the
simulated one, reading commands and ``sim`` presses from standard input. Holding the
main-unit button at power-up is safe mode: nothing starts and the REPL stays free.
"""

import asyncio

from courtside import events
from courtside import pins as pin_map
from courtside import settings as config

PINMAP = "pinmap.json"  # relative: the flash root is the working directory
SETTINGS = "settings.json"


def _error(msg):
    print(events.line("error", 0, {"msg": msg, "line": ""}))


def main(pins_path=PINMAP, settings_path=SETTINGS):
    try:
        pins = pin_map.load(pins_path)
    except (OSError, ValueError) as e:
        return _error("cannot start: %s (%s); fix it with: courtside deploy" % (e, pins_path))
    try:
        settings = config.load(settings_path)
    except ValueError as e:
        _error("settings ignored: %s" % e)
        settings = dict(config.DEFAULTS)
    try:
        from courtside.hw import pico
    except ImportError:  # not a board: the virtual Pico
        pico = None
    if pico is not None and pico.main_held(pins):
        pico.watchdog_off()
        print("courtside: safe mode (main button held), game not started")
        return None
    from courtside.app import App
    if pico is not None:
        hw = pico.Pico(pins, settings)
    else:
        from courtside.hw.sim import Sim
        hw = Sim(pins, seed=None)
    app = App(hw, settings, settings_path)
    try:
        asyncio.run(app.run() if pico is not None else _virtual(app, hw))
    except KeyboardInterrupt:
        print("courtside: stopped, the REPL is free")
    finally:
        hw.release()
        asyncio.new_event_loop()
    return app


async def _virtual(app, hw):
    from courtside.hw.sim import stdin_lines
    asyncio.create_task(stdin_lines(hw))
    await app.run()

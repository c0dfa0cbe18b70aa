"""The simulated board's start-up: what ``main.py`` starts on the virtual Pico.

A board's start-up (``courtside.run``) starts a Pico and nothing else. On the virtual Pico
(the MicroPython unix port, which holds this package as a board holds frozen modules)
``main.py`` calls ``main`` here instead: the same pin map, settings, core and restart after
a fault, through ``courtside.run.main``, with the simulated board in real time
(``courtside_sim.live.LiveBoard``) in place of the Pico layer, its commands and ``sim``
presses read from standard input beside the loop. ``bringup`` is the bring-up's start
there (``courtside bringup`` on a virtual Pico).

It imports the ``courtside`` package only when called: the virtual Pico loads this module
before its flash, which holds ``courtside``, is mounted.

    from courtside_sim import start; start.main()      # the virtual Pico's main.py
"""

PINMAP = "pinmap.json"  # relative: the flash root is the working directory
SETTINGS = "settings.json"


def main(pins_path=PINMAP, settings_path=SETTINGS):
    """Start the game on the simulated board; returns its core when it stops (Ctrl-C),
    None if it never started. A fault starts it again in the same process."""
    from courtside import run
    return run.main(pins_path, settings_path, board=live_board)


def live_board(pins, settings, settings_path):
    """The simulated board for ``courtside.run.main``: no safe mode, no reset."""
    import os

    from courtside_sim.live import LiveBoard
    return LiveBoard(pins, settings_path=settings_path), os.urandom, _live, None


def _live(core, hw):
    """The loop in real time beside the task that reads its console."""
    import asyncio
    try:
        asyncio.run(_virtual(core, hw))
    finally:
        asyncio.new_event_loop()


async def _virtual(core, hw):
    import asyncio

    from courtside import driver

    from courtside_sim.console import stdin_lines
    asyncio.create_task(stdin_lines(hw, timeline=core.timeline))
    await driver.run(core, hw)


def bringup(pins_path=PINMAP, quick=False, buttons_s=None):
    """The bring-up (``courtside.run.bringup``) on the simulated board."""
    from courtside import pinmap
    from courtside.run import bringup as check

    from courtside_sim.live import LiveBoard
    hw = LiveBoard(pinmap.load(pins_path))
    return check.main(pins_path, quick, check.BUTTONS_S if buttons_s is None else buttons_s, hw=hw)

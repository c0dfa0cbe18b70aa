"""The board's ``machine``: the unix port's, with a Pico's resets, clock and identity.

- ``soft_reset()`` raises ``SystemExit``, as on a Pico: the REPL then soft-reboots;
- ``reset()`` is the reset button: the supervisor ends this interpreter at once and
  powers up a fresh one (``boot.py``, ``main.py``), whatever the program does meanwhile;
- ``RTC()`` keeps the time it is set to (until the next reset), ``unique_id()`` and
  ``freq()`` answer as an RP2040 does.

There are no pins here: the firmware runs its simulated hardware on the virtual Pico.
There is no ``mem8``, ``mem16`` or ``mem32`` either: on the unix port they read and write
any address of the laptop's process.
"""

import time

from machine import *  # noqa: F403 - the unix port's machine, completed below
from vpico_port import tell as _tell

del mem8, mem16, mem32     # type: ignore[name-defined]  # noqa: F821 - any address of the laptop's process, not a Pico's
__name__ = "machine"
_offset = [0]              # seconds the RTC was set ahead of the host clock


def soft_reset():
    raise SystemExit


def reset():
    _tell("power")
    while True:
        time.sleep_ms(1000)


def unique_id():
    return b"\xe6\x61\x40\x40\x87\x43\x25\x2c"


def freq(hz=None):
    if hz is None:
        return 125_000_000
    return None


class RTC:
    def datetime(self, when=None):
        """``(year, month, day, weekday, hours, minutes, seconds, subseconds)``."""
        if when is None:
            t = time.localtime(time.time() + _offset[0])
            return (t[0], t[1], t[2], t[6], t[3], t[4], t[5], 0)
        wanted = time.mktime((when[0], when[1], when[2], when[4], when[5], when[6], 0, 0))
        _offset[0] = wanted - time.time()
        return None

del __file__               # a Pico's modules are built in, not files of the host

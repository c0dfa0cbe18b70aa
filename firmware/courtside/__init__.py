"""Courtside: a tabletop companion for Dodge Ball and Deathball on a Raspberry Pi Pico.

The package is the firmware. Everything here except ``courtside.hw.pico`` is plain Python
that runs unchanged on MicroPython and on CPython, so the laptop's simulator, replay tool
and tests use exactly the code the board runs.
"""

VERSION = "0.1.0"
# Version of the event stream (docs/events.md). Raised whenever a field changes meaning
# or the same inputs give other lines (2: inputs recorded, settings in hello).
STREAM = 2

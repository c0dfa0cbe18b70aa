"""Courtside: a tabletop companion for Dodge Ball and Deathball on a Raspberry Pi Pico.

The package is the firmware: what goes to a board, all of it. Everything here except the
hardware layer (``courtside.hw``) is plain Python that runs unchanged on MicroPython and on
CPython, so the laptop's simulator, replay tool and tests use exactly the code the board
runs. The drivers that start it on a board are ``courtside.run``; nothing here imports the
simulated board or the follower (``common/``), which never go to a board.
"""

try:
    import micropython  # noqa: F401 - on a board (and the unix port), the real one
except ImportError:
    # CPython (the laptop, the tests): one stand-in for the package, so every module can
    # say ``from micropython import const`` as MicroPython's own libraries do. The
    # MicroPython compiler folds ``const`` itself; here it is the identity.
    import sys
    import types

    _standin = types.ModuleType("micropython", "CPython stand-in: const() only")
    _standin.const = lambda value: value  # type: ignore[attr-defined]
    sys.modules["micropython"] = _standin
    del sys, types, _standin

VERSION = "0.1.0"
# Version of the event stream (docs/events.md). Raised whenever a field changes meaning
# or the same inputs give other lines (2: inputs recorded, settings in hello; 3: early
# settled in the verdict, a long press leaves the die mode; 4: set-up turns, ``ready``,
# ``can_save`` in hello, one answer to a save; 5: ``hold``, a refusal's wait named by it,
# ``pending``, ``cursor``; 6: ``shrink``'s ``ring`` named ``border``).
STREAM = 6

"""Where the laptop tools find the firmware, the code that runs on any Python and the pin maps.

Two layouts, one set of names. Installed (``pipx install courtside``, ``pip install``),
the wheel carries a copy of the repository's ``firmware/`` and ``common/`` and of the maps
in ``hardware/`` inside this package::

    courtside_host/firmware/    main.py, boot.py, manifest.py, package.json,
                                courtside/ (what a board gets)
    courtside_host/common/      courtside_sim/ (the simulated board) and courtside_follow/
                                (the follower of the stream): any Python, never deployed
    courtside_host/hardware/    pinmap.json, variants/*.json

In a source checkout (``make test``, an editable install) the same names point at the
repository's own ``firmware/``, ``common/`` and ``hardware/``, so a change there is what
``courtside`` deploys, simulates and checks. Nothing else in the laptop tools works out a
path to them.

    from courtside_host import paths
    paths.FIRMWARE / "main.py"          # the firmware tree, as deploy sends it
    paths.COMMON / "courtside_sim"      # the simulated board, for the unix port and the page
    paths.PINMAP                        # the default pin map
    paths.variants()                    # [.../variants/pico2.json, ...]
"""

import os
from pathlib import Path

HERE = Path(__file__).resolve().parent

# The wheel's copy sits beside this module; a checkout has the repository two levels up.
INSTALLED = (HERE / "firmware" / "main.py").is_file()
_BASE = HERE if INSTALLED else HERE.parents[1]
CHECKOUT = None if INSTALLED else _BASE      # the repository, when run from one

FIRMWARE = _BASE / "firmware"
COMMON = _BASE / "common"
HARDWARE = _BASE / "hardware"
PINMAP = HARDWARE / "pinmap.json"

# What the MicroPython unix port puts on its path (MICROPYPATH) to run the headless
# simulator: the board's package and the simulated board. The virtual Pico holds
# ``COMMON`` alone as its ROM (the simulated board's own code, never part of its flash):
# its ``courtside`` comes from the flash, as deployed.
UNIX_PATH = os.pathsep.join([str(FIRMWARE), str(COMMON)])


def variants():
    """The variant pin maps (``variants/NAME.json``), in name order."""
    return sorted((HARDWARE / "variants").glob("*.json"))


def cache(name):
    """A folder for files worth keeping between runs (compiled ``.mpy``): the checkout's
    ``build/`` when there is one, else the user's cache folder (``$XDG_CACHE_HOME``,
    ``~/.cache``), never inside the installed package."""
    if CHECKOUT is not None:
        return CHECKOUT / "build" / name
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "courtside" / name

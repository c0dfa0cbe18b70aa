"""Headless simulator: run the firmware on a script of timed inputs, print the event stream.

Runs unchanged on CPython and on the MicroPython unix port, with the firmware folder on
the path (``PYTHONPATH`` or ``MICROPYPATH``):

    python -m courtside_sim.headless [--seed N] [--t0 TICKS] [--pins FILE]
                                     [--set name=value ...] [--busy-ms MS] SCRIPT
    micropython -m courtside_sim.headless SCRIPT

``--t0`` starts the tick counter elsewhere on its 2**30 circle (e.g. just before the wrap);
``--busy-ms`` makes every pass of the main loop take that long (docs/simulator.md).
Exit status: 0 on success, 2 on a bad script, pin map or setting (with a message on stderr).
"""

import sys

OPTIONS = ("--seed", "--t0", "--pins", "--set", "--busy-ms")


def _here():
    path = __file__ if "/" in __file__ else "./" + __file__
    return path.rsplit("/", 1)[0]


def default_pins():
    return _here() + "/../../hardware/pinmap.json"


def main(argv, out=None):
    from courtside.text import whole
    opts = {"--seed": "1", "--t0": "0", "--pins": None, "--busy-ms": "0"}
    changes = []
    script_path = None
    args = list(argv)
    while args:
        a = args.pop(0)
        if a in OPTIONS:
            if not args:
                return _fail("%s needs a value" % a)
            if a == "--set":
                changes.append(args.pop(0))
            else:
                opts[a] = args.pop(0)
        elif script_path is None and not a.startswith("--"):
            script_path = a
        else:
            return _fail("unexpected argument %r" % a)
    if script_path is None:
        return _fail("usage: headless.py [--seed N] [--t0 TICKS] [--pins FILE] [--set k=v] "
                     "[--busy-ms MS] SCRIPT")
    numbers = {}
    for name in ("--seed", "--t0", "--busy-ms"):
        value = whole(opts[name], 18)
        if value is None or value < 0:
            return _fail("%s needs a whole number, not %r" % (name, opts[name]))
        numbers[name] = value
    return run_script(script_path, seed=numbers["--seed"], t0=numbers["--t0"],
                      pins_path=opts["--pins"], changes=changes, out=out,
                      busy_ms=numbers["--busy-ms"])


_KINDS = ((0x4000, "a directory"), (0x1000, "a FIFO"), (0x2000, "a character device"),
          (0x6000, "a block device"), (0xC000, "a socket"))


def not_a_file(path):
    """What ``path`` is when it is not a regular file ("a FIFO", "a directory"...), before it
    is opened (opening a FIFO waits for a writer); None for a regular file, or for one that
    cannot be looked at (its opening says why). Both runtimes' ``os.stat`` give the mode
    first."""
    import os
    try:
        kind = os.stat(path)[0] & 0xF000
    except OSError:
        return None
    if kind == 0x8000:
        return None
    for mode, name in _KINDS:
        if kind == mode:
            return name
    return "not a regular file"


def run_script(script_path, seed=1, t0=0, pins_path=None, changes=(), out=None, busy_ms=0):
    # In the order that keeps a board-sized heap in one piece: the pin map (whose checker
    # is dropped again), then everything that stays loaded and the board with its ring,
    # and only then the script, whose checking leaves garbage behind.
    from courtside.run import load_pins
    pins_path = pins_path or default_pins()
    for path in (pins_path, script_path):
        wrong = not_a_file(path)
        if wrong:
            return _fail("%s is %s, not a regular file" % (path, wrong))
    try:
        pins = load_pins(pins_path)
    except (OSError, ValueError) as e:
        return _fail("pin map %s: %s" % (pins_path, e))
    from courtside import driver  # noqa: F401 - loaded now, used by run()
    from courtside import settings as config
    from courtside.core import Core  # noqa: F401

    from courtside_sim.board import SimBoard
    from courtside_sim.script import Script, ScriptError
    board = SimBoard(pins, t0=t0, out=out, busy_ms=busy_ms)
    try:
        settings = config.merged(config.DEFAULTS, config.parse(changes)) if changes else None
    except ValueError as e:
        return _fail(str(e))
    try:
        script = Script(lambda: open(script_path, "rb"), pins)
    except OSError as e:
        return _fail("cannot read %s (%s)" % (script_path, e))
    except ScriptError as e:
        return _fail(str(e))
    board.play(script)
    import gc
    if hasattr(gc, "threshold"):   # collect before garbage piles up between the loop's objects
        gc.threshold(4096)
    run(board, settings, seed=seed)
    return 0


def run(board, settings=None, seed=1, rng=None, mode="dodgeball"):
    """Run the core on ``board`` until its script is done and has settled; ``rng``
    replaces the seeded draws (a replay follows a log's own draws)."""
    from courtside import driver
    from courtside.core import Core
    from courtside.fair import Fair, seeded
    core = Core(board.pins, settings, rng or Fair(seeded(seed)), now=board.ticks_us(),
                levels=board.levels(), capture=board.capture.name, mode=mode)
    driver.run_virtual(core, board)
    return core


def _fail(msg):
    sys.stderr.write("courtside sim: %s\n" % msg)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

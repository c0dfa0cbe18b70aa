"""Headless simulator: run the firmware on a script of timed inputs, print the event stream.

Runs unchanged on CPython and on the MicroPython unix port:

    python simmain.py [--seed N] [--t0 TICKS] [--pins FILE] [--set name=value ...] SCRIPT
    micropython -X heapsize=64k simmain.py SCRIPT

``--t0`` starts the tick counter elsewhere on its 2**30 circle (e.g. just before the wrap).
Exit status: 0 on success, 2 on a bad script, pin map or setting (with a message on stderr).
"""

import sys


def _here():
    path = __file__ if "/" in __file__ else "./" + __file__
    return path.rsplit("/", 1)[0]


def main(argv, out=None):
    seed, t0, pins_path, changes, script_path = 1, 0, None, [], None
    args = list(argv)
    while args:
        a = args.pop(0)
        if a in ("--seed", "--t0", "--pins", "--set") and not args:
            return _fail("%s needs a value" % a)
        if a == "--seed":
            seed = int(args.pop(0))
        elif a == "--t0":
            t0 = int(args.pop(0))
        elif a == "--pins":
            pins_path = args.pop(0)
        elif a == "--set":
            changes.append(args.pop(0))
        elif script_path is None:
            script_path = a
        else:
            return _fail("unexpected argument %r" % a)
    if script_path is None:
        return _fail("usage: simmain.py [--seed N] [--t0 TICKS] [--pins FILE] [--set k=v] SCRIPT")
    return run_script(script_path, seed=seed, t0=t0, pins_path=pins_path, changes=changes, out=out)


def run_script(script_path, seed=1, t0=0, pins_path=None, changes=(), out=None):
    from courtside import pins as pin_map
    from courtside import settings as config
    from courtside.app import App
    from courtside.hw.sim import ScriptError, Sim, parse_script
    pins_path = pins_path or _here() + "/../hardware/pinmap.json"
    try:
        pins = pin_map.load(pins_path)
    except (OSError, ValueError) as e:
        return _fail("pin map %s: %s" % (pins_path, e))
    try:
        settings = config.merged(config.DEFAULTS, config.parse(changes)) if changes else None
    except ValueError as e:
        return _fail(str(e))
    try:
        with open(script_path) as f:
            script = parse_script(f.read().split("\n"), pins)
    except OSError as e:
        return _fail("cannot read %s (%s)" % (script_path, e))
    except ScriptError as e:
        return _fail(str(e))
    try:
        import asyncio
    except ImportError:
        import uasyncio as asyncio
    hw = Sim(pins, script=script, seed=seed, t0=t0, out=out)
    asyncio.run(App(hw, settings).run())
    return 0


def _fail(msg):
    sys.stderr.write("courtside sim: %s\n" % msg)
    return 2


if __name__ == "__main__":
    sys.path.insert(0, _here())
    sys.exit(main(sys.argv[1:]))

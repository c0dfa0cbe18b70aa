"""``courtside sim``: the firmware, unchanged, on this computer.

Interactive (the default): the keyboard is the button boxes and the terminal is the
matrix, the box LEDs, the buzzer and the event stream. Headless (``--script FILE``): a
script of timed inputs in, the event stream out (docs/simulator.md), on CPython or, with
``--runtime micropython``, on the MicroPython unix port.
"""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
FIRMWARE = ROOT / "firmware"
if str(FIRMWARE) not in sys.path:
    sys.path.insert(0, str(FIRMWARE))


def add_arguments(p):
    p.add_argument("--script", help="JSON-lines script of timed inputs; prints the event stream")
    p.add_argument("--runtime", choices=("cpython", "micropython"), default="cpython",
                   help="interpreter for --script (default cpython)")
    p.add_argument("--seed", type=int, default=1, help="seed for the simulated random source")
    p.add_argument("--t0", type=int, default=0, help="start the tick counter here (test wraparound)")
    p.add_argument("--pins", default=str(ROOT / "hardware" / "pinmap.json"), help="pin map file")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="a setting")
    p.add_argument("--mode", choices=("dodgeball", "referee", "die"), default="dodgeball",
                   help="mode to start in (interactive)")
    p.add_argument("--busy-ms", type=int, default=0, metavar="MS",
                   help="make every pass of the main loop take this long (to provoke overflow)")


def run(args):
    if args.script:
        return headless(args)
    if not sys.stdin.isatty():
        print("courtside sim: the interactive simulator needs a terminal; use --script FILE",
              file=sys.stderr)
        return 2
    from courtside_host.terminal import Terminal
    return Terminal(args).main()


def headless(args):
    argv = ["--seed", str(args.seed), "--t0", str(args.t0), "--pins", args.pins,
            "--busy-ms", str(args.busy_ms)]
    for s in args.set:
        argv += ["--set", s]
    argv.append(args.script)
    if args.runtime == "micropython":
        from courtside_host.vpico import micropython_binary
        env = dict(os.environ, MICROPYPATH=str(FIRMWARE) + ":.frozen")
        return subprocess.call([micropython_binary(), "-m", "courtside_sim.headless", *argv], env=env)
    from courtside_sim import headless as runner
    try:
        return runner.main(argv)
    except BrokenPipeError:  # the reader went away (say `| head`): not an error
        sys.stderr.close()
        return 0

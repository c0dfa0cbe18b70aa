"""``courtside sim``: the firmware, unchanged, on this computer.

Interactive (the default): the keyboard is the button boxes and the terminal is the
matrix, the box LEDs, the buzzer and the event stream. Headless (``--script FILE``): a
script of timed inputs in, the event stream out (docs/simulator.md), on CPython or, with
``--runtime micropython``, on the MicroPython unix port.
"""

import os
import subprocess
import sys

from courtside_host import paths


def add_arguments(p):
    p.add_argument("--script", help="JSON-lines script of timed inputs; prints the event stream")
    p.add_argument("--runtime", choices=("cpython", "micropython"), default="cpython",
                   help="interpreter for --script (default cpython)")
    p.add_argument("--seed", type=int, default=1, help="seed for the simulated random source")
    p.add_argument("--t0", type=int, default=0, help="start the tick counter here (test wraparound)")
    p.add_argument("--pins", default=str(paths.PINMAP), metavar="FILE",
                   help="pin map file (default: the standard build)")
    p.add_argument("--set", action="append", default=[], metavar="NAME=VALUE", help="a setting")
    p.add_argument("--mode", choices=("dodgeball", "referee", "die"), default="dodgeball",
                   help="mode to start in (interactive)")
    p.add_argument("--busy-ms", type=int, default=0, metavar="MS",
                   help="make every pass of the main loop take this long (to provoke overflow)")
    p.add_argument("--format", choices=("stream", "text"), default="stream",
                   help="with --script: the event stream (default), or the events as sentences")
    p.add_argument("--log", metavar="FILE",
                   help="interactive: keep the game's event stream in FILE (courtside replay reads it)")
    p.add_argument("--name", action="append", default=[], metavar="N=NAME",
                   help="a player's name, on the screen and in --format text (the stream keeps numbers)")


def run(args):
    if args.script:
        return headless(args)
    if not sys.stdin.isatty():
        print("courtside sim: the interactive simulator needs a terminal; use --script FILE",
              file=sys.stderr)
        return 2
    from courtside_host.views.terminal import Terminal
    saver = None
    if args.log:
        from courtside_host.records import eventlog
        try:
            saver = eventlog.Writer(args.log, "simulator")
        except OSError as e:
            print("courtside sim: cannot keep the log in %s: %s" % (args.log, e.strerror or e),
                  file=sys.stderr)
            return 2
    return Terminal(args, saver=saver).main()


def _sentences(args):
    """A writer of event lines as sentences (``--format text``), or None for the stream."""
    if args.format != "text":
        return None
    from courtside_host.link.port import event
    from courtside_host.views import render
    names = render.Names(render.parse_names(args.name))

    def write(line):
        ev = event(line)
        text = render.sentence(ev, names) if ev is not None else None
        if text:
            sys.stdout.write("%s  %s\n" % (render.clock(ev.get("t")), text))
    return write


def headless(args):
    try:
        write = _sentences(args)
    except ValueError as e:
        print("courtside sim: %s" % e, file=sys.stderr)
        return 2
    argv = ["--seed", str(args.seed), "--t0", str(args.t0), "--pins", args.pins,
            "--busy-ms", str(args.busy_ms)]
    for s in args.set:
        argv += ["--set", s]
    argv.append(args.script)
    if args.runtime == "micropython":
        from courtside_host.vpico.runner import micropython_binary
        try:
            binary = micropython_binary()
        except RuntimeError:
            from courtside_host.cli import UNIX_PORT_MISSING
            print(UNIX_PORT_MISSING % "sim --runtime micropython", file=sys.stderr)
            return 2
        env = dict(os.environ, MICROPYPATH=paths.UNIX_PATH + ":.frozen")
        cmd = [binary, "-m", "courtside_sim.headless", *argv]
        if write is None:
            return subprocess.call(cmd, env=env)
        with subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, text=True) as child:
            for line in child.stdout:
                write(line)
        return child.returncode
    from courtside_sim import headless as runner
    try:
        return runner.main(argv, out=write)
    except BrokenPipeError:  # the reader went away (say `| head`): not an error
        sys.stderr.close()
        return 0

"""``courtside deploy``: put the firmware on the Pico, sending only what changed.

    courtside deploy                       # the one Pico plugged in
    courtside deploy --port /dev/ttyACM0 --set tie_us=800
    courtside deploy --pins my-pinmap.json      # a builder's own map (courtside pins init)
    courtside deploy --firmware ./firmware      # a modified copy of the firmware tree
"""

import sys
from pathlib import Path

from courtside_host import paths, problem
from courtside_host.link import deploy as dep
from courtside_host.link.port import BoardError, find_port


def add_arguments(parser):
    parser.add_argument("--port", help="serial port of the board (default: the one Pico found)")
    parser.add_argument("--firmware", type=Path, default=paths.FIRMWARE, metavar="DIR",
                        help="firmware folder holding main.py, boot.py, manifest.py and courtside/ "
                             "(default: the one installed with this tool)")
    parser.add_argument("--pins", type=Path, metavar="FILE",
                        help="pin map to write as /pinmap.json, checked with the board's rules first "
                             "(default: keep the board's own; a board with none gets the standard "
                             "build's; `courtside pins init` writes a copy to edit)")
    parser.add_argument("--settings", type=Path,
                        help="settings JSON to write as /settings.json (default: keep the board's)")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="a setting to write (repeatable), on top of the defaults or --settings")
    parser.add_argument("--source", action="store_true", help="copy .py source instead of .mpy")
    parser.add_argument("--mpy-cross", type=Path, help="the mpy-cross binary to compile with")
    parser.add_argument("--no-ping", action="store_true", help="do not reset and check the version")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for the ping answer")


class Report:
    """What deploy says, on standard error: plain lines, coloured on a terminal. A progress
    bar (rich.progress, loaded only then) is drawn only on a terminal and only when there
    is something to copy, so a deploy with nothing to send starts and ends quickly."""

    COLOURS = {"red": "31", "green": "32", "yellow": "33", "cyan": "36"}

    def __init__(self, out=None):
        self.out = out or sys.stderr
        self.terminal = self.out.isatty()
        self.bar = None
        self.task = None

    def say(self, text, colour=None, head=""):
        if head:
            text = (("\x1b[1;%sm%s\x1b[0m " % (self.COLOURS[colour], head)) if self.terminal and colour
                    else head + " ") + text
        if self.bar is not None:
            self.bar.console.print(text, markup=False, highlight=False)
        else:
            print(text, file=self.out, flush=True)

    def start(self, nbytes):
        if not (self.terminal and nbytes):
            return
        from rich.console import Console
        from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn
        self.bar = Progress(TextColumn("{task.description}"), BarColumn(), DownloadColumn(),
                            console=Console(file=self.out), transient=True)
        self.task = self.bar.add_task("copying", total=nbytes)
        self.bar.start()

    def sending(self, path):
        if self.bar is not None:
            self.bar.update(self.task, description=path)

    def sent(self, nbytes):
        if self.bar is not None:
            self.bar.advance(self.task, nbytes)

    def stop(self):
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


def run(args):
    report = Report()

    def step(kind, what, n):
        if kind in ("board", "native", "pins"):
            report.say("%s: %s" % (kind, what))
        elif kind == "plan":
            report.start(n)
        elif kind == "send":
            report.sending(what)
        elif kind == "bytes":
            report.sent(n)
        elif kind == "delete":
            report.say(what, "yellow", "deleted")
        elif kind == "reset":
            report.stop()
            report.say("reset, waiting for the firmware to answer ping ...")

    try:
        port = find_port(args.port)
        settings = dep.settings_from(args.settings, args.set)
        compiler = dep.Compiler(args.mpy_cross) if args.mpy_cross else None
        result = dep.deploy(port, firmware=args.firmware, pins=args.pins, settings=settings,
                            compiler=compiler, source=args.source, ping=not args.no_ping,
                            timeout=args.timeout, on_step=step)
    except BoardError as e:
        report.stop()
        return problem.report("deploy", str(e))
    finally:
        report.stop()
    sent = ", ".join(result.sent) if len(result.sent) <= 6 else "%d files" % len(result.sent)
    report.say("sent %s (%d bytes); deleted %d; %d unchanged"
               % (sent or "nothing", result.bytes, len(result.deleted), result.unchanged))
    if result.pong:
        report.say("%s answers as Courtside %s (mode %s) after %.1f s"
                   % (port, result.pong.get("fw"), result.pong.get("mode"), result.seconds), "green", "ok:")
    return 0

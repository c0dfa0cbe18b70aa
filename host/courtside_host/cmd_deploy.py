"""``courtside deploy``: put the firmware on the Pico, sending only what changed.

    courtside deploy                       # the one Pico plugged in
    courtside deploy --port /dev/ttyACM0 --set tie_us=800
"""

from pathlib import Path

from rich.console import Console

from courtside_host import deploy as dep
from courtside_host import problem
from courtside_host.board import BoardError, find_port


def add_arguments(parser):
    parser.add_argument("--port", help="serial port of the board (default: the one Pico found)")
    parser.add_argument("--firmware", type=Path, default=dep.FIRMWARE,
                        help="firmware folder holding main.py and courtside/")
    parser.add_argument("--pins", type=Path, default=dep.PINMAP, help="pin map to write as /pinmap.json")
    parser.add_argument("--settings", type=Path,
                        help="settings JSON to write as /settings.json (default: keep the board's)")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="a setting to write (repeatable), on top of the defaults or --settings")
    parser.add_argument("--source", action="store_true", help="copy .py source instead of .mpy")
    parser.add_argument("--mpy-cross", type=Path, help="the mpy-cross binary to compile with")
    parser.add_argument("--no-ping", action="store_true", help="do not reset and check the version")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds to wait for the ping answer")


class _Quiet:
    """Progress for a log or a pipe: nothing to draw (and rich.progress is not loaded)."""

    def __init__(self, console):
        self.console = console

    def add_task(self, *a, **k):
        return 0

    def start(self, *a, **k):
        pass

    stop = update = advance = start


def _progress(console):
    if not console.is_terminal:
        return _Quiet(console)
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn
    return Progress(TextColumn("{task.description}"), BarColumn(), DownloadColumn(),
                    console=console, transient=True)


def run(args):
    console = Console(stderr=True)
    progress = _progress(console)
    task = None

    def step(kind, what, n):
        nonlocal task
        if kind == "board":
            console.print("board: %s" % what)
        elif kind == "native":
            console.print("native: %s" % what)
        elif kind == "plan":
            task = progress.add_task("copying", total=max(n, 1))
            progress.start()
        elif kind == "send":
            progress.update(task, description="[cyan]%s" % what)
        elif kind == "bytes":
            progress.advance(task, n)
        elif kind == "delete":
            progress.console.print("[yellow]deleted[/] %s" % what)
        elif kind == "reset":
            progress.stop()
            console.print("reset, waiting for the firmware to answer ping ...")

    try:
        port = find_port(args.port)
        settings = dep.settings_from(args.settings, args.set)
        compiler = dep.Compiler(args.mpy_cross) if args.mpy_cross else None
        result = dep.deploy(port, firmware=args.firmware, pins=args.pins, settings=settings,
                            compiler=compiler, source=args.source, ping=not args.no_ping,
                            timeout=args.timeout, on_step=step)
    except BoardError as e:
        progress.stop()
        return problem.report("deploy", str(e))
    finally:
        progress.stop()
    sent = ", ".join(result.sent) if len(result.sent) <= 6 else "%d files" % len(result.sent)
    console.print("sent %s (%d bytes); deleted %d; %d unchanged"
                  % (sent or "nothing", result.bytes, len(result.deleted), result.unchanged))
    if result.pong:
        console.print("[bold green]ok:[/] %s answers as Courtside %s (mode %s) after %.1f s"
                      % (port, result.pong.get("fw"), result.pong.get("mode"), result.seconds))
    return 0

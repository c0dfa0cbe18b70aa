"""``courtside monitor``: the live event stream, readable, and saved as a JSON-lines log.

    courtside monitor                            # until Ctrl-C; log in logs/
    courtside monitor --start --send "mode die"  # restart the firmware, then send a command
    courtside monitor --until verdict --for 30 --log game.jsonl
    courtside monitor --name 1=Ann --name 2=Bo   # players by name (the log keeps numbers)

On connecting it sends ``ping`` and ``get``, so the log records the firmware version and
the settings in force (replay uses them). Events are shown by the one renderer
(``courtside_host.views.render``, through ``monitor``): sentences, verdict tables, and in
Deathball the board after every move.
"""

import sys
import time
from pathlib import Path

import serial
from rich.console import Console

from courtside_host import problem
from courtside_host.link.port import BoardError, Lines, event, find_port, open_stream, start_firmware
from courtside_host.records import eventlog
from courtside_host.views import monitor, render


def add_arguments(parser):
    parser.add_argument("--port", help="serial port of the board (default: the one Pico found)")
    parser.add_argument("--log", type=Path, help="log file (default: logs/courtside-DATE-TIME.jsonl)")
    parser.add_argument("--no-log", action="store_true", help="do not save a log")
    parser.add_argument("--start", action="store_true",
                        help="soft-reset the board first so the firmware starts afresh")
    parser.add_argument("--send", action="append", default=[], metavar="LINE",
                        help="a command line to send after connecting (repeatable), e.g. 'mode die'; "
                             "'a;b' sends two lines at once")
    parser.add_argument("--until", metavar="EV", help="stop after the first event of this kind")
    parser.add_argument("--for", dest="seconds", type=float, help="stop after this many seconds")
    parser.add_argument("--raw", action="store_true", help="also show lines that are not events")
    parser.add_argument("--name", action="append", default=[], metavar="N=NAME",
                        help="show player N by this name (repeatable)")


def typed_lines(out):
    """Lines typed at the terminal, queued for sending (a daemon thread)."""
    import threading

    def read():
        for line in sys.stdin:
            out.append(line.strip())

    threading.Thread(target=read, daemon=True).start()


def together(text):
    """``a;b``: both lines in one write, e.g. two presses at (nearly) one moment."""
    return "\n".join(part.strip() for part in text.split(";") if part.strip())


def watch(ser, console, log=None, send=(), until=None, seconds=None, raw=False, typed=None,
          names=None):
    """Show events from ``ser`` until ``until`` is seen (and shown: each event is told
    when the board's matrix shows it), ``seconds`` pass or Ctrl-C.

    Returns the events seen (dicts). Command lines in ``send`` go out once the firmware has
    answered ``ping`` (or after a second without an answer); lines appended to ``typed``
    (a list, filled by another thread) go out as they come."""
    lines = Lines(ser)
    lines.write_line("ping")
    lines.write_line("get")
    pending = list(send)
    started = time.monotonic()
    send_at = started + 1.0
    seen = []
    view = monitor.Monitor(names)
    stopping = False
    while seconds is None or time.monotonic() - started < seconds:
        if pending and time.monotonic() >= send_at:
            lines.write_line(together(pending.pop(0)))
            send_at = time.monotonic() + 0.15
        while typed:                    # typed as on the command line: "a;b" is two lines
            lines.write_line(together(typed.pop(0)))
        got = _arrived(lines, console, raw)      # the lines there now, one pass's at once
        now = time.monotonic_ns() // 1000
        for text, ev in got:
            seen.append(ev)
            if log is not None:
                log.line(text)              # kept as it came
            if ev["ev"] == "pong" and pending and send_at > time.monotonic():
                send_at = time.monotonic()
            view.put(ev, now)
        for shown in view.due(now):         # told as the matrix shows it
            console.print(shown)
        if until and any(ev["ev"] == until for _, ev in got):
            stopping = True
        if stopping and not view.paced.waiting():
            break                           # once the matrix has shown it too
    for shown in view.due():                # out of time: what is held, at once
        console.print(shown)
    return seen


def _arrived(lines, console, raw):
    """[(text, event)] of the lines that have come: the first waited for a little, then
    those already there; other lines printed dim with ``raw``."""
    got = []
    raw_line = lines.read(0.05)
    while raw_line is not None:
        text = raw_line.decode("utf-8", "replace")
        ev = event(text)
        if ev is not None:
            got.append((text, ev))
        elif raw and text.strip():
            console.print(text, style="dim", markup=False, highlight=False)
        raw_line = lines.read(0)
    return got


def run(args):
    console = Console(highlight=False)
    try:
        names = render.Names(render.parse_names(args.name))
    except ValueError as e:
        return problem.report("monitor", str(e), problem.UNUSABLE)
    try:
        port = find_port(args.port)
        ser = open_stream(port)
    except BoardError as e:
        return problem.report("monitor", str(e))
    log = None
    if not args.no_log:
        path = args.log or eventlog.default_path()
        log = eventlog.Writer(path, port)
        print("logging to %s" % path, file=sys.stderr)
    try:
        if args.start:
            try:
                start_firmware(ser)
            except BoardError as e:
                return problem.report("monitor", str(e))
        typed = None
        if sys.stdin.isatty():
            typed = []
            typed_lines(typed)
            console.print("[dim]type a command and Enter to send it (ping, get, set tie_us=800, "
                          "mode die, help, ...; a;b sends two at once); Ctrl-C to stop[/]")
        seen = watch(ser, console, log, args.send, args.until, args.seconds, args.raw, typed, names)
    except KeyboardInterrupt:
        seen = None
    except (serial.SerialException, OSError) as e:
        return problem.report("monitor", "the board went away (%s)%s"
                              % (e, "; the log is saved" if log else ""))
    finally:
        ser.close()
        if log:
            log.close()
    if args.until and seen is not None and not any(e["ev"] == args.until for e in seen):
        return problem.report("monitor", "no %s event arrived" % args.until)
    return 0

"""``courtside doctor``: what is connected, which versions, and is the pin map sound.

    courtside doctor                 # the Pico found, or a BOOTSEL drive, or why neither
    courtside doctor --port /dev/ttyACM0

Checks, each reported as ok or as a problem with what to do:
the laptop's pin map; Picos and BOOTSEL drives connected; the board's MicroPython and its
``.mpy`` version against this mpy-cross; the Courtside version on the board; the board's
``/pinmap.json`` (with the board's own rules, and whether it matches this repository's);
its ``/settings.json``; free flash; and whether the firmware answers ``ping``.
Exit status 0 when everything is in order, 1 otherwise.
"""

import json

from rich.console import Console

from courtside_host import files
from courtside_host.link import deploy as dep
from courtside_host.link import flash as fl
from courtside_host.link.port import BoardError, connect, find_port, pico_ports

BOARD_FACTS = """\
import os, sys, json
def _facts():
    out = {'version': '%d.%d.%d' % sys.implementation.version[:3],
           'mpy': getattr(sys.implementation, '_mpy', 0), 'platform': sys.platform}
    try:
        out['machine'] = os.uname().machine
    except AttributeError:
        out['machine'] = sys.platform
    try:
        s = os.statvfs('/')
        out['free'] = s[0] * s[3]
    except (AttributeError, OSError):
        pass
    for name in ('pinmap.json', 'settings.json'):
        try:
            with open(name) as f:
                out[name] = f.read()
        except OSError:
            pass
    try:
        import courtside
        out['courtside'] = courtside.VERSION
    except Exception as e:
        out['courtside_error'] = repr(e)
    print(json.dumps(out))
_facts()
del _facts
"""


class Checks:
    """Each check's line. A line is never broken by the program (the terminal wraps it), so
    a path in it stays whole, to copy and paste."""

    def __init__(self, console):
        self.console = console
        self.problems = 0

    def _say(self, text):
        self.console.print(text, soft_wrap=True)

    def ok(self, what, detail=""):
        self._say("[green]ok[/]       %s%s" % (what, ": " + detail if detail else ""))

    def bad(self, what, detail):
        self.problems += 1
        self._say("[bold red]problem[/]  %s: %s" % (what, detail))

    def note(self, what, detail):
        self._say("[yellow]note[/]     %s: %s" % (what, detail))


def add_arguments(parser):
    parser.add_argument("--port", help="serial port of the board (default: the one Pico found)")
    parser.add_argument("--pins", default=str(dep.PINMAP), help="this laptop's pin map")
    parser.add_argument("--no-ping", action="store_true", help="do not restart the firmware to ping it")


def local_checks(checks, pins_path):
    from courtside import pinmap
    try:
        data = pinmap.read(files.read(pins_path, pinmap.FILE_MAX)).data
    except pinmap.PinMapError as e:
        checks.bad("pin map %s" % pins_path, "; ".join(e.problems))
        return None
    except (OSError, ValueError) as e:
        checks.bad("pin map %s" % pins_path, str(e))
        return None
    checks.ok("pin map %s" % pins_path, "%d boxes, board %s" % (len(data["boxes"]), data["board"]))
    return data


def board_checks(checks, port, local_pins, ping):
    from courtside import pinmap
    from courtside import settings as config
    with connect(port) as link:
        facts = json.loads(link.exec(BOARD_FACTS).decode().strip().splitlines()[-1])
        checks.ok("MicroPython", "%s on %s" % (facts["version"], facts["machine"]))
        problem = dep.check_mpy(facts["mpy"], dep.Compiler().major())
        if problem:
            checks.bad(".mpy version", problem)
        else:
            checks.ok(".mpy version", "v%d, as this mpy-cross writes" % dep.mpy_major(facts["mpy"]))
        if "free" in facts:
            checks.ok("free flash", "%d KB" % (facts["free"] // 1024))
        version = facts.get("courtside")
        local = dep.local_version()
        if version is None:
            checks.bad("Courtside on the board", "not loadable (%s): courtside deploy"
                       % facts.get("courtside_error", "missing"))
        elif version != local:
            checks.bad("Courtside on the board",
                       "%s, this repository has %s: courtside deploy" % (version, local))
        else:
            checks.ok("Courtside on the board", version)
        text = facts.get("pinmap.json")
        if text is None:
            checks.bad("board /pinmap.json", "missing: courtside deploy writes it")
        else:
            try:
                board_pins, problems = pinmap.read(text.encode()).data, []
            except pinmap.PinMapError as e:
                board_pins, problems = None, e.problems
            if problems:
                checks.bad("board /pinmap.json", "; ".join(problems))
            elif local_pins is not None and board_pins != local_pins:
                checks.note("board /pinmap.json", "sound, but not the laptop's pin map (deploy to update)")
            else:
                checks.ok("board /pinmap.json", "sound, same as the laptop's")
        settings = facts.get("settings.json")
        if settings is None:
            checks.ok("board /settings.json", "none: the defaults are used")
        else:
            try:
                config.read(settings.encode(), "/settings.json")
                checks.ok("board /settings.json", settings.strip())
            except ValueError as e:
                checks.bad("board /settings.json", "refused by the firmware's rules: %s" % e)
        if ping and version is not None:
            try:
                pong = dep.reset_and_ping(link, version, timeout=8)
                checks.ok("firmware answers ping",
                          "mode %s, capture %s" % (pong.get("mode"), pong.get("capture")))
            except BoardError as e:
                checks.bad("firmware answers ping", str(e))


def run(args):
    console = Console(highlight=False)
    checks = Checks(console)
    local_pins = local_checks(checks, args.pins)
    ports = pico_ports()
    for device, description in ports:
        checks.ok("Pico on %s" % device, description)
    try:
        drive = fl.find_drive()
        checks.note("BOOTSEL drive", "%s (%s): install MicroPython with courtside flash FILE.uf2"
                    % (drive, fl.drive_chip(drive)))
    except fl.FlashError:
        pass
    try:
        port = find_port(args.port)
    except BoardError as e:
        checks.bad("board", str(e))
        return 1
    try:
        board_checks(checks, port, local_pins, not args.no_ping)
    except BoardError as e:
        checks.bad("board on %s" % port, str(e))
    console.print("%s" % ("all in order" if not checks.problems else "%d problem(s)" % checks.problems))
    return 1 if checks.problems else 0

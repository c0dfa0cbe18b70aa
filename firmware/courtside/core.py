"""The core: time, capture snapshots and command lines in; effects out. No I/O.

The core owns everything that decides: the debouncer, the press timeline, the stage in
play (a lobby, Dodge Ball, a Deathball mode), the box lights and tunes, the settings and
the laptop's commands. A driver (the board's loop, the simulator, a replay, a test)
calls ``step`` whenever an input arrives or the time it asked for has come, and applies
the effects it finds in ``core.effects`` (``courtside.effects``), then empties the list:

    core = Core(pins, settings, rng, now=ticks, levels=levels, capture="irq")
    wait_ms = core.step(ticks, ring, lines)   # the first step says hello; core.idle: nothing due
    for effect in core.effects: ...           # apply, then: del core.effects[:]

``step`` returns one number, not a tuple, and reuses its lists, so a pass with nothing to
do allocates nothing.

A frame goes out as the matrix shows it, brightness and power cap applied by a finisher:
``courtside.power.finish``, or the one a board hands over with the same results
(``Core(..., finish=...)``; a Pico's is machine code, ``courtside.hw.native.finish``).
"""

from courtside import VERSION, events, lights, power, text
from courtside import settings as config
from courtside.clock import Timeline, add, diff
from courtside.debounce import LONG, PRESS, RELEASE, STUCK, Debouncer
from courtside.effects import EVENT, FRAME, SAVE
from courtside.lobby import Lobby
from courtside.pins import BUTTONS as NAMES
from courtside.stage import NEXT_MODE, Context

MODES = ("dodgeball", "referee", "die")
_LOBBY_FIRST = ("dodgeball", "referee")
_IDLE_MS = 1000   # the longest a pass waits: the watchdog (5 s) is fed every pass
SNAPSHOTS_PER_PASS = 8   # ring snapshots one pass takes (docs/firmware.md#the-loop-and-its-budget)
LINES_PER_PASS = 2        # command lines one pass carries out
LINE_MAX = 200
_GLITCH_US = 50000  # presses this close before a box fault belong to the fault
SAVE_REFUSED = ("save only between games (in a lobby): flash writes pause capture",
                "this unit has nowhere to save settings")   # the core's own refusals of a save
# The core's own commands, as a stage's (``courtside.stage.Stage.commands``): (verb, how
# it is written, words in the line or 0 for any), each carried out by ``_cmd_VERB``.
COMMANDS = (("ping", "ping", 1), ("help", "help", 1), ("mode", "mode dodgeball|referee|die", 0),
            ("new", "new", 1), ("set", "set name=value ...", 0), ("get", "get", 1),
            ("save", "save", 1), ("mem", "mem", 1))


BOARD_ONLY = ("mem",)    # commands only a board answers (a simulated board has no figures)


def usages(board=True):
    """Every command a laptop can send, as written: the core's, then the lobby's and each
    mode's (what ``help`` answers; the Deathball modes' are listed without loading them).
    ``board=False`` leaves out those only a board answers (for the simulator's screens)."""
    from courtside import deathball
    out = []
    for table in (COMMANDS, Lobby.commands, deathball.DIE_COMMANDS, deathball.REFEREE_COMMANDS):
        for entry in table:
            if entry[1] not in out and (board or entry[0] not in BOARD_ONLY):
                out.append(entry[1])
    return out


def _stage(mode, players_first):
    """A new stage for ``mode``: its lobby when ``players_first``, else the game. A game's
    modules are loaded by its lobby, one a pass, before they are needed (the die mode's
    in the pass that enters it), not at start-up: the start loads only what the lobby
    needs, so ``hello`` comes sooner."""
    if players_first:
        return Lobby(mode)
    if mode == "dodgeball":
        from courtside.dodgeball import DodgeBall
        return DodgeBall()
    if mode == "die":
        from courtside.deathball import diemode
        return diemode.DieMode()
    from courtside.deathball import modes
    return modes.RefereeMode()


class Core:
    def __init__(self, pins, settings, rng, now=0, levels=None, capture="sim", mode="dodgeball",
                 can_save=False, figures=None, finish=None):
        self.settings = dict(settings or config.DEFAULTS)
        self.boxes = pins.boxes
        self.main_id = pins.main_id
        self.capture = capture
        self.can_save = can_save
        self.figures = figures                  # the board's heap and stack figures (``mem``)
        self._finish = finish or power.finish   # a frame's brightness and power cap
        self.timeline = Timeline(now)
        if levels is None:
            levels = pins.button_mask           # every button open
        self.debouncer = Debouncer(pins.button_gpio, self.settings["debounce_ms"] * 1000,
                                   self.settings["stuck_ms"] * 1000, levels, now,
                                   pins.main_id, self.settings["long_ms"] * 1000)
        self.effects = []
        self.ctx = Context(self.settings, rng, self.boxes, self.timeline, self.effects, now)
        self.faulty = bytearray(self.boxes)     # 1 while a box shows a wiring fault
        self._closed = bytearray(self.boxes)    # buttons each box has closed (debounced)
        for i in range(4 * self.boxes):
            self._closed[i >> 2] += self.debouncer.down[i]
        self.long_done = False
        self.dropped = 0
        self.unsent = 0
        self.mode = mode
        self.stage = None
        self.started = False
        self.idle = False        # after a step: nothing is due until the next input
        self._shown = bytearray(192)            # the frame on the matrix
        self._scratch = bytearray(192)
        self._out = []                          # debouncer output, reused on every pass
        self._take = 0                          # snapshots this pass takes
        self._snap = [0, 0]                     # one ring entry, reused
        self._saving = ""                       # the save line waiting for its answer

    # the one entry point --------------------------------------------------------------

    def step(self, now, ring=None, lines=(), unsent=0):
        """One pass at tick ``now``: take the ring's snapshots and the laptop's lines,
        run what is due; returns the ms until the core next needs a pass (at the latest).
        ``unsent`` is the driver's count of event lines it could not send.

        A pass takes at most ``SNAPSHOTS_PER_PASS`` snapshots; while more wait, the
        pass's time is the stamp of the last one taken, so nothing is judged ahead of an
        input still in the ring. A snapshot stamped after ``now`` (it arrived while the
        pass began) moves the pass's time on to it: no event is stamped before its cause.
        """
        now = self._begin(now, ring)
        if self._take:
            self._snapshots(ring)
        if ring is not None and ring.dropped != self.dropped:
            self._overflow(ring.dropped)
        self.debouncer.poll(now, self._out)
        if self._out:
            self._edges(self._out)
        soonest = self._due(now)
        if unsent != self.unsent:
            self._unsent(unsent)
        if lines:
            self.idle = False
            self._lines(lines)
        if self._take and len(ring):
            soonest = 0           # snapshots left for the next pass
            self.idle = False
        self._frame()
        return soonest

    # Each part of a pass is a function of its own: a bytecode function whose locals and
    # value stack pass 11 machine words is given its frame on the heap at every call
    # (tests/test_frames.py reads each one's size from the compiled .mpy).

    def _begin(self, now, ring):
        """The pass's time (see ``step``), set on the context and the timeline."""
        self._take = 0
        if ring is not None and len(ring):
            now = self._pass_time(ring, now)
        self.ctx.now = now
        self.timeline.advance(now)
        if not self.started:
            self._hello()
        return now

    def _hello(self):
        self.started = True
        self._emit("hello", fw=VERSION, stream=events.STREAM, mode=self.mode,
                   capture=self.capture, boxes=self.boxes, settings=self.settings,
                   can_save=self.can_save)
        self.enter(self.mode)

    def _pass_time(self, ring, now):
        """The time this pass judges up to; sets how many snapshots it takes. While the
        stage works a part a pass on what it has decided (``Stage.hold``: a Dodge Ball
        contest judged, its verdict given), it takes none: they wait in the ring, and the
        pass's time goes no further than the stage says, short of the first, so nothing
        is judged ahead of them. Taken at once, each would first bring the rest out in its
        own pass (``catch_up``), which made that pass as long as the whole of it. A ring
        half full takes them at once all the same, so a storm never overflows it."""
        n = len(ring)
        if n <= ring.mask >> 1 and self.stage is not None:
            hold = self.stage.hold(ring.stamp(0))
            if hold is not None:
                return hold if diff(hold, now) < 0 else now
        if n > SNAPSHOTS_PER_PASS:
            self._take = SNAPSHOTS_PER_PASS
            return ring.stamp(SNAPSHOTS_PER_PASS - 1)
        self._take = n
        last = ring.stamp(n - 1)
        return last if diff(last, now) > 0 else now

    def _snapshots(self, ring):
        """Feed the snapshots ``_pass_time`` counted through the debouncer, in order (one
        function, not one a snapshot: each call nests deeper on the board's C stack)."""
        n = self._take
        snap = self._snap
        out = self._out
        while n:
            n -= 1
            ring.get(snap)
            self.debouncer.feed(snap[0], snap[1], out)
            if out:
                self._edges(out)

    def _overflow(self, dropped):
        self._emit("overflow", dropped=dropped, new=dropped - self.dropped)
        self.dropped = dropped

    def _unsent(self, unsent):
        """The laptop stopped reading for a while: say how long."""
        self._emit("unsent", lines=unsent - self.unsent, total=unsent)
        self.unsent = unsent

    def _lines(self, lines):
        """Carry out the laptop's lines (the driver hands at most LINES_PER_PASS)."""
        self._catch_up()
        for line in lines:
            self.command(line)

    def _catch_up(self):
        """Before an input is written to the stream, the stage brings what runs over
        passes (the deathballs' run, its animation) up to the input's time, so the input
        meets the game as a board whose passes came at once would, and the stream is the
        same however the passes fell."""
        self.stage.catch_up(self.ctx)
        self._settle()

    def _due(self, now):
        """Poll the stage, lights and tunes; returns the ms until the next pass is due
        and sets ``idle`` when nothing at all is (only the next input matters)."""
        soonest = _IDLE_MS
        idle = True
        due = self.stage.poll(self.ctx, now)
        self._settle()
        if due is not None:
            idle = False
            soonest = due if due < soonest else soonest
        due = self.ctx.lights.run(now)
        if due is not None:
            idle = False
            soonest = due if due < soonest else soonest
        due = self.ctx.tunes.step(now)
        if due is not None:
            idle = False
            soonest = due if due < soonest else soonest
        due = self.debouncer.wait_us(now)
        if due >= 0:
            idle = False
            due = (due + 999) // 1000    # rounded up: a pass that came early does nothing
            soonest = due if due < soonest else soonest
        self.idle = idle
        return soonest

    # stages -----------------------------------------------------------------------------

    def enter(self, mode):
        """Leave the current stage and start ``mode`` (from its lobby where it has one)."""
        ctx = self.ctx
        if self.stage is not None:
            self.stage.stop(ctx)
        self.mode = mode
        self._emit("mode", mode=mode)
        for box in range(self.boxes):
            ctx.lights.set(box, lights.OFF, ctx.now)
        self._start(_stage(mode, mode in _LOBBY_FIRST))

    def _start(self, stage):
        self.stage = stage
        stage.start(self.ctx)
        self._settle()

    def _settle(self):
        """Carry out what a stage asked for during its hook."""
        ctx = self.ctx
        if ctx.begin_game:
            ctx.begin_game = False
            self._emit("start", mode=self.mode, players=[p + 1 for p in ctx.players])
            ctx.tone("start")
            self._start(_stage(self.mode, False))

    def _emit(self, event, **fields):
        self.effects.append((EVENT, event, self.timeline.at(self.ctx.now), fields))

    def _frame(self):
        """The frame last asked for, scaled and capped, if it differs from the one shown."""
        frame = self.ctx.frame
        if frame is None:
            return
        self.ctx.frame = None
        scratch = self._scratch
        scratch[:] = frame
        self._finish(scratch, self.settings["brightness"])
        if scratch != self._shown:
            self._scratch, self._shown = self._shown, scratch
            self.effects.append((FRAME, scratch))

    # inputs -----------------------------------------------------------------------------

    def _edges(self, out):
        """Hand debounced edges on, in the order they happened: every one is recorded in
        the stream as an input (a press, a release), so a log can be replayed through the
        core. Edges with one stamp happened together (one snapshot): the box check looks
        at them as one."""
        ctx = self.ctx
        now = ctx.now
        i = 0
        while i < len(out):
            j = self._count(out, i)
            ctx.now = out[i][2]          # each input is judged at its own stamp
            self._catch_up()
            self._check(out, i, j)
            while i < j:
                self._edge(out[i])
                i += 1
        ctx.now = now
        out.clear()

    def _count(self, out, i):
        """Count the buttons each box has closed after the edges stamped as ``out[i]``;
        returns the index after them."""
        stamp = out[i][2]
        while i < len(out) and out[i][2] == stamp:
            self._closing(out[i][0], out[i][1])
            i += 1
        return i

    def _closing(self, kind, button):
        if button != self.main_id:
            if kind == PRESS:
                self._closed[button >> 2] += 1
            elif kind != STUCK:       # a release, or a stuck button let go
                self._closed[button >> 2] -= 1

    def _edge(self, edge):
        button = edge[1]
        if button == self.main_id:
            return self._main_edge(edge[0], edge[2])
        kind = edge[0]
        if kind == PRESS:
            return self._press(button, edge[2])
        fields = {"p": (button >> 2) + 1}
        if kind == RELEASE:
            fields["b"] = self.stage.buttons[button & 3]
            return self.ctx.emit_fields_at(edge[2], "release", fields)
        fields["b"] = NAMES[button & 3]
        if kind == STUCK:
            self.ctx.emit_fields_at(edge[2], "stuck", fields)
            self.ctx.light(button >> 2, lights.FAULT)
            return self.ctx.tone("fault")
        return self.ctx.emit_fields_at(edge[2], "unstuck", fields)

    def _press(self, button, stamp):
        box = button >> 2
        button &= 3
        stage = self.stage
        if self.faulty[box]:
            return self._button(stamp, "ignored", box, button)
        if not stage.records_presses:
            self._button(stamp, "button", box, button)
        stage.press(self.ctx, box, button, stamp)
        return self._settle()

    def _button(self, stamp, kind, box, button):
        """The line of a box button's press (``button``), or of one ``ignored``."""
        fields = {"p": box + 1, "b": self.stage.buttons[button]}
        if kind == "ignored":
            fields["why"] = "box fault"
        self.ctx.emit_fields_at(stamp, kind, fields)

    def _check(self, out, i, j):
        """Judge the box of each edge ``out[i:j]`` (see ``_check_box``)."""
        while i < j:
            button = out[i][1]
            if button != self.main_id:
                self._check_box(button >> 2, out[i][2])
            i += 1

    def _check_box(self, box, stamp):
        """Three or more buttons of one box closed at once is a cable being plugged or a
        short, not a play: report it and ignore the box until all its buttons are open.
        Judged at each instant an edge happened, from that instant's count, when at least
        two of its contacts are closed at that instant too (``_touching``)."""
        if self.faulty[box]:
            if not self._closed[box]:
                self.faulty[box] = 0
                self.ctx.emit_fields("fault", {"kind": "cleared", "p": box + 1})
        elif self._closed[box] >= 3 and self._touching(box) >= 2:
            self._fault(box, stamp)

    def _touching(self, box):
        """How many of the box's contacts are closed at this very instant (the raw levels,
        not the debounced state). Debouncing keeps a press down for ``debounce_ms`` however
        short the touch, so quick presses on one box in turn (a storm of taps) can add up to
        three debounced buttons at once while no two were ever touching together; a cable
        being plugged or a short closes several contacts at the same instant."""
        raw = self.debouncer.raw
        i = 4 * box
        return raw[i] + raw[i + 1] + raw[i + 2] + raw[i + 3]

    def _fault(self, box, stamp):
        ctx = self.ctx
        self.faulty[box] = 1
        ctx.emit_fields("fault", {"kind": "box", "p": box + 1, "closed": self._closed[box]})
        ctx.light(box, lights.FAULT)
        ctx.tone("fault")
        # the presses that led up to it were the same glitch
        self.stage.withdraw(ctx, box, add(stamp, -_GLITCH_US))

    def _main_edge(self, kind, stamp):
        if kind == PRESS:
            self.long_done = False
            return self._main_line(stamp, "button")
        if kind == RELEASE:
            self._main_line(stamp, "release")
            if not self.long_done:
                self.stage.main(self.ctx, stamp)
                self._settle()
            return None
        if kind == LONG:
            return self._long_press()
        return self._main_line(stamp, "stuck" if kind == STUCK else "unstuck")

    def _main_line(self, stamp, kind):
        self.ctx.emit_fields_at(stamp, kind, {"p": 0, "b": "MAIN"})

    def _long_press(self):
        """The main button held ``long_ms`` (judged at the moment it was, whenever the
        pass that sees it comes): the next mode, or a new game of this one."""
        self.long_done = True
        self.ctx.tone("mode")
        if self.stage.long_press == NEXT_MODE:
            self.enter(MODES[(MODES.index(self.mode) + 1) % len(MODES)])
        else:
            self.enter(self.mode)

    # commands from the laptop -----------------------------------------------------------

    def command(self, line):
        """One command line (already stripped of its line ending)."""
        if len(line) > LINE_MAX:
            self._emit("cmd", line=line[:LINE_MAX + 1])
            return self._error("command longer than %d characters" % LINE_MAX, line[:40] + "...")
        words = text.words(line)
        if not words:
            return None
        self._emit("cmd", line=line)
        problem = self._command(words, line)
        if problem is None:
            return None
        return self._error(problem, line)

    def _command(self, words, line):
        """Carry out a command (the core's own, else the stage's); returns why it was
        refused, or None (answered)."""
        verb = words[0]
        for entry in COMMANDS:
            if entry[0] == verb and (entry[2] == 0 or entry[2] == len(words)):
                return getattr(self, "_cmd_" + verb)(words, line)
        problem = self.stage.command(self.ctx, words)
        self._settle()
        if problem:
            return problem
        return self._emit("ok", cmd=verb)

    def _cmd_ping(self, words, line):
        return self._emit("pong", fw=VERSION, stream=events.STREAM, mode=self.mode, capture=self.capture)

    def _cmd_help(self, words, line):
        return self._emit("help", commands=usages())

    def _cmd_mode(self, words, line):
        if len(words) != 2 or words[1] not in MODES:
            return "mode needs one of: %s" % " ".join(MODES)
        self.enter(words[1])
        return self._emit("ok", cmd="mode")

    def _cmd_new(self, words, line):
        self.enter(self.mode)
        return self._emit("ok", cmd="new")

    def _cmd_set(self, words, line):
        try:
            new = config.merged(self.settings, config.parse(words[1:]))
        except ValueError as e:
            return str(e)
        self._apply(new)
        return self._emit("settings", **self.settings)

    def _cmd_get(self, words, line):
        return self._emit("settings", **self.settings)

    def _cmd_mem(self, words, line):
        """The board's heap and C stack, measured now (after a collection)."""
        if self.figures is None:
            return "this board has no heap or stack figures to give"
        return self._emit("mem", **self.figures())

    def _cmd_save(self, words, line):
        return self._save(line)

    def _save(self, line):
        """A save: refused, or handed to the driver, whose word on it (``saved``) is the
        answer."""
        if not self.stage.between_games:
            # A flash write turns interrupts off for milliseconds: never during play.
            return SAVE_REFUSED[0]
        if not self.can_save:
            return SAVE_REFUSED[1]
        self._saving = line
        self.effects.append((SAVE, dict(self.settings), self.saved))
        return None

    def saved(self, problem):
        """The driver's word on a ``SAVE`` effect: None when the settings were written,
        else why not. The ``save`` line's one answer, ``ok`` or ``error``, at the time of
        the pass that asked for it."""
        if problem is None:
            return self._emit("ok", cmd="save")
        return self._error(problem, self._saving)

    def _apply(self, new):
        self.settings = new
        self.ctx.settings = new
        self.debouncer.configure(new["debounce_ms"] * 1000, new["stuck_ms"] * 1000, new["long_ms"] * 1000)
        self.stage.configure(self.ctx, new)

    def _error(self, msg, line):
        self._emit("error", msg=msg, line=line)

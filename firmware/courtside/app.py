"""The application: one asyncio loop that turns captured edges into game events.

Each pass of the loop drains the capture ring through the debouncer, hands presses to
the current stage (a lobby, Dodge Ball, or a Deathball mode), closes what is due, steps
the box lights and the buzzer, answers laptop commands, and sleeps until the next edge
or the next thing that is due. The hardware layer (``courtside.hw``) owns the clock and
the sleeping, so the same loop runs on a Pico, in real time on a laptop, or in the
simulator's virtual time.

    app = App(hw, settings)
    asyncio.run(app.run())
"""

from courtside import STREAM, VERSION, display, events, lights, power, tones
from courtside import settings as config
from courtside.arbiter import NAMES
from courtside.clock import Timeline, add
from courtside.debounce import PRESS, RELEASE, STUCK, UNSTUCK, Debouncer
from courtside.dodgeball import DodgeBall
from courtside.fair import Fair
from courtside.lobby import Lobby

MODES = ("dodgeball", "referee", "die")
_LOBBY_FIRST = ("dodgeball", "referee")
_IDLE_MS = 100
_BUSY_MS = 5
_LINE_MAX = 200
_GLITCH_US = 50000  # presses this close before a box fault belong to the fault
HELP = ("ping", "mode dodgeball|referee|die", "new", "start", "join N", "set name=value ...",
        "get", "save", "help")


class App:
    def __init__(self, hw, settings=None, settings_path=None, mode="dodgeball"):
        self.hw = hw
        self.settings = dict(settings or config.DEFAULTS)
        self.settings_path = settings_path
        self.rng = Fair(hw.random_bytes)
        self.boxes = hw.pins.boxes
        self.main_id = hw.pins.main_id
        now = hw.ticks_us()
        self.now = now
        self.timeline = Timeline(now)
        self.t = 0
        self.debouncer = Debouncer(hw.pins.button_gpio, self.settings["debounce_ms"] * 1000,
                                   self.settings["stuck_ms"] * 1000, hw.levels(), now)
        self.lights = lights.Lights(hw, self.boxes)
        self.buzzer = tones.Player(hw)
        self.players = []
        self.faulty = bytearray(self.boxes)   # 1 while a box shows a wiring fault
        self.long_done = False
        self.dropped = hw.ring.dropped
        self.frame = None
        self.mode = mode
        self.stage = None
        self.running = True
        self.unsent = 0       # event lines the hardware could not send, as last reported
        self._out = []        # debouncer output, reused on every pass
        self._snap = [0, 0]   # one ring entry, reused

    # services for the stages ----------------------------------------------------------

    def ticks(self):
        return self.now

    def at(self, stamp):
        return self.timeline.at(stamp)

    def emit(self, event, **fields):
        self.hw.write_line(events.line(event, self.t, fields))

    def emit_at(self, t, event, **fields):
        self.hw.write_line(events.line(event, t, fields))

    def show(self, frame):
        frame = display.scale(bytearray(frame), self.settings["brightness"])
        power.limit(frame)
        if frame != self.frame:
            self.frame = frame
            self.hw.show(frame)

    def led(self, box, on):
        if box < self.boxes:
            self.lights.set(box, lights.ON if on else lights.OFF, self.now)

    def light(self, box, pattern):
        self.lights.set(box, pattern, self.now)

    def tone(self, name):
        if self.settings["sound"]:
            self.buzzer.play(name, self.now)

    # stages ---------------------------------------------------------------------------

    def enter(self, mode):
        """Leave the current stage and start ``mode`` (from its lobby where it has one)."""
        self._stop_stage()
        self.mode = mode
        self.emit("mode", mode=mode)
        for box in range(self.boxes):
            self.lights.set(box, lights.OFF, self.now)
        if mode in _LOBBY_FIRST:
            self._start(Lobby(self, mode))
        else:
            self._start(self._game(mode))

    def begin(self):
        """Called by the lobby: the game starts with ``self.players``."""
        self.emit("start", mode=self.mode, players=[p + 1 for p in self.players])
        self.tone("start")
        self._start(self._game(self.mode))

    def _game(self, mode):
        if mode == "dodgeball":
            return DodgeBall(self)
        from courtside.deathball import modes
        return modes.DieMode(self) if mode == "die" else modes.RefereeMode(self)

    def _start(self, stage):
        self.stage = stage
        stage.start()

    def _stop_stage(self):
        stop = getattr(self.stage, "stop", None)
        if stop:
            stop()

    # the loop -------------------------------------------------------------------------

    async def run(self):
        hw = self.hw
        self.emit("hello", fw=VERSION, stream=STREAM, mode=self.mode, capture=hw.capture.name,
                  boxes=self.boxes)
        self.enter(self.mode)
        wait_ms = 0
        while self.running:
            if not await hw.wait(wait_ms):
                break
            wait_ms = self.step()

    def step(self):
        """One pass of the loop; returns how long it may sleep (ms)."""
        hw = self.hw
        now = self.now = hw.ticks_us()
        self.t = self.timeline.now(now)
        out = self._out
        snap = self._snap
        ring = hw.ring
        while ring.get(snap):
            self.debouncer.feed(snap[0], snap[1], out)
            if out:
                self._edges(out)
                del out[:]
        if ring.dropped != self.dropped:
            self.emit("overflow", dropped=ring.dropped, new=ring.dropped - self.dropped)
            self.dropped = ring.dropped
        self.debouncer.poll(now, out)
        if out:
            self._edges(out)
            del out[:]
        self._long_press(now)
        soonest = _IDLE_MS
        for due in (self.stage.poll(now), self.lights.run(now), self.buzzer.step(now)):
            if due is not None and due < soonest:
                soonest = due
        if self.debouncer.busy() and soonest > _BUSY_MS:
            soonest = _BUSY_MS
        unsent = getattr(hw, "unsent", 0)
        if unsent != self.unsent:  # the laptop stopped reading for a while: say how long
            lost = unsent - self.unsent
            self.unsent = unsent
            self.emit("unsent", lines=lost, total=unsent)
        line = hw.read_line()
        while line is not None:
            self.command(line)
            line = hw.read_line()
        hw.service(now)
        return soonest

    def _edges(self, out):
        self._check_boxes()
        for kind, button, stamp in out:
            if button == self.main_id:
                self._main_edge(kind, stamp)
                continue
            box, k = divmod(button, 4)
            if kind == PRESS:
                if not self.faulty[box]:
                    self.stage.press(box, k, stamp)
            elif kind == STUCK:
                self.emit("stuck", p=box + 1, b=NAMES[k])
                self.light(box, lights.FAULT)
                self.tone("fault")
            elif kind == UNSTUCK:
                self.emit("unstuck", p=box + 1, b=NAMES[k])

    def _check_boxes(self):
        """Three or more buttons of one box closed at once is a cable being plugged or a
        short, not a play: report it and ignore the box until all its buttons are open."""
        down = self.debouncer.down
        for box in range(self.boxes):
            closed = down[4 * box] + down[4 * box + 1] + down[4 * box + 2] + down[4 * box + 3]
            if self.faulty[box]:
                if not closed:
                    self.faulty[box] = 0
                    self.emit("fault", kind="cleared", p=box + 1)
            elif closed >= 3:
                self.faulty[box] = 1
                self.emit("fault", kind="box", p=box + 1, closed=closed)
                self.light(box, lights.FAULT)
                self.tone("fault")
                withdraw = getattr(self.stage, "withdraw", None)
                if withdraw:  # the presses that led up to it were the same glitch
                    withdraw(box, add(self.now, -_GLITCH_US))

    def _main_edge(self, kind, stamp):
        if kind == PRESS:
            self.long_done = False
        elif kind == RELEASE and not self.long_done:
            self.stage.main(stamp)
        elif kind == STUCK:
            self.emit("stuck", p=0, b="MAIN")
        elif kind == UNSTUCK:
            self.emit("unstuck", p=0, b="MAIN")

    def _long_press(self, now):
        held = self.debouncer.held_us(self.main_id, now)
        if self.long_done or held < self.settings["long_ms"] * 1000:
            return
        self.long_done = True
        self.tone("mode")
        if isinstance(self.stage, Lobby):  # in a lobby a long press picks the next mode
            self.enter(MODES[(MODES.index(self.mode) + 1) % len(MODES)])
        else:                              # in a game it starts a new one
            self.enter(self.mode)

    # commands from the laptop ---------------------------------------------------------

    def command(self, line):
        if len(line) > _LINE_MAX:
            return self.error("command longer than %d characters" % _LINE_MAX, line[:40] + "...")
        words = line.split()
        if not words:
            return None
        verb = words[0]
        if verb == "ping" and len(words) == 1:
            return self.emit("pong", fw=VERSION, stream=STREAM, mode=self.mode,
                             capture=self.hw.capture.name)
        if verb == "help":
            return self.emit("help", commands=list(HELP))
        if verb == "mode":
            if len(words) != 2 or words[1] not in MODES:
                return self.error("mode needs one of: %s" % " ".join(MODES), line)
            self.enter(words[1])
            return self.ok(verb)
        if verb == "new" and len(words) == 1:
            self.enter(self.mode)
            return self.ok(verb)
        if verb == "set":
            try:
                new = config.merged(self.settings, config.parse(words[1:]))
            except ValueError as e:
                return self.error(str(e), line)
            self._apply(new)
            return self.emit("settings", **self.settings)
        if verb == "get" and len(words) == 1:
            return self.emit("settings", **self.settings)
        if verb == "save" and len(words) == 1:
            return self._save(line)
        handler = getattr(self.stage, "command", None)
        problem = handler(words) if handler else "unknown command"
        if problem:
            return self.error(problem, line)
        return self.ok(verb)

    def _apply(self, new):
        self.settings = new
        self.debouncer.debounce_us = new["debounce_ms"] * 1000
        self.debouncer.stuck_us = new["stuck_ms"] * 1000
        configure = getattr(self.stage, "configure", None)
        if configure:
            configure(new)

    def _save(self, line):
        if not isinstance(self.stage, Lobby) and self.mode != "die":
            # A flash write turns interrupts off for milliseconds: never during play.
            return self.error("save only between games (in a lobby): flash writes pause capture",
                              line)
        if not self.settings_path:
            return self.error("this unit has nowhere to save settings", line)
        import json
        with open(self.settings_path, "w") as f:
            json.dump(self.settings, f)
        return self.ok("save")

    def ok(self, verb):
        self.emit("ok", cmd=verb)

    def error(self, msg, line):
        self.emit("error", msg=msg, line=line)

"""A test driver for the core: the firmware's own ``Core``, stepped as the board's loop
steps it, with a clock the test moves and buttons the test presses. It runs on CPython
and on the MicroPython unix port.

Nothing is faked: presses go into a real capture ring as level snapshots, through the
debouncer, to the stage; the rig only collects the effects (``courtside.effects``) the
core returns, in a form tests can read:

    rig = Rig("referee", players=(0, 1))    # through the lobby, as players would
    rig.press(0, UP); rig.main(); rig.settle()
    rig.events[-1], rig.frames[-1], rig.leds[0], rig.tones[-1], rig.stage.game

``events`` holds what the stage and core decided, as (kind, fields); the records of
inputs and of command answers (``cmd``, ``button``, ``release``, ``ok``, ``error``) are kept apart in
``inputs``, so a test reads the game without them. ``tones`` names each tune started.
"""

from courtside import clock, display, power
from courtside import settings as config
from courtside.core import Core
from courtside.effects import EVENT, FRAME, LED, SAVE, TONE
from courtside.fair import Fair, seeded
from courtside.ring import Ring
from courtside.run import load_pins


def _here():
    path = __file__ if "/" in __file__ else "./" + __file__
    return path.rsplit("/", 1)[0]


PINS = load_pins(_here() + "/../hardware/pinmap.json")
T0 = clock.wrap(123456)
INPUT_KINDS = ("cmd", "button", "release", "ok", "error")
PRESS_MS = 30            # a press is held this long, then the rig waits as long again


class Rig:
    def __init__(self, mode="dodgeball", players=None, seed=1, settings=None, pins=PINS):
        base = dict(config.DEFAULTS, brightness=255)
        base.update(settings or {})
        self.pins = pins
        self.now = T0
        self.ring = Ring(256)
        self.level = pins.button_mask
        self.core = Core(pins, base, Fair(seeded(seed)), now=T0, levels=self.level, capture="test",
                         mode=mode)
        self.events, self.inputs, self.frames, self.tones, self.saved = [], [], [], [], []
        self.times = []          # (kind, t) of every event, inputs too
        self.leds = {}
        self.step()
        if players is not None:
            for box in players:
                self.cmd("join %d" % (box + 1))
            assert self.cmd("start") is None
        self.clear()

    @property
    def stage(self):
        return self.core.stage

    def clear(self):
        del self.events[:], self.inputs[:], self.frames[:], self.tones[:], self.times[:]

    # driving --------------------------------------------------------------------------

    def step(self, lines=()):
        """One pass now; returns the ms the core may sleep."""
        wait = self.core.step(self.now, self.ring, list(lines))
        for effect in self.core.effects:
            kind = effect[0]
            if kind == EVENT:
                self.times.append((effect[1], effect[2]))
                (self.inputs if effect[1] in INPUT_KINDS else self.events).append((effect[1], effect[3]))
            elif kind == FRAME:
                self.frames.append(bytes(effect[1]))
            elif kind == LED:
                self.leds[effect[1]] = effect[2]
            elif kind == TONE and effect[3]:
                self.tones.append(effect[3])
            elif kind == SAVE:
                self.saved.append(effect[1])
                effect[2](None)          # written: the core answers ok
        del self.core.effects[:]
        return wait

    def advance(self, ms):
        """Let ``ms`` pass, with a pass whenever the core asked for one."""
        left = ms
        while left > 0:
            wait = max(1, min(self.step(), left))
            self.now = clock.add(self.now, wait * 1000)
            left -= wait
        self.step()

    def edge(self, button, closed):
        bit = 1 << self.pins.button_gpio[button]
        self.level = self.level & ~bit if closed else self.level | bit
        self.ring.put(self.now, self.level)
        self.step()

    def press(self, box, button):
        """A clean press of one box button: closed, held, open, and a pause."""
        bid = 4 * box + button
        self.edge(bid, True)
        self.advance(PRESS_MS)
        self.edge(bid, False)
        self.advance(PRESS_MS)

    def chord(self, pairs, gap_us=0):
        """Several box buttons closed ``gap_us`` apart (0: in one snapshot, as one
        interrupt sees them), then all opened."""
        for i, (box, button) in enumerate(pairs):
            bid = 4 * box + button
            bit = 1 << self.pins.button_gpio[bid]
            self.level &= ~bit
            self.ring.put(clock.add(self.now, i * gap_us), self.level)
        self.advance(PRESS_MS)
        for box, button in pairs:
            self.edge(4 * box + button, False)
        self.advance(PRESS_MS)

    def main(self, hold_ms=PRESS_MS):
        """The main-unit button; it acts on its release."""
        self.edge(self.pins.main_id, True)
        self.advance(hold_ms)
        self.edge(self.pins.main_id, False)

    def cmd(self, line):
        """A laptop command; returns the core's error message, or None."""
        count = len(self.inputs)
        self.step([line])
        for kind, fields in self.inputs[count:]:
            if kind == "error":
                return fields["msg"]
        return None

    def settle(self, limit_ms=600000):
        """Step as asked until the stage has nothing left to animate; returns the ms of
        clock that passed (0 when it was already still)."""
        spent = 0
        while spent < limit_ms:
            wait = self.step()
            stage = self.stage
            busy = getattr(stage, "queue", None) or getattr(stage, "roll", None) is not None \
                or getattr(stage, "until", None) is not None
            if not busy:
                return spent
            wait = max(1, wait)
            self.now = clock.add(self.now, wait * 1000)
            spent += wait
        raise AssertionError("the stage never settled")

    def shown(self, frame):
        """``frame`` as the core puts it on the matrix: scaled and within the power cap."""
        out = bytearray(frame)
        display.scale(out, self.core.settings["brightness"])
        power.limit(out)
        return bytes(out)

    def kinds(self):
        return [k for k, _ in self.events]

    def play_referee(self, after_move=None, most=1000):
        """A refereed game played to its end from the lobby: each box takes its set-up
        square, then each turn plays one of its legal moves, picked by the move count;
        ``after_move()`` runs after each. Returns the number of moves."""
        from courtside.deathball import engine
        self.main()
        self.settle()
        g = self.stage.game
        while g.phase == engine.SETUP:
            self.press(g.turn, 0)
        moves = 0
        while g.phase == engine.PLAY and moves < most:
            legal = g.legal_moves(g.turn)
            a, b = legal[(moves * 5) % len(legal)]
            box = g.turn
            self.press(box, a)
            self.press(box, b)
            self.settle()
            if after_move is not None:
                after_move()
            moves += 1
        return moves

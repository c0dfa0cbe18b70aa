"""Stages and what they may touch: the lobby and every game mode are a ``Stage``.

A stage is the part of the firmware that knows one game: it is handed each input with a
``Context`` and answers by asking the context for events, a frame, box lights and tunes.
It never sees the core, the hardware or another stage, and it has one clock: the tick
stamps (``courtside.clock``) of the presses and of the current pass.

    class Quiet(Stage):
        name = "quiet"
        def press(self, ctx, box, button, stamp):
            ctx.emit_at(stamp, "join", p=box + 1)

What the context collects are effects (``courtside.effects``) that a driver applies.
"""

from courtside import lights, tones
from courtside.effects import EVENT
from courtside.pins import BUTTONS as NAMES

# What a long press of the main-unit button does in a stage.
NEXT_MODE = 0    # the next mode
RESTART = 1      # a new game of this mode


class Stage:
    """The lobby or a game mode. Every hook is optional; the defaults do nothing."""

    name = ""
    between_games = False     # settings may be saved (a flash write pauses capture)
    long_press = RESTART
    records_presses = False   # True: the stage logs each box press itself (Dodge Ball)
    buttons = NAMES           # what the four buttons are called in this stage
    # The laptop commands the stage takes: (verb, how it is written, words in the line, or
    # 0 for any number), each carried out by the method ``_cmd_VERB(ctx, words)``. ``help``
    # lists them (``courtside.core.usages``).
    commands: tuple = ()
    where = ""                # " in the lobby": where an unknown command was given

    def start(self, ctx):
        """The stage is entered."""

    def stop(self, ctx):
        """The stage is left (a mode change, a new game)."""

    def press(self, ctx, box, button, stamp):
        """A box button's first edge, at tick ``stamp``."""

    def main(self, ctx, stamp):
        """A short press of the main-unit button, released at tick ``stamp``."""

    def poll(self, ctx, now):
        """Every pass; returns ms until the stage next needs a pass, or None."""
        return None

    def hold(self, first):
        """None, or the tick a pass may go up to while an input stamped ``first`` waits
        in the ring: a stage that works a part a pass on what it has decided (a Dodge
        Ball contest judged, its verdict given) has the core leave new inputs there
        until it is done, rather than bring it all to its end as each is taken."""
        return None

    def catch_up(self, ctx):
        """An input is about to be handled at ``ctx.now``: bring whatever runs over passes
        (the deathballs' run and its animation) up to that time first, so the stream does
        not depend on how the passes fell."""

    def command(self, ctx, words):
        """A laptop command the core did not take; returns why it was refused, or None."""
        verb = words[0]
        for entry in self.commands:
            if entry[0] == verb and (entry[2] == 0 or entry[2] == len(words)):
                return getattr(self, "_cmd_" + verb)(ctx, words)
        return self.unknown(words)

    def unknown(self, words):
        return "unknown command%s: %s" % (self.where, " ".join(words))

    def configure(self, ctx, settings):
        """Settings changed (already checked and applied to ``ctx.settings``)."""

    def withdraw(self, ctx, box, since):
        """``box`` turned out to be faulty: take back its presses from tick ``since`` on."""


class Context:
    """What the core lends a stage: the game's facts and the means to answer.

    ``now`` is the tick of the current pass (while the core hands on an input, the
    input's own stamp); ``players`` the boxes in the game (set by
    the lobby); ``settings`` the settings in force. A stage asks for a game to begin
    with ``begin()``; the core starts it once the stage's hook has returned.
    """

    def __init__(self, settings, rng, boxes, timeline, effects, now):
        self.settings = settings
        self.rng = rng
        self.boxes = boxes
        self.players = []
        self.now = now
        self.effects = effects
        self.frame = None                # the frame the stage last asked for
        # False where no matrix shows the frames (a replay): stages then draw nothing and
        # let animations that decide nothing run without a pass for each picture.
        self.seen = True
        self.begin_game = False
        self._timeline = timeline
        self.lights = lights.Lights(effects, boxes, now)
        self.tunes = tones.Tunes(effects)

    def emit(self, event, **fields):
        """An event decided now: at the pass's tick, or while an input is handled, at
        that input's stamp (the core sets ``now`` to it), so the stream does not depend
        on when the pass came."""
        self.effects.append((EVENT, event, self._timeline.at(self.now), fields))

    def emit_at(self, stamp, event, **fields):
        """An event that happened at tick ``stamp`` (a press), not at this pass."""
        self.effects.append((EVENT, event, self._timeline.at(stamp), fields))

    # The same with the fields in a dict the caller built: a call with many keyword
    # arguments needs as many value-stack words again, and a frame over 11 words goes on
    # the heap at every call.
    def emit_fields(self, event, fields):
        self.effects.append((EVENT, event, self._timeline.at(self.now), fields))

    def emit_fields_at(self, stamp, event, fields):
        self.effects.append((EVENT, event, self._timeline.at(stamp), fields))

    def show(self, frame):
        """Put ``frame`` on the matrix at the end of this pass (the last one asked wins)."""
        self.frame = frame

    def led(self, box, on):
        if box < self.boxes:
            self.lights.set(box, lights.ON if on else lights.OFF, self.now)

    def light(self, box, pattern):
        self.lights.set(box, pattern, self.now)

    def tone(self, name):
        if self.settings["sound"]:
            self.tunes.play(name, self.now)

    def begin(self):
        """The lobby is done: start the game with ``players``."""
        self.begin_game = True

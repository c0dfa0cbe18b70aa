"""The bounce die alone: ROLL rolls a fair d6, tumbles it, shows the face, then the arrow
the ball bounces along.

A stage (``courtside.stage``) like the referee, and small on purpose: the die mode has no
lobby in which to load modules one a pass, so everything it needs is loaded in the pass
that enters it. That is this module and ``die``; the matrix's drawing (``view``) loads
in a pass of its own, the next one, and a replay, which draws nothing, never loads it.

    mode = DieMode(); mode.start(ctx); mode.main(ctx, stamp)    # ROLL
"""

from courtside.deathball import DIE_COMMANDS
from courtside.deathball.die import Dice, Roll
from courtside.pins import ARROWS
from courtside.stage import NEXT_MODE, Stage

_VIEW: list = []    # courtside.deathball.view, once a pass has loaded it


def _view():
    if not _VIEW:
        from courtside.deathball import view
        _VIEW.append(view)
    return _VIEW[0]


class DieMode(Stage):
    """ROLL rolls a fair d6: tumble, face, then the bounce arrow for that face."""

    name = "die"
    between_games = True
    long_press = NEXT_MODE   # no lobby to come back to: a long press goes on to the next mode
    buttons = ARROWS
    commands = DIE_COMMANDS
    where = " for the die"

    def __init__(self):
        self.dice = None
        self.roll = None
        self.corner = False
        self.frame = bytearray(192)
        self.last = None  # (part, face) drawn last
        self.drawn = 0    # 0: entered this pass; 1: the view loads in this one; 2: loaded

    def start(self, ctx):
        if self.dice is None:
            self.dice = Dice(ctx.rng)
        self.roll = None
        self.last = None
        self.drawn = 0

    def press(self, ctx, player, button, stamp):
        pass  # the die listens to the ROLL button only

    def main(self, ctx, stamp):
        if self.roll is not None and self.roll.at(ctx.now)[0] == "tumble":
            return  # a roll in the air is not rolled again
        rolled = self.dice.roll()
        ctx.emit_fields("roll", {"purpose": "die", "face": rolled[0], "forced": rolled[1]})
        self.roll = Roll(rolled[0], ctx.now, ctx.rng, pace=ctx.settings["pace"])
        self.last = None

    def poll(self, ctx, now):
        if self.drawn < 2 and ctx.seen:
            return self._first(ctx)
        if self.roll is None:
            return None
        part, face, wait = self.roll.at(now)
        if not ctx.seen:
            return self._unseen(now, part)
        if part != "done" and (part, face) != self.last:
            self.last = (part, face)
            self._picture(ctx, part, face)
        if part == "done":
            self.roll = None  # the arrow stays on the matrix until the next roll
            return None
        return wait

    def _first(self, ctx):
        """The passes after the mode starts: the next one loads the drawing, the one
        after draws (the die waiting, or the roll already under way)."""
        self.drawn += 1
        if self.drawn == 1:
            return 0            # the drawing loads in the next pass, not this one
        view = _view()
        if self.roll is not None:
            return 0            # a roll already under way is drawn from the next pass
        view.face(self.frame, 6, (40, 40, 40))
        ctx.show(self.frame)
        return None

    def _picture(self, ctx, part, face):
        view = _view()
        if part == "tumble":
            view.face(self.frame, face, (90, 90, 90))
            ctx.tone("tick")
        elif part == "face":
            view.face(self.frame, face, (160, 160, 160))
            ctx.tone("roll")
        elif self.corner:
            view.corner_arrow(self.frame, face)
        else:
            view.wall_arrow(self.frame, face)
        ctx.show(self.frame)

    def _unseen(self, now, part):
        """Nobody watches: no pass for each picture, one at the end of the roll."""
        if part == "done":
            self.roll = None
            return None
        return self.roll.left(now, self.roll.arrow_end)

    def _cmd_dice(self, ctx, words):
        return self.dice.force_words(words[1:])

    def _cmd_die(self, ctx, words):
        if words[1] not in ("corner", "wall"):
            return self.unknown(words)
        self.corner = words[1] == "corner"
        return None

    def _cmd_roll(self, ctx, words):
        self.main(ctx, ctx.now)

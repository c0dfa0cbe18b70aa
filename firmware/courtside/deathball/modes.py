"""The two Deathball modes of the app: the bounce die alone, and the full referee.

Both are driven by the app (see the contract in docs/deathball.md): ``press`` for a box
button's first edge, ``main`` for the ROLL button, ``poll(now)`` on every main-loop pass
(returns the ms until the mode next needs a poll), and ``command(words)`` for laptop lines.
Nothing here sleeps: every animation is a ``die.Roll`` or a timed pause read from the
clock the app passes in, so presses are captured while the matrix moves.

    mode = RefereeMode(app); mode.start(); mode.main(stamp)   # ROLL: initiative
"""

from courtside import clock
from courtside.deathball import engine, notation, rules, view
from courtside.deathball.die import Dice, Roll
from courtside.deathball.track import Shown

try:
    from micropython import const
except ImportError:
    def const(x):
        return x

_BLINK_MS = const(350)
_BARS_MS = const(2500)
_STEP_MS = const(260)
_DEATH_MS = const(700)
_SHRINK_MS = const(900)
_HEADING_MS = const(1000)


def _faces(words):
    faces = []
    for w in words:
        if not w.isdigit() or not 1 <= int(w) <= 6:
            return None
        faces.append(int(w))
    return faces


class DieMode:
    """ROLL rolls a fair d6: tumble, face, then the bounce arrow for that face."""

    name = "die"

    def __init__(self, app):
        self.app = app
        self.dice = Dice(app.rng)
        self.roll = None
        self.corner = False
        self.frame = bytearray(192)
        self.last = None  # (stage, face) drawn last

    def start(self):
        self.roll = None
        self.last = None
        view.face(self.frame, 6, (40, 40, 40))
        self.app.show(self.frame)

    def press(self, player, button, stamp):
        pass  # the die listens to the ROLL button only

    def main(self, stamp):
        if self.roll is not None:
            stage = self.roll.at(self.app.ticks())[0]
            if stage == "tumble":
                return  # a roll in the air is not rolled again
        face, forced = self.dice.roll()
        self.app.emit("roll", purpose="die", face=face, forced=forced)
        self.roll = Roll(face, self.app.ticks(), self.app.rng)
        self.last = None

    def poll(self, now):
        if self.roll is None:
            return None
        stage, face, wait = self.roll.at(now)
        if stage != "done" and (stage, face) != self.last:
            self.last = (stage, face)
            if stage == "tumble":
                view.face(self.frame, face, (90, 90, 90))
                self.app.tone("tick")
            elif stage == "face":
                view.face(self.frame, face, (160, 160, 160))
                self.app.tone("roll")
            elif self.corner:
                view.corner_arrow(self.frame, face)
            else:
                view.wall_arrow(self.frame, face)
            self.app.show(self.frame)
        if stage == "done":
            self.roll = None  # the arrow stays on the matrix until the next roll
            return None
        return wait

    def command(self, words):
        if words[0] == "dice":
            faces = _faces(words[1:])
            if not faces:
                return "dice wants faces 1 to 6"
            self.dice.force(faces)
            return None
        if words[0] == "die" and len(words) == 2 and words[1] in ("corner", "wall"):
            self.corner = words[1] == "corner"
            return None
        if words == ["roll"]:
            self.main(self.app.ticks())
            return None
        return "unknown command for the die: %s" % " ".join(words)


class RefereeMode:
    """Holds a whole game: initiative, set-up, moves on the box buttons, the deathballs'
    run shown step by step, deaths, the shrinking board and the winner."""

    name = "referee"

    def __init__(self, app):
        self.app = app
        self.dice = Dice(app.rng)
        self.frame = bytearray(192)
        self.game = None

    # -- life cycle --------------------------------------------------------------------

    def start(self):
        self.game = engine.Game(self.app.players, self.dice)
        self.shown = Shown()
        self.shown.order = list(self.game.order)
        self.pending = None      # first arrow of a half-entered move
        self.cursor = 0          # set-up: index into the free set-up squares
        self.queue = []          # events still to show on the matrix
        self.until = None        # tick when the current pause ends
        self.roll = None         # die animation of a bounce being shown
        self.bounce = None       # that bounce's fields
        self.rolls = []          # initiative rolls for the bars
        self.blink_on = True
        self.blink_at = self.app.ticks()
        self.app.emit("referee", players=[b + 1 for b in self.game.players])
        self._leds()
        self._draw()

    def _leds(self):
        g = self.game
        turn = g.turn if not self.queue else None
        if g.phase == engine.OVER:
            turn = g.winner
        for box in self.game.players:
            self.app.led(box, box == turn)

    # -- inputs ------------------------------------------------------------------------

    def main(self, stamp):
        g = self.game
        if self.queue or self.roll is not None:
            self._skip()
            return
        if g.phase == engine.INITIATIVE:
            g.initiative()
            self._take()
        elif g.phase == engine.OVER:
            self.start()

    def press(self, player, button, stamp):
        self._enter(player, button)

    def _refuse(self, player, why, arrows=None):
        self.app.tone("refuse")
        self.app.emit("refuse", p=player + 1, reason=why, arrows=arrows)
        return why

    def _enter(self, player, button):
        """One arrow from a box; returns None or why it was refused."""
        g = self.game
        if self.queue or self.roll is not None:
            running = self.roll is not None or [1 for k, _ in self.queue if k == "ball"]
            return self._refuse(player, "wait for the deathballs" if running else "wait for the rolls")
        if g.phase == engine.SETUP:
            if player != g.turn:
                return self._refuse(player, "not your turn")
            free = g.free_setup_squares()
            if button == 2:
                self.cursor = (self.cursor - 1) % len(free)
            elif button == 3:
                self.cursor = (self.cursor + 1) % len(free)
            else:
                g.setup(player, free[self.cursor % len(free)])
                self.cursor = 0
                self._take()
                return None
            self.app.tone("tick")
            self._draw()
            return None
        if g.phase != engine.PLAY:
            return self._refuse(player, "no move now")
        if player != g.turn:
            return self._refuse(player, "not your turn")
        if self.pending is None:
            if not g.can_start(player, button):
                return self._refuse(player, "no legal move starts that way",
                                    [rules.ARROW_NAMES[button]])
            self.pending = button
            self.app.tone("tick")
            self._draw()
            return None
        first = self.pending
        if button == rules.OPPOSITE[first]:
            self.pending = None
            self.app.emit("undo", p=player + 1, arrows=[rules.ARROW_NAMES[first]])
            self.app.tone("tick")
            self._draw()
            return None
        why = g.move(player, first, button)
        if why is not None:
            return self._refuse(player, why, [rules.ARROW_NAMES[first], rules.ARROW_NAMES[button]])
        self.pending = None
        self._take()
        return None

    # -- events to the stream and to the matrix --------------------------------------------

    def _take(self):
        """Send the engine's new events out at once; queue them for the matrix."""
        for kind, fields in self.game.drain():
            self.app.emit(kind, **fields)
            self.queue.append((kind, fields))
        self.until = None
        self._advance(self.app.ticks())

    def _skip(self):
        """ROLL during the run: show the end of it now."""
        self.roll = None
        if self.bounce is not None:
            self.shown.apply("bounce", self.bounce)
            self.bounce = None
        for kind, fields in self.queue:
            self.shown.apply(kind, fields)
        self.queue = []
        self.until = None
        self._leds()
        self._draw()

    def _advance(self, now):
        """Apply queued events until one needs time on the matrix; returns ms to wait."""
        while self.queue:
            kind, f = self.queue[0]
            if kind == "bounce":
                self.queue.pop(0)
                self.bounce = f
                self.roll = Roll(f["face"], now, self.app.rng, fast=True, arrow=False)
                self.app.tone("roll")
                self._leds()  # nobody's turn while the deathballs run
                return 1
            self.queue.pop(0)
            self.shown.apply(kind, f)
            pause = 0
            if kind == "ball":
                if self.queue and self.queue[0][0] == "ball" and self.queue[0][1]["step"] == f["step"]:
                    continue
                pause = _STEP_MS
            elif kind == "death":
                self.app.tone("death")
                pause = _DEATH_MS
            elif kind == "shrink":
                pause = _SHRINK_MS
            elif kind == "order":
                self.rolls = []
            elif kind == "roll" and f["purpose"] == "initiative":
                box = f["p"] - 1
                self.rolls = [r for r in self.rolls if r[0] != box] + [(box, f["face"])]
                if not self.queue or self.queue[0][0] != "roll":
                    view.bars(self.frame, self.rolls)
                    self.app.show(self.frame)
                    self.until = clock.add(now, _BARS_MS * 1000)
                    return _BARS_MS
                continue
            elif kind == "turn":
                self.app.tone("turn")
            elif kind == "winner":
                self.app.tone("win")
            if pause:
                self._leds()
                self._draw()
                self.until = clock.add(now, pause * 1000)
                return pause
        self._leds()
        self._draw()
        return None

    def poll(self, now):
        if self.roll is not None:
            stage, face, wait = self.roll.at(now)
            ball = self.bounce["ball"] - 1
            if stage in ("tumble", "face"):
                view.face(self.frame, face, view.BALL_COLOURS[ball])
                self.app.show(self.frame)
                return wait
            self.roll = None
            self.shown.apply("bounce", self.bounce)
            s = self.shown
            view.board(self.frame, s.where, s.balls, s.headings, s.ring)
            view.trail(self.frame, s.balls[ball], s.headings[ball], view.BALL_COLOURS[ball])
            self.app.show(self.frame)
            self.bounce = None
            self.until = clock.add(now, _HEADING_MS * 1000)
            return _HEADING_MS
        if self.until is not None:
            left = clock.diff(self.until, now) // 1000
            if left > 0:
                return left
            self.until = None
            if self.queue:
                return self._advance(now)
            self._leds()
            self._draw()
        if self.queue:
            return self._advance(now)
        # Blink the player to move (or the set-up cursor).
        if self.game.phase in (engine.PLAY, engine.SETUP, engine.OVER):
            if clock.diff(now, self.blink_at) >= _BLINK_MS * 1000:
                self.blink_at = now
                self.blink_on = not self.blink_on
                self._draw()
            return _BLINK_MS
        return None

    def _draw(self):
        g = self.game
        s = self.shown
        f = self.frame
        if g.phase == engine.INITIATIVE:
            view.clear(f)
            for box in g.players:  # who is in the game, waiting for ROLL
                view.pixel(f, box * 2, 7, view.PLAYER_COLOURS[box])
                view.pixel(f, box * 2 + 1, 7, view.PLAYER_COLOURS[box])
        elif g.phase == engine.SETUP and not self.queue:
            view.board(f, s.where, s.balls, s.headings, s.ring)
            colour = view.PLAYER_COLOURS[g.turn]
            free = g.free_setup_squares()
            for i in range(len(free)):
                if i == self.cursor % len(free):
                    view.square(f, free[i], colour if self.blink_on else view.dim(colour, 2))
                else:
                    view.square(f, free[i], view.dim(colour, 4))
        elif s.over and not self.queue:
            # The winner's figure blinks; with no winner the board just stays.
            view.board(f, s.where, s.balls, s.headings, s.ring, s.winner, self.blink_on)
        else:
            pending = None
            if self.pending is not None and s.turn in s.where:
                step = rules.ARROWS[self.pending]
                sq = s.where[s.turn]
                pending = ((sq >> 3) + step[1]) * 8 + (sq & 7) + step[0]
            view.board(f, s.where, s.balls, s.headings, s.ring, s.turn, self.blink_on, pending)
        self.app.show(f)

    # -- laptop commands ---------------------------------------------------------------

    def command(self, words):
        g = self.game
        verb = words[0]
        if verb == "dice":
            faces = _faces(words[1:])
            if not faces:
                return "dice wants faces 1 to 6"
            self.dice.force(faces)
            return None
        if verb == "roll":
            self.main(self.app.ticks())
            return None
        if verb == "state":
            self.app.emit("position", text=g.position(), phase=g.phase)
            return None
        if verb == "position":
            text = " ".join(words[1:])
            try:
                notation.parse(text)
            except (ValueError, IndexError) as e:
                return "bad position: %s" % e
            fresh = engine.Game(self.app.players, self.dice)
            why = fresh.load(text)
            if why is not None:
                return why
            self.game = fresh
            self.shown = Shown.from_position(text)
            self.pending = None
            self.queue = []
            self.roll = None
            self.bounce = None
            self.until = None
            self.app.emit("position", text=text, phase=fresh.phase)
            self._take()
            return None
        if verb == "setup" and len(words) == 3:
            if g.phase != engine.SETUP:
                return "not set-up"
            try:
                box = int(words[1]) - 1
                sq = notation.square_of(words[2])
            except ValueError as e:
                return str(e)
            why = g.setup(box, sq)
            if why is not None:
                return why
            self.cursor = 0
            self._take()
            return None
        if verb == "move" and len(words) == 4:
            if words[2] not in rules.ARROW_NAMES or words[3] not in rules.ARROW_NAMES:
                return "arrows are up, down, left, right"
            if not words[1].isdigit():
                return "move <player> <arrow> <arrow>"
            box = int(words[1]) - 1
            if g.phase != engine.PLAY or box != g.turn:
                return "not %s's turn" % words[1]
            first = rules.ARROW_NAMES.index(words[2])
            second = rules.ARROW_NAMES.index(words[3])
            why = g.move(box, first, second)
            if why is not None:
                return why
            if self.queue or self.roll is not None:
                # The matrix was still showing the deathballs: catch it up first.
                held = g.drain()
                self._skip()
                g.events = held
            self.pending = None
            self._take()
            return None
        return "unknown command for the referee: %s" % " ".join(words)

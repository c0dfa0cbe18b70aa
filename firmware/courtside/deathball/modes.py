"""The Deathball referee (the bounce die alone is ``diemode``).

Both modes are stages (``courtside.stage``) driven by the core: ``press`` for a box button's
first edge, ``main`` for the ROLL button, ``poll`` on every pass (returns the ms until the
mode next needs one), and ``command`` for laptop lines. Nothing here sleeps: every
animation is a ``die.Roll`` or a timed pause read from the tick the core passes in, so
presses are captured while the matrix moves.

    mode = RefereeMode(); mode.start(ctx); mode.main(ctx, stamp)   # ROLL: initiative
"""

from micropython import const

from courtside import clock, events
from courtside.deathball import REFEREE_COMMANDS, engine, notation, rules, view
from courtside.deathball.die import Dice, Roll
from courtside.deathball.track import Shown
from courtside.pins import ARROWS
from courtside.settings import scaled
from courtside.stage import Stage
from courtside.text import whole

# How long the matrix holds each picture at pace 100 (public: a laptop's face follows the
# same schedule, courtside_follow.pace); the ``pace`` setting scales all of them (``_ms``)
# but the blink: the blink holds nothing back (presses are taken while it
# runs), and it says whose turn it is, which a flicker four times as fast or a crawl four
# times as slow would say less clearly.
_BLINK_MS = const(350)
BARS_MS = const(2500)
STEP_MS = const(260)
DEATH_MS = const(700)
SHRINK_MS = const(900)
HEADING_MS = const(1000)
_CATCH_UP_STEPS = const(64)   # animation steps one input may catch up (a run has ~30)
_TUNE_OF = {"turn": "turn", "winner": "win"}   # the tune an event plays when the matrix shows it
# Why the matrix holds presses back (the ``hold`` event), by the event it is showing; and
# what a press refused meanwhile is told. Once the run is shown a hold stays "run".
HOLD_WHY = {"roll": "rolls", "bounce": "run", "ball": "run", "death": "move", "shrink": "move"}
WAIT_FOR = {"rolls": "wait for the rolls", "run": "wait for the deathballs",
            "move": "wait for the move to be shown"}

# Words a refereed game writes as values again and again, kept ready-quoted by the
# encoder (``events.words``), as the square names are (``notation``).
events.words(*rules.ARROW_NAMES, *HOLD_WHY.values(), "wall", "corner", engine.SETUP, engine.PLAY,
             engine.INITIATIVE)


class RefereeMode(Stage):
    """Holds a whole game: initiative, set-up, moves on the box buttons, the deathballs'
    run shown step by step, deaths, the shrinking board and the winner."""

    name = "referee"
    buttons = ARROWS
    commands = REFEREE_COMMANDS
    where = " for the referee"
    # False where nobody watches the matrix (a replay): the player to move does not blink,
    # so a game waiting for a move asks for no pass until its next input.
    seen = True

    def __init__(self):
        self.dice = None
        self.frame = bytearray(192)
        self.game = None

    # -- life cycle --------------------------------------------------------------------

    def start(self, ctx):
        if self.dice is None:
            self.dice = Dice(ctx.rng)
        self.game = engine.Game(ctx.players, self.dice, stepwise=True)
        self.run_tick = ctx.now  # when the round whose deathballs are running ended
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
        self.blink_at = ctx.now
        self.held = None         # why presses are held back (HOLD_WHY), None: they are taken
        ctx.emit("referee", players=[b + 1 for b in self.game.players])
        self._leds(ctx)
        self._draw(ctx)

    def _leds(self, ctx):
        """The LED of the box to move (or of the winner) lit, the others dark."""
        g = self.game
        turn = g.winner if g.phase == engine.OVER else None if self.queue else g.turn
        players = g.players
        i = 0
        while i < len(players):
            ctx.led(players[i], players[i] == turn)
            i += 1

    # -- inputs ------------------------------------------------------------------------

    def main(self, ctx, stamp):
        self._finish_run(ctx)
        g = self.game
        if self.queue or self.roll is not None:
            self._skip(ctx)
            return
        if g.phase == engine.INITIATIVE:
            g.initiative()
            self._take(ctx)
        elif g.phase == engine.OVER:
            self.start(ctx)

    def press(self, ctx, player, button, stamp):
        self._finish_run(ctx)
        self._enter(ctx, player, button)

    def _refuse(self, ctx, player, why, arrows=None):
        ctx.tone("refuse")
        ctx.emit("refuse", p=player + 1, reason=why, arrows=arrows)
        return why

    def _enter(self, ctx, player, button):
        """One arrow from a box; returns None or why it was refused."""
        g = self.game
        if self.queue or self.roll is not None:
            return self._refuse(ctx, player, WAIT_FOR[self.held or "run"])
        if g.phase not in (engine.SETUP, engine.PLAY):
            return self._refuse(ctx, player, "no move now")
        if player != g.turn:
            return self._refuse(ctx, player, "not your turn")
        if g.phase == engine.SETUP:
            self._setup_arrow(ctx, player, button)
            return None
        return self._move_arrow(ctx, player, button)

    def _setup_arrow(self, ctx, player, button):
        """LEFT and RIGHT move the set-up cursor; UP or DOWN places the figure there."""
        free = self.game.free_setup_squares()
        if button in (2, 3):
            self.cursor = (self.cursor + (1 if button == 3 else -1)) % len(free)
            ctx.emit("cursor", p=player + 1, square=notation.square_name(free[self.cursor]))
            ctx.tone("tick")
            self._draw(ctx)
            return
        self.game.setup(player, free[self.cursor % len(free)])
        self.cursor = 0
        self._take(ctx)

    def _move_arrow(self, ctx, player, button):
        """The first arrow of a move waits for the second; the opposite arrow undoes it."""
        g = self.game
        first = self.pending
        if first is None:
            if not g.can_start(player, button):
                return self._refuse(ctx, player, "no legal move starts that way",
                                    [rules.ARROW_NAMES[button]])
            self.pending = button
            ctx.emit("pending", p=player + 1, arrows=[rules.ARROW_NAMES[button]])
        elif button == rules.OPPOSITE[first]:
            self.pending = None
            ctx.emit("undo", p=player + 1, arrows=[rules.ARROW_NAMES[first]])
        else:
            why = g.move(player, first, button)
            if why is not None:
                return self._refuse(ctx, player, why, [rules.ARROW_NAMES[first], rules.ARROW_NAMES[button]])
            self.pending = None
            self._take(ctx)
            return None
        ctx.tone("tick")
        self._draw(ctx)
        return None

    # -- events to the stream and to the matrix --------------------------------------------

    def _take(self, ctx):
        """Send the engine's new events out at once; queue them for the matrix."""
        for kind, fields in self.game.drain():
            ctx.emit(kind, **fields)
            self.queue.append((kind, fields))
        if self.game.running:
            self.run_tick = ctx.now
        self.until = None
        self._advance(ctx, ctx.now)

    def _run_step(self, ctx):
        """One step of the deathballs' run, computed in this pass: its events go out with
        the time the round ended (when the run was decided) and join the matrix's queue.
        A pass does one step, never the whole run (docs/firmware.md#per-pass-budget)."""
        idle = not self.queue and self.roll is None and self.until is None
        self.game.run_step()
        events = self.game.drain()
        i = 0
        while i < len(events):
            self._queue_run_event(ctx, events[i])
            i += 1
        if idle and self.queue:
            self._advance(ctx, self.run_tick)   # the animation starts when the round ended

    def _queue_run_event(self, ctx, event):
        ctx.emit_fields_at(self.run_tick, event[0], event[1])
        self.queue.append(event)

    def _finish_run(self, ctx):
        """An input while the run is still being computed: finish it first, so the input
        meets the game as the run leaves it."""
        while self.game.running:
            self._run_step(ctx)

    def catch_up(self, ctx):
        """Finish the run's computation, then play its animation on to ``ctx.now``: an
        input finds the matrix's queue where a board with no slow pass would have it."""
        self._finish_run(ctx)
        for _ in range(_CATCH_UP_STEPS):
            if self.poll(ctx, ctx.now) != 0:
                return

    def _skip(self, ctx):
        """ROLL during the run: show the end of it now."""
        self.roll = None
        if self.bounce is not None:
            self.shown.apply("bounce", self.bounce)
            self.bounce = None
        for kind, fields in self.queue:
            self.shown.apply(kind, fields)
        self.queue = []
        self.until = None
        self._ready(ctx, ctx.now)
        self._leds(ctx)
        self._draw(ctx)

    def _advance(self, ctx, now):
        """Apply queued events until one needs time on the matrix; returns ms to wait.
        ``now`` is when the last pause ended (the schedule, not the pass)."""
        while self.queue:
            event = self.queue.pop(0)
            wait = self._next(ctx, now, event)
            if wait:
                self._held(ctx, now, event[0])
                return wait
        self._ready(ctx, now)
        self._leds(ctx)
        self._draw(ctx)
        return None

    def _held(self, ctx, now, kind):
        """The matrix holds the board from ``now``: presses are refused while it has events
        still to show (a pause after the last of them holds nothing back)."""
        self._hold(ctx, now, kind)
        if not self.queue and self.roll is None and not self.game.running:
            self._ready(ctx, now)

    def _hold(self, ctx, now, kind):
        """The ``hold`` event: presses held back from ``now`` on the matrix's schedule, and
        why (what ``kind`` of event the matrix shows); again when the reason changes (a
        death shown, then the run)."""
        why = HOLD_WHY.get(kind, "run")
        held = self.held
        if held is None or held not in (why, "run"):
            self.held = why
            ctx.emit_fields_at(now, "hold", {"why": why})

    def _ready(self, ctx, at):
        """The board takes presses again from tick ``at`` (the matrix's schedule, not the
        pass): the ``ready`` event, once after each time presses were held back."""
        if self.held is not None:
            self.held = None
            ctx.emit_fields_at(at, "ready", {"p": self._taking()})

    def _taking(self):
        """The player whose presses the board takes (1 to 4), or None: nobody's."""
        g = self.game
        if g.turn is None or g.phase not in (engine.SETUP, engine.PLAY):
            return None
        return g.turn + 1

    def _next(self, ctx, now, event):
        """Apply one queued event; returns the ms it holds the matrix (0: none)."""
        kind = event[0]
        if kind == "bounce":
            return self._bounce(ctx, now, event[1])
        self.shown.apply(kind, event[1])
        if kind == "roll":
            return self._initiative_roll(ctx, now, event[1])
        if kind == "ball":
            if self.queue and self.queue[0][0] == "ball" and self.queue[0][1]["step"] == event[1]["step"]:
                return 0              # both balls' step shown as one
            return self._pause(ctx, now, self._ms(ctx, STEP_MS))
        if kind == "death":
            ctx.tone("death")
            return self._pause(ctx, now, self._ms(ctx, DEATH_MS))
        if kind == "shrink":
            return self._pause(ctx, now, self._ms(ctx, SHRINK_MS))
        if kind == "order":
            self.rolls = []
        elif kind in _TUNE_OF and event[1].get("phase") != "setup":
            ctx.tone(_TUNE_OF[kind])
        return 0

    def _bounce(self, ctx, now, fields):
        self.bounce = fields
        self.roll = Roll(fields["face"], now, ctx.rng, True, False, ctx.settings["pace"])   # fast, no arrow
        ctx.tone("roll")
        self._leds(ctx)  # nobody's turn while the deathballs run
        return 1

    def _initiative_roll(self, ctx, now, fields):
        if fields["purpose"] != "initiative":
            return 0
        box = fields["p"] - 1
        self.rolls = [r for r in self.rolls if r[0] != box] + [(box, fields["face"])]
        if self.queue and self.queue[0][0] == "roll":
            return 0                  # the bars show once every roll is in
        if ctx.seen:
            view.bars(self.frame, self.rolls)
            ctx.show(self.frame)
        ms = self._ms(ctx, BARS_MS)
        self.until = clock.add(now, ms * 1000)
        return ms

    def _ms(self, ctx, ms):
        """``ms`` of the matrix's time at the ``pace`` setting."""
        return scaled(ms, ctx.settings["pace"])

    def _pause(self, ctx, now, ms):
        self._leds(ctx)
        self._draw(ctx)
        self.until = clock.add(now, ms * 1000)
        return ms

    def poll(self, ctx, now):
        if self.game.running:
            if ctx.seen:
                self._run_step(ctx)
            else:
                self._finish_run(ctx)   # no pass to keep short where no board waits on it
            if self.game.running:
                return 0            # the next step in the very next pass
        if self.roll is not None:
            return self._rolling(ctx, now)
        if self.until is not None:
            left = clock.diff(self.until, now) // 1000
            if left > 0:
                return left
            return self._paused(ctx, now)
        if self.queue:
            return self._advance(ctx, now)
        return self._blink(ctx, now)

    def _rolling(self, ctx, now):
        """A bounce's die in the air, then its new heading."""
        shown = self.roll.at(now)
        if shown[0] in ("tumble", "face"):
            if not ctx.seen:        # no pass for each picture: one when the heading comes
                return self.roll.left(now, self.roll.face_end)
            view.face(self.frame, shown[1], view.BALL_COLOURS[self.bounce["ball"] - 1])
            ctx.show(self.frame)
            return shown[2]
        self._heading(ctx)
        # timed from when the roll ended, not from this pass: a late pass does not
        # stretch the animation, so an input finds it where a prompt board would
        heading = self._ms(ctx, HEADING_MS)
        self.until = clock.add(self.roll.start, (self.roll.arrow_end + heading) * 1000)
        self.roll = None
        return heading

    def _heading(self, ctx):
        ball = self.bounce["ball"] - 1
        self.shown.apply("bounce", self.bounce)
        self.bounce = None
        if ctx.seen:
            s = self.shown
            view.board(self.frame, s)
            view.trail(self.frame, s.balls[ball], s.headings[ball], view.BALL_COLOURS[ball])
            ctx.show(self.frame)

    def _paused(self, ctx, now):
        ended = self.until
        self.until = None
        if self.queue:
            return self._advance(ctx, ended)
        self._leds(ctx)
        self._draw(ctx)
        return self._blink(ctx, now)

    def _blink(self, ctx, now):
        """Blink the player to move (or the set-up cursor, or the winner)."""
        if not self.seen or self.game.phase not in (engine.PLAY, engine.SETUP, engine.OVER):
            return None
        if clock.diff(now, self.blink_at) >= _BLINK_MS * 1000:
            self.blink_at = now
            self.blink_on = not self.blink_on
            self._draw(ctx)
        return _BLINK_MS

    def _draw(self, ctx):
        if not ctx.seen:
            return
        g = self.game
        if g.phase == engine.INITIATIVE:
            self._waiting_for_roll()
        elif g.phase == engine.SETUP and not self.queue:
            self._setup_board()
        elif self.shown.over and not self.queue:
            # The winner's figure blinks; with no winner the board just stays.
            view.board(self.frame, self.shown, self.shown.winner, self.blink_on)
        else:
            view.board(self.frame, self.shown, self.shown.turn, self.blink_on, self._pending_square())
        ctx.show(self.frame)

    def _waiting_for_roll(self):
        """Who is in the game, waiting for ROLL: two pixels each on the bottom row."""
        view.clear(self.frame)
        players = self.game.players
        i = 0
        while i < len(players):
            view.pixel(self.frame, players[i] * 2, 7, view.PLAYER_COLOURS[players[i]])
            view.pixel(self.frame, players[i] * 2 + 1, 7, view.PLAYER_COLOURS[players[i]])
            i += 1

    def _setup_board(self):
        """The free set-up squares dim in the colour of who sets up, the cursor bright."""
        free = self.game.free_setup_squares()
        view.setup(self.frame, self.shown, free, self.cursor % len(free),
                   view.PLAYER_COLOURS[self.game.turn], self.blink_on)

    def _pending_square(self):
        """The square the first arrow of a half-entered move reaches (None: none)."""
        s = self.shown
        if self.pending is None or s.turn not in s.where:
            return None
        step = rules.ARROWS[self.pending]
        sq = s.where[s.turn]
        return ((sq >> 3) + step[1]) * 8 + (sq & 7) + step[0]

    # -- laptop commands ---------------------------------------------------------------

    def command(self, ctx, words):
        self._finish_run(ctx)
        return Stage.command(self, ctx, words)

    def _cmd_dice(self, ctx, words):
        return self.dice.force_words(words[1:])

    def _cmd_roll(self, ctx, words):
        self.main(ctx, ctx.now)

    def _cmd_state(self, ctx, words):
        ctx.emit("position", text=self.game.position(), phase=self.game.phase)

    def _cmd_position(self, ctx, words):
        text = " ".join(words[1:])
        try:
            notation.parse(text)
        except (ValueError, IndexError) as e:
            return "bad position: %s" % e
        fresh = engine.Game(ctx.players, self.dice, stepwise=True)
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
        self._ready(ctx, ctx.now)
        ctx.emit("position", text=text, phase=fresh.phase)
        self._take(ctx)
        return None

    def _cmd_setup(self, ctx, words):
        if self.game.phase != engine.SETUP:
            return "not set-up"
        box = whole(words[1])
        if box is None:
            return "setup <player> <square>"
        try:
            sq = notation.square_of(words[2])
        except ValueError as e:
            return str(e)
        why = self.game.setup(box - 1, sq)
        if why is not None:
            return why
        self.cursor = 0
        self._take(ctx)
        return None

    def _cmd_move(self, ctx, words):
        g = self.game
        if words[2] not in rules.ARROW_NAMES or words[3] not in rules.ARROW_NAMES:
            return "arrows are up, down, left, right"
        box = whole(words[1])
        if box is None or box < 0:
            return "move <player> <arrow> <arrow>"
        if g.phase != engine.PLAY or box - 1 != g.turn:
            return "not %s's turn" % words[1]
        why = g.move(box - 1, rules.ARROW_NAMES.index(words[2]), rules.ARROW_NAMES.index(words[3]))
        if why is not None:
            return why
        if self.queue or self.roll is not None:
            # The matrix was still showing the deathballs: catch it up first.
            held = g.drain()
            self._skip(ctx)
            g.events = held
        self.pending = None
        self._take(ctx)
        return None

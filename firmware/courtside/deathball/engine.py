"""A whole game of Deathball: initiative, set-up, moves and pushes, the deathballs' run,
deaths and the shrinking board, the winner.

The engine is pure: it changes only itself, takes its randomness from the ``dice`` it is
given (``courtside.deathball.die.Dice``) and records what happened as events in
``game.events`` (a list of ``(kind, fields)``; the caller drains it). Every reading of the
design text comes from ``rules``.

    game = Game([0, 1, 2, 3], Dice(Fair(os.urandom)))
    game.initiative()                    # rolls until one highest; sets game.order
    game.setup(game.turn, 3)             # Player One (a box index) on d1, ...
    game.move(game.turn, UP, LEFT)       # None, or why the move is refused
"""

from courtside.deathball import notation, rules

INITIATIVE = "initiative"
SETUP = "setup"
PLAY = "play"
OVER = "over"

_ARROWS = rules.ARROWS
_OPPOSITE = rules.OPPOSITE


def _on(square, step, lo, hi):
    """The square one ``step`` from ``square``, or -1 if that is off the board."""
    x = (square & 7) + step[0]
    y = (square >> 3) + step[1]
    if x < lo or x > hi or y < lo or y > hi:
        return -1
    return y * 8 + x


class Game:
    """One game. ``stepwise`` (the referee on a board): the deathballs' run at the end of a
    round is not computed at once but one step of both balls per ``run_step()``, so no
    pass of the main loop does the whole run; ``running`` is true until it is done. Without
    it (analysis, tests) a move returns with the run, the shrinking and the next turn done.
    """

    def __init__(self, players, dice, stepwise=False):
        if len(players) < 2 or len(players) > 4:
            raise ValueError("Deathball needs 2 to 4 players")
        self.players = sorted(players)
        self.dice = dice
        self.order = list(self.players)
        self.where = {}                    # living, placed players: box -> square
        self.occupant = [-1] * 64          # square -> box, or -1
        self.dead = []                     # boxes in the order they died
        self.balls = list(rules.BALL_STARTS)
        self.headings = [rules.BALL_START_HEADING, rules.BALL_START_HEADING]
        self.border = 0
        self.phase = INITIATIVE
        self.turn = None
        self.round = 0
        self.winner = None
        self.events = []
        self._placed = 0
        self.stepwise = stepwise
        self.running = 0                   # the deathballs' next step (1..6), 0 between runs

    # -- the record -------------------------------------------------------------------

    def _emit(self, kind, **fields):
        self.events.append((kind, fields))

    def drain(self):
        out = self.events
        self.events = []
        return out

    def position(self):
        return notation.write(self.order, self.where, self.balls, self.headings, self.border,
                              self.turn, self.round, self.dead)

    def alive(self):
        return [b for b in self.order if b not in self.dead]

    # -- initiative and set-up --------------------------------------------------------

    def initiative(self):
        """Everyone rolls; a tie for the highest rolls again among the tied."""
        if self.phase != INITIATIVE:
            return "not the initiative roll"
        rolling = list(self.players)
        while True:
            rolls = []
            for box in rolling:
                face, forced = self.dice.roll()
                rolls.append(face)
                self._emit("roll", purpose="initiative", p=box + 1, face=face, forced=forced)
            best = max(rolls)
            top = [rolling[i] for i in range(len(rolling)) if rolls[i] == best]
            if len(top) == 1:
                break
            self._emit("initiative", tied=[b + 1 for b in top], face=best)
            rolling = top
        self.order = rules.turn_order(self.players, top[0])
        self._emit("order", order=[b + 1 for b in self.order])
        self.phase = SETUP
        self._setup_turn(self.order[0])
        return None

    def _setup_turn(self, box):
        """``box`` is to set up (a ``turn`` of the set-up, round 0)."""
        self.turn = box
        self._emit("turn", p=box + 1, round=self.round, phase="setup")

    def free_setup_squares(self):
        return [sq for sq in rules.SETUP_SQUARES if self.occupant[sq] < 0]

    def setup(self, box, square):
        """The player to set up places the figure on a free centre square of row 1."""
        if self.phase != SETUP:
            return "not set-up"
        if box != self.turn:
            return "not your turn"
        if square not in rules.SETUP_SQUARES:
            return "set up on c1, d1, e1 or f1"
        if self.occupant[square] >= 0:
            return "square taken"
        self._put(box, square)
        self._emit("setup", p=box + 1, square=notation.square_name(square))
        self._placed += 1
        if self._placed < len(self.order):
            self._setup_turn(self.order[self._placed])
            return None
        self.phase = PLAY
        self.round = 1
        self.turn = None
        self._next_turn(-1)
        return None

    def load(self, text):
        """Start from a position (see ``notation``); the game goes on from there."""
        p = notation.parse(text)
        if sorted(p["order"]) != self.players:
            return "the position's players are not the joined players"
        self.order = p["order"]
        self.where = {}
        self.occupant = [-1] * 64
        for box in p["where"]:
            self._put(box, p["where"][box])
        self.dead = list(p["dead"])
        self.balls = p["balls"]
        self.headings = p["headings"]
        self.border = p["border"]
        self.round = p["round"]
        self.winner = None
        self.turn = None
        alive = self.alive()
        if len(alive) <= 1:
            self.phase = OVER
            self.winner = alive[0] if alive else None
            return None
        self.phase = PLAY
        turn = p["turn"] if p["turn"] is not None else alive[0]
        self._next_turn(self.order.index(turn) - 1)
        return None

    # -- players' moves -----------------------------------------------------------------

    def _put(self, box, square):
        self.where[box] = square
        self.occupant[square] = box

    def _kill(self, box, cause, by=None, ball=None):
        square = self.where.pop(box)
        self.occupant[square] = -1
        self.dead.append(box)
        fields = {"p": box + 1, "square": notation.square_name(square), "cause": cause}
        if by is not None:
            fields["by"] = by + 1
        if ball is not None:
            fields["ball"] = ball + 1
        self._emit("death", **fields)

    def _step(self, box, arrow, record):
        """One step with its pushes; returns why it is illegal, or None. Changes nothing
        when illegal. ``record`` False skips events (used to test legality)."""
        lo, hi = rules.border_bounds(self.border)
        step = _ARROWS[arrow]
        start = self.where[box]
        target = _on(start, step, lo, hi)
        if target < 0:
            return "off the board"
        chain, sq = self._chain(target, step, lo, hi)
        if sq < 0:
            return "push off the board"
        # Move the far end of the chain first; sq is the free square it goes to.
        occupant = self.occupant
        for i in range(len(chain) - 1, -1, -1):
            here = chain[i]
            pushed = occupant[here]
            occupant[here] = -1
            self.where[pushed] = sq
            occupant[sq] = pushed
            if record:
                self._emit("push", p=pushed + 1, by=box + 1, start=notation.square_name(here),
                           end=notation.square_name(sq))
            if sq in self.balls:
                if record:
                    self._kill(pushed, "pushed", box)
                else:
                    self.where.pop(pushed)
                    occupant[sq] = -1
                    self.dead.append(pushed)
            sq = here
        occupant[start] = -1
        self.where[box] = target
        occupant[target] = box
        if target in self.balls:
            if record:
                self._kill(box, "entered")
            else:
                self.where.pop(box)
                occupant[target] = -1
                self.dead.append(box)
        return None

    def _chain(self, sq, step, lo, hi):
        """The occupied squares in a row from ``sq`` along ``step``, and the first free
        square after them (-1 when the row runs off the board first)."""
        chain = []
        while sq >= 0 and self.occupant[sq] >= 0:
            chain.append(sq)
            sq = _on(sq, step, lo, hi)
        return chain, sq

    def _save(self):
        return (dict(self.where), list(self.occupant), len(self.dead), len(self.events))

    def _restore(self, saved):
        where, occupant, ndead, nevents = saved
        self.where = dict(where)
        self.occupant = list(occupant)
        del self.dead[ndead:]
        del self.events[nevents:]

    def _try(self, box, first, second, record):
        if second == _OPPOSITE[first]:
            return "ends where it started"
        why = self._step(box, first, record)
        if why is None and rules.second_step(box in self.where, len(self.order) - len(self.dead)):
            why = self._step(box, second, record)
        return why

    def can_start(self, box, first):
        """True if some legal move of ``box`` begins with the arrow ``first``."""
        saved = self._save()
        ok = self._step(box, first, False) is None
        self._restore(saved)
        if not ok:
            return False
        for second in range(4):
            if second != _OPPOSITE[first]:
                ok = self._try(box, first, second, False) is None
                self._restore(saved)
                if ok:
                    return True
        return False

    def legal_moves(self, box):
        """All (first, second) arrow pairs that are legal for ``box`` now."""
        out = []
        for first in range(4):
            for second in range(4):
                if second == _OPPOSITE[first]:
                    continue
                saved = self._save()
                if self._try(box, first, second, False) is None:
                    out.append((first, second))
                self._restore(saved)
        return out

    def preview(self, box, first, second):
        """(legal, the mover's end square or None if it dies, others killed) for a move,
        changing nothing."""
        saved = self._save()
        ndead = len(self.dead)
        legal = self._try(box, first, second, False) is None
        end = self.where.get(box)
        killed = len(self.dead) - ndead - (end is None)
        self._restore(saved)
        return legal, end, killed

    def move(self, box, first, second):
        """The player whose turn it is moves by two arrows (0..3 = up, down, left, right).
        Returns None, or why the move is refused (and then nothing has changed)."""
        if self.phase != PLAY:
            return "no move now"
        if box != self.turn:
            return "not your turn"
        start = self.where[box]
        saved = self._save()
        ndead = len(self.dead)
        self._emit("move", p=box + 1, start=notation.square_name(start),
                   arrows=[rules.ARROW_NAMES[first], rules.ARROW_NAMES[second]])
        why = self._try(box, first, second, True)
        if why is not None:
            self._restore(saved)
            return why
        end = self.where.get(box)
        self.events[saved[3]][1]["end"] = notation.square_name(end) if end is not None else None
        if self._ended(ndead):
            return None
        self._next_turn(self.order.index(box))
        return None

    def _has_move(self, box):
        for first in range(4):
            if self.can_start(box, first):
                return True
        return False

    def _next_turn(self, after):
        """Hand the turn to the next living player after order index ``after``; at the end
        of a round the deathballs move and the board shrinks. Players with no legal move
        skip."""
        while self.phase == PLAY:
            i = after + 1
            while i < len(self.order) and self.order[i] in self.dead:
                i += 1
            if i >= len(self.order):
                self.turn = None
                self.running = 1
                if self.stepwise:
                    return                 # run_step() carries on, pass by pass
                while self.running:
                    self._run_one()
                if self.phase != PLAY:
                    return
                self.round += 1
                after = -1
                continue
            box = self.order[i]
            self.turn = box
            if self._has_move(box):
                self._emit("turn", p=box + 1, round=self.round, phase="play")
                return
            self._emit("skip", p=box + 1, round=self.round)
            after = i

    # -- the deathballs, deaths and shrinking ----------------------------------------------

    def run_step(self):
        """One step of the deathballs' run (both balls; the last step also shrinks the board
        and hands on the turn). Returns True while more steps are to come."""
        if self.running:
            self._run_one()
            if not self.running and self.phase == PLAY:
                self.round += 1
                self._next_turn(-1)        # which may start the next round's run
        return bool(self.running)

    def _run_one(self):
        """One step of both balls; after the last, the board shrinks."""
        step = self.running
        ndead = len(self.dead)
        self._ball_step(step)
        if self._ended(ndead):
            self.running = 0
            return
        if step < rules.BALL_STEPS:
            self.running = step + 1
            return
        self.running = 0
        self._shrink()

    def _ball_step(self, step):
        lo, hi = rules.border_bounds(self.border)
        for ball in range(2):
            square = self.balls[ball]
            heading = self.headings[ball]
            if _on(square, heading, lo, hi) < 0:
                face, forced = self.dice.roll()
                template, new = rules.bounce(face, square, self.border, heading)
                self._emit("bounce", ball=ball + 1, square=notation.square_name(square),
                           template=template, face=face, forced=forced,
                           incoming=notation.heading_name(heading),
                           heading=notation.heading_name(new))
                heading = new
                self.headings[ball] = new
            nxt = _on(square, heading, lo, hi)
            self.balls[ball] = nxt
            self._emit("ball", ball=ball + 1, step=step, start=notation.square_name(square),
                       end=notation.square_name(nxt), heading=notation.heading_name(heading))
        for ball in range(2):
            box = self.occupant[self.balls[ball]]
            if box >= 0:
                self._kill(box, "ball", ball=ball)

    def _shrink(self):
        while self.border < rules.border_after(len(self.dead)):
            ndead = len(self.dead)
            self.border += 1
            lo, hi = rules.border_bounds(self.border)
            self._emit("shrink", border=self.border, size=rules.BORDERS[self.border],
                       corners=[notation.square_name(lo * 9), notation.square_name(hi * 9)])
            for ball in range(2):
                square = self.balls[ball]
                to = rules.clamp(square, self.border)
                if to != square:
                    self.balls[ball] = to
                    self._emit("clamp", ball=ball + 1, start=notation.square_name(square),
                               end=notation.square_name(to))
                    box = self.occupant[to]
                    if box >= 0:
                        self._kill(box, "ball", ball=ball)
            for box in rules.clamp_order(self.order):
                if box not in self.where:
                    continue
                square = self.where[box]
                to = rules.clamp(square, self.border)
                if to != square:
                    self._clamp_player(box, square, to, lo, hi)
            if self._ended(ndead):
                return

    def _clamp_player(self, box, square, to, lo, hi):
        dx = (to & 7) - (square & 7)
        dy = (to >> 3) - (square >> 3)
        step = ((dx > 0) - (dx < 0), (dy > 0) - (dy < 0))
        chain, sq = self._chain(to, step, lo, hi)
        # A chain inward cannot reach the far side with four players on a 4x4 board or
        # larger; if it ever did, the far end stays put and so does everyone behind it.
        if sq < 0:
            return
        self._emit("clamp", p=box + 1, start=notation.square_name(square),
                   end=notation.square_name(to))
        for i in range(len(chain) - 1, -1, -1):
            here = chain[i]
            pushed = self.occupant[here]
            self.occupant[here] = -1
            self._put(pushed, sq)
            self._emit("push", p=pushed + 1, by=box + 1, start=notation.square_name(here),
                       end=notation.square_name(sq))
            if sq in self.balls:
                self._kill(pushed, "pushed", box)
            sq = here
        self.occupant[square] = -1
        self._put(box, to)
        if to in self.balls:
            self._kill(box, "clamped")

    def _ended(self, ndead):
        """After a moment in which the dead list grew from ``ndead``: is the game over?"""
        if len(self.dead) == ndead:
            return False
        alive = self.alive()
        if not rules.game_over(len(alive)):
            return False
        self.phase = OVER
        self.turn = None
        self.winner = alive[0] if alive else None
        together = [b + 1 for b in self.dead[ndead:]] if not alive else []
        self._emit("winner", p=None if self.winner is None else self.winner + 1, together=together)
        return True

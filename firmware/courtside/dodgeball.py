"""Dodge Ball mode: every play declared on a box, judged for who played first.

The rulebook has no turns: cards are evaluated in the order they are played. Each press
is logged at once with its contest and lag; when the contest window has passed, the
verdict (order, ranks, ties with their fair draw, early answers settled on that order)
is logged, drawn on the matrix in player colours, blinked on each box LED and sounded on
the buzzer. An early answer sounds and blinks at once (judged on arrival) and is marked
again at the verdict as the judged order settles it ("no throw open" or "throw already
answered", ``courtside.arbiter``).
"""

from courtside import display, events, lights
from courtside.arbiter import ANSWERED, EARLY, NAMES, NO_THROW, Arbiter
from courtside.clock import add, diff
from courtside.stage import Stage

_NOT_IN_GAME = "box not in this game"
events.words(*NAMES, NO_THROW, ANSWERED, _NOT_IN_GAME)    # written at every press and verdict


class DodgeBall(Stage):
    name = "dodgeball"
    records_presses = True
    where = " in dodgeball"

    def start(self, ctx):
        self.arbiter = Arbiter(ctx.settings, ctx.rng)
        self._earliest = []          # the open contest's first presses in time order (ARRIVALS): places
        self._of = None              # ... of this contest
        self._stale = False          # presses were withdrawn: the next press redraws
        self._judging = None         # (steps, contest): a contest being judged a step a pass
        self._judged = []            # contests judged, their verdicts under way (oldest first)
        self._step = 0               # the next part of the first one's verdict
        self._entries = []           # ... its entries made so far (step 0)
        if ctx.seen:
            ctx.show(display.blank())
        for box in ctx.players:
            ctx.light(box, lights.OFF)

    def configure(self, ctx, settings):
        self.arbiter.configure(settings)

    # Each hook is cut into functions of at most 11 frame words: a bigger frame is taken
    # from the heap at every call (tests/test_frames.py).

    def press(self, ctx, box, button, stamp):
        if box not in ctx.players:
            _ignored(ctx, box, button, stamp)
            return
        self._catch_up(ctx, stamp)
        place = self.arbiter.press(box, button, stamp)
        self._pressed(ctx, self.arbiter.open, place)

    def _catch_up(self, ctx, stamp):
        """The contests closed by ``stamp`` are judged before the press joins one."""
        self._verdicts(ctx, self.arbiter.poll(stamp))

    def _pressed(self, ctx, contest, place):
        """Log the press at once, sound and light it, show the arrivals so far."""
        ctx.emit_fields_at(contest.stamp[place], "press", _press_fields(contest, place))
        if contest.came_early[place]:
            ctx.tone("fault")
            ctx.light(contest.player[place], lights.FAULT)
        else:
            ctx.tone("first" if len(contest) == 1 else "later")
        if self._arrived(contest, place) or self._stale:
            self._stale = False
            _show_arrivals(ctx, contest, self._earliest)

    def _arrived(self, contest, place):
        """Keep the contest's ``ARRIVALS`` earliest presses as each press comes; True when
        the one at ``place`` is among them, so the matrix changes. A storm makes a contest
        of hundreds of presses: sorting them all at every press made each press cost more
        than the last."""
        if self._of is not contest:
            self._of = contest
            self._earliest = []
        return _among_earliest(self._earliest, contest, place)

    def poll(self, ctx, now):
        """A contest whose window has closed is judged a step a pass (``Arbiter.judging``)
        and its verdict given a part a pass after that (``_verdict_part``): on a board
        each step and part is a few milliseconds, the whole of it tens, and hundreds for
        a storm's contest. Meanwhile new presses wait in the ring (``hold``); anything
        else that comes first brings it all to its end (``catch_up``), so the stream is
        the same however the passes fall."""
        if self._judging is not None:
            self._judge_step()
            return 0
        if self._judged:
            self._verdict_part(ctx)
            return 0
        contest = self.arbiter.closing(now)
        if contest is not None:
            self._judging = (self.arbiter.judging(contest), contest)
            return 0
        due = self.arbiter.due(now)
        return None if due is None else due // 1000 + 1

    def _judge_step(self):
        try:
            next(self._judging[0])
        except StopIteration:
            self._judged.append(self._judging[1])
            self._judging = None
            self._step = 0

    def hold(self, first):
        """How far a pass may go while an input stamped ``first`` waits: short of it
        while a contest is judged or its verdict given; up to the open contest's close
        when that comes first, so it is judged in steps before the input is taken."""
        if self._judging is not None or self._judged:
            return add(first, -1)
        contest = self.arbiter.open
        if contest is not None:
            close = add(contest.first, self.arbiter.contest_us)
            if diff(first, close) >= 0:
                return close
        return None

    def catch_up(self, ctx):
        while self._judging is not None:
            self._judge_step()
        while self._judged:
            self._verdict_part(ctx)

    def _verdict_part(self, ctx):
        """The next part of the first judged contest's verdict: its entries, at most
        ``ENTRIES`` a part, then its line, each of its ties' lines, then what the table
        sees and hears."""
        contest = self._judged[0]
        step = self._step
        if step == 0:
            self._verdict_entries(ctx, contest)
            return
        self._step = step + 1
        if step <= len(contest.ties):
            _log_tie(ctx, contest, contest.ties[step - 1])      # one tie a pass
        else:
            self._judged.pop(0)
            self._step = 0
            _show_and_sound(ctx, contest)

    def _verdict_entries(self, ctx, contest):
        """The next ``ENTRIES`` of the verdict's entries; its line once all are made (a
        storm's verdict has hundreds)."""
        if _entries(contest, self._entries, ENTRIES):
            _log_verdict(ctx, contest, self._entries, self.arbiter.tie_us)
            self._entries = []                  # the line holds that list now
            self._step = 1

    def stop(self, ctx):
        self.catch_up(ctx)
        self._verdicts(ctx, self.arbiter.close(ctx.now))

    def withdraw(self, ctx, box, since):
        for p in self.arbiter.withdraw(box, since):
            ctx.emit("withdrawn", n=p.n, p=box + 1, why="box fault")
        contest = self.arbiter.open
        self._earliest = []
        self._of = contest
        self._stale = True
        if contest is not None:
            place = 0
            while place < len(contest):
                _among_earliest(self._earliest, contest, place)
                place += 1

    def _verdicts(self, ctx, contests):
        """The verdict of each judged contest, in order."""
        i = 0
        while i < len(contests):
            self._verdict(ctx, contests[i])
            i += 1

    def _verdict(self, ctx, contest):
        entries = []
        _entries(contest, entries, len(contest))
        _log_verdict(ctx, contest, entries, self.arbiter.tie_us)
        _log_ties(ctx, contest)
        _show_and_sound(ctx, contest)


def _show_and_sound(ctx, contest):
    _show_verdict(ctx, contest)
    _light_verdict(ctx, _best(contest, len(ctx.players)))
    if contest.ties:
        ctx.tone("tie")


def _ignored(ctx, box, button, stamp):
    fields = {"p": box + 1, "b": NAMES[button], "why": _NOT_IN_GAME}
    ctx.emit_fields_at(stamp, "ignored", fields)


ARRIVALS = 4     # bands the matrix shows


def _press_fields(c, place):
    """The ``press`` line's fields for the press at ``place`` of the open contest ``c``."""
    return {"n": c.n[place], "p": c.player[place] + 1, "b": NAMES[c.button[place]],
            "c": c.number, "lag": c.lag_of(place), "early": c.came_early[place] == 1}


def _among_earliest(earliest, contest, place):
    """Put ``place`` into ``earliest`` (places of ``contest``, in time order from its first
    press, then by press number: a later place has a later number) if it is among the
    first ``ARRIVALS``; True if it is."""
    i = len(earliest)
    while i and _before(contest, place, earliest[i - 1]):
        i -= 1
    if i >= ARRIVALS:
        return False
    earliest.insert(i, place)
    if len(earliest) > ARRIVALS:
        earliest.pop()
    return True


def _before(contest, place, other):
    """True when the press at ``place`` comes before the one at ``other``."""
    key = contest.lag_of(place)
    lag = contest.lag_of(other)
    return key < lag or key == lag and place < other


def _show_arrivals(ctx, contest, arrived):
    """Until the verdict the matrix shows arrivals, one band each, in time order."""
    if not ctx.seen:
        return
    ctx.show(display.contest([[contest.player[q]] for q in arrived],
                             [1 << contest.player[q] if contest.came_early[q] else 0 for q in arrived]))


ENTRIES = 32     # verdict entries a part makes (each a dict of seven fields)


def _entries(contest, entries, most):
    """Up to ``most`` more of judged ``contest``'s verdict entries onto ``entries``, in
    judged order; True once it holds them all."""
    i = len(entries)
    end = min(i + most, len(contest))
    while i < end:
        entries.append(_entry(contest, contest.order[i]))
        i += 1
    return i == len(contest)


def _log_verdict(ctx, contest, entries, tie_us):
    fields = {"c": contest.number, "order": entries, "tie_us": tie_us}
    # A verdict is decided the moment its window closes, whenever the pass comes.
    ctx.emit_fields_at(contest.closed, "verdict", fields)


def _entry(c, place):
    """The verdict's entry for the press at ``place`` of judged contest ``c``."""
    return {"n": c.n[place], "p": c.player[place] + 1, "b": NAMES[c.button[place]],
            "rank": c.rank[place], "lag": c.lag[place], "tie": c.tie[place] == 1,
            "early": EARLY[c.early[place]]}


def _log_ties(ctx, contest):
    ties = contest.ties
    i = 0
    while i < len(ties):
        _log_tie(ctx, contest, ties[i])
        i += 1


def _log_tie(ctx, contest, tie):
    """``tie`` is (rank, players in drawn order, gap in us)."""
    fields = {"c": contest.number, "rank": tie[0], "players": sorted(q + 1 for q in tie[1]),
              "draw": [q + 1 for q in tie[1]], "gap": tie[2]}
    ctx.emit_fields_at(contest.closed, "tie", fields)


def _show_verdict(ctx, contest):
    if not ctx.seen:
        return
    bands, early = display.bands_of(contest)
    ctx.show(display.contest(bands, early))


def _best(contest, players):
    """Each player's light for their best press in judged order: {player: a tie's
    flicker, or the blinks of its rank}; it looks no further once all ``players`` (the
    game's count) are found."""
    best = {}
    i = 0
    while i < len(contest.order) and len(best) < players:
        _better(best, contest, contest.order[i])
        i += 1
    return best


def _better(best, contest, place):
    player = contest.player[place]
    if player not in best:
        best[player] = lights.TIE if contest.tie[place] else lights.rank(contest.rank[place])


def _light_verdict(ctx, best):
    """Each player's LED: a tie's flicker, or the blinks of their rank."""
    for player in best:
        _light(ctx, best, player)


def _light(ctx, best, player):
    ctx.light(player, best[player])

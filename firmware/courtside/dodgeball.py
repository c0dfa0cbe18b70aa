"""Dodge Ball mode: every play declared on a box, judged for who played first.

The rulebook has no turns: cards are evaluated in the order they are played. Each press
is logged at once with its contest and lag; when the contest window has passed, the
verdict (order, ranks, ties with their fair draw, early answers settled on that order)
is logged, drawn on the matrix in player colours, blinked on each box LED and sounded on
the buzzer. An early answer sounds and blinks at once (judged on arrival) and is marked
again at the verdict as the judged order settles it ("no throw open" or "throw already
answered", ``courtside.arbiter``).
"""

from courtside import display, lights
from courtside.arbiter import NAMES, Arbiter
from courtside.clock import diff
from courtside.stage import Stage


class DodgeBall(Stage):
    name = "dodgeball"
    records_presses = True

    def start(self, ctx):
        self.arbiter = Arbiter(ctx.settings, ctx.rng)
        ctx.show(display.blank())
        for box in ctx.players:
            ctx.light(box, lights.OFF)

    def configure(self, ctx, settings):
        self.arbiter.configure(settings)

    def press(self, ctx, box, button, stamp):
        if box not in ctx.players:
            ctx.emit_at(stamp, "ignored", p=box + 1, b=NAMES[button], why="box not in this game")
            return
        for contest in self.arbiter.poll(stamp):
            self._verdict(ctx, contest)
        p = self.arbiter.press(box, button, stamp)
        ctx.emit_at(stamp, "press", n=p.n, p=box + 1, b=NAMES[button], c=p.contest, lag=p.lag,
                    early=p.early)
        contest = self.arbiter.open
        if p.early:
            ctx.tone("fault")
            ctx.light(box, lights.FAULT)
        else:
            ctx.tone("first" if len(contest.presses) == 1 else "later")
        # Until the verdict the matrix shows arrivals, one band each, in time order.
        ref = contest.first
        arrived = sorted(contest.presses, key=lambda q: (diff(q.stamp, ref), q.n))
        ctx.show(display.contest([[q.player] for q in arrived],
                                 [1 << q.player if q.early else 0 for q in arrived]))

    def poll(self, ctx, now):
        for contest in self.arbiter.poll(now):
            self._verdict(ctx, contest)
        due = self.arbiter.due(now)
        return None if due is None else due // 1000 + 1

    def stop(self, ctx):
        for contest in self.arbiter.close(ctx.now):
            self._verdict(ctx, contest)

    def withdraw(self, ctx, box, since):
        for p in self.arbiter.withdraw(box, since):
            ctx.emit("withdrawn", n=p.n, p=box + 1, why="box fault")

    def command(self, ctx, words):
        return "unknown command in dodgeball: %s" % " ".join(words)

    def _verdict(self, ctx, contest):
        order = [{"n": p.n, "p": p.player + 1, "b": NAMES[p.button], "rank": p.rank, "lag": p.lag,
                  "tie": p.tie, "early": p.early} for p in contest.order]
        # A verdict is decided the moment its window closes, whenever the pass comes.
        ctx.emit_at(contest.closed, "verdict", c=contest.number, order=order, tie_us=self.arbiter.tie_us)
        tied = False
        for rank, players, gap in contest.ties:
            ctx.emit_at(contest.closed, "tie", c=contest.number, rank=rank,
                        players=sorted(q + 1 for q in players), draw=[q + 1 for q in players], gap=gap)
            tied = True
        bands, early = display.bands_of(contest.order)
        ctx.show(display.contest(bands, early))
        best = {}
        for p in contest.order:
            if p.player not in best:
                best[p.player] = p
        for player in best:
            p = best[player]
            ctx.light(player, lights.TIE if p.tie else lights.rank(p.rank))
        if tied:
            ctx.tone("tie")

"""Dodge Ball mode: every play declared on a box, judged for who played first.

The rulebook has no turns: cards are evaluated in the order they are played. Each press
is logged at once with its contest and lag; when the contest window has passed, the
verdict (order, ranks, ties with their fair draw) is logged, drawn on the matrix in
player colours, blinked on each box LED and sounded on the buzzer.
"""

from courtside import display, lights
from courtside.arbiter import NAMES, Arbiter
from courtside.clock import diff


class DodgeBall:
    name = "dodgeball"

    def __init__(self, app):
        self.app = app
        self.arbiter = Arbiter(app.settings, app.rng)

    def start(self):
        app = self.app
        app.show(display.blank())
        for box in app.players:
            app.light(box, lights.OFF)

    def configure(self, settings):
        self.arbiter.configure(settings)

    def press(self, player, button, stamp):
        app = self.app
        if player not in app.players:
            app.emit("ignored", p=player + 1, b=NAMES[button], why="box not in this game")
            return
        for contest in self.arbiter.poll(stamp):
            self._verdict(contest)
        p = self.arbiter.press(player, button, stamp)
        app.emit_at(app.at(stamp), "press", n=p.n, p=player + 1, b=NAMES[button], c=p.contest,
                    lag=p.lag, early=p.early)
        contest = self.arbiter.open
        if p.early:
            app.tone("fault")
            app.light(player, lights.FAULT)
        else:
            app.tone("first" if len(contest.presses) == 1 else "later")
        # Until the verdict the matrix shows arrivals, one band each, in time order.
        ref = contest.first
        arrived = sorted(contest.presses, key=lambda q: (diff(q.stamp, ref), q.n))
        app.show(display.contest([[q.player] for q in arrived]))

    def main(self, stamp):
        return None

    def poll(self, now):
        for contest in self.arbiter.poll(now):
            self._verdict(contest)
        due = self.arbiter.due(now)
        return None if due is None else due // 1000 + 1

    def stop(self):
        for contest in self.arbiter.close():
            self._verdict(contest)

    def withdraw(self, player, since):
        for p in self.arbiter.withdraw(player, since):
            self.app.emit("withdrawn", n=p.n, p=player + 1, why="box fault")

    def command(self, words):
        return "unknown command in dodgeball: %s" % " ".join(words)

    def _verdict(self, contest):
        app = self.app
        order = [{"n": p.n, "p": p.player + 1, "b": NAMES[p.button], "rank": p.rank, "lag": p.lag,
                  "tie": p.tie} for p in contest.order]
        app.emit("verdict", c=contest.number, order=order, tie_us=self.arbiter.tie_us)
        tied = []
        for rank, players, gap in contest.ties:
            app.emit("tie", c=contest.number, rank=rank, players=sorted(q + 1 for q in players),
                     draw=[q + 1 for q in players], gap=gap)
            tied.extend(players)
        app.show(display.contest(display.bands_of(contest.order)))
        best = {}
        for p in contest.order:
            if p.player not in best:
                best[p.player] = p
        for player in best:
            p = best[player]
            app.light(player, lights.TIE if p.tie else lights.rank(p.rank))
        if tied:
            app.tone("tie")

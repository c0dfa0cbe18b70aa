"""The faces follow the matrix's schedule (courtside_follow.pace): a record is taken by the
follower when the referee's matrix shows it, not when the board sends it.

The firmware's own core runs whole refereed games in the test rig, stepped when it asks;
after every pass the follower's board (fed through ``Paced`` on the same clock) must be the
board the matrix shows (``RefereeMode.shown``): figures, deathballs, the border, the dead.
So the log, the legend and the board panel never give the run away."""

import pytest
from corerig import INPUT_KINDS, T0, Rig
from courtside import clock
from courtside.deathball import engine
from courtside.deathball.die import times
from courtside_follow import face
from courtside_follow.follower import Follower
from courtside_follow.pace import Paced
from test_deathball_modes import play_to_the_end


class Watched(Rig):
    """The rig, with a follower fed through ``Paced`` after every pass, on the board's clock,
    and the follower's board compared with the matrix's after every pass."""

    def __init__(self, *args, **kw):
        self.follow = Follower()
        self.paced = Paced(self.follow)
        self.shown_at = {}        # kind -> [board us when the follower took it]
        self.compared = 0
        self.records = []
        Rig.__init__(self, *args, **kw)

    def step(self, lines=()):
        count, done_events, done_inputs = len(self.times), len(self.events), len(self.inputs)
        wait = Rig.step(self, lines)
        events, inputs = iter(self.events[done_events:]), iter(self.inputs[done_inputs:])
        now = clock.diff(self.now, T0)
        for kind, t in self.times[count:]:
            fields = next(inputs if kind in INPUT_KINDS else events)[1]
            record = dict(fields, ev=kind, t=t)
            assert t <= now
            self.records.append(record)
            self.paced.put(record, now)
        for record in self.paced.due(now):
            self.shown_at.setdefault(record["ev"], []).append(now)
        self._compare()
        return wait

    def _compare(self):
        stage = self.core.stage
        board = self.follow.chessboard
        shown = getattr(stage, "shown", None)
        if board is None or shown is None or stage.game.phase == engine.INITIATIVE:
            return
        assert (board.where, board.balls, board.border, sorted(board.dead)) == \
            (shown.where, shown.balls, shown.border, sorted(shown.dead))
        self.compared += 1


def whole_game(seed, settings=None, hurry=False):
    """A four-player game through the rig, each input once the board has shown the last
    (``hurry``: ROLL pressed 0.3 s into each run)."""
    app = Watched("referee", (0, 1, 2, 3), seed, settings)

    def roll_mid_run(app):
        if app.stage.queue or app.stage.roll is not None:
            app.advance(300)
            app.main()

    play_to_the_end(app, roll_mid_run if hurry else None)
    app.settle()
    return app


@pytest.mark.parametrize("seed", [2, 7, 11])
def test_the_follower_shows_the_board_the_matrix_shows_after_every_pass(seed):
    app = whole_game(seed)
    kinds = {r["ev"] for r in app.records}
    assert {"bounce", "ball", "death", "shrink", "winner", "hold", "ready"} <= kinds
    assert app.compared > 200
    assert not app.paced.waiting()
    # the winner is told when the matrix has shown how the game ended (a death at least),
    # not when the board decided it
    (decided,) = [r["t"] for r in app.records if r["ev"] == "winner"]
    assert app.shown_at["winner"][0] >= decided + 700_000


@pytest.mark.parametrize("pace", [50, 200])
def test_the_schedule_follows_the_pace_setting(pace):
    app = whole_game(7, {"pace": pace})
    assert app.compared > 200 and "winner" in app.shown_at


def test_roll_mid_run_shows_the_end_at_once_everywhere():
    app = whole_game(7, hurry=True)
    assert app.compared > 100 and "winner" in app.shown_at
    readies = [r["t"] for r in app.records if r["ev"] == "ready"]
    # each run cut short: every ball step was taken by the time of its ready
    for t in readies:
        assert all(at <= t + 1 for at in app.shown_at["ball"] if at <= t + 1)


def test_the_die_mode_says_the_face_after_its_tumble():
    app = Watched("die")
    app.settle()
    app.main()
    rolled = [r for r in app.records if r["ev"] == "roll"]
    assert rolled and "roll" not in app.shown_at       # in the air: not told yet
    app.advance(times()[0] + 50)
    assert len(app.shown_at["roll"]) == 1
    assert app.shown_at["roll"][0] - rolled[0]["t"] == pytest.approx(times()[0] * 1000, abs=30_000)
    assert face.sentence(rolled[0]) == "The die shows %d." % rolled[0]["face"]


def test_without_a_clock_everything_is_shown_at_once():
    follow = Follower()
    paced = Paced(follow)
    records = [{"ev": "hello", "t": 0, "fw": "x", "stream": 5, "mode": "die", "capture": "sim",
                "boxes": 4, "settings": {}, "can_save": False},
               {"ev": "roll", "t": 10, "purpose": "die", "face": 4, "forced": False}]
    for r in records:
        paced.put(r)
    assert paced.due() == records and follow.events == 2
    # with a clock, the die's face waits for its tumble; the hello does not
    follow = Follower()
    paced = Paced(follow)
    for r in records:
        paced.put(r, 5_000_000 + r["t"])
    assert paced.due(5_000_010) == records[:1]
    assert paced.due(5_000_010 + times()[0] * 1000) == records[1:]

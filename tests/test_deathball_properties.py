"""Properties of whole random Deathball games, over a few thousand games.

Random players (any legal move, walking into deathballs included) from a random set of
boxes, a fair die from a seeded source. After every move: never two players on one
square, nobody off the board, the dead never come back, the board only shrinks; every
game ends; and the event stream alone rebuilds the board the engine holds.
"""

import pytest
from courtside.deathball import rules
from courtside.deathball.die import Dice
from courtside.deathball.engine import OVER, PLAY, SETUP, Game
from courtside.deathball.track import Shown
from courtside.fair import Fair, seeded
from hypothesis import given, settings
from hypothesis import strategies as st

MAX_MOVES = 2000  # a game of random players lasts a few dozen moves; this is a hang


def inside(square, border):
    lo, hi = rules.border_bounds(border)
    return lo <= (square & 7) <= hi and lo <= (square >> 3) <= hi


def check(g, dead_before, border_before):
    squares = list(g.where.values())
    assert len(set(squares)) == len(squares), "two players on one square"
    for box, square in g.where.items():
        assert g.occupant[square] == box
        assert inside(square, g.border), "a player off the board"
        assert square not in g.balls, "a living player on a deathball"
    assert sum(1 for b in g.occupant if b >= 0) == len(g.where)
    for square in g.balls:
        assert inside(square, g.border), "a deathball off the board"
    assert g.dead[:len(dead_before)] == dead_before, "the dead came back or changed"
    assert not set(g.dead) & set(g.where), "a dead player on the board"
    assert len(set(g.dead)) == len(g.dead)
    assert g.border >= border_before, "the board grew"


def choose(g, chooser, careful):
    legal = g.legal_moves(g.turn)
    assert legal, "the player to move has no legal move and was not skipped"
    if careful:  # never walk into a deathball when something else is legal
        safe = [m for m in legal if g.preview(g.turn, m[0], m[1])[1] is not None]
        legal = safe or legal
    return legal[chooser.below(len(legal))]


def play(seed, boxes, follow, careful=False):
    g = Game(boxes, Dice(Fair(seeded(seed))))
    chooser = Fair(seeded(seed ^ 0x5A5A5A))
    shown = Shown()
    g.initiative()
    while g.phase == SETUP:
        free = g.free_setup_squares()
        assert g.setup(g.turn, free[chooser.below(len(free))]) is None
    moves = 0
    while g.phase == PLAY:
        assert g.turn in g.where
        dead_before, border_before = list(g.dead), g.border
        first, second = choose(g, chooser, careful)
        assert g.move(g.turn, first, second) is None
        check(g, dead_before, border_before)
        for kind, fields in g.drain():
            shown.apply(kind, fields)
        if follow:
            assert shown.where == g.where and shown.balls == g.balls and shown.border == g.border
            assert [tuple(h) for h in shown.headings] == [tuple(h) for h in g.headings]
            assert shown.position() == g.position()
        moves += 1
        assert moves < MAX_MOVES, "the game did not end"
    assert g.phase == OVER
    alive = g.alive()
    assert len(alive) <= 1
    assert g.winner == (alive[0] if alive else None)
    return g


boxes = st.lists(st.integers(0, 3), min_size=2, max_size=4, unique=True)


@pytest.mark.slow
@settings(max_examples=2500, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**31), players=boxes, careful=st.booleans())
def test_random_games_keep_every_invariant_and_end(seed, players, careful):
    play(seed, players, follow=False, careful=careful)


@settings(max_examples=400, deadline=None, derandomize=True)
@given(seed=st.integers(0, 2**31), players=boxes)
def test_the_event_stream_rebuilds_the_board(seed, players):
    play(seed, players, follow=True, careful=True)


def test_each_round_starts_with_the_border_the_deaths_call_for():
    checked = []
    for seed in range(300):
        g = Game([0, 1, 2, 3], Dice(Fair(seeded(seed))))
        chooser = Fair(seeded(seed + 99))
        g.initiative()
        while g.phase == SETUP:
            g.setup(g.turn, g.free_setup_squares()[0])
        while g.phase == PLAY:
            before = g.round
            g.move(g.turn, *choose(g, chooser, careful=True))
            if g.phase == PLAY and g.round > before:
                checked.append(g.border)
                assert g.border == rules.border_after(len(g.dead))
        assert g.phase == OVER
    assert set(checked) == {0, 1, 2}  # every border was seen at a round's start

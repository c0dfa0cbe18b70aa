"""The matrix's arrivals during a contest: the four earliest presses, kept as presses
come (``courtside.dodgeball._among_earliest``), are the first four of all the contest's
presses sorted by time and then press number, however the stamps arrive."""

import random

import pytest
from courtside import dodgeball
from courtside.arbiter import Contest
from courtside.clock import MASK, add, diff


@pytest.mark.parametrize("seed", range(40))
def test_the_earliest_four_are_the_first_four_of_all_sorted(seed):
    rng = random.Random(seed)
    ref = rng.randrange(MASK + 1)                      # anywhere on the tick circle
    contest = Contest(1, ref)
    earliest = []
    for n in range(1, rng.randrange(1, 300)):
        lag = rng.choice([rng.randrange(-50, 1_500_000), rng.randrange(0, 3)])   # ties too
        place = contest.add(n, rng.randrange(4), rng.randrange(4), add(ref, lag))
        shown = dodgeball._among_earliest(earliest, contest, place)
        expect = sorted(range(len(contest)),
                        key=lambda q: (diff(contest.stamp[q], ref), contest.n[q]))[:dodgeball.ARRIVALS]
        assert earliest == expect
        assert shown == (place in expect)

"""The matrix's arrivals during a contest: the four earliest presses, kept as presses
come (``courtside.dodgeball._among_earliest``), are the first four of all the contest's
presses sorted by time and then press number, however the stamps arrive."""

import random

import pytest
from courtside import dodgeball
from courtside.arbiter import Press
from courtside.clock import MASK, add, diff


@pytest.mark.parametrize("seed", range(40))
def test_the_earliest_four_are_the_first_four_of_all_sorted(seed):
    rng = random.Random(seed)
    ref = rng.randrange(MASK + 1)                      # anywhere on the tick circle
    earliest, presses = [], []
    for n in range(1, rng.randrange(1, 300)):
        lag = rng.choice([rng.randrange(-50, 1_500_000), rng.randrange(0, 3)])   # ties too
        p = Press(n, rng.randrange(4), rng.randrange(4), add(ref, lag))
        presses.append(p)
        shown = dodgeball._among_earliest(earliest, p, ref)
        expect = sorted(presses, key=lambda q: (diff(q.stamp, ref), q.n))[:dodgeball.ARRIVALS]
        assert earliest == expect
        assert shown == (p in expect)

"""``arbiter.judging``: the judgement of a contest in steps is the judgement at once.

A board judges a contest a step a pass (``DodgeBall.poll``), a few presses a step, so a
storm's contest of hundreds of presses never makes one long pass. Each step must leave
the result exactly as ``judge`` gives it at once: the same order, ranks, ties with their
draws taken in the same order from the same source, the same lags; and the arbiter's
early answers settled the same way."""

import random

import pytest
from conftest import contest_of
from courtside import arbiter, clock
from courtside.arbiter import Arbiter, Press, judge, judging
from courtside.fair import Fair, seeded

SETTINGS = {"tie_us": 1000, "contest_ms": 1500, "answer_ms": 3000}


def presses(rng, n, wrap):
    out = []
    t = clock.wrap(clock.MASK - 50_000) if wrap else 1000
    for i in range(n):
        t = clock.add(t, rng.choice([0, 1, 200, 999, 1000, 1001, 5000, 40_000]))
        out.append(Press(i + 1, rng.randrange(4), rng.randrange(4), t))
    if rng.random() < 0.3:                     # out of time order now and then
        rng.shuffle(out)
    return out


def snapshot(contest):
    return [(p.n, p.player, p.rank, p.tie, p.lag) for p in contest.judged()]


@pytest.mark.parametrize("seed", range(60))
def test_judging_in_steps_is_judging_at_once(seed):
    rng = random.Random(seed)
    n = rng.choice([1, 2, 5, 8, 9, 25, 64, 300])
    made = presses(rng, n, wrap=seed % 2 == 1)
    at_once = contest_of(made)
    judge(at_once, 1000, Fair(seeded(seed)))
    want = (snapshot(at_once), at_once.ties)
    in_steps = contest_of(made)
    steps = 0
    for _ in judging(in_steps, 1000, Fair(seeded(seed))):
        steps += 1
    assert (snapshot(in_steps), in_steps.ties) == want
    assert steps >= n // arbiter.STEP              # a few presses a step


def test_the_arbiter_settles_early_answers_alike_in_steps():
    """Contests one after another, their early answers settled on the judged order across
    contests (a throw stays open 3 s): judged at once as presses close them, or a step at
    a time by ``closing`` before each press, as a board does."""
    rng = random.Random(7)
    stamps, players, buttons = [], [], []
    t = 1000
    for _ in range(60):
        t += rng.choice([0, 100, 300, 999, 2000, 400_000])
        stamps.append(t)
        players.append(rng.randrange(4))
        buttons.append(rng.choice([arbiter.THROW, arbiter.DODGE, arbiter.CATCH, arbiter.PASS]))
    end = t + 2_000_000
    results = []
    for in_steps in (False, True):
        arb = Arbiter(SETTINGS, Fair(seeded(3)))
        judged = []
        for t, player, button in zip(stamps, players, buttons):
            if in_steps:
                _judge_closed(arb, t, judged)
            arb.press(player, button, t)
            judged += arb.poll(t)
        if in_steps:
            _judge_closed(arb, end, judged)
        else:
            judged += arb.poll(end)
        results.append([(c.number, c.closed, [(p.n, p.rank, p.tie, p.early) for p in c.judged()], c.ties)
                        for c in judged])
    assert results[0] == results[1]
    assert len(results[0]) >= 3 and any(p[3] for c in results[0] for p in c[2])   # early answers among them


def _judge_closed(arb, now, judged):
    contest = arb.closing(now)
    if contest is not None:
        for _ in arb.judging(contest):
            pass
        judged.append(contest)

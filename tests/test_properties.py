"""Property tests: for any presses with any bounce, the verdict orders presses by first
edge and calls a tie exactly when neighbours from different players are closer than the
tie window. The presses go through the real debouncer and arbiter, on the tick circle,
starting anywhere on it (wraparound included)."""

from courtside.arbiter import Arbiter
from courtside.clock import add, diff
from courtside.debounce import PRESS, Debouncer
from courtside.fair import Fair, seeded
from hypothesis import given, settings
from hypothesis import strategies as st

TIE_US = 1000
SETTINGS = {"tie_us": TIE_US, "contest_ms": 1500, "answer_ms": 3000}
ALL_OPEN = (1 << 16) - 1


@st.composite
def plays(draw):
    """Up to 16 presses on distinct buttons inside one contest, each with a bounce burst."""
    buttons = draw(st.lists(st.integers(0, 15), min_size=1, max_size=16, unique=True))
    starts = draw(st.lists(st.integers(0, 1_400_000), min_size=len(buttons), max_size=len(buttons)))
    edges = []
    for button, start in zip(buttons, starts):
        edges.append((start, button, True))
        bounce = draw(st.lists(st.integers(1, 5000), max_size=6, unique=True))
        closed = True
        for offset in sorted(bounce):             # contact chatter inside 5 ms, ending closed
            closed = not closed
            edges.append((start + offset, button, closed))
        if not closed:
            edges.append((start + 5001, button, True))
        edges.append((start + 60_000, button, False))
    t0 = draw(st.integers(0, (1 << 30) - 1))
    return buttons, starts, sorted(edges), t0


def judge(edges, t0, seed):
    gpio = list(range(16))
    bounce = Debouncer(gpio, 20_000, 3_000_000, ALL_OPEN, t0)
    arb = Arbiter(SETTINGS, Fair(seeded(seed)))
    level = ALL_OPEN
    out, presses, verdicts = [], {}, []
    i = 0
    while i < len(edges):
        t = edges[i][0]
        while i < len(edges) and edges[i][0] == t:      # edges at one instant: one snapshot
            _, button, closed = edges[i]
            level = level & ~(1 << button) if closed else level | (1 << button)
            i += 1
        stamp = add(t0, t)
        bounce.poll(stamp, out)
        bounce.feed(stamp, level, out)
        for kind, button, s in out:
            if kind == PRESS:
                verdicts += arb.poll(s)
                place = arb.press(button // 4, button % 4, s)
                presses[button] = arb.open.press(place)
        out = []
    verdicts += arb.poll(add(t0, 3_000_000))
    return presses, verdicts


@settings(max_examples=300, deadline=None)
@given(plays(), st.integers(0, 1000))
def test_verdict_orders_by_first_edge_and_ties_exactly_within_the_window(play, seed):
    buttons, starts, edges, t0 = play
    presses, verdicts = judge(edges, t0, seed)
    # every press found, stamped at its first edge despite the bounce
    assert sorted(presses) == sorted(buttons)
    for button, start in zip(buttons, starts):
        assert presses[button].stamp == add(t0, start)
    assert len(verdicts) == 1
    order = verdicts[0].judged()
    assert sorted(p.n for p in order) == sorted(p.n for p in presses.values())
    timed = sorted(order, key=lambda p: (diff(p.stamp, order[0].stamp), p.n))
    first = timed[0].stamp
    for a, b in zip(timed, timed[1:]):
        gap = diff(b.stamp, a.stamp)
        assert a.rank <= b.rank                                   # ranks follow first edges
        if a.player != b.player and gap < TIE_US:
            assert a.rank == b.rank and a.tie and b.tie           # closer than the window: tie
        if a.rank == b.rank:
            assert gap < TIE_US                                   # a tie never spans a window
    for p in order:
        others = [q for q in order if q.rank == p.rank and q.player != p.player]
        assert p.tie == bool(others)
        assert p.lag == diff(p.stamp, first)
    # the judged order keeps time order between ranks
    ranks = [p.rank for p in order]
    assert ranks == sorted(ranks)


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 40), st.integers(0, 10_000))
def test_fair_below_stays_in_range_and_shuffle_permutes(n, seed):
    rng = Fair(seeded(seed))
    assert all(0 <= rng.below(n) < n for _ in range(50))
    items = list(range(n))
    assert sorted(rng.shuffle(items[:])) == items


def test_tie_draw_is_fair_between_two_players():
    """Over many exact ties each player is drawn first about half the time."""
    rng = Fair(seeded(7))
    firsts = [0, 0]
    for _ in range(4000):
        arb = Arbiter(SETTINGS, rng)
        arb.press(0, 0, 100)
        arb.press(1, 0, 100)
        (contest,) = arb.poll(10_000_000)
        firsts[contest.player[contest.order[0]]] += 1
    # binomial(4000, 0.5): sd 31.6; 5 sd either side
    assert abs(firsts[0] - 2000) < 160

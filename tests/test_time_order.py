"""The arbiter's time order of a contest: by first edge (wrap-safe, from the contest's
first press), then by press number, whether the presses came in that order (the usual
case, checked in one loop) or not (their keys made once and sorted). Both paths against
the plain definition, on the tick circle's wrap too; and the usual case makes no key."""

from conftest import contest_of
from courtside import arbiter
from courtside.arbiter import Press
from courtside.clock import add, diff
from hypothesis import given, settings
from hypothesis import strategies as st


def judged_in_time(presses):
    """The press numbers of ``presses`` judged as one contest, taken in time order (a
    tie window of 0 makes every press its own rank, so the judged order is the time
    order)."""
    contest = contest_of(presses)
    arbiter.judge(contest, 0, None)
    return [contest.n[place] for place in contest.order]


def reference(presses):
    ref = presses[0].stamp
    return sorted(presses, key=lambda p: (diff(p.stamp, ref), p.n))


@st.composite
def contests(draw):
    t0 = draw(st.integers(0, (1 << 30) - 1))
    offsets = draw(st.lists(st.integers(0, 1_500_000), min_size=1, max_size=40))
    if draw(st.booleans()):
        offsets.sort()                       # arrival in time order: the usual case
    presses = [Press(n + 1, n % 4, 0, add(t0, off)) for n, off in enumerate(offsets)]
    return presses


@settings(max_examples=400, deadline=None)
@given(contests())
def test_time_order_is_first_edge_then_press_number(presses):
    want = [p.n for p in reference(presses)]
    contest = contest_of(presses)
    assert [contest.n[place] for place in arbiter.time_order(contest)] == want
    assert judged_in_time(presses) == want


def test_equal_stamps_keep_press_number_order_across_the_wrap():
    t0 = (1 << 30) - 3
    presses = [Press(1, 0, 0, t0), Press(2, 1, 0, add(t0, 5)), Press(3, 2, 0, add(t0, 5)),
               Press(4, 3, 0, add(t0, 2))]
    assert judged_in_time(presses) == [1, 4, 2, 3]


def test_presses_in_time_order_are_not_sorted(monkeypatch):
    called = []
    monkeypatch.setattr(arbiter, "time_order", lambda *a: called.append(a))
    presses = [Press(n + 1, 0, 0, add((1 << 30) - 50, 20 * n)) for n in range(10)]
    assert judged_in_time(presses) == list(range(1, 11))
    assert called == []

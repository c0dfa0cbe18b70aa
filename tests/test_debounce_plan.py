"""The debouncer's shortcut when a lock starts (``_sooner``) finds what ``_plan``'s full
look at every button finds: after every snapshot and every poll, the same button runs
first, at the same tick, for the same reason, and the same presses come out. Random
snapshots on 17 buttons (the main one with its long hold), several changing at one
instant (locks that end at the same tick), taps far shorter than the lock, across the
tick circle's wrap."""

from courtside.clock import add
from courtside.debounce import Debouncer
from hypothesis import given, settings
from hypothesis import strategies as st

GPIO = list(range(17))
ALL_OPEN = (1 << 17) - 1


class Full(Debouncer):
    def _sooner(self, i):
        self._plan()


@st.composite
def storms(draw):
    t0 = draw(st.integers(0, (1 << 30) - 1))
    gaps = st.one_of(st.sampled_from([0, 1, 1000, 5000, 20000]), st.integers(0, 30_000))
    steps = draw(st.lists(st.tuples(gaps, st.sets(st.integers(0, 16), min_size=1, max_size=4),
                                    st.booleans()), min_size=1, max_size=300))
    debounce = draw(st.sampled_from([0, 1000, 5000, 20000]))
    return t0, steps, debounce


@settings(max_examples=300, deadline=None)
@given(storms())
def test_the_shortcut_plans_as_the_full_look_does(storm):
    t0, steps, debounce = storm
    boards = [cls(GPIO, debounce, 300_000, ALL_OPEN, t0, long_i=16, long_us=100_000)
              for cls in (Debouncer, Full)]
    outs = [[], []]
    t, level = t0, ALL_OPEN
    for gap, buttons, poll in steps:
        t = add(t, gap)
        for button in buttons:            # several at one instant: locks that end together
            level ^= 1 << button
        for d, out in zip(boards, outs):
            if poll:
                d.poll(t, out)
            d.feed(t, level, out)
        assert [(d.due_i, d.due_at, d.due_long) for d in boards[:1]] == \
               [(d.due_i, d.due_at, d.due_long) for d in boards[1:]]
    for d, out in zip(boards, outs):
        d.poll(add(t, 1_000_000), out)
    assert outs[0] == outs[1]

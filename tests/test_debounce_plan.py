"""The debouncer's queue of timers (``_plan`` reads its front) finds what a look at every
button's lock, stuck timeout and long hold finds: after every snapshot and every poll,
the same button runs first, at the same tick, for the same reason, and the same presses
come out. Random snapshots on 17 buttons (the main one with its long hold), several
changing at one instant (locks that end at the same tick), taps far shorter than the
lock, settings changed mid-way, across the tick circle's wrap."""

from courtside.clock import add, diff
from courtside.debounce import Debouncer
from hypothesis import given, settings
from hypothesis import strategies as st

GPIO = list(range(17))
ALL_OPEN = (1 << 17) - 1


class Full(Debouncer):
    """The plan by a look at every button, in button order, the long hold before a
    button's other timer, the earliest kept (the debouncer's rule, stated the slow way)."""

    def _plan(self):
        best, best_at, best_long = -1, 0, False
        for i in range(self.n):
            spans = []
            if self.locked[i]:
                spans.append((self.debounce_us, False))
            elif self.down[i] and not self.stuck[i]:
                if i == self.long_i and not self.long_done:
                    spans.append((self.long_us, True))
                spans.append((self.stuck_us, False))
            for span, is_long in spans:
                at = add(self.since[i], span)
                if best < 0 or diff(at, best_at) < 0:
                    best, best_at, best_long = i, at, is_long
        self.due_i = best
        self.due_at = best_at if best >= 0 else self.due_at
        self.due_long = best_long


@st.composite
def storms(draw):
    t0 = draw(st.integers(0, (1 << 30) - 1))
    gaps = st.one_of(st.sampled_from([0, 1, 1000, 5000, 20000]), st.integers(0, 30_000))
    steps = draw(st.lists(st.tuples(gaps, st.sets(st.integers(0, 16), min_size=1, max_size=4),
                                    st.booleans()), min_size=1, max_size=300))
    debounce = draw(st.sampled_from([0, 1000, 5000, 20000]))
    change = draw(st.one_of(st.none(), st.tuples(st.integers(0, len(steps)),
                                                 st.sampled_from([0, 1000, 20000, 50000]),
                                                 st.sampled_from([1000, 300_000]),
                                                 st.sampled_from([500, 100_000]))))
    return t0, steps, debounce, change


@settings(max_examples=300, deadline=None)
@given(storms())
def test_the_shortcut_plans_as_the_full_look_does(storm):
    t0, steps, debounce, change = storm
    boards = [cls(GPIO, debounce, 300_000, ALL_OPEN, t0, long_i=16, long_us=100_000)
              for cls in (Debouncer, Full)]
    outs = [[], []]
    t, level = t0, ALL_OPEN
    for k, (gap, buttons, poll) in enumerate(steps):
        if change is not None and change[0] == k:     # new settings while timers run
            for d in boards:
                d.configure(*change[1:])
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

"""The PIO capture program in the emulator: scripted waveforms in, captures out, against the truth.

A capture is a sample: ``loops`` counted from the start, each loop 6 cycles, so the sample
happened at cycle ``6 * loops``. The truth is the waveform itself: what the pins were at
that cycle, and when each edge really happened.
"""

import pytest
from courtside import piocode
from hypothesis import given, settings
from hypothesis import strategies as st
from pio_sim import PioSim
from pio_waves import IDLE, bounce, decode, steps
from pioemu import State
from pioemu.shift_register import ShiftRegister

L = piocode.LOOP_CYCLES


def run(edges, until, **kw):
    sim = PioSim(**kw)
    wave = steps(edges)
    words = sim.run(wave, until)
    snaps, marks = decode(words)
    return sim, wave, snaps, marks


def level_at(wave, cycle):
    lv = wave[0][1]
    for c, v in wave:
        if c <= cycle:
            lv = v
    return lv


def check_against_truth(wave, snaps, until, isolated=True, first_loop=2):
    """Every snapshot shows the pins as they were at its sample. After every edge whose new
    level lasts two loops and differs from the levels last reported, a snapshot follows
    within two loops; within one loop if the state machine was in its quiet loop (no
    snapshot in the two loops before the edge). A glitch shorter than a loop can fall
    between samples and go unseen."""
    assert snaps[0] == (first_loop, IDLE)               # the start-up report, 2 loops in
    for (loops, levels), prev in zip(snaps[1:], snaps):
        assert levels == level_at(wave, L * loops)      # the sample is the truth at its cycle
        assert levels != prev[1]                        # only changes are reported
        assert loops > prev[0]
    at = [(L * loops, levels) for loops, levels in snaps]
    changes = [(c, v) for (c, v), (_, pv) in zip(wave[1:], wave) if v != pv]
    for i, (t, new) in enumerate(changes):
        nxt = changes[i + 1][0] if i + 1 < len(changes) else until
        if nxt - t < 2 * L or t >= until - 2 * L:
            continue
        before = [(s, lv) for s, lv in at if s < t]
        if before and before[-1][1] == new:
            continue                                    # back to what was last reported
        first = min(s for s, _ in at if s >= t)
        assert first - t < 2 * L, "edge at %d reported at %d" % (t, first)
        if isolated and (not before or before[-1][0] <= t - 2 * L):
            assert first - t < L, "edge at %d, machine quiet, reported at %d" % (t, first)


def test_one_press_and_release():
    sim, wave, snaps, marks = run([(1000, 3, True), (9001, 3, False)], until=12000)
    assert snaps == [(2, IDLE), (167, IDLE & ~8), (1501, IDLE)]   # 6*167=1002, 6*1501=9006
    assert marks == [0, 0]                          # the two zero words of the entry
    check_against_truth(wave, snaps, 12000)


def test_bounce_every_flip_reported_in_order():
    edges = bounce(600, 5, True, pulses=6, spacing=37)    # 13 flips, 296 ns apart
    sim, wave, snaps, _ = run(edges, until=2000)
    assert len(snaps) == 1 + 13
    check_against_truth(wave, snaps, 2000)


@pytest.mark.parametrize("gap", [1, 2, 3, 5, 6, 7, 11, 12, 13, 20])
def test_near_simultaneous_presses_never_reversed(gap):
    # Box 1 THROW at cycle 500, box 3 THROW `gap` cycles (8 ns each) later.
    a, b = 0, 8
    sim, wave, snaps, _ = run([(500, a, True), (500 + gap, b, True)], until=800)
    seen = {}
    for loops, levels in snaps[1:]:
        for pin in (a, b):
            if not levels & (1 << pin) and pin not in seen:
                seen[pin] = loops
    assert seen[a] <= seen[b]                       # never reversed
    assert L * seen[a] - 500 < L                    # the first is stamped within one loop
    if gap >= 2 * L:
        assert seen[a] < seen[b]                    # far enough apart: told apart
    check_against_truth(wave, snaps, 800)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(50, 3000), st.integers(0, 16), st.booleans()), min_size=1, max_size=25))
def test_random_waveforms_match_the_truth(raw):
    sim, wave, snaps, _ = run(raw, until=3200)
    check_against_truth(wave, snaps, 3200)


def test_first_edge_is_not_delayed_by_bounce_on_another_pin():
    # Box 1 DODGE chatters every 13 cycles (a flip each 104 ns, faster than any real contact);
    # box 4 CATCH closes in the middle of it. Its first edge is reported within 2 loops.
    storm = bounce(100, 1, True, pulses=60, spacing=13)
    for t in (403, 404, 405, 406, 407, 408, 409, 410, 411, 412, 413, 414, 415):
        sim, wave, snaps, _ = run(storm + [(t, 14, True)], until=2000)
        first = min(loops for loops, lv in snaps if not lv & (1 << 14))
        assert 0 <= L * first - t < 2 * L
        check_against_truth(wave, snaps, 2000)


def test_skipping_quiet_loops_gives_the_same_run():
    edges = bounce(2000, 2, True, 3, 50) + [(7001, 9, True), (7005, 10, True), (15000, 9, False)]
    plain = PioSim(skip=False)
    fast = PioSim(skip=True)
    wave = steps(edges)
    assert plain.run(wave, 16000) == fast.run(wave, 16000)
    assert plain.state == fast.state


def _sim_with_counter(counter, **kw):
    sim = PioSim(**kw)
    sim.state = State(x_register=0xFFFFFFFF, input_shift_register=ShiftRegister(counter, 0),
                      program_counter=sim.sample_pc)
    return sim


def test_wrap_mark_when_the_counter_passes_zero():
    sim = _sim_with_counter(40)
    wave = steps([(6 * 100, 0, True)])
    words = sim.run(wave, 6 * 200)
    snaps, marks = decode(words)
    # counter 40 at loop 0 (start-up report takes 2 loops: 40 -> 38), reaches 0 at loop 40
    assert marks == [(-0) & 0x3FFFFFFF]             # a lone count word holding 0
    assert [w for w in words if not w & 0x80000000][1] == 0
    # counts after the mark continue the same clock: the press at loop 100 reads 40 - 100
    press = [w for w in words if not w & 0x80000000][-1]
    assert press == (40 - 100) & 0x3FFFFFFF


def test_wrap_inside_a_change_path_still_reports_a_count_near_the_wrap():
    # The change path counts down by two; if it crosses zero there is no mark, but the
    # change's own count word sits at the wrap, and the counter stays below 2**30, so the
    # next mark comes 2**30 loops later as always.
    for start in (0, 1):     # counts 0 and 1 are the ones whose path crosses zero
        sim = _sim_with_counter(start + 10)
        words = sim.run(steps([(6 * 10, 4, True)]), 6 * 40)
        counts = [w for w in words if not w & 0x80000000]
        assert counts[-1] == start
        assert sim.state.input_shift_register.contents == (start + 10 - 40) & 0x3FFFFFFF


def test_counter_keeps_time_across_four_thousand_million_loops():
    # With quiet loops skipped arithmetically, run for 2**32 loops (206 s at 125 MHz): a
    # wrap mark every 2**30 loops, and a press after them counted right.
    press_loop = (1 << 32) + 777
    sim = PioSim()
    words = sim.run(steps([(6 * press_loop - 3, 6, True)]), 6 * (press_loop + 10))
    snaps, marks = decode(words)
    assert marks == [0] * 6                         # 2 at the start, then loops 2**30, 2 * 2**30, ...
    assert snaps[-1] == (press_loop & 0x3FFFFFFF, IDLE & ~(1 << 6))
    assert sim.state.input_shift_register.contents < 1 << 30


def test_wrap_mark_lands_on_the_loop_where_the_count_reads_zero():
    sim = PioSim()
    times = []
    sim.run(steps([]), 6 * ((1 << 30) + 5))
    for cycle, w in sim.words:
        if w == 0 and cycle > 100:
            times.append(cycle)
    # the mark is pushed in the loop that starts at 6 * 2**30 (its 6th cycle)
    assert len(times) == 1 and 0 <= times[0] - 6 * (1 << 30) < 12


def test_full_fifo_drops_words_but_never_stalls_the_clock():
    # No DMA: the 4-word FIFO (the emulator's; the board joins it to 8) fills after two
    # changes; later pushes are dropped and counted, the state machine keeps counting.
    edges = bounce(300, 0, True, pulses=3, spacing=40)
    sim = PioSim(dma=False)
    sim.run(steps(edges), until=1200)
    assert len(sim.state.receive_fifo) == 4
    assert sim.lost_words == 2 + 2 * (1 + 7) - 4
    assert sim.state.input_shift_register.contents == (1 << 30) - 1200 // 6


@pytest.mark.parametrize("offset", range(-8, 16))
def test_edges_during_the_wrap_mark_are_reported_within_two_loops(offset):
    # Counter 40: the mark is due in the loop that starts at cycle 240 and, like a change,
    # takes two loops. An edge anywhere around it is seen within two loops, and the
    # counter stays a clock. If the edge is seen one or two loops before, its change path
    # counts through zero and its own count word (1 or 0) stands in for the mark.
    sim = _sim_with_counter(40)
    wave = steps([(240 + offset, 7, True)])
    words = sim.run(wave, 600)
    snaps, marks = decode(words)
    counts = [w for w in words if not w & 0x80000000]
    assert counts.count(0) + counts.count(1) == 1
    assert marks == ([] if -12 < offset <= 0 else [0])
    check_against_truth(wave, [((loops + 40) & 0x3FFFFFFF, lv) for loops, lv in snaps], 600, isolated=False,
                       first_loop=0)
    assert sim.state.input_shift_register.contents == (40 - 100) & 0x3FFFFFFF

"""PIO counts onto the press timeline, and the drain's contract with the rest of the firmware.

The truth for a stamp is exact rational arithmetic: loop n happened n * 6 / f seconds after
the start. The drain must put into the capture ring the very snapshots the IRQ backend
would put there, so that debounce, order and contests run unchanged.
"""

import subprocess
import sys
from fractions import Fraction

import pytest
from conftest import FIRMWARE, ROOT
from courtside.capture import IrqCapture
from courtside.clock import MASK, add, diff
from courtside.debounce import Debouncer
from courtside.piostamp import Drain, Stamper, Windows
from courtside.ring import Ring
from hypothesis import given, settings
from hypothesis import strategies as st
from pio_sim import PioSim
from pio_waves import IDLE, DmaBuffer, bounce, decode, steps

F = 125_000_000
PERIOD = 1 << 30


def true_us(loops, freq=F):
    return Fraction(loops * 6 * 1_000_000, freq)


def count(loops):
    return (-loops) & (PERIOD - 1)


def nearest(us):
    """A stamp: the exact time rounded to the nearest microsecond (halves up)."""
    return int(us + Fraction(1, 2))


@settings(max_examples=200, deadline=None)
@given(st.sampled_from([125_000_000, 133_000_000, 150_000_000, 200_000_000, 48_000_000]),
       st.integers(0, MASK),
       st.lists(st.tuples(st.integers(1, 3 * PERIOD), st.floats(0, 0.45)), min_size=1, max_size=40))
def test_counts_land_exactly_where_the_loops_happened(freq, t0, gaps):
    # Gaps of up to three 30-bit periods (as after lost words), each drained up to
    # 0.45 period late: the period count comes from the tick clock and must be right.
    s = Stamper(freq)
    s.start(t0)
    loops = 0
    for gap, lateness in gaps:
        loops += gap
        exact = true_us(loops, freq)
        now = add(t0, int(exact) + int(lateness * s.period_us))
        assert s.place(count(loops), now) == add(t0, nearest(exact))


def test_no_drift_over_a_long_game():
    # One count word a second for 3 hours: the stamp never drifts from the exact value.
    s = Stamper(F)
    s.start(12345)
    per_second = 125_000_000 // 6 + 1
    for i in range(1, 3 * 3600):
        loops = i * per_second
        exact = nearest(true_us(loops))
        assert s.place(count(loops), add(12345, exact + 500)) == add(12345, exact)


def test_words_drained_too_late_are_misplaced_by_a_whole_period():
    # The documented limit: a count word must be drained within half a 30-bit period
    # (25.7 s at 125 MHz). Drained 30 s late, the period count rounds the wrong way.
    s = Stamper(F)
    s.start(0)
    exact = nearest(true_us(1000))
    late = s.place(count(1000), add(0, exact + 30_000_000))
    assert diff(late, exact) == s.period_us or diff(late, exact) == s.period_us + 1
    assert s.period_us == 51_539_607                    # 2**30 loops of 48 ns


def test_a_clock_whose_stamps_would_need_big_integers_is_refused():
    # 12 MHz x 125 / 7 (a PLL setting): loops are 6 * 7 / 1500 us exactly, but the
    # fraction's denominator is 107 million; the backend then falls back to IRQ capture.
    with pytest.raises(ValueError, match="214285714 Hz"):
        Stamper(214_285_714)
    for freq in (48_000_000, 125_000_000, 133_000_000, 150_000_000, 200_000_000, 250_000_000):
        s = Stamper(freq)
        assert (s.num + 1) * s.den < PERIOD and s.den % 2 == 0


def test_resolution_figures():
    assert Stamper(125_000_000).ns(1) == 48
    assert Stamper(133_000_000).ns(1) == 45
    assert Stamper(200_000_000).ns(1) == 30


# --- the anchor ------------------------------------------------------------------------

@pytest.mark.parametrize("freq", [125_000_000, 133_000_000, 200_000_000, 48_000_000])
@pytest.mark.parametrize("t0,t1", [(100, 100), (100, 101), (100, 102), (MASK - 1, 2)])
def test_the_anchor_is_the_centre_of_the_window_and_stamps_round(freq, t0, t1):
    # ticks_us() floors: an enable read between t0 and t1 lies in [t0, t1 + 1).
    s = Stamper(freq)
    s.start_window(t0, t1)
    centre = Fraction(diff(t1, t0) + 1, 2)
    assert diff(s.ticks, t0) + Fraction(s.frac, s.den) == centre
    for loops in (1, 7, 125, 1000, 12345, 10 ** 7):
        s.start_window(t0, t1)
        exact = centre + true_us(loops, freq)
        assert s.place(count(loops), add(t0, int(exact))) == add(t0, nearest(exact))


def test_rounding_is_half_a_microsecond_nearer_than_flooring():
    # Counts at every fraction of a microsecond: rounded stamps are off by at most 1/2,
    # by 1/4 on average; floored ones (what ticks_us() itself does) by 1/2 on average.
    s = Stamper(F)
    s.start(0)
    errors = []
    for loops in range(1, 2000):
        errors.append(s.place(count(loops), int(true_us(loops))) - true_us(loops))
    assert max(abs(e) for e in errors) <= Fraction(1, 2)
    assert abs(sum(abs(e) for e in errors) / len(errors) - Fraction(1, 4)) < Fraction(1, 100)


def test_the_rarer_window_width_is_kept():
    w = Windows()
    for width in [3, 2, 2, 3, 2, 2, 9, 2, 2]:        # 9: an interrupt ran inside, not counted
        w.add(width)
    assert (w.low, w.n_low, w.n_high) == (2, 6, 2) and w.balance() == 2
    assert w.keep(3) and not w.keep(2) and not w.keep(9) and not w.keep(1)
    assert w.spread_ns(3) == 250 and w.spread_ns(2) == 750
    w.add(1)                                         # narrower still: 2 becomes the wide kind
    assert (w.low, w.n_low, w.n_high) == (1, 1, 6) and w.keep(1) and not w.keep(2)
    w.add(-5)                                        # (tick wrap aside) far narrower: start again
    assert (w.low, w.n_low, w.n_high) == (-5, 1, 0)
    even = Windows()
    for width in (4, 5, 4, 5):
        even.add(width)
    assert even.keep(4) and even.keep(5)             # equally rare: both pin it to 1/2


# --- the drain -------------------------------------------------------------------------

def pio_words(edges, until):
    sim = PioSim()
    return sim.run(steps(edges), until)


def drain_all(words, ring, t0=1000, buffer_words=64, every=8, mask=0x1FFFF, in_base=0, width=17):
    buf = DmaBuffer(buffer_words)
    stamper = Stamper(F)
    stamper.start(t0)
    drain = Drain(ring, stamper, buf.halves, in_base, width, mask)
    drain.last = (IDLE << in_base) & mask
    out = []
    pair = [0, 0]
    for i, w in enumerate(words):
        buf.write(w)
        if i % every == every - 1 or i == len(words) - 1:
            drain.take(buf.written, add(t0, 10_000_000))
            while ring.get(pair):
                out.append(tuple(pair))
    return drain, out


def filled_drain(words, ring, buffer_words=64, t0=0):
    """A drain anchored at tick ``t0`` and a DMA buffer holding ``words``."""
    buf = DmaBuffer(buffer_words)
    stamper = Stamper(F)
    stamper.start(t0)
    drain = Drain(ring, stamper, buf.halves, 0, 17, 0x1FFFF)
    drain.last = IDLE
    for w in words:
        buf.write(w)
    return drain, buf


WINDOWS_SCRIPT = """
import sys
sys.path.insert(0, %r)
from courtside.piostamp import Windows
out = []
for widths in ([3, 2, 2, 3, 2, 2, 9, 2, 2], [5] * 16, [4, 5, 4, 5, 3], [7, 6, 6, 6, 6, 30, 7, 1, 2]):
    w = Windows()
    for x in widths:
        w.add(x)
    out.append([w.low, w.n_low, w.n_high, w.balance()] + [[w.keep(x), w.spread_ns(x)] for x in range(0, 10)])
print(out)
"""


def test_micropython_and_cpython_judge_windows_alike(micropython, tmp_path):
    script = tmp_path / "w.py"
    script.write_text(WINDOWS_SCRIPT % str(FIRMWARE))
    outs = [subprocess.run([exe, str(script)], capture_output=True, text=True, timeout=60, check=True).stdout
            for exe in (micropython, sys.executable)]
    assert outs[0] == outs[1]
    assert outs[0].startswith("[[2, 6, 2, 2, [False, 1000], [False, 2000], [False, 750], [True, 250]")


def test_skipped_words_are_not_read():
    ring = Ring(16)
    drain, buf = filled_drain(pio_words([(600, 2, True)], 900), ring)
    drain.skip(buf.written)
    assert drain.take(buf.written, 1000) == 0 and len(ring) == 0 and drain.unpaired == 0


def test_drain_puts_the_snapshots_the_truth_says():
    edges = bounce(1000, 0, True, 4, 300) + [(1700, 8, True), (1703, 12, True), (40_000, 8, False)]
    words = pio_words(edges, 50_000)
    snaps, _ = decode(words)
    ring = Ring(16)
    drain, out = drain_all(words, ring)
    expect = [(add(1000, nearest(true_us(loops))), levels) for loops, levels in snaps[1:]]
    assert out == expect
    assert ring.dropped == 0 and drain.unpaired == 0 and drain.overrun == 0


def test_drain_counts_words_the_dma_overwrote():
    edges = bounce(1000, 3, True, 20, 40)           # 41 changes: 82 words
    words = pio_words(edges, 3000)
    ring = Ring(128)
    drain, out = drain_all(words, ring, buffer_words=16, every=len(words))
    assert drain.overrun == len(words) - 16
    assert ring.dropped == (len(words) - 16 + 1) // 2
    assert len(out) == 8                             # the last 16 words: 8 whole snapshots


def test_drain_reports_a_levels_word_whose_count_was_lost():
    words = pio_words([(600, 2, True), (900, 5, True), (1200, 2, False)], 1500)
    del words[5]                                     # the first press's count word
    ring = Ring(16)
    drain, out = drain_all(words, ring)
    assert drain.unpaired == 1 and ring.dropped == 1
    # the next snapshots still arrive whole and stamped right
    assert out == [(add(1000, nearest(true_us(150))), IDLE & ~4 & ~32),
                   (add(1000, nearest(true_us(200))), IDLE & ~32)]


def test_full_ring_leaves_captures_waiting_instead_of_dropping():
    edges = bounce(1000, 5, True, 6, 60)             # 13 changes
    words = pio_words(edges, 3000)
    ring = Ring(4)                                   # holds 3
    drain, buf = filled_drain(words, ring)
    got = []
    pair = [0, 0]
    passes = 0
    while len(got) < 13:
        drain.take(buf.written, 1_000_000)
        while ring.get(pair):
            got.append(tuple(pair))
        passes += 1
    assert passes == 5 and ring.dropped == 0
    assert [s for s, _ in got] == sorted(s for s, _ in got)


def test_a_take_reads_at_most_take_words_and_leaves_the_rest_in_order():
    """A storm's backlog is moved a bounded piece a take (on the chip, draining all of it
    at once made each pass longer than the last); every snapshot still arrives, in
    order, stamped as the truth says."""
    from courtside import piostamp
    edges = bounce(1000, 3, True, 100, 40)            # 201 changes: 402 words
    words = pio_words(edges, 20_000)
    snaps, _ = decode(words)
    ring = Ring(512)
    drain, buf = filled_drain(words, ring, buffer_words=1024, t0=1000)
    moved = []
    while drain.read != buf.written:
        moved.append(drain.take(buf.written, add(1000, 10_000_000)))
    assert max(moved) == piostamp._TAKE_WORDS // 2 and len(moved) == -(-len(words) // piostamp._TAKE_WORDS)
    got = []
    pair = [0, 0]
    while ring.get(pair):
        got.append(tuple(pair))
    assert got == [(add(1000, nearest(true_us(loops))), levels) for loops, levels in snaps[1:]]
    assert drain.overrun == 0 and drain.unpaired == 0 and ring.dropped == 0


def test_changes_on_non_button_pins_in_the_window_are_skipped():
    # A 3-box build: buttons GP0..GP11 and main GP16; GP12..GP15 are read but not buttons.
    mask = 0xFFF | 1 << 16
    words = pio_words([(600, 13, True), (900, 2, True)], 1500)
    ring = Ring(16)
    drain, out = drain_all(words, ring, mask=mask)
    assert drain.noise == 2                          # the start-up report, then GP13
    assert [lv for _, lv in out] == [IDLE & mask & ~4]


def test_window_offset_puts_levels_back_on_their_gpio_numbers():
    # Buttons on GP6..GP22 (in_base 6): levels word bit 0 is GP6.
    words = pio_words([(600, 3, True)], 900)        # window pin 3 = GP9
    ring = Ring(16)
    mask = 0x1FFFF << 6
    _, out = drain_all(words, ring, mask=mask, in_base=6)
    assert out == [(add(1000, nearest(true_us(100))), mask & ~(1 << 9))]


# --- the contract: the same snapshots and presses as the IRQ backend -------------------

def _irq_snapshots(wave, t0, ring):
    level = [IDLE]
    now = [t0]

    class Flag:
        def set(self):
            pass

    cap = IrqCapture(ring, lambda: level[0], lambda: now[0], 0x1FFFF, Flag())
    for cycle, lv in wave[1:]:
        level[0] = lv
        now[0] = add(t0, int(Fraction(cycle * 8, 1000)))   # an interrupt with no latency
        cap.irq(None)


def _presses(snaps, t0):
    deb = Debouncer(tuple(range(17)), 20_000, 3_000_000, IDLE, t0)
    out = []
    for stamp, levels in snaps:
        deb.feed(stamp, levels, out)
    deb.poll(add(t0, 60_000_000), out)
    return out


def test_pio_and_irq_snapshots_feed_the_debouncer_alike():
    t0 = MASK - 3000                                  # cross the tick wrap on the way
    edges = (bounce(2000, 0, True, 5, 900) + bounce(2400, 4, True, 3, 700)
             + bounce(900_000, 0, False, 4, 800) + [(3_000_000, 16, True), (3_100_000, 16, False)])
    wave = steps(edges)
    words = PioSim().run(wave, 3_200_000)
    pio_ring, irq_ring = Ring(64), Ring(64)
    _, pio = drain_all(words, pio_ring, t0=t0, every=4)
    _irq_snapshots(wave, t0, irq_ring)
    irq = []
    pair = [0, 0]
    while irq_ring.get(pair):
        irq.append(tuple(pair))
    assert [lv for _, lv in pio] == [lv for _, lv in irq]
    assert all(0 <= diff(p, i) <= 1 for (p, _), (i, _) in zip(pio, irq))
    a, b = _presses(pio, t0), _presses(irq, t0)
    assert [(k, btn) for k, btn, _ in a] == [(k, btn) for k, btn, _ in b]
    assert len(a) == 6                                # 3 presses, 3 releases
    assert all(0 <= diff(x[2], y[2]) <= 1 for x, y in zip(a, b))


# --- MicroPython: the drain allocates nothing -----------------------------------------

def test_drain_runs_without_the_heap_on_micropython(micropython):
    out = subprocess.run([micropython, str(ROOT / "tests" / "mp" / "pio_drain_heap_lock.py"), str(FIRMWARE)],
                         capture_output=True, text=True, timeout=60, check=False)
    assert out.returncode == 0, out.stdout + out.stderr
    fields = dict(zip(out.stdout.split()[::2], out.stdout.split()[1::2]))
    assert fields["moved"] == "40" and fields["dropped"] == "0"
    assert int(fields["last"]) == add(100, nearest(true_us(40 * 1000)))


@pytest.mark.parametrize("freq", [125_000_000, 133_000_000])
def test_micropython_and_cpython_agree_on_stamps(micropython, freq, tmp_path):
    script = tmp_path / "s.py"
    script.write_text(
        "import sys\nsys.path.insert(0, %r)\nfrom courtside.piostamp import Stamper\n"
        "s = Stamper(%d)\nout = []\nfor n in range(1, 200):\n    s.start_window(5, 5 + n %% 3)\n"
        "    loops = n * 7919 * 1009\n"
        "    out.append(s.place((-loops) & 0x3FFFFFFF, (5 + loops * 6 // 125 + 999) & 0x3FFFFFFF))\n"
        "print(out)\n" % (str(FIRMWARE), freq))
    expect = [add(5, nearest(Fraction(n % 3 + 1, 2) + true_us(n * 7919 * 1009, freq))) for n in range(1, 200)]
    for exe in (micropython, sys.executable):
        run = subprocess.run([exe, str(script)], capture_output=True, text=True, timeout=60, check=True)
        assert run.stdout.strip() == str(expect), exe

"""Bounce storm: does every press keep its first-edge order when all 16 buttons chatter?

4 players x 4 buttons; every press is followed by a 5 ms burst of contact bounce; the
presses of a round are spaced by a fixed gap, from the tie window (1000 us) up. The
capture is the IRQ backend as the Pico runs it: the real ``IrqCapture`` handler filling
the real ``Ring``, the real debouncer and arbiter draining it, with two things only a
Pico has, modelled: interrupt latency (20-25 us, 1 % of interrupts 100 us; an interrupt
reads the levels when it runs, so edges during the latency share its snapshot), and a
main loop that drains the ring only every ``--loop-us`` (it is busy drawing a frame).

    python bench/bounce_storm.py            # CPython
    micropython bench/bounce_storm.py       # the same code on the MicroPython unix port

Prints, per gap: the share of press pairs judged correctly (ahead when >= the window
apart, tied when closer) and the presses lost, for the ring sizes given.
"""

import sys

sys.path.insert(0, (__file__.rsplit("/", 1)[0] if "/" in __file__ else ".") + "/../firmware")

from courtside.arbiter import Arbiter
from courtside.capture import IrqCapture
from courtside.clock import add
from courtside.debounce import PRESS, Debouncer
from courtside.fair import Fair, seeded
from courtside.ring import Ring

TIE_US = 1000
BUTTONS = 16
ALL_OPEN = (1 << BUTTONS) - 1


class Flag:
    def set(self):
        pass


class Pin:
    """A button pin as the handler sees it: which edge raised the interrupt."""

    def __init__(self):
        self.edge = 0

    def irq(self):
        return self

    def flags(self):
        return self.edge


FALLING, RISING = 4, 8
PINS = [Pin() for _ in range(BUTTONS)]
BITS = {}
for _i in range(BUTTONS):
    BITS[PINS[_i]] = 1 << _i


def storm(rng, gap_us, rounds, ring_size, loop_us, t0):
    """Returns (pairs judged right, pairs, presses lost, snapshots dropped)."""
    source = rng.source
    right = pairs = lost = 0
    now = [0]
    level = [ALL_OPEN]
    ring = Ring(ring_size)
    capture = IrqCapture(ring, lambda: level[0], lambda: add(t0, now[0]), ALL_OPEN, Flag(), BITS, FALLING)
    debounce = Debouncer(list(range(BUTTONS)), 20000, 3000000, ALL_OPEN, t0)
    arbiter = Arbiter({"tie_us": TIE_US, "contest_ms": 1500, "answer_ms": 3000}, rng)
    start = 1000
    snap = [0, 0]
    out = []
    for _ in range(rounds):
        order = rng.shuffle(list(range(BUTTONS)))
        edges = []        # (time, button, closed)
        truth = {}
        for k in range(BUTTONS):
            b = order[k]
            t = start + k * gap_us
            truth[b] = t
            edges.append((t, b, True))
            closed = True
            for offset in sorted(set(1 + rng.below(5000) for _ in range(8))):
                closed = not closed
                edges.append((t + offset, b, closed))
            if not closed:
                edges.append((t + 5001, b, True))
            edges.append((t + 80000, b, False))
            edges.append((t + 80000 + 1 + rng.below(3000), b, True))   # release bounce
            edges.append((t + 84000, b, False))
        edges.sort()
        # interrupts: each edge raises one; it runs after the latency and reads the levels then
        fires = []
        for t, b, closed in edges:
            latency = 100 if source(1)[0] < 3 else 20 + rng.below(6)
            fires.append((t + latency, t, b, closed))
        fires.sort()
        events = sorted([(t, 0, b, c) for t, b, c in edges] + [(f, 1, b, c) for f, _, b, c in fires])
        next_drain = start
        got = {}
        for t, kind, b, closed in events:
            while next_drain <= t:
                now[0] = next_drain
                got.update(drain(ring, debounce, arbiter, snap, out, add(t0, next_drain)))
                next_drain += loop_us
            now[0] = t
            if kind == 0:
                bit = 1 << b
                level[0] = level[0] & ~bit if closed else level[0] | bit
            else:
                pin = PINS[b]
                pin.edge = FALLING if closed else RISING
                capture.irq(pin)
        end = events[-1][0] + 2000000
        while next_drain <= end:
            now[0] = next_drain
            got.update(drain(ring, debounce, arbiter, snap, out, add(t0, next_drain)))
            next_drain += max(loop_us, 20000)
        lost += BUTTONS - len([b for b in truth if b in got])
        for a in range(BUTTONS):
            for c in range(a + 1, BUTTONS):
                ba, bc = order[a], order[c]
                if ba // 4 == bc // 4 or ba not in got or bc not in got:
                    continue
                pairs += 1
                pa, pc = got[ba], got[bc]
                true_gap = truth[bc] - truth[ba]
                if true_gap < TIE_US:
                    ok = pa.rank == pc.rank
                else:
                    ok = pa.rank < pc.rank and not (pa.tie and pc.tie and pa.rank == pc.rank)
                right += ok
        start = end + 1000
    return right, pairs, lost, ring.dropped


def drain(ring, debounce, arbiter, snap, out, now):
    found = {}
    while ring.get(snap):
        debounce.feed(snap[0], snap[1], out)
    debounce.poll(now, out)
    for kind, b, stamp in out:
        if kind == PRESS:
            p = arbiter.press(b // 4, b % 4, stamp)
            found[b] = p
    del out[:]
    arbiter.poll(now)
    return found


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    rng = Fair(seeded(2024))
    runtime = sys.implementation.name
    print("bounce storm (%s): 16 buttons, 5 ms bounce, IRQ latency 20-25 us (1%% 100 us), %d rounds"
          % (runtime, rounds))
    print("%-8s %-6s %-8s %10s %8s %8s" % ("gap us", "ring", "loop us", "correct", "lost", "dropped"))
    for ring_size, loop_us in ((256, 2000), (256, 20000), (32, 20000)):
        for gap in (1000, 1050, 1200, 2000, 5000):
            t0 = (1 << 30) - 300000   # start just before the tick counter wraps
            right, pairs, lost, dropped = storm(rng, gap, rounds, ring_size, loop_us, t0)
            print("%-8d %-6d %-8d %9.2f%% %8d %8d" % (gap, ring_size, loop_us, 100.0 * right / pairs, lost,
                                                    dropped))


main()

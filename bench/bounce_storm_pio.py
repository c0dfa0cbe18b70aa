"""Bounce storm through the PIO capture path: is every first edge kept, in order, to the us?

4 players x 4 buttons. In each round all 16 buttons are pressed once, in a random order,
one press every SPACING us (down to the 1000 us tie window), then released 40 ms later.
Every press and release is a 5 ms bounce burst: the contact flips at random intervals of
20-400 us and settles. The pins drive the real capture program in the PIO emulator (the
firmware's opcodes); the words go through a model of the DMA ring (1024 words, as the
firmware), the firmware's drain (every 2 ms, the poll timer) into a 256-entry capture
ring, then the firmware's debouncer (20 ms). A press is right when its stamp is within
1 us of the true first edge and its rank in the round is its true rank.

For comparison the same storms go through a model of the IRQ path: each edge raises an
interrupt serviced 20-25 us later (100 us for one in fifty, the figures in DESIGN.md),
one at a time, 12 us each; the handler stamps the service time and reads the pins then.

    .venv/bin/python bench/bounce_storm_pio.py [--rounds N] [--seed S]

``storm`` and ``run_pio`` can be imported by another bench to put both paths side by side.
At the end it times the drain itself (microseconds per snapshot, median of 9 passes over
1024 snapshots) on CPython and on the MicroPython unix port, side by side.
"""

import argparse
import random
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "firmware"), str(ROOT / "host"), str(ROOT / "tests")]

from courtside.clock import MASK, add, diff  # noqa: E402
from courtside.debounce import PRESS, Debouncer  # noqa: E402
from courtside.piostamp import Drain, Stamper  # noqa: E402
from courtside.ring import Ring  # noqa: E402
from pio_sim import PioSim  # noqa: E402
from pio_waves import IDLE, DmaBuffer, steps  # noqa: E402

MHZ = 125                      # cycles per microsecond
PLAYERS, BUTTONS = 4, 4
BURST_US = 5000
FLIP_US = (20, 400)
HOLD_US = 40_000


def _burst(rng, t, gpio, closed, edges):
    """A 5 ms bounce burst starting at t (us) that settles to ``closed``."""
    state = closed
    edges.append((t, gpio, state))
    end = t + BURST_US
    while True:
        t += rng.uniform(*FLIP_US)
        if t > end:
            break
        state = not state
        edges.append((t, gpio, state))
    if state != closed:
        edges.append((end, gpio, closed))


def storm(rng, spacing_us, start_us=1000.0):
    """One round: (edges [(t_us, gpio, closed)], truth [(t_us, gpio)] of first press edges)."""
    order = list(range(PLAYERS * BUTTONS))
    rng.shuffle(order)
    edges, truth = [], []
    for i, gpio in enumerate(order):
        t = start_us + i * spacing_us + rng.uniform(0, 1)   # not on a microsecond boundary
        truth.append((t, gpio))
        _burst(rng, t, gpio, True, edges)
        _burst(rng, t + HOLD_US, gpio, False, edges)
    return sorted(edges), truth


def run_pio(edges, end_us, t0, drain_every_us=2000, stall=None, buffer_words=1024, ring_size=256):
    """Presses [(stamp, gpio)] and loss counters for one round through the PIO path.

    ``stall`` = (from_us, to_us): no drain pass in that window (a long GC, a flash write).
    """
    cyc = [(round(t * MHZ), g, c) for t, g, c in edges]
    sim = PioSim()
    sim.run(steps(cyc), round(end_us * MHZ))
    buf = DmaBuffer(buffer_words)
    ring = Ring(ring_size)
    stamper = Stamper(MHZ * 1_000_000)
    stamper.start(t0)
    drain = Drain(ring, stamper, buf.halves, 0, 17, 0x1FFFF)
    drain.last = IDLE
    deb = Debouncer(tuple(range(17)), 20_000, 3_000_000, IDLE, t0)
    out, presses = [], []
    pair = [0, 0]
    pushed = iter(sim.words)
    pending = next(pushed, None)
    t = 0
    while t <= end_us:
        t += drain_every_us
        if stall and stall[0] <= t < stall[1]:
            continue
        cycle = t * MHZ
        while pending is not None and pending[0] <= cycle:
            buf.write(pending[1])
            pending = next(pushed, None)
        now = add(t0, int(t))
        drain.take(buf.written, now)
        while ring.get(pair):
            deb.feed(pair[0], pair[1], out)
        deb.poll(now, out)
    presses = [(stamp, gpio) for kind, gpio, stamp in out if kind == PRESS]
    return presses, {"overrun_words": drain.overrun, "ring_dropped": ring.dropped, "words": len(sim.words)}


def run_irq_model(rng, edges, end_us, t0, drain_every_us=2000):
    """The IRQ path as modelled above: presses [(stamp, gpio)] and ring drops."""
    levels = IDLE
    changes = []                                # (t, levels after)
    for t, g, closed in edges:
        levels = (levels & ~(1 << g)) if closed else (levels | (1 << g))
        changes.append((t, levels))
    snaps = []                                  # (service time, levels read)
    free_at = 0.0
    i = 0
    while i < len(changes):
        t = changes[i][0]
        late = 100.0 if rng.random() < 0.02 else rng.uniform(20, 25)
        service = max(t + late, free_at)
        free_at = service + 12.0
        while i < len(changes) and changes[i][0] <= service:   # edges before the read merge
            i += 1
        snaps.append((service, changes[i - 1][1]))
    ring = Ring(256)
    deb = Debouncer(tuple(range(17)), 20_000, 3_000_000, IDLE, t0)
    out = []
    pair = [0, 0]
    j = 0
    t = 0
    while t <= end_us:
        t += drain_every_us
        while j < len(snaps) and snaps[j][0] <= t:
            ring.put(add(t0, int(snaps[j][0])), snaps[j][1])
            j += 1
        while ring.get(pair):
            deb.feed(pair[0], pair[1], out)
        deb.poll(add(t0, int(t)), out)
    return [(stamp, gpio) for kind, gpio, stamp in out if kind == PRESS], ring.dropped


def score(presses, truth, t0):
    """(order right, stamp right, lost, stamp errors in us) for one round."""
    first = {}
    for stamp, gpio in presses:
        first.setdefault(gpio, stamp)
    true_rank = [g for _, g in sorted(truth)]
    got_rank = [g for _, g in sorted((diff(s, t0), g) for g, s in first.items())]
    order = stamped = 0
    errors = []
    for t, gpio in truth:
        if gpio not in first:
            continue
        err = diff(first[gpio], t0) - t
        errors.append(err)
        order += got_rank.index(gpio) == true_rank.index(gpio)
        stamped += abs(err) <= 1
    return order, stamped, len(truth) - len(first), errors


CASES = (
    ("PIO, 1024-word buffer, drained every 2 ms", {}),
    ("PIO, 1024-word buffer, drain stalled 60 ms", {"stall": (3000, 63000)}),
    ("PIO, 2048-word buffer, drain stalled 60 ms", {"stall": (3000, 63000), "buffer_words": 2048}),
    ("PIO, 512-word buffer, 60 ms", {"stall": (3000, 63000), "buffer_words": 512}),
    ("IRQ model", None),
)


DRAIN_TIMING = """
import sys, time
sys.path.insert(0, %r)
from array import array
from courtside.piostamp import Drain, Stamper
from courtside.ring import Ring
W = 2048
h = array("H", bytes(4 * W))
lv = 0x1FFFF
for i in range(W // 2):
    lv ^= 1 << (i %% 17)
    for j, w in ((2 * i, 0x80000000 | (~lv & 0x7FFFFFFF)), (2 * i + 1, (-(i * 37)) & 0x3FFFFFFF)):
        h[2 * j] = w & 0xFFFF
        h[2 * j + 1] = w >> 16
now = getattr(time, "ticks_us", None) or (lambda: int(time.perf_counter() * 1e6))
times = []
for rep in range(9):
    ring = Ring(2048)
    st = Stamper(125000000)
    st.start(0)
    d = Drain(ring, st, h, 0, 17, 0x1FFFF)
    d.last = 0x1FFFF
    t0 = now()
    moved = d.take(W, 100000)
    times.append((now() - t0) / moved)
times.sort()
print(times[4])
"""


def drain_timing():
    """Median microseconds per snapshot of a drain pass, per runtime."""
    code = DRAIN_TIMING % str(ROOT / "firmware")
    out = {}
    mp = Path(sys.executable).parent / "micropython"
    unix = str(mp) if mp.exists() else shutil.which("micropython")
    runtimes = [("CPython", sys.executable), ("MicroPython unix", unix)]
    for name, exe in runtimes:
        if exe:
            run = subprocess.run([exe, "-c", code], capture_output=True, text=True, timeout=120, check=True)
            out[name] = float(run.stdout.strip())
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--seed", type=int, default=6)
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    print("%d rounds x 16 presses a line; press and release bursts %d ms, flips every %d-%d us;"
          % (args.rounds, BURST_US // 1000, *FLIP_US))
    print("stamps are whole microseconds, so a right stamp is within 1 us of the true edge\n")
    head = ("path", "spacing", "order ok", "stamp ok", "lost", "err median", "err p99", "err max",
            "edges/round", "overrun", "dropped")
    fmt = "%-29s %7s %9s %9s %5s %11s %9s %9s %12s %8s %8s"
    print(fmt % head)
    for spacing in (5000, 2000, 1000):
        rounds = [storm(rng, spacing) for _ in range(args.rounds)]
        end = 1000 + 15 * spacing + HOLD_US + BURST_US + 30_000
        medians = {}
        for name, kw in CASES:
            order = stamped = lost = overrun = dropped = 0
            errors = []
            for r, (edges, truth) in enumerate(rounds):
                t0 = (MASK - 20_000 + r * 7919) & MASK          # cross the tick wrap
                if kw is None:
                    presses, drop = run_irq_model(random.Random(r), edges, end, t0)
                    dropped += drop
                else:
                    presses, extra = run_pio(edges, end, t0, **kw)
                    overrun += extra["overrun_words"]
                    dropped += extra["ring_dropped"]
                a, b, c, e = score(presses, truth, t0)
                order += a
                stamped += b
                lost += c
                errors += e
            n = 16 * len(rounds)
            errs = sorted(abs(e) for e in errors) or [0.0]
            p99 = errs[min(len(errs) - 1, int(0.99 * len(errs)))]
            medians[name] = statistics.median(errs)
            edges_per_round = sum(len(e) for e, _ in rounds) // len(rounds)
            print(fmt % (name, "%d us" % spacing, "%.1f%%" % (100.0 * order / n),
                         "%.1f%%" % (100.0 * stamped / n), lost, "%.2f us" % medians[name],
                         "%.2f us" % p99, "%.2f us" % errs[-1], edges_per_round, overrun, dropped))
        ratio = medians["IRQ model"] / max(medians["PIO, 1024-word buffer, drained every 2 ms"], 1e-9)
        print("%-29s %7s  IRQ/PIO median |stamp error|: %.0fx\n" % ("", "", ratio))
    speed = drain_timing()
    print("drain, us per snapshot (median of 9 passes of 1024; the computer running the bench, not a Pico): "
          + ", ".join("%s %.2f" % kv for kv in speed.items()))
    if len(speed) == 2:
        print("MicroPython / CPython: %.1fx" % (speed["MicroPython unix"] / speed["CPython"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())

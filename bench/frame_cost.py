"""What producing one matrix frame costs: the contest drawing and the frame finisher, each
beside what it replaced, in the same run.

    python bench/frame_cost.py [ROUNDS]        # CPython, then the unix port in a child
    micropython bench/frame_cost.py [ROUNDS]   # the unix port alone

- ``display.contest`` against the algorithm it replaced (a call per column and per pixel,
  kept in tests/mp/contest_same.py), on a verdict of four ranks, one with a tie and an
  early answer, and a four-way tie;
- the finisher, brightness then power cap: ``power.finish`` in bytecode (what the core
  did before: ``display.scale``, then ``power.limit``) against the viper
  ``hw.native.finish`` a Pico hands the core (MicroPython only: CPython cannot load
  viper), on a contest frame under the power budget and an all-white one over it.

Every figure is the median of ROUNDS batches (default 15) of 200 calls, old and new
interleaved, less a batch that calls nothing, in microseconds per call; the ratio is
new / old. A PC runs bytecode some 50-100 times
faster than an RP2040, and viper relatively faster still: compare ratios, not times.
Not measured on a chip.
"""

import sys

HERE = (__file__.rsplit("/", 1)[0] if "/" in __file__ else ".")
sys.path.insert(0, HERE + "/../firmware")
sys.path.insert(0, HERE + "/../tests/mp")

import time  # noqa: E402

from contest_same import old_contest  # noqa: E402
from courtside import display, power  # noqa: E402

MICRO = sys.implementation.name == "micropython"
ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 15
CALLS = 200          # calls per batch

if MICRO:
    def clock_us():
        return time.ticks_us()

    def elapsed_us(t0, t1):
        return time.ticks_diff(t1, t0)
else:
    def clock_us():
        return time.perf_counter_ns() / 1000

    def elapsed_us(t0, t1):
        return t1 - t0


def native_finish():
    """hw.native.finish, or None where viper cannot load (CPython)."""
    if not MICRO:
        return None
    try:
        from courtside.hw import native
    except Exception as e:            # a port built without native code
        print("  (hw.native not loaded: %r)" % e)
        return None
    return native.finish


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def batch(fn, prepare):
    """us for CALLS times prepare() then fn()."""
    i = 0
    t0 = clock_us()
    while i < CALLS:
        prepare()
        fn()
        i += 1
    return elapsed_us(t0, clock_us())


def nothing():
    pass


def race(old, new, prepare=nothing):
    """Median us per call of old and of new, batches interleaved, less a batch that calls
    nothing (the loop, the call and prepare())."""
    olds, news, bare = [], [], []
    for _ in range(ROUNDS):
        bare.append(batch(nothing, prepare))
        olds.append(batch(old, prepare))
        news.append(batch(new, prepare))
    base = median(bare)
    return (median(olds) - base) / CALLS, (median(news) - base) / CALLS


def line(name, old, new):
    print("  %-44s %8.2f %8.2f   %5.3f" % (name, old, new, new / old))


def contests():
    cases = (("4 ranks, one player each", [[0], [1], [2], [3]], [0, 0, 0, 0]),
             ("a tie of 2, an early answer", [[0, 1], [2], [3]], [0, 0, 1 << 3]),
             ("a tie of 4", [[3, 1, 0, 2]], [0]))
    for name, bands, early in cases:
        assert display.contest(bands, early) == old_contest(bands, early)
        old, new = race(lambda b=bands, e=early: old_contest(b, e),
                        lambda b=bands, e=early: display.contest(b, e))
        line("contest: " + name, old, new)


def finishers():
    fast = native_finish()
    one = display.contest([[2]])
    three = display.contest([[0, 1], [2], [3]], [0, 0, 1 << 3])
    white = bytearray(b"\xff" * 192)
    frame = bytearray(192)
    for name, source, brightness in (("finish: 1 rank at brightness 96", one, 96),
                                     ("finish: 3 ranks at 96 (capped)", three, 96),
                                     ("finish: all white at 255 (capped)", white, 255)):
        def prepare(source=source):
            frame[:] = source
        prepare()
        want = bytearray(frame)
        scale = power.finish(want, brightness)
        if fast is None:
            old, new = race(lambda b=brightness: power.finish(frame, b), nothing, prepare)
            print("  %-44s %8.2f %8s   (cap scale %d)" % (name, old, "-", scale))
            continue
        assert fast(frame, brightness) == scale and frame == want
        old, new = race(lambda b=brightness: power.finish(frame, b),
                        lambda b=brightness: fast(frame, b), prepare)
        line(name, old, new)


def main():
    print("%s: us per call, median of %d batches of %d" % (
        "MicroPython unix port" if MICRO else "CPython %d.%d" % sys.version_info[:2], ROUNDS, CALLS))
    print("  %-44s %8s %8s   %5s" % ("", "old", "new", "new/old"))
    contests()
    print("  finish: old = power.finish (bytecode), new = hw.native.finish (viper)")
    finishers()


main()
if not MICRO:
    print()
    import subprocess

    sys.path.insert(0, HERE + "/../host")
    from courtside_host.vpico.runner import micropython_binary
    sys.stdout.flush()
    subprocess.call([micropython_binary(), __file__] + sys.argv[1:])

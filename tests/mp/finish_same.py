# Runs on the MicroPython unix port: the frame finisher in machine code
# (courtside.hw.native.finish, viper) against the bytecode one the core uses elsewhere
# (courtside.power.finish: display.scale, then power.limit), on the same frames. Every
# brightness 1..255, in an order that rebuilds the shared brightness table, with frames
# dark and sparse and dense and all 255, and frames whose sum after the brightness falls
# just under, on and just over the power budget. Each native call runs under
# micropython.heap_lock(), the first at each brightness building the brightness table
# there. Prints one line:
#   cases N differ D under U over O allocates A
# argv: the firmware folder (or a folder of .mpy files compiled for this port's -march).
import sys

from measure import locked

sys.path.insert(0, sys.argv[1])
from courtside import power
from courtside.hw import native

BUDGET = power.BUDGET_UNITS
seed = [0x2545F491]


def rand(n):
    """0..n-1 from a xorshift (the same cases on every run)."""
    x = seed[0]
    x ^= (x << 13) & 0xFFFFFFFF
    x ^= x >> 17
    x ^= (x << 5) & 0xFFFFFFFF
    seed[0] = x
    return x % n


def random_frame(lit):
    """Each byte lit (1..255, a third of them 255) with chance ``lit``/8, else dark."""
    frame = bytearray(192)
    for i in range(192):
        if rand(8) < lit:
            frame[i] = 255 if rand(3) == 0 else 1 + rand(255)
    return frame


def summing_to(total):
    """A frame whose bytes sum to ``total`` (at most 192 * 255), spread unevenly."""
    frame = bytearray(192)
    left = total
    while left:
        i = rand(192)
        add = min(left, 255 - frame[i], 1 + rand(64))
        frame[i] += add
        left -= add
    return frame


def frames(brightness):
    yield bytearray(192)
    yield bytearray(b"\xff" * 192)
    for lit in (1, 3, 6, 8):
        yield random_frame(lit)
    if brightness == 255:               # the table is then the identity: sums at the budget
        for total in (BUDGET - 1, BUDGET, BUDGET + 1, 192 * 255 - 1):
            yield summing_to(total)


counts = {"cases": 0, "differ": 0, "under": 0, "over": 0, "allocates": 0}
order = list(range(1, 256)) + [255, 1, 96, 96, 200, 254, 2]
for brightness in order:
    for frame in frames(brightness):
        got = bytearray(frame)
        kept, got_scale = locked(lambda g=got, b=brightness: native.finish(g, b))
        if not kept:
            counts["allocates"] += 1
            got = bytearray(frame)
            got_scale = native.finish(got, brightness)
        want = bytearray(frame)
        want_scale = power.finish(want, brightness)
        counts["cases"] += 1
        counts["under" if want_scale == 256 else "over"] += 1
        if got != want or got_scale != want_scale:
            counts["differ"] += 1
            if counts["differ"] <= 3:
                print("differs: brightness", brightness, "scale", got_scale, want_scale, list(frame))
print(" ".join("%s %d" % (k, counts[k]) for k in ("cases", "differ", "under", "over", "allocates")))

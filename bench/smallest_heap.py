"""The smallest heap the whole firmware loop runs in, from compiled .mpy files, unix port.

The firmware is compiled as deploy compiles it and run on the MicroPython unix port,
driven by the simulator in virtual time through the worked Dodge Ball round and the
worked refereed Deathball game. For each, the heap is narrowed in steps of 2 KiB to the
smallest size whose run ends normally and writes the same stream as a run in a large
heap:

    python bench/smallest_heap.py

``tests/test_heap.py`` runs both a few KiB above these figures, so a change that makes
the firmware much hungrier fails there. The unix port is a 64-bit build, whose objects
and pointers are twice a Pico's (a Pico needs less; not measured on a chip).
"""

import os
import subprocess
import sys
import tempfile

from heap_start import BIN, ROOT, compile_tree

SCRIPTS = ("dodgeball_round.jsonl", "deathball_game.jsonl")
STEP = 2        # KiB
LOW, HIGH = 48, 320


def run(out, heap_kib, script):
    env = dict(os.environ, MICROPYPATH=out + ":.frozen")
    done = subprocess.run(
        [os.path.join(BIN, "micropython"), "-X", "heapsize=%dk" % heap_kib, "-m",
         "courtside_sim.headless", "--pins", os.path.join(ROOT, "hardware", "pinmap.json"),
         os.path.join(ROOT, "tests", "scripts", script)],
        capture_output=True, text=True, env=env, timeout=600, check=False)
    return done.stdout if done.returncode == 0 else None


def smallest(out, script):
    """The smallest heap (KiB, a multiple of STEP) that plays ``script`` to the same stream."""
    want = run(out, HIGH, script)
    if want is None:
        raise SystemExit("%s does not run even in %d KiB" % (script, HIGH))
    low, high = LOW, HIGH               # low fails (or is untried), high works
    while high - low > STEP:
        mid = (low + high) // 2 // STEP * STEP
        if run(out, mid, script) == want:
            high = mid
        else:
            low = mid
    return high


def main():
    with tempfile.TemporaryDirectory() as out:
        compile_tree(out)
        print("smallest heap for the whole loop, from .mpy, unix port (64-bit), %d KiB steps" % STEP)
        for script in SCRIPTS:
            print("  %-24s %4d KiB" % (script, smallest(out, script)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

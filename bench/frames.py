"""Call frames on the heap: per hot-path function its frame in words, and the heap blocks
one pass of the loop allocates, frames freed at once included.

    python bench/frames.py

Frame words are read from the .mpy files ``courtside deploy`` builds for a Pico
(``courtside_host.mpyframes``); the hot-path list and its ceilings are the table in
tests/test_frames.py. A frame over 11 words is allocated on the heap and freed at every
call: "blocks/call" is what that costs on a Pico (16-byte blocks, a 5-word header before
the state). The pass figures are counted on the MicroPython unix port with the
collector's threshold (tests/mp/pass_blocks.py): 32-byte blocks of 8-byte words there,
the same count of blocks per frame as on a Pico. Not measured on a chip.
"""

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "firmware"))

from courtside_host import mpyframes  # noqa: E402
from courtside_host.vpico.runner import micropython_binary  # noqa: E402
from test_frames import CEILINGS  # noqa: E402

PICO_BLOCK_WORDS = 4     # 16-byte blocks of 4-byte words
HEADER_WORDS = 5         # mp_code_state_t before the state


def pico_blocks(words):
    if words <= mpyframes.STACK_WORDS:
        return 0
    return -(-(HEADER_WORDS + words) // PICO_BLOCK_WORDS)


def main():
    micropython = micropython_binary()
    compiled = {f.name: f for f in mpyframes.firmware_functions(micropython=micropython)}
    over = 0
    print("%-48s %5s %7s %4s %11s" % ("hot-path function", "words", "n_state", "exc", "blocks/call"))
    for name in CEILINGS:
        f = compiled.get(name)
        if f is None:
            print("%-48s  missing (renamed?)" % name)
            continue
        over += f.words > CEILINGS[name]
        print("%-48s %5d %7d %4d %11s" % (name, f.words, f.n_state, f.n_exc_stack,
                                          pico_blocks(f.words) or "-"))
    print("%d of %d hot-path functions over their ceiling (%d words)"
          % (over, len(CEILINGS), mpyframes.STACK_WORDS))
    print()
    run = subprocess.run([micropython, str(ROOT / "tests" / "mp" / "pass_blocks.py"),
                          str(ROOT / "firmware"), str(ROOT / "hardware" / "pinmap.json")],
                         input=b"", capture_output=True, timeout=300, check=True)
    figures = json.loads(run.stdout.decode().strip().splitlines()[-1])
    print("heap blocks per pass (MicroPython unix port, counted by gc.threshold)")
    for key in ("idle lobby", "idle dodgeball", "idle die", "idle referee lobby",
                "step lobby", "step dodgeball", "step die", "step referee lobby",
                "press", "release", "verdict", "join frame", "die frame"):
        print("  %-22s %5d" % (key, figures[key]))
    return 0


if __name__ == "__main__":
    sys.exit(main())

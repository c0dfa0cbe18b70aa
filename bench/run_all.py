"""Run every benchmark, one after another, with the interpreters each one is meant for.

    python bench/run_all.py            # everything (a few minutes)

Each benchmark prints its own figures; this only runs them and labels the output. Figures
from a shared machine vary from run to run: compare ratios measured in the same run.
"""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PY = sys.executable
MICROPYTHON = os.path.join(os.path.dirname(PY), "micropython")

RUNS = [
    ("bounce storm, IRQ capture (CPython)", [PY, "bounce_storm.py", "40"]),
    ("bounce storm, IRQ capture (MicroPython unix port)", [MICROPYTHON, "bounce_storm.py", "40"]),
    ("bounce storm, PIO capture", [PY, "bounce_storm_pio.py"]),
    ("PIO capture's anchor, start-up by start-up", [PY, "pio_anchor.py"]),
    ("hardware layer: IRQ handler and frame build (MicroPython unix port)", [MICROPYTHON, "chip.py"]),
    ("a frame's cost: contest drawing and finisher, old and new (CPython, then the unix port)",
     [PY, "frame_cost.py"]),
    ("heap over 100,000 presses (MicroPython unix port)", [MICROPYTHON, "heap.py", "100000"]),
    ("main-loop latency (MicroPython unix port)", [MICROPYTHON, "latency.py", "300"]),
    ("main-loop latency (CPython)", [PY, "latency.py", "300"]),
    ("main-loop passes through whole games (MicroPython unix port)", [MICROPYTHON, "passes.py"]),
    ("work per pass in instructions (unix port under callgrind)", [PY, "pass_cost.py"]),
    ("heap allocated by a press (unix port, micropython.mem_total)", [PY, "press_alloc.py"]),
    ("heap after start and after a refereed game, from .mpy (unix port)", [PY, "heap_start.py"]),
    ("smallest heap for the whole loop, from .mpy (unix port)", [PY, "smallest_heap.py"]),
    ("power-on to hello, the firmware's share in instructions (unix port under callgrind)", [PY, "boot.py"]),
    ("call frames on the heap: frame words per hot-path function, blocks per pass", [PY, "frames.py"]),
    ("matrix cues: contrast with an unlit LED on a screen, before and now", [PY, "contrast.py"]),
    ("Deathball engine speed and referee heap", [PY, "deathball_speed.py"]),
    ("deploy speed against the virtual Pico", [PY, "deploy_speed.py"]),
    ("replay of a 20 MB log", [PY, "replay_speed.py", "20"]),
    ("the web page: load to first frame, the core in WebAssembly", [PY, "web_speed.py", "5"]),
]


def main():
    only = sys.argv[1:]
    failed = 0
    for title, cmd in RUNS:
        if only and not any(word in title for word in only):
            continue
        print("== %s" % title, flush=True)
        status = subprocess.call(cmd, cwd=HERE)
        if status:
            print("   (exit status %d)" % status)
            failed += 1
        print(flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

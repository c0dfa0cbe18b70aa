"""The whole firmware loop runs from compiled .mpy files, as deployed, in a small heap.

The MicroPython unix port here is a 64-bit build: object headers and pointers are twice
the size of a Pico's, so these heaps are larger than the board needs. The loop is the
core driven by the simulator in virtual time, as ``courtside_sim.headless`` runs it. The
smallest heaps measured (in steps of 2 KiB) are 112 KiB for Dodge Ball and 144 KiB for a
refereed Deathball game (the referee's modules load one a pass in its lobby); the tests
run at 116 and 152 KiB, so a change that makes the firmware much hungrier fails here.
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
from conftest import FIRMWARE, ROOT, simulate, tool

SCRIPTS = ROOT / "tests" / "scripts"
HEAPS = {"dodgeball_round.jsonl": "116k", "deathball_game.jsonl": "152k"}


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    out = tmp_path_factory.mktemp("mpy")
    for package in ("courtside", "courtside_sim"):
        for path in (FIRMWARE / package).rglob("*.py"):
            if "@micropython.viper" in path.read_text():
                continue        # native code for the Pico's IRQ handler: the simulator never loads it
            target = out / path.relative_to(FIRMWARE).with_suffix(".mpy")
            target.parent.mkdir(parents=True, exist_ok=True)
            name = path.relative_to(FIRMWARE).as_posix()     # as deploy names them, wherever
            subprocess.run([tool("mpy-cross"), "-s", name, "-o", str(target), str(path)], check=True)
    return out


def from_mpy(micropython, compiled, heap, *args):
    env = dict(os.environ, MICROPYPATH=str(compiled) + ":.frozen")
    return subprocess.run([micropython, "-X", heap, "-m", "courtside_sim.headless", *args],
                          capture_output=True, text=True, timeout=300, check=False, env=env)


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

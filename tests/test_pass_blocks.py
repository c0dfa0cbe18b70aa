"""An idle pass allocates no heap block at all, not even one freed again at once: the call
frames that ``micropython.heap_lock()`` hides (a frame over 11 words moves to the C stack
under the lock) are counted here too. Blocks are counted on the MicroPython unix port
with the collector's threshold (tests/mp/blocks.py); the loop is the real one
(``courtside.driver.one_pass``) on the real Pico layer with stand-ins for ``machine``
and ``rp2``. The frame of a bytecode call takes as many heap blocks on this 64-bit port
as on a Pico (both words and blocks are twice as large here).

The functions whose frames are over the limit are listed by ``tests/test_frames.py``.
"""

import json
import subprocess

import pytest
from conftest import FIRMWARE, ROOT

MP = ROOT / "tests" / "mp"


def test_the_block_counter_sees_freed_frames(micropython):
    """The counter itself: a function of 21 state words allocates its frame (7 blocks of
    32 bytes: 5 words of header and 21 of state) and frees it on return; one of 9 words
    none; a list of one item two blocks (the list and its items), kept or not."""
    code = """
import sys
sys.path.insert(0, %r)
from blocks import blocks, BLOCK

def nine():
    a = b = c = d = e = f = g = 0
    return a

def twenty_one():
    a = b = c = d = e = f = g = h = i = j = k = l = m = n = o = p = q = r = s = 0
    return a

def twice():
    twenty_one()
    twenty_one()

def a_list():
    return [1]

print(BLOCK, blocks(nine), blocks(twenty_one), blocks(twice), blocks(a_list))
""" % str(MP)
    run = subprocess.run([micropython, "-c", code], capture_output=True, text=True, timeout=120,
                         check=False)
    assert run.returncode == 0, run.stderr
    block, nine, twenty_one, twice, a_list = map(int, run.stdout.split())
    assert block == 32                                   # the 64-bit unix port
    assert nine == 0
    assert twenty_one == -(-(5 + 21) * 8 // block)       # 7
    assert twice == 2 * twenty_one                       # freed, and counted again
    assert a_list == 2


@pytest.fixture(scope="module")
def passes(micropython):
    run = subprocess.run([micropython, str(MP / "pass_blocks.py"), str(FIRMWARE),
                          str(ROOT / "hardware" / "pinmap.json")],
                         input=b"", capture_output=True, timeout=300, check=False)
    assert run.returncode == 0, run.stderr.decode()[-2000:]
    return json.loads(run.stdout.decode().strip().splitlines()[-1])


@pytest.mark.parametrize("mode", ["lobby", "dodgeball", "die", "referee lobby"])
def test_an_idle_loop_pass_allocates_no_block(passes, mode):
    assert passes["idle " + mode] == 0, passes


@pytest.mark.parametrize("mode", ["lobby", "dodgeball", "die", "referee lobby"])
def test_a_step_with_no_input_allocates_no_block(passes, mode):
    assert passes["step " + mode] == 0, passes


def test_a_press_is_counted(passes):
    """Not zero, and not asked to be (an event is a dict and a line): the counter sees
    the work a press does, so the zeros above are not a counter that sees nothing."""
    assert passes["press"] > 0
    assert passes["verdict"] > 0

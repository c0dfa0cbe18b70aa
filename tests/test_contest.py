"""Dodge Ball's contest frame, drawn a row at a time: the very bytes of the algorithm it
replaced (a call per column and per pixel, kept in tests/mp/contest_same.py) on every
contest of up to 4 ranks and 4 players, on CPython and on the MicroPython unix port; on
the unix port it takes no heap beyond the frame it returns."""

import subprocess
import sys

from conftest import FIRMWARE, ROOT
from courtside import display

SCRIPT = ROOT / "tests" / "mp" / "contest_same.py"
CASES = 64694        # the script's count: a change to its cases shows here


def run(exe):
    done = subprocess.run([exe, str(SCRIPT), str(FIRMWARE)], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.splitlines()


def test_every_contest_is_drawn_as_before_on_cpython():
    assert run(sys.executable) == ["cases %d differ 0" % CASES]


def test_every_contest_is_drawn_as_before_on_micropython(micropython):
    assert run(micropython) == ["cases %d differ 0" % CASES, "extra bytes 0"]


def test_each_contest_is_a_frame_of_its_own():
    # The bands are drawn in one buffer the module keeps; each frame handed out is a copy,
    # so a frame kept (a stage's, the page's) is not changed by the next contest.
    first = display.contest([[0, 1], [2], [3]], [0, 0, 1 << 3])
    kept = bytes(first)
    second = display.contest([[3]])
    assert first is not second and isinstance(first, bytearray) and len(second) == 192
    assert bytes(first) == kept and second != first
    assert second[48:] == bytes(144)            # one band: the rows below it dark
    second[0] = 7
    assert display.contest([[3]])[0] == 0

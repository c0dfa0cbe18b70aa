"""The loop's calls stay as shallow as the chip measured them: the C stack's budget.

On the rp2 port every Python call nests in C and takes about 300 bytes of an 8 KB stack
(7,936 usable before MicroPython raises "maximum recursion depth exceeded"). A board
cannot be asked here how deep a pass goes, but the depth of Python calls can: this runs
the busiest inputs there are (a press storm in a Dodge Ball game, both worked games)
through the core and the driver on CPython, counts the deepest nesting of Python frames
under ``driver.one_pass``, and holds it to ``MAX_DEPTH``. That ceiling is the depth the
chip tier measured the stack at (docs/firmware.md, "The C stack"): the `mem` command's
high-water mark after the chip tier's games and storms, with both captures. Whoever
raises it must measure the chip again and write the figure there.
"""

import json
import sys

import pytest
from conftest import ROOT
from courtside import driver
from courtside_sim import headless

MAX_DEPTH = 19          # frames from one_pass down, inclusive (see the docstring)


def _storm(path, presses=400):
    """A Dodge Ball game for four, then a press every millisecond across the boxes."""
    names = ("THROW", "DODGE", "CATCH", "PASS")
    items = [{"t": 100_000 + 100_000 * p, "p": p, "b": "THROW"} for p in (1, 2, 3, 4)]
    items.append({"t": 700_000, "p": 0, "b": "MAIN"})
    order = [(box, k) for k in range(4) for box in (1, 2, 3, 4)]
    for i in range(presses):
        box, k = order[i % 16]
        t = 1_500_000 + 1000 * i + (i * 37) % 1000
        items.append({"t": t, "p": box, "b": names[k], "e": "down"})
        items.append({"t": t + 1500, "p": box, "b": names[k], "e": "up"})
    items.sort(key=lambda x: x["t"])
    path.write_text("".join(json.dumps(x) + "\n" for x in items))
    return path


def deepest(script):
    """The deepest nesting of Python frames under ``driver.one_pass`` in a run of ``script``."""
    state = {"inside": None, "max": 0}

    def depth_of(frame):
        n = 0
        while frame is not None:
            n += 1
            if frame.f_code is driver.one_pass.__code__:
                return n
            frame = frame.f_back
        return None

    def profile(frame, event, arg):
        if event == "call":
            d = depth_of(frame)
            if d is not None and d > state["max"]:
                state["max"] = d
                state["where"] = frame.f_code.co_name
    sys.setprofile(profile)
    try:
        headless.run_script(str(script), out=lambda line: None)
    finally:
        sys.setprofile(None)
    return state["max"], state.get("where")


@pytest.mark.parametrize("name", ["storm", "dodgeball_round", "deathball_game", "deathball_shrink"])
def test_a_pass_nests_no_deeper_than_the_chip_measured(tmp_path, name):
    if name == "storm":
        script = _storm(tmp_path / "storm.jsonl")
    else:
        script = ROOT / "tests" / "scripts" / (name + ".jsonl")
    depth, where = deepest(script)
    assert 5 <= depth <= MAX_DEPTH, "a pass nests %d calls deep (at %s): measure the chip's stack again" % (
        depth, where)

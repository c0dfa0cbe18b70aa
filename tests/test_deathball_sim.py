"""A refereed Deathball game through the whole firmware in the headless simulator.

tests/scripts/deathball_game.jsonl plays a three-player game on the box buttons, with the
dice forced from the laptop and a jump to a late position. The stream must be the same on
CPython and on the MicroPython unix port, run after run and across the tick wrap, and the
board rebuilt from its events must be the board the referee reports.
"""

import json
import sys

import pytest
from conftest import ROOT
from conftest import simulate as run_headless
from courtside.deathball.track import Shown

GAME = str(ROOT / "tests" / "scripts" / "deathball_game.jsonl")
NEAR_WRAP = (1 << 30) - 20_000_000   # the tick counter wraps 20 s into the game


def simulate(exe, *args):
    return run_headless(exe, *args, GAME).stdout


@pytest.fixture(scope="module")
def stream():
    return simulate(sys.executable)


def test_same_stream_on_both_runtimes_and_across_the_wrap(stream, micropython):
    assert simulate(micropython) == stream
    assert simulate(sys.executable, "--t0", str(NEAR_WRAP)) == stream


def test_same_seed_same_stream(stream):
    again = simulate(sys.executable, "--seed", "1")
    assert simulate(sys.executable, "--seed", "1") == again
    assert again.count('"ev":"winner"') == 1


def test_the_events_rebuild_the_board_the_referee_reports(stream):
    events = [json.loads(line) for line in stream.splitlines()]
    states = [e for e in events if e["ev"] == "position"]
    assert len(states) == 3  # state, the position command, state
    shown = Shown()
    for e in events:
        if e is states[0]:
            assert shown.position() == e["text"]
            shown = None
        elif e is states[1]:
            shown = Shown.from_position(e["text"])
        elif shown is not None:
            shown.apply(e["ev"], e)
    assert shown.position() == states[2]["text"] == "1@x 2@x 3@f4 *b5s *g5s r0"


def test_the_script_drives_every_part_of_a_turn(stream):
    events = [json.loads(line) for line in stream.splitlines()]
    kinds = [e["ev"] for e in events]
    assert [e["square"] for e in events if e["ev"] == "setup"] == ["c1", "e1", "d1"]
    assert [e["reason"] for e in events if e["ev"] == "refuse"] == [
        "not your turn", "no legal move starts that way", "wait for the deathballs"]
    assert kinds.count("undo") == 1
    assert [(e["face"], e["forced"]) for e in events if e["ev"] == "bounce"] == [(3, True), (3, True)]
    deaths = [e for e in events if e["ev"] == "death"]
    assert [d["p"] for d in deaths] == [1, 2] and deaths[0]["t"] == deaths[1]["t"]
    assert events[kinds.index("winner")]["p"] == 3

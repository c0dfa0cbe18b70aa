"""The chip tier's inputs (bench/chip/games.py): what its schedules promise, and the
simulator's count that a board must match.

The tier itself needs a board (docs/firmware.md, "The chip tier"); what it plays and what
it compares with is checked here."""

import json
import sys
from collections import Counter

import pytest
from conftest import ROOT
from courtside_sim import headless

sys.path.insert(0, str(ROOT / "bench" / "chip"))
import games


def held(phase):
    """For each box, the most of its buttons down at one time in ``phase``."""
    most = Counter()
    down = set()
    for button, is_down, _ in sorted(phase.edges, key=lambda e: (e[2], e[1])):
        if button == games.MAIN:
            continue
        if is_down:
            down.add(button)
        else:
            down.discard(button)
        box = button // 4
        most[box] = max(most[box], sum(1 for b in down if b // 4 == box))
    return most


def test_a_tables_pace_never_holds_two_buttons_of_a_box_and_pairs_come_close():
    import random
    phase = games.Phase()
    games.table_schedule(phase, random.Random(3), 600, 4, 0)
    assert phase.presses == 600 and max(held(phase).values()) == 1
    downs = sorted(at for _, d, at in phase.edges if d)
    gaps = [b - a for a, b in zip(downs, downs[1:])]
    close = [g for g in gaps if g <= 1000]
    assert close and min(close) >= 20                        # the pairs: 20 us - 1 ms
    assert all(g >= 79_000 for g in gaps if g > 1000)        # the slots: 80 ms apart
    assert 150 <= len(close) <= 350                          # about half of the 80 ms slots


def test_a_storm_presses_every_millisecond_one_button_a_box_at_a_time():
    phase = games.Phase()
    games.storm(phase, 1000, 4, 0)
    downs = sorted(at for _, d, at in phase.edges if d)
    assert len(downs) == 1000 and max(held(phase).values()) == 1
    assert all(0 < b - a < 2000 for a, b in zip(downs, downs[1:]))


@pytest.mark.parametrize("name", ["dodgeball table", "dodgeball storm", "referee table", "referee storm"])
def test_the_simulator_plays_each_scenario_and_counts_its_presses(tmp_path, name):
    phases = games.scenarios(26, 150, 300)[name]
    names = games.ARROWS if name.startswith("referee") else games.NAMES
    script = tmp_path / "s.jsonl"
    script.write_text(games.script(phases, names))
    lines = []
    assert headless.run_script(str(script), out=lines.append) in (None, 0)
    kinds = Counter(json.loads(line)["ev"] for line in lines)
    played = sum(ph.presses for ph in phases)
    reported = kinds["press"] + kinds["button"] + kinds["ignored"]
    assert not {"fault", "withdrawn", "overflow", "error"} & set(kinds)     # nothing false
    if name.endswith("table"):
        assert reported == played           # 80 ms apart: every press is a press line
    else:
        assert 0 < reported < played         # a tap within a button's debounce time is bounce

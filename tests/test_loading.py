"""What each pass loads: the start loads only what the lobby needs, so ``hello`` comes
sooner, and the lobby loads its game's modules one a pass while it waits for players.
On the MicroPython unix port, from source, passes driven by the board's own loop step."""

import subprocess

from conftest import ROOT

PASSES = r"""
import sys
from courtside import driver
from courtside.run import load_pins
from courtside.core import Core
from courtside.fair import Fair, seeded
from courtside_sim.board import SimBoard
pins = load_pins(sys.argv[1])
board = SimBoard(pins, out=lambda text: None)
core = Core(pins, None, Fair(seeded(1)), now=board.ticks_us(), levels=board.levels(), mode=sys.argv[2])
before = set(sys.modules)
lines = []
for n in range(int(sys.argv[3])):
    if n == 1 and len(sys.argv) > 4:
        lines.extend(sys.argv[4].split(";"))
    wait = driver.one_pass(core, board, lines)
    now = set(sys.modules)
    print(n, wait, core.stage.name, " ".join(sorted(now - before)) or "-")
    before = now
"""


def passes(micropython, tmp_path, env, mode, n, lines=None):
    probe = tmp_path / "passes.py"
    probe.write_text(PASSES)
    args = [micropython, str(probe), str(ROOT / "hardware" / "pinmap.json"), mode, str(n)]
    run = subprocess.run(args + ([lines] if lines else []), capture_output=True, text=True,
                         timeout=120, check=False, env=env)
    assert run.returncode == 0, run.stdout + run.stderr
    return [line.split(" ", 3) for line in run.stdout.splitlines()]


def test_the_start_leaves_the_dodge_ball_game_to_the_lobby(micropython, tmp_path, firmware_env):
    """Before ``hello`` neither the arbiter nor the Dodge Ball stage is loaded; the lobby
    loads one in each of its next two passes, then asks for none until something happens."""
    loaded = passes(micropython, tmp_path, firmware_env, "dodgeball", 4)
    assert loaded[0][:3] == ["0", "0", "lobby"]
    assert "courtside.arbiter" not in loaded[0][3] and "courtside.dodgeball" not in loaded[0][3]
    assert [p[3] for p in loaded[1:3]] == ["courtside.arbiter", "courtside.dodgeball"]
    assert loaded[3][1:] == ["1000", "lobby", "-"]


def test_a_game_started_before_its_modules_are_in_still_starts(micropython, tmp_path, firmware_env):
    """Players who join and start within the first pass find the game loaded then."""
    loaded = passes(micropython, tmp_path, firmware_env, "dodgeball", 3, "join 1;join 2;start")
    assert loaded[1][2] == "dodgeball" and "courtside.dodgeball" in loaded[1][3]


def test_the_referee_lobby_loads_its_seven_modules_one_a_pass(micropython, tmp_path, firmware_env):
    loaded = passes(micropython, tmp_path, firmware_env, "referee", 10)
    assert loaded[0][3] == "courtside.deathball"      # its list of modules, 106 bytes of .mpy
    names = [p[3] for p in loaded[1:9]]
    assert names[:7] == ["courtside.deathball.rules", "courtside.deathball.notation",
                         "courtside.deathball.die", "courtside.deathball.track", "courtside.deathball.view",
                         "courtside.deathball.engine", "courtside.deathball.modes"]
    assert names[7] == "-" and loaded[8][1] == "1000"

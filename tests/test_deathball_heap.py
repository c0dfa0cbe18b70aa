"""A refereed game holds little heap between moves, on the MicroPython unix port.

A Pico running MicroPython has about 190 KB of heap; the unix port runs the sources (which
it compiles as it loads them, so it gets a larger heap here), and the heap the
game holds between moves is measured with ``gc.mem_alloc``, with the whole core driven
through its one entry point (``tests/corerig.py``).
"""

import subprocess

from conftest import FIRMWARE, ROOT

GAME = """
import gc, sys
sys.path.insert(0, %(firmware)r)
sys.path.insert(0, %(tests)r)
from corerig import Rig
from courtside.deathball import engine
app = Rig("referee", [0, 1, 2, 3], %(seed)d)
gc.collect()
start = gc.mem_alloc()
app.main()
app.settle()
g = app.stage.game
while g.phase == engine.SETUP:
    app.press(g.turn, 0)
held = 0
moves = 0
while g.phase == engine.PLAY:
    legal = g.legal_moves(g.turn)
    a, b = legal[(moves * 5) %% len(legal)]
    box = g.turn
    app.press(box, a)
    app.press(box, b)
    app.settle()
    app.clear()          # the rig's own record of what it saw is not the game's heap
    gc.collect()
    held = max(held, gc.mem_alloc() - start)
    moves += 1
print(held, moves, g.winner)
"""


def test_referee_games_fit_a_small_heap(micropython):
    for seed in (1, 2, 3):
        code = GAME % {"firmware": str(FIRMWARE), "tests": str(ROOT / "tests"), "seed": seed}
        out = subprocess.run([micropython, "-X", "heapsize=256k", "-c", code],
                             capture_output=True, text=True, timeout=120, check=False)
        assert out.returncode == 0, out.stderr[-2000:]
        held, moves, _ = out.stdout.split()
        assert int(moves) > 0
        assert int(held) < 16 * 1024, held

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
app = Rig("referee", [0, 1, 2, 3], %(seed)d)
gc.collect()
start = gc.mem_alloc()
held = [0]
def after_move():
    app.clear()          # the rig's own record of what it saw is not the game's heap
    gc.collect()
    held[0] = max(held[0], gc.mem_alloc() - start)
moves = app.play_referee(after_move)
g = app.stage.game
held = held[0]
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

"""The referee runs whole games on the MicroPython unix port inside a Pico-sized heap.

A Pico running MicroPython has about 190 KB of heap; the unix port is given less than that
here (and its 64-bit objects are larger than the Pico's 32-bit ones), and the heap the
game holds between moves is measured with ``gc.mem_alloc``.
"""

import subprocess

from conftest import FIRMWARE, ROOT

GAME = """
import gc, sys
sys.path.insert(0, %(firmware)r)
sys.path.insert(0, %(tests)r)
from deathball_fakes import FakeApp
from courtside.deathball.modes import RefereeMode
from courtside.deathball import engine
app = FakeApp([0, 1, 2, 3], %(seed)d)
app.emit = lambda kind, **fields: None
app.show = lambda frame: None
mode = RefereeMode(app)
gc.collect()
start = gc.mem_alloc()
mode.start()
mode.main(app.now)
app.settle(mode)
g = mode.game
while g.phase == engine.SETUP:
    mode.press(g.turn, 0, app.now)
held = 0
moves = 0
while g.phase == engine.PLAY:
    legal = g.legal_moves(g.turn)
    a, b = legal[(moves * 5) %% len(legal)]
    box = g.turn
    mode.press(box, a, app.now)
    mode.press(box, b, app.now)
    app.settle(mode)
    gc.collect()
    held = max(held, gc.mem_alloc() - start)
    moves += 1
print(held, moves, g.winner)
"""


def test_referee_games_fit_a_small_heap(micropython):
    for seed in (1, 2, 3):
        code = GAME % {"firmware": str(FIRMWARE), "tests": str(ROOT / "tests"), "seed": seed}
        out = subprocess.run([micropython, "-X", "heapsize=128k", "-c", code],
                             capture_output=True, text=True, timeout=120, check=False)
        assert out.returncode == 0, out.stderr[-2000:]
        held, moves, _ = out.stdout.split()
        assert int(moves) > 0
        assert int(held) < 16 * 1024, held

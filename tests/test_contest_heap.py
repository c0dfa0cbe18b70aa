"""A storm's contest on MicroPython: what a press costs the heap while its contest is open
and once it is judged.

A storm makes a contest of hundreds of presses (341 in the chip tier's Dodge Ball storm,
with a 1.5 s window; a window may be 10 s). As ``Press`` objects, each took about 200
bytes of the unix port's heap (an instance and the table of its nine attributes), and on
the chip the storm's heap reached 193 KB in use with a largest free block of 9.6 KB. A
``Contest`` keeps its presses in columns of numbers: these tests hold a press to a few
dozen bytes, open and judged, on the real interpreter (its arrays take the same bytes
per item on a Pico as here).
"""

import subprocess

from conftest import FIRMWARE

PRESSES = 1000

HEAP = """
import gc, sys
sys.path.insert(0, %r)
from courtside.arbiter import Arbiter
from courtside.fair import Fair, seeded
arb = Arbiter({"tie_us": 1000, "contest_ms": 10000, "answer_ms": 3000}, Fair(seeded(1)))
arb.press(0, 0, 1000)
gc.collect()
base = gc.mem_alloc()
for i in range(1, %d):
    arb.press(i %% 4, i // 4 %% 4, 1000 + 5 * i)
gc.collect()
opened = gc.mem_alloc() - base
(contest,) = arb.poll(1000 + 20_000_000)
gc.collect()
judged = gc.mem_alloc() - base
print(len(contest), opened, judged, len(contest.ties))
"""


def test_a_storms_contest_costs_a_few_dozen_bytes_a_press(micropython):
    out = subprocess.run([micropython, "-c", HEAP % (str(FIRMWARE), PRESSES)],
                         capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    count, opened, judged, ties = (int(v) for v in out.stdout.split())
    assert count == PRESSES and ties > 0              # one contest, ties drawn in it
    assert opened / PRESSES <= 12, "%d bytes a press, open" % (opened / PRESSES)
    assert judged / PRESSES <= 28, "%d bytes a press, judged" % (judged / PRESSES)

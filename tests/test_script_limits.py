"""Every script gets one verdict on both runtimes, whatever its size and order.

Once had: an out-of-order script of 1,500 lines ran on CPython and ended in a MemoryError
traceback on the unix port (from 3,000 lines the unix port said "too large to sort" while
CPython ran on), and taps 1 us apart piled their releases up in a list worked with
``pop(0)`` and ``insert``: 40,000 of them ended the unix port in a MemoryError. Now the
limits (``PENDING_MAX`` taps waiting for their release, ``SORTED_MAX`` inputs out of
order) are checked before anything runs, the same on both; a script within them runs on
both to the same stream.
"""

import hashlib
import json
import os
import subprocess
import sys

import pytest
from conftest import PYPATH, ROOT, simulate
from courtside_sim import script as sc

HEAD = [{"t": 0, "cmd": "join 1"}, {"t": 0, "cmd": "join 2"}, {"t": 1000, "cmd": "start"}]


def write(path, items):
    path.write_text("".join(json.dumps(item) + "\n" for item in items))
    return path


def both(micropython, path):
    """(status, stdout digest, last stderr line) on CPython and the unix port."""
    got = []
    for exe in (sys.executable, micropython):
        run = simulate(exe, path, check=False, timeout=600)
        got.append((run.returncode, hashlib.sha256(run.stdout.encode()).hexdigest(),
                    (run.stderr.strip().splitlines() or [""])[-1]))
    return got


def dense(n, gap_us):
    return HEAD + [{"t": 2_000_000 + k * gap_us, "p": 1 + k % 2, "b": "THROW"} for k in range(n)]


def test_taps_waiting_for_their_release_are_limited_the_same_on_both(tmp_path, micropython):
    # at the limit: every tap within 80 ms of the others, all waiting at once
    within = both(micropython, write(tmp_path / "within.jsonl", dense(sc.PENDING_MAX, 19)))
    assert within[0] == within[1] and within[0][0] == 0 and "Traceback" not in within[1][2]
    over = both(micropython, write(tmp_path / "over.jsonl", dense(40_000, 1)))
    assert over[0] == over[1] and over[0][0] == 2
    assert "more than %d taps within 80 ms" % sc.PENDING_MAX in over[0][2]


def test_a_script_out_of_order_past_the_limit_is_refused_the_same_on_both(tmp_path, micropython):
    items = HEAD + [{"t": 2_000_000 + k * 1000, "p": 1, "b": "THROW"} for k in range(sc.SORTED_MAX)]
    items = items[:3] + items[:2:-1] + [{"t": 0, "cmd": "ping"}]      # reversed, one input over
    got = both(micropython, write(tmp_path / "over.jsonl", items))
    assert got[0] == got[1] and got[0][0] == 2
    assert "may hold at most %d" % sc.SORTED_MAX in got[0][2]


ORDER = r"""
import sys
from courtside.run import load_pins
from courtside_sim.script import Script
s = Script(lambda: open(sys.argv[-1], "rb"), load_pins(sys.argv[-2]))
n = total = 0
while s.next_time() is not None:
    t, kind, a, b = s.take()
    n += 1
    total = (total * 31 + t * 7 + (a if kind == "edge" else len(a)) * 3 + (b is True)) % 1000000007
print(n, total)
"""


@pytest.mark.slow
def test_a_script_out_of_order_at_the_limit_is_sorted_alike_on_both(tmp_path, micropython):
    """SORTED_MAX inputs in reverse order, with long command lines among them: read in the
    same order on both runtimes, no MemoryError on the unix port, in half its default heap:
    the list of keys once grew by doubling and, at the edge of the default 2 MiB, failed
    from one path and not another."""
    items = []
    for k in range(sc.SORTED_MAX - 3):
        t = 2_000_000 + (k * 7919 % sc.SORTED_MAX) * 1000
        items.append({"t": t, "cmd": "x" * 4000} if k % 997 == 0 else
                     {"t": t, "p": 1 + k % 2, "b": "THROW", "e": "tap"})
    path = write(tmp_path / "at.jsonl", HEAD + items[::-1])
    program = tmp_path / "order.py"
    program.write_text(ORDER)
    pins = str(ROOT / "hardware" / "pinmap.json")
    said = []
    for exe, env in (([sys.executable], dict(os.environ, PYTHONPATH=PYPATH)),
                     ([micropython, "-X", "heapsize=1M"], dict(os.environ, MICROPYPATH=PYPATH + ":.frozen"))):
        run = subprocess.run(exe + [str(program), pins, str(path)], capture_output=True, text=True,
                             timeout=600, env=env, check=False)
        assert run.returncode == 0, run.stderr[-1000:]
        said.append(run.stdout)
    assert said[0] == said[1]
    assert int(said[0].split()[0]) == sc.SORTED_MAX + sum("p" in i for i in items)    # each tap's release too


def test_the_release_queue_gives_first_in_first_out_with_each_item_moved_once():
    """The queue the releases wait in: first in, first out, pushed and popped in any mix;
    an item is moved from one list to the other at most once (constant work per tap)."""
    q = sc._Queue()
    popped, moves = [], 0
    for k in range(10_000):
        q.push(k)
        if k % 3:
            if not q._out:
                moves += len(q._in)          # what first() moves over
            popped.append(q.pop())
    while len(q):
        if not q._out:
            moves += len(q._in)
        popped.append(q.pop())
    assert popped == list(range(10_000)) and moves <= 10_000

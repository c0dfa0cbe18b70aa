"""Heap allocated by a press, in bytes: what sets how often a board collects in a game.

A board collects every 16 KB allocated (``gc.threshold``) and a collection takes about
10 ms on a Pico, so the bytes a press costs decide how many passes a collection lands
in. The firmware runs on the MicroPython unix port, driven through the board's own
passes (``courtside.driver.one_pass``, the stand-in board of ``bench/pass_cost.py``,
whose USB port encodes every line as a board's does), and ``micropython.mem_total()``
counts every byte allocated. Each workload runs with ``K`` repetitions and with none;
the difference divided by ``K`` is the cost of one:

    python bench/press_alloc.py [OTHER_TREE]     # OTHER_TREE: a checkout to compare

The unix port is 64-bit: its objects and pointers are twice a Pico's, its arrays'
items the same. Compare trees as ratios; a Pico allocates less (not measured on a chip).
"""

import os
import subprocess
import sys
import tempfile

from pass_cost import MICROPYTHON, PROBE, ROOT

STORM = '''elif work == "storm":
    # a storm's contest: presses 3 ms apart on the two players' eight buttons in turn,
    # each held 1.5 ms, all inside one contest window (10 s)
    board.lines.append("set contest_ms=10000")
    passes_until(board, core, lines, t - 1000)
    for i in range(k):
        at = t + 3000 * i
        passes_until(board, core, lines, at)
        board.edge(i % 8, True)
        passes_until(board, core, lines, at + 1500)
        board.edge(i % 8, False)
    passes_until(board, core, lines, t + 3000 * k + 12000000)
'''

END = '''import micropython
print("allocated", micropython.mem_total())
'''

WORK = (
    ("contest", "a two-press contest (presses, releases, verdict), every pass", 20, "a contest"),
    ("storm", "a storm's contest of 300 presses and its verdict, every pass", 300, "a press"),
)


def probe_text():
    head, tail = PROBE.rsplit('print("passes", k)', 1)
    return head + STORM + END + tail


def allocated(tree, work, k):
    with tempfile.TemporaryDirectory() as tmp:
        probe = os.path.join(tmp, "probe.py")
        with open(probe, "w") as f:
            f.write(probe_text())
        code = [os.path.join(tree, "firmware"), os.path.join(tree, "common")]
        env = dict(os.environ, MICROPYPATH=":".join(code) + ":.frozen")
        run = subprocess.run([MICROPYTHON, "-X", "heapsize=1M", probe, work, str(k), tree],
                             capture_output=True, text=True, env=env, check=True)
        return int(run.stdout.split("allocated")[1].split()[0])


def main():
    trees = [ROOT] + [os.path.abspath(a) for a in sys.argv[1:]]
    print("bytes allocated, MicroPython unix port (64-bit), micropython.mem_total()")
    print("%-62s %s" % ("", "  ".join("%14s" % os.path.basename(t) for t in trees)))
    for work, label, k, per in WORK:
        cells = []
        for tree in trees:
            cost = (allocated(tree, work, k) - allocated(tree, work, 0)) / k
            cells.append("%14.0f" % cost)
        print("%-62s %s" % ("%s (per %s)" % (label, per[2:]), "  ".join(cells)))


if __name__ == "__main__":
    main()

"""Work per pass, counted in machine instructions: the closest this machine gets to a
Pico's milliseconds, and the same figure on every run, however busy the machine is.

The firmware runs on the MicroPython unix port under ``valgrind --tool=callgrind``,
which counts the instructions executed (not time). Each workload runs twice, with ``K``
repetitions and with none; the difference divided by ``K`` is the cost of one, with the
interpreter's start-up and the firmware's imports taken out. The passes are the board's
own (``courtside.driver.one_pass``) on a stand-in board whose USB port encodes every line
as the board's does and throws it away:

    python bench/pass_cost.py [FIRMWARE_DIR]     # FIRMWARE_DIR: another tree, to compare

The unix port is x86-64, a Pico is a Cortex-M0+ at 125 MHz: compare the figures as
ratios (a workload against another, a tree against another), not as a Pico's time.
"""

import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MICROPYTHON = os.path.join(os.path.dirname(sys.executable), "micropython")

PROBE = r"""
import sys
from courtside import driver, events
from courtside.run import load_pins
from courtside.core import Core
from courtside.fair import Fair, seeded
from courtside.ring import Ring

class ProbeBoard:
    bytes_out = True

    def __init__(self, pins):
        self.ring = Ring(256)
        self.level = pins.button_mask
        self.gpio = pins.button_gpio
        self.t = 0
        self.lines = []
        self.unsent = 0
    def ticks_us(self):
        return self.t
    def read_line(self):
        return self.lines.pop(0) if self.lines else None
    def write_line(self, data):
        pass
    def show(self, frame):
        pass
    def led(self, box, on):
        pass
    def tone(self, freq, ms):
        pass
    def service(self, now):
        pass
    def edge(self, button, closed):
        bit = 1 << self.gpio[button]
        self.level = self.level & ~bit if closed else self.level | bit
        self.ring.put(self.t, self.level)

def passes_until(board, core, lines, t):
    n = 0
    while board.t < t:
        wait = driver.one_pass(core, board, lines)
        n += 1
        board.t += max(1, wait) * 1000
    board.t = t
    return n

work, k, root = sys.argv[1], int(sys.argv[2]), sys.argv[3]
pins = load_pins(root + "/hardware/pinmap.json")
board = ProbeBoard(pins)
core = Core(pins, None, Fair(seeded(1)), now=0, levels=board.level)
lines = []
driver.one_pass(core, board, lines)
board.lines += ["join 1", "join 2", "start"]
passes_until(board, core, lines, 100000)
t = 1000000
if work == "idle":
    for _ in range(k):
        driver.one_pass(core, board, lines)
        board.t += 1000
elif work == "command":
    for _ in range(k):
        board.lines.append("get")
        driver.one_pass(core, board, lines)
        board.t += 1000
elif work == "contest":
    # one player presses, another answers 300 ms later; both release; the verdict
    for i in range(k):
        board.t = t
        board.edge(0, True)
        passes_until(board, core, lines, t + 300000)
        board.edge(5, True)
        passes_until(board, core, lines, t + 400000)
        board.edge(0, False)
        board.edge(5, False)
        passes_until(board, core, lines, t + 2000000)
        t += 2000000
elif work == "referee-run":
    if k:
        from courtside_sim.board import SimBoard
        from courtside_sim.script import Script
        path = root + "/tests/scripts/deathball_game.jsonl"
        sim = SimBoard(pins, script=Script(lambda: open(path, "rb"), pins), out=lambda text: text.encode())
        game = Core(pins, None, Fair(seeded(1)), now=sim.ticks_us(), levels=sim.levels())
        driver.run_virtual(game, sim)
print("passes", k)
"""

WORK = (
    ("idle", "an idle pass in a Dodge Ball game", 400),
    ("command", "a pass answering `get`", 100),
    ("contest", "a two-press contest: presses, releases, verdict, every pass", 20),
    ("referee-run", "the worked refereed Deathball game, every pass", 1),
)


def instructions(firmware, work, k):
    with tempfile.TemporaryDirectory() as tmp:
        probe = os.path.join(tmp, "probe.py")
        with open(probe, "w") as f:
            f.write(PROBE)
        out = os.path.join(tmp, "callgrind.out")
        # an older tree has no common/: its firmware/ held both
        code = [os.path.join(firmware, "firmware"), os.path.join(firmware, "common")]
        env = dict(os.environ, MICROPYPATH=":".join(code) + ":.frozen")
        run = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=" + out,
                              MICROPYTHON, "-X", "heapsize=512k", probe, work, str(k), firmware],
                             capture_output=True, text=True, env=env, check=True)
        found = re.search(r"Collected : (\d+)", run.stderr)
        return int(found.group(1))


def main():
    firmware = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else ROOT
    print("instructions on the unix port (x86-64, callgrind), firmware in %s" % os.path.basename(firmware))
    for work, what, k in WORK:
        cost = (instructions(firmware, work, k) - instructions(firmware, work, 0)) / k
        print("  %-62s %12.0f" % (what, cost))


if __name__ == "__main__":
    main()

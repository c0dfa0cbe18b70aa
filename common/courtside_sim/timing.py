"""The core's speed on whatever runs it: CPython, the unix port, or WebAssembly in a page.

Two figures, each an average over many passes (a browser's clock is too coarse, at
0.1 ms or worse, to time one pass of a few microseconds):

- ``pass_us``: a headless script run in virtual time, the whole run divided by its passes
  (each pass: the core's step and its effects applied to the simulated board);
- ``idle_us``: ``Core.step`` alone, called again and again with nothing to do.

    from courtside_sim import timing
    timing.measure(script_text, runs=5)   # {"pass_us": [...], "idle_us": [...], "passes": N}

``bench/web_speed.py`` runs it in a page, on the unix port and on CPython side by side.
"""

import time

try:
    _ticks = time.ticks_us
    _diff = time.ticks_diff
except AttributeError:          # CPython
    def _ticks():
        return time.perf_counter_ns() // 1000

    def _diff(a, b):
        return a - b


def measure(script_text, runs=5, idle_steps=5000, path="timing.jsonl",
            pins_path=None):
    """Time ``runs`` runs of the script (its text) and ``runs`` loops of ``idle_steps``
    idle steps; returns the figures of each run."""
    from courtside import driver
    from courtside.core import Core
    from courtside.fair import Fair, seeded
    from courtside.run import load_pins

    from courtside_sim import headless
    from courtside_sim.board import SimBoard
    from courtside_sim.script import Script
    pins = load_pins(pins_path or headless.default_pins())
    with open(path, "w") as f:
        f.write(script_text)
    out = {"pass_us": [], "idle_us": [], "passes": 0}
    for _ in range(runs):
        board = SimBoard(pins, out=_drop)
        board.play(Script(lambda: open(path, "rb"), pins))
        core = Core(pins, None, Fair(seeded(1)), now=board.ticks_us(), levels=board.levels(),
                    capture=board.capture.name)
        counted = _Counted(core)
        start = _ticks()
        driver.run_virtual(counted, board)
        took = _diff(_ticks(), start)
        out["passes"] = counted.passes
        out["pass_us"].append(took / counted.passes)
    for _ in range(runs):
        board = SimBoard(pins, out=_drop)
        core = Core(pins, None, Fair(seeded(1)), now=0, levels=board.levels(), capture="sim")
        core.step(0)
        del core.effects[:]
        start = _ticks()
        now = 0
        for _ in range(idle_steps):
            now += 100000
            core.step(now & 0x3FFFFFFF, board.ring)
            del core.effects[:]
        out["idle_us"].append(_diff(_ticks(), start) / idle_steps)
    return out


class _Counted:
    """A core whose passes are counted (``run_virtual`` reads ``idle``, ``effects`` and
    ``timeline`` and calls ``step``)."""

    def __init__(self, core):
        self.core = core
        self.effects = core.effects
        self.timeline = core.timeline
        self.passes = 0

    @property
    def idle(self):
        return self.core.idle

    def step(self, now, ring=None, lines=(), unsent=0):
        self.passes += 1
        return self.core.step(now, ring, lines, unsent)


def _drop(_line):
    pass


def median(values):
    values = sorted(values)
    return values[len(values) // 2]

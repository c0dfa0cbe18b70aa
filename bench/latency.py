"""Press -> event latency of the firmware's main loop, in real time.

The core runs on the simulated board, driven by the board's own loop, on the host's
clock. A press is injected the way an interrupt delivers it (a snapshot in the ring, the
loop woken); the benchmark
notes the tick when the loop writes the press event, and when it writes the verdict
after the contest window closes.

    micropython bench/latency.py [PRESSES]     # the unix port
    python bench/latency.py [PRESSES]          # CPython, for comparison

Prints the median and 99th percentile of: press -> press event, and window close ->
verdict event (how late the loop notices a contest is due).
"""

import sys

sys.path.insert(0, (__file__.rsplit("/", 1)[0] if "/" in __file__ else ".") + "/../firmware")
sys.path.insert(0, (__file__.rsplit("/", 1)[0] if "/" in __file__ else ".") + "/../common")

import asyncio

from courtside import driver, pinmap
from courtside.clock import diff
from courtside.core import Core
from courtside.fair import Fair, seeded
from courtside_sim.live import LiveBoard

ROOT = (__file__.rsplit("/", 1)[0] if "/" in __file__ else ".") + "/.."
CONTEST_MS = 20
SPACING_MS = 35


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


async def drive(hw, presses, stamps):
    await asyncio.sleep_ms(50) if hasattr(asyncio, "sleep_ms") else await asyncio.sleep(0.05)
    for player in (1, 2):
        hw.feed_line("join %d" % player)
    hw.feed_line("start")
    await asyncio.sleep(0.05)
    for i in range(presses):
        button = 4 * (i % 2)
        stamps.append(hw.ticks_us())
        hw.inject(button, True)
        await asyncio.sleep(0.005)
        hw.inject(button, False)
        await asyncio.sleep((SPACING_MS - 5) / 1000)
    await asyncio.sleep(0.1)


def main():
    presses = int(sys.argv[1]) if len(sys.argv) > 1 else 300
    pins = pinmap.load(ROOT + "/hardware/pinmap.json")
    seen = []

    def out(text):
        if text.startswith(('{"ev":"press"', '{"ev":"verdict"')):
            seen.append((text[7], hw.ticks_us()))

    hw = LiveBoard(pins, out=out)
    settings = {"tie_us": 1000, "contest_ms": CONTEST_MS, "answer_ms": 3000, "debounce_ms": 2,
                "stuck_ms": 3000, "long_ms": 1000, "brightness": 96, "sound": 1, "capture": "irq"}
    core = Core(pins, settings, Fair(seeded(1)), now=hw.ticks_us(), levels=hw.levels())
    stamps = []

    async def both():
        loop = asyncio.create_task(driver.run(core, hw))
        await drive(hw, presses, stamps)
        loop.cancel()

    asyncio.run(both())
    to_press = []
    to_verdict = []
    i = 0
    for kind, tick in seen:
        if kind == "p" and i < len(stamps):
            to_press.append(diff(tick, stamps[i]))
            last = stamps[i]
            i += 1
        elif kind == "v":
            to_verdict.append(diff(tick, last) - CONTEST_MS * 1000)
    print("main-loop latency (%s, %d presses)" % (sys.implementation.name, len(to_press)))
    print("  press -> press event:      median %5d us, p99 %5d us" % (
        percentile(to_press, 0.5), percentile(to_press, 0.99)))
    print("  window close -> verdict:   median %5d us, p99 %5d us" % (
        percentile(to_verdict, 0.5), percentile(to_verdict, 0.99)))


main()

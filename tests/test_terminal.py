"""The interactive simulator's drawing: keyboard presses in, matrix and stream out.

The keyboard loop itself needs a terminal; here the Terminal is driven the way its key
handler drives it (presses injected into the simulated hardware) and its screen text is
read back."""

import argparse
import asyncio
import json

from conftest import ROOT
from courtside_host import sim


def make_terminal():
    args = argparse.Namespace(pins=str(ROOT / "hardware" / "pinmap.json"), set=[], mode="dodgeball",
                              busy_ms=0)
    return sim.Terminal(args)


def test_presses_from_the_keyboard_reach_the_firmware_and_the_screen():
    term = make_terminal()

    async def play():
        task = asyncio.create_task(term.firmware())
        for key in ("1", "q"):                      # box 1 and box 2 join
            box, k = sim.KEYS[key]
            term.sim.inject(4 * box + k, True)
            await asyncio.sleep(0.03)
            term.sim.inject(4 * box + k, False)
            await asyncio.sleep(0.03)
        term.sim.feed_line("start")
        await asyncio.sleep(0.05)
        term.sim.inject(0, True)                    # box 1 THROW
        await asyncio.sleep(0.12)
        term.sim.inject(0, False)
        await asyncio.sleep(0.05)
        term.sim.feed_line("ping")
        await asyncio.sleep(0.05)
        task.cancel()

    asyncio.run(play())
    kinds = [json.loads(line)["ev"] for line in term.log]
    assert "start" in kinds and "press" in kinds
    screen = term.render()
    assert "press  P1 THROW contest 1" in screen
    assert "\x1b[38;2;255;" in screen               # box 1's red band is drawn in colour
    assert "box 1" in screen and "keys 1 2 3 4" in screen


def test_event_lines_read_as_sentences():
    verdict = {"ev": "verdict", "t": 2_000_000, "c": 3, "tie_us": 1000,
               "order": [{"n": 1, "p": 2, "b": "CATCH", "rank": 1, "lag": 0, "tie": True},
                         {"n": 2, "p": 4, "b": "CATCH", "rank": 1, "lag": 400, "tie": True}]}
    text = sim._describe(json.dumps(verdict))
    assert "verdict 3" in text and "=1.P2 CATCH" in text and "=1.P4 CATCH +0.4ms" in text
    tie = {"ev": "tie", "t": 0, "c": 3, "rank": 1, "players": [2, 4], "draw": [4, 2], "gap": 400}
    assert "drawn order [4, 2]" in sim._describe(json.dumps(tie))
    assert sim._describe("not json") == "not json"

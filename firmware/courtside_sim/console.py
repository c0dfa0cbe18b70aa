"""The virtual Pico's USB serial, as the firmware sees it: lines from standard input.

Each line is a laptop command for the core, or ``sim P BUTTON [EDGE]`` to press a button
of the simulated board (P 1..4, or 0 with MAIN; EDGE down, up or tap, tap the default).
Lines are read with the board's own reader (``courtside.hw.lines.Receiver``): a byte at a
time while stdin has bytes, control characters dropped, other bytes above ASCII read as
``?``, a line of any length cut so the core refuses it. Whatever arrives, it carries on.
While ``QUEUE`` lines wait for the firmware, standard input is left unread, as a board's
full USB buffer holds the laptop back: a flood is taken line by line, and nothing is lost.

    asyncio.create_task(stdin_lines(board))
"""

import sys

from courtside_sim.script import TAP_US, ScriptError, button_id

try:
    import asyncio
except ImportError:  # pragma: no cover
    import uasyncio as asyncio

POLL_MS = 5         # how often stdin is looked at while it is quiet
QUEUE = 8           # lines waiting for the firmware; past this stdin is left unread


async def stdin_lines(board, stream=None, ready=None, timeline=None):
    """Feed standard input (or ``stream``) to a real-time board, for ever. ``timeline``
    (the core's) stamps what this console itself writes, as the core stamps its events."""
    from courtside.core import LINE_MAX
    from courtside.hw.lines import Receiver, poller
    if stream is None:
        import select
        stream = sys.stdin.buffer
        ready = poller(sys.stdin, select.POLLIN)
    rx = Receiver(stream, ready, limit=LINE_MAX)
    while True:
        while len(board.lines) >= QUEUE:      # as a board's USB buffer holds the laptop
            await asyncio.sleep(POLL_MS / 1000)
        line = rx.read_line()
        if line is None:
            await asyncio.sleep(POLL_MS / 1000)
        else:
            await _line(board, line, timeline)


async def _line(board, line, timeline=None):
    from courtside import text
    line = text.strip(line)
    parts = text.words(line)
    if parts and parts[0] == "sim":
        problem = await _sim_press(board, parts[1:])
        if problem:
            from courtside import events
            t = timeline.at(board.ticks_us()) if timeline is not None else 0
            board.write_line(events.line("error", t, {"msg": problem, "line": line}))
        return
    board.feed_line(line)


async def _sim_press(board, words):
    if len(words) not in (2, 3):
        return "sim needs: sim BOX BUTTON [down|up|tap]"
    from courtside.text import upper, whole
    p = whole(words[0])
    try:
        button = button_id(p, upper(words[1]), board.pins, "sim")
    except ScriptError as e:
        return str(e)[5:]
    edge = words[2] if len(words) == 3 else "tap"
    if edge not in ("down", "up", "tap"):
        return "sim edge must be down, up or tap"
    if edge != "up":
        board.inject(button, True)
    if edge == "tap":
        await asyncio.sleep(TAP_US / 1e6)
    if edge != "down":
        board.inject(button, False)
    return None

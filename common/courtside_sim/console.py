"""The virtual Pico's USB serial, as the firmware sees it: lines from standard input.

Each line is a laptop command for the core, or ``sim P BUTTON [EDGE]`` to press a button
of the simulated board (P 1..4, or 0 with MAIN; EDGE down, up or tap, tap the default).
Lines are read with the board's own reader (``courtside.hw.lines.Receiver``): a byte at a
time while stdin has bytes, control characters dropped, other bytes above ASCII read as
``?``, a line of any length cut so the core refuses it. Whatever arrives, it carries on.
While ``QUEUE`` lines wait for the firmware, standard input is left unread, as a board's
full USB buffer holds the laptop back: a flood is taken line by line, and nothing is lost.
A tap's release is due 80 ms later and does not hold the lines behind it: it waits in a
list of at most ``TAPS`` (then standard input is left unread too), released on time by
one task; a button pressed again (or let go) before its tap's release is released then,
as a fast finger would, so 2,000 taps of one button take no 160 s.

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
TAPS = 64           # taps waiting for their release; past this stdin is left unread


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
    taps = []                                 # (when, button): releases due, in time order
    asyncio.create_task(_release(board, taps))
    while True:
        while len(board.lines) >= QUEUE or len(taps) >= TAPS:   # as a board's USB buffer
            await asyncio.sleep(POLL_MS / 1000)                # holds the laptop back
        line = rx.read_line()
        if line is None:
            await asyncio.sleep(POLL_MS / 1000)
        else:
            await _line(board, line, timeline, taps)


async def _release(board, taps):
    """Release each tap's button when its 80 ms are up."""
    from courtside.clock import diff
    while True:
        while taps and diff(board.ticks_us(), taps[0][0]) >= 0:
            board.inject(taps.pop(0)[1], False)
        await asyncio.sleep(POLL_MS / 1000)


async def _line(board, line, timeline=None, taps=None):
    from courtside import text
    line = text.strip(line)
    parts = text.words(line)
    if parts and parts[0] == "sim":
        problem = await _sim_press(board, parts[1:], taps)
        if problem:
            from courtside import events
            t = timeline.at(board.ticks_us()) if timeline is not None else 0
            board.write_line(events.line("error", t, {"msg": problem, "line": line}))
        return
    board.feed_line(line)


async def _sim_press(board, words, taps=None):
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
    if taps is not None:
        for i, (_, held) in enumerate(taps):
            if held == button:          # still held by an earlier tap: released now
                del taps[i]
                board.inject(button, False)
                break
    if edge != "up":
        board.inject(button, True)
    if edge == "tap" and taps is not None:
        from courtside.clock import add
        taps.append((add(board.ticks_us(), TAP_US), button))
        return None
    if edge == "tap":
        await asyncio.sleep(TAP_US / 1e6)
    if edge != "down":
        board.inject(button, False)
    return None

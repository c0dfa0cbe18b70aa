"""The virtual Pico's USB serial, as the firmware sees it: lines from standard input.

Each line is a laptop command for the core, or ``sim P BUTTON [EDGE]`` to press a button
of the simulated board (P 1..4, or 0 with MAIN; EDGE down, up or tap, tap the default).
Whatever arrives, the reader carries on: bytes that are not UTF-8, control characters,
a line of any length (cut at ``LINE_MAX`` bytes and refused by the core as too long).

    asyncio.create_task(stdin_lines(board))
"""

import sys

from courtside_sim.script import TAP_US, ScriptError, button_id

try:
    import asyncio
except ImportError:  # pragma: no cover
    import uasyncio as asyncio

LINE_MAX = 400      # bytes kept of one line; the rest of it is dropped
_CHUNK = 256


def text_of(raw):
    """A line of bytes as text: control characters dropped (a tab is a space), bytes that
    are not UTF-8 replaced, the same on every runtime."""
    out = bytearray()
    for c in raw:
        if c == 9:
            out.append(32)
        elif c >= 32 and c != 127:
            out.append(c)
    try:
        return out.decode()
    except UnicodeError:
        return "".join(chr(c) if c < 128 else "\ufffd" for c in out)


class LineReader:
    """Bytes in, whole lines out, with at most ``LINE_MAX`` bytes kept of any line (more
    than the core takes, so it still refuses the line as too long)."""

    def __init__(self):
        self.buf = bytearray()

    def feed(self, data, lines):
        for c in data:
            if c in (10, 13):
                if self.buf:
                    lines.append(text_of(self.buf))
                    self.buf = bytearray()
            elif len(self.buf) < LINE_MAX:
                self.buf.append(c)


async def stdin_lines(board):
    """Feed standard input to a real-time board until it closes."""
    reader = asyncio.StreamReader(sys.stdin)
    lines = LineReader()
    got = []
    while True:
        try:
            data = await reader.read(_CHUNK)
        except (OSError, ValueError):
            return
        if not data:
            return
        if isinstance(data, str):
            data = data.encode()
        lines.feed(data, got)
        for line in got:
            await _line(board, line)
        del got[:]


async def _line(board, line):
    from courtside import text
    line = text.strip(line)
    parts = text.words(line)
    if parts and parts[0] == "sim":
        problem = await _sim_press(board, parts[1:])
        if problem:
            from courtside import events
            board.write_line(events.line("error", 0, {"msg": problem, "line": line}))
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

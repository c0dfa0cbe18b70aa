"""The loop that runs the core on a hardware layer: the board's, or the simulator's.

Each pass waits for an edge, a command or the time the core asked for, gathers the
laptop's lines, steps the core and applies its effects (``courtside.effects``) to the
hardware layer (``courtside.hw``). Nothing here decides anything; a replay or a test can
drive the core without it.

    asyncio.run(run(core, hw))        # a board, or the simulator in real time
    run_virtual(core, board)          # the simulator in virtual time
"""

from courtside import events
from courtside.core import LINES_PER_PASS
from courtside.effects import EVENT, FRAME, LED, SAVE, TONE


def apply(effects, hw):
    """Carry out ``effects`` on ``hw`` in order, then empty the list (an effect may add
    more: a save's answer, carried out in the same loop)."""
    i = 0
    while i < len(effects):
        _apply(effects[i], hw)
        i += 1
    effects.clear()


def _apply(effect, hw):
    kind = effect[0]
    if kind == EVENT:
        _write(effect, hw)
    elif kind == FRAME:
        hw.show(effect[1])
    elif kind == LED:
        hw.led(effect[1], effect[2])
    elif kind == TONE:
        hw.tone(effect[1], effect[2])
    elif kind == SAVE:
        effect[2](hw.save_settings(effect[1]))   # the core writes the answer


def _write(effect, hw):
    """An event line: as bytes to a board (``bytes_out``: no new str on the way), as text
    to the laptop's boards."""
    encode = events.encode if getattr(hw, "bytes_out", False) else events.line
    hw.write_line(encode(effect[1], effect[2], effect[3]))


def one_pass(core, hw, lines):
    """Gather the laptop's lines, step the core, apply its effects; returns the ms the core
    may sleep. ``lines`` is a list the caller keeps, so a pass allocates none. At most
    ``LINES_PER_PASS`` lines are taken: the rest wait where they are (a board's USB
    buffer, which holds the laptop back when full), so a flood is answered line by line
    over many short passes, and one pass's effects stay bounded."""
    _gather(hw, lines)
    now = hw.ticks_us()
    wait_ms = core.step(now, hw.ring, lines, hw.unsent)
    if lines:
        if len(lines) >= LINES_PER_PASS:
            wait_ms = 0       # more may be waiting: the next pass at once
        lines.clear()
    apply(core.effects, hw)
    hw.service(now)
    return wait_ms


def _gather(hw, lines):
    while len(lines) < LINES_PER_PASS:
        line = hw.read_line()
        if line is None:
            return
        lines.append(line)


async def run(core, hw):
    """Step ``core`` on ``hw`` until the hardware layer says stop."""
    lines = []
    wait_ms = 0
    while await hw.wait(wait_ms):
        wait_ms = one_pass(core, hw, lines)


# Virtual time passed at once while nothing is due: short of half the tick circle (2**29
# us), so a jump never reads as going back; the passes in between would do nothing.
IDLE_JUMP_MS = 500000


def run_virtual(core, board):
    """The same loop without an event loop, for a board in virtual time (the headless
    simulator, a replay): nothing there waits for real, so no asyncio is needed. While
    the core has nothing due, time goes straight on to the next input: the passes in
    between would do nothing."""
    lines = []
    wait_ms = 0
    while board.advance(wait_ms):
        wait_ms = one_pass(core, board, lines)
        if core.idle:
            wait_ms = IDLE_JUMP_MS

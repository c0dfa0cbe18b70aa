"""The loop that runs the core on a hardware layer: the board's, or the simulator's.

Each pass waits for an edge, a command or the time the core asked for, gathers the
laptop's lines, steps the core and applies its effects (``courtside.effects``) to the
hardware layer (``courtside.hw``). Nothing here decides anything; a replay or a test can
drive the core without it.

    run_until(core, hw)               # a board: hw.advance(ms) waits for real
    asyncio.run(run(core, hw))        # the simulator in real time, beside its keyboard task
    run_virtual(core, board)          # the simulator in virtual time, a replay
"""

from courtside import events
from courtside.clock import add, diff
from courtside.core import LINES_PER_PASS
from courtside.effects import EVENT, FRAME, LED, SAVE, TONE

EFFECTS_HELD = 32      # effects left for the next pass at most (see apply)


def apply(effects, hw, until=None):
    """Carry out ``effects`` on ``hw`` in order and take them off the list (an effect may
    add more: a save's answer, carried out in the same loop); returns how many are left.

    With ``until`` (a tick), once it has passed the next event line and what follows it
    wait in the list for the next pass, which the core adds to: a board spends a pass on
    a burst of lines (a verdict, a Deathball run) a part at a time, and each pass stays
    short. At least one effect goes each pass; while more than ``EFFECTS_HELD`` wait,
    a board's passes step no core (``one_pass``), so what waits stays bounded.

    A line with a long list (a storm's verdict) goes to a board that takes parts
    (``write_part``) a part at a time (``events.parts``), while its queue has
    ``PART_ROOM`` free and the pass's time lasts; the rest of it, and every effect after
    it, wait for the next pass, so the stream's order never changes."""
    i = 0
    while i < len(effects) and _carry_out(effects, i, hw, until):
        i += 1
    if i < len(effects):
        del effects[:i]
        return len(effects)
    effects.clear()
    return 0


def _carry_out(effects, i, hw, until):
    """Effect ``i``; False when it and the rest wait for the next pass."""
    effect = effects[i]
    if effect[0] == EVENT:
        if i and until is not None and diff(hw.ticks_us(), until) >= 0:
            return False
        if _in_parts(effect, hw):
            effect = effects[i] = (PARTS, events.parts(effect[1], effect[2], effect[3]))
    if effect[0] == PARTS:
        return _send_parts(effect[1], hw, until)    # False: the rest of the line next pass
    _apply(effect, hw)
    return True


PARTS = "parts"       # an event line being written a part at a time: (PARTS, generator)
PART_ROOM = 2048      # queue bytes free before the next part is made (a part is < 2 KB)


def _in_parts(effect, hw):
    return getattr(hw, "bytes_out", False) and hasattr(hw, "write_part") and events.long(effect[3])


def _send_parts(gen, hw, until):
    """Write the next parts of a line while the queue has ``PART_ROOM`` free and the pass
    has time for one more as long as the last (a part at least, room allowing); True
    once the line is all written, its newline included. (Checking only that the time had
    not yet run out let the last part start just before it did: on the chip, passes of
    20 ms and more for a budget of 10.)"""
    took = 0                  # us the last part took; 0 before the first
    while hw.room() >= PART_ROOM:
        start = hw.ticks_us()
        if took and until is not None and diff(add(start, took), until) >= 0:
            return False
        try:
            part = next(gen)
        except StopIteration:
            hw.write_part(b"", True)
            return True
        hw.write_part(part, False)
        took = max(1, diff(hw.ticks_us(), start))
    return False


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
    to the laptop's boards; a layer that reads events, not lines (``take_event``: a
    replay's board), is handed the event itself."""
    if getattr(hw, "bytes_out", False):
        return hw.write_line(events.encode(effect[1], effect[2], effect[3]))
    take = getattr(hw, "take_event", None)
    if take is not None:
        return take(effect[1], effect[2], effect[3])
    return hw.write_line(events.line(effect[1], effect[2], effect[3]))


def one_pass(core, hw, lines):
    """Gather the laptop's lines, step the core, apply its effects; returns the ms the core
    may sleep. ``lines`` is a list the caller keeps, so a pass allocates none. At most
    ``LINES_PER_PASS`` lines are taken: the rest wait where they are (a board's USB
    buffer, which holds the laptop back when full), so a flood is answered line by line
    over many short passes, and one pass's effects stay bounded; no line is taken while
    effects of the last pass still wait. A board with a
    ``budget_us`` writes event lines until that long after the pass began, the rest in
    the next passes (``apply``)."""
    now = hw.ticks_us()
    wait_ms = 0               # behind: this pass only writes, its input waits where it is
    if not _behind(core, hw):
        _gather(core, hw, lines)
        wait_ms = core.step(now, hw.ring, lines, hw.unsent)
        if len(lines) >= LINES_PER_PASS:
            wait_ms = 0       # more may be waiting: the next pass at once
        lines.clear()
    if _effects(core, hw, now):
        wait_ms = 0           # event lines left for the next pass
    hw.service(now)
    return wait_ms


def _behind(core, hw):
    """A board with more than ``EFFECTS_HELD`` effects waiting (a storm's lines) steps
    no core until they are down again: its snapshots wait in the ring and its command
    lines in the laptop's buffer, so what waits stays bounded and every pass stays short."""
    return len(core.effects) > EFFECTS_HELD and getattr(hw, "budget_us", 0)


def _effects(core, hw, now):
    budget_us = getattr(hw, "budget_us", 0)      # a board's; a virtual board's passes take no time
    return apply(core.effects, hw, add(now, budget_us) if budget_us else None)


def _gather(core, hw, lines):
    if core.effects and getattr(hw, "budget_us", 0):
        return        # a board's event lines of the last pass still wait: the lines wait too
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


def run_until(core, hw, idle_ms=0):
    """The loop without an event loop: ``hw.advance(ms)`` waits up to ``ms`` (a board for
    real, until an input comes; a virtual board by moving its clock) and says whether to go
    on. A board runs this: no event loop, no task, nothing scheduled on top of the loop, so
    the deepest call of a pass is the loop's own (docs/firmware.md, "The C stack"). A
    board's ``tidy(wait_ms)`` runs before each wait (its garbage collected while nothing
    is due). With ``idle_ms``, while the core has nothing due the wait is that long: a virtual board jumps
    straight to its next input."""
    lines = []
    wait_ms = 0
    tidy = getattr(hw, "tidy", None)     # a board's collection while nothing is due
    while hw.advance(wait_ms):
        wait_ms = one_pass(core, hw, lines)
        if idle_ms and core.idle:
            wait_ms = idle_ms
        if tidy is not None:
            tidy(wait_ms)


def run_virtual(core, board):
    """The same loop for a board in virtual time (the headless simulator, a replay):
    nothing there waits for real, and while the core has nothing due, time goes straight
    on to the next input: the passes in between would do nothing."""
    run_until(core, board, IDLE_JUMP_MS)

"""Stand-ins for the board modules ``courtside.hw.pio_capture`` imports (``rp2``, ``machine``,
``uctypes``), for the hardware this computer does not have.

The state machine is the PIO emulator running the program the module assembled through
``rp2.asm_pio`` (here the stand-in assembler);
the DMA channel, given a state machine's RX FIFO address, copies each word that machine
pushes into the buffer the module gave it, wrapping at
the ring size it asked for, and counts down its transfer counter as the real one does.
Time is kept in system cycles (8 ns at 125 MHz); the test moves it with
``PioBoard.advance(us)``, and ``ticks_us()`` reads it floored to whole microseconds, as the
board's timer does.

Calls take time on a board. With ``costs`` (a ``Costs``), every ``ticks_us()``,
``StateMachine.active()`` and ``restart()`` the module makes moves the clock on: part of
the call before the register is read or written, the rest after, each part a few cycles
longer or shorter at random, and now and then an interrupt runs before a call. That is
what the anchor between the state machine's count and ``ticks_us()`` must cope with:
the floored reads, where inside its call each register access falls, and interrupts.
"""

import random
import types

from pio_sim import PioSim
from pio_standin import assemble
from pio_waves import steps

MHZ = 125


def fifo(sm_id):
    """The RX FIFO register of a state machine, from the RP2040 datasheet (PIO0 at
    0x50200000, PIO1 at 0x50300000, RXF0..3 at +0x20..0x2c): what the DMA reads."""
    return 0x50200000 + 0x100000 * (sm_id // 4) + 0x20 + 4 * (sm_id % 4)


class Costs:
    """Cycles the anchor's calls take, split at the register access: ``ticks`` and
    ``active`` are (before, after) the timer read / the CTRL write, ``query`` is
    ``sm.active()`` with no argument, ``restart`` is ``sm.restart()``, ``build`` is building
    a state machine again (``rp2.StateMachine(id, program, ...)``). Each part varies by
    up to ``jitter`` cycles either way; before any call an interrupt runs with
    probability ``irq_rate``, for ``irq_us`` (low, high) microseconds."""

    def __init__(self, ticks=(75, 50), active=(95, 105), query=70, restart=1500, build=5000, jitter=3,
                 irq_rate=0.0, irq_us=(5, 40), seed=0):
        self.ticks, self.active, self.query, self.restart = ticks, active, query, restart
        self.build = build
        self.jitter, self.irq_rate, self.irq_us = jitter, irq_rate, irq_us
        self.rng = random.Random(seed)

    def part(self, cycles):
        return max(cycles + self.rng.randint(-self.jitter, self.jitter), 0)

    def interrupt(self):
        if self.irq_rate and self.rng.random() < self.irq_rate:
            return round(self.rng.uniform(*self.irq_us) * MHZ)
        return 0


class PioBoard:
    def __init__(self, edges_us, address=0x20001010, costs=None, start_us=0):
        self.cycle = round(start_us * MHZ)
        self.costs = costs
        self.edges = [(round(t * MHZ), g, c) for t, g, c in edges_us]
        self.address = address          # what uctypes.addressof reports for any buffer
        self.machines = []
        self.dmas = []
        self.timers = []
        self.every_ms = []      # what the main loop's wait calls each millisecond (its drain)
        self.pins = {}
        self.removed = []       # (PIO block, program) taken out of instruction memory

    # modules ------------------------------------------------------------------------
    def modules(self):
        board = self

        rp2 = types.ModuleType("rp2")
        rp2.asm_pio = lambda **kw: (lambda f: assemble(f, **kw))
        rp2.StateMachine = lambda sm_id, program, **kw: board._machine(sm_id, program, kw)
        rp2.DMA = board._dma

        class PIO:
            def __init__(self, block):
                self.block = block

            def remove_program(self, program):
                board.removed.append((self.block, program))

        rp2.PIO = PIO

        machine = types.ModuleType("machine")

        class Pin:
            IN, OUT, PULL_UP = 0, 1, 2

            def __init__(self, gpio, mode=None, pull=None):
                self.gpio = gpio
                if mode is not None:
                    board.pins[gpio] = (mode, pull)

            def value(self):
                return (board.levels() >> self.gpio) & 1

        class Timer:
            PERIODIC, ONE_SHOT = 1, 0

            def __init__(self, mode=None, period=None, callback=None):
                self.period, self.callback, self.running = period, callback, True
                self.next_us = board.now_us + 1000 * period
                board.timers.append(self)

            def deinit(self):
                self.running = False

        machine.Pin = Pin
        machine.Timer = Timer
        machine.freq = lambda: MHZ * 1_000_000

        uctypes = types.ModuleType("uctypes")
        uctypes.addressof = lambda obj: board.address
        return {"rp2": rp2, "machine": machine, "uctypes": uctypes}

    @property
    def now_us(self):
        return self.cycle // MHZ

    @now_us.setter
    def now_us(self, us):
        self.cycle = us * MHZ

    def spend(self, cycles):
        """Time passing inside a call: an interrupt first, perhaps, then the call's part."""
        c = self.costs
        if c is not None:
            self.cycle += c.interrupt() + c.part(cycles)

    def ticks_us(self):
        if self.costs is None:
            return self.now_us & 0x3FFFFFFF
        before, after = self.costs.ticks
        self.spend(before)
        value = self.now_us & 0x3FFFFFFF
        self.cycle += self.costs.part(after)
        return value

    # ``courtside.hw.native.enable_on_tick`` as the board runs it: spin until the timer
    # ticks over, then set the state machine's enable bit a few cycles later.
    TIMERAWL = 0x40054028
    TICK_TO_WRITE = 8           # cycles from the edge to the write (a read loop, the store)
    late = 0                    # the next ``late`` calls are each delayed past their edge by 2 us

    def on_tick(self, timer_low, enable, bits, spins):
        assert timer_low == self.TIMERAWL, hex(timer_low)
        block = (enable - 0x50202000) // 0x100000
        assert enable == 0x50202000 + 0x100000 * block and bits and bits < 16, (hex(enable), bits)
        index = bits.bit_length() - 1
        assert bits == 1 << index
        edge = (self.cycle // MHZ + 1) * MHZ
        self.cycle = edge + (self.costs.part(self.TICK_TO_WRITE) if self.costs else self.TICK_TO_WRITE)
        if self.late:
            self.late -= 1
            self.cycle += 2 * MHZ       # an interrupt between the tick and the write
        sm = next(m for m in self.machines if m.sm_id == 4 * block + index)
        sm.enable()
        if self.cycle // MHZ != edge // MHZ:
            return -2
        return (edge // MHZ) & 0x3FFFFFFF

    def levels(self):
        lv = 0x1FFFF
        for c, g, closed in sorted(self.edges):
            if c <= self.cycle:
                lv = (lv & ~(1 << g)) if closed else (lv | (1 << g))
        return lv

    # the state machine and the DMA ----------------------------------------------------
    def _machine(self, sm_id, program, kw):
        # as on the board, one object per state machine: building it again re-initialises it
        for sm in self.machines:
            if sm.sm_id == sm_id:
                if self.costs is not None:
                    self.spend(self.costs.build)
                    sm.rebuilds += 1
                sm.init(program, kw)
                return sm
        sm = _Machine(self, sm_id, program, kw)
        self.machines.append(sm)
        return sm

    def _dma(self):
        d = _Dma(self)
        self.dmas.append(d)
        return d

    def sync(self):
        """Run the state machines to now and let the DMA move what they pushed (the DMA
        takes a word within cycles of its push, so whoever reads its counter sees it)."""
        for sm in self.machines:
            sm.run_to(self.cycle)
        for d in self.dmas:
            d.move()

    def advance(self, us):
        """Move time on by ``us``: the state machine runs, the DMA moves what it pushed,
        and each millisecond the loop's wait runs (``every_ms``: the drain)."""
        end = self.cycle + us * MHZ
        while self.cycle < end:
            self.cycle = min(self.cycle + 1000 * MHZ, end)
            self.sync()
            for f in self.every_ms:
                f()
            for t in self.timers:
                while t.running and self.now_us >= t.next_us:
                    t.next_us += 1000 * t.period
                    t.callback(t)


class _Machine:
    def __init__(self, board, sm_id, program, kw):
        self.board = board
        self.sm_id = sm_id
        self.history = []       # every word pushed, over every run: what the DMA reads
        self.enables = []       # the cycle of every enable
        self.restarts = 0
        self.rebuilds = 0
        self.init(program, kw)

    def init(self, program, kw):
        self.program = program
        self.kw = kw
        self.on = False
        self.started_at = None
        out_y = program.opcodes[program.labels["sample"] + 1]   # ``out y, width``
        assert out_y & 0xFFE0 == 0x6040
        self.width = (out_y & 0x1F) or 32
        self.restart(cost=False)

    def restart(self, cost=True):
        """Back to the program's first instruction, as ``rp2.StateMachine.restart``."""
        if cost and self.board.costs is not None:
            self.board.spend(self.board.costs.restart)
            self.restarts += 1
        self.sim = PioSim(width=self.width, program=self.program)
        self.seen = 0
        self.ran = 0            # cycles run since the enable (the machine stops while disabled)

    def active(self, value=None):
        costs = self.board.costs
        if value is None:
            if costs is not None:
                self.board.spend(costs.query)
            return self.on
        if costs is not None:
            self.board.spend(costs.active[0])
        if value and not self.on:
            self.enable()
        elif not value and self.on:
            self.run_to(self.board.cycle)
        self.on = bool(value)
        if costs is not None:
            self.board.cycle += costs.part(costs.active[1])
        return self.on

    def enable(self):
        """The enable bit set, at the board's cycle now."""
        self.started_at = self.board.cycle - self.ran
        self.enables.append(self.board.cycle)
        self.on = True

    def run_to(self, cycle):
        if not self.on:
            return
        base = self.kw["in_base"].gpio
        local = [(max(c - self.started_at, 0), g - base, closed) for c, g, closed in self.board.edges]
        self.sim.run(steps(local), cycle - self.started_at)
        self.ran = cycle - self.started_at
        self.history.extend(w for _, w in self.sim.words[self.seen:])
        self.seen = len(self.sim.words)

    def pushed(self):
        return self.history


class _Dma:
    def __init__(self, board):
        self.board = board
        self.ctrl = None
        self.closed = False
        self.running = False
        self._count = 0
        self.copied = 0         # words of the state machine's history already taken
        self.written = 0        # words this channel wrote, for its ring position

    @property
    def count(self):
        self.board.sync()
        return self._count

    def pack_ctrl(self, **kw):
        return dict(kw)

    def config(self, read=None, write=None, count=None, ctrl=None, trigger=False):
        self.source, self.target, self._count, self.ctrl = read, write, count, ctrl
        self.running = trigger
        machines = [m for m in self.board.machines if fifo(m.sm_id) == read]
        self.copied = len(machines[0].history) if machines else 0   # only words pushed from now
        self.written = 0

    def active(self, value=None):
        if value is not None:
            self.running = bool(value)
        return self.running

    def close(self):
        self.closed = True

    def move(self):
        if not self.running:
            return
        (sm,) = [m for m in self.board.machines if fifo(m.sm_id) == self.source]
        words = sm.pushed()
        ring_words = (1 << self.ctrl["ring_size"]) // 4
        while self.copied < len(words) and self._count:
            w = words[self.copied]
            j = 2 * (self.written % ring_words)
            self.target[j] = w & 0xFFFF
            self.target[j + 1] = w >> 16
            self.copied += 1
            self.written += 1
            self._count -= 1


def load_capture(board):
    """``courtside.hw.pio_capture`` imported afresh on ``board``'s stand-in modules; the
    modules in ``sys.modules`` before are put back."""
    import sys
    names = ("rp2", "machine", "uctypes", "courtside.hw.pio_capture")
    saved = {name: sys.modules.get(name) for name in names}
    sys.modules.update(board.modules())
    sys.modules.pop("courtside.hw.pio_capture", None)
    try:
        import courtside.hw.pio_capture as mod
    finally:
        for name, old in saved.items():
            if old is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = old
    return mod


def old_anchor(cap):
    """Make ``cap`` anchor as the firmware did before: ``ticks_us()`` read once before and
    once after ``sm.active(1)``, count 0 at the floored midpoint, stamps floored."""
    from courtside.clock import add, diff

    def anchor(sm, dma):
        t0 = cap._ticks()
        sm.active(1)
        t1 = cap._ticks()
        # the floored midpoint, less half a microsecond so that the rounding floors
        cap.stamper.start(add(t0, (diff(t1, t0) >> 1) - 1), True)
        cap.anchor_tries = 1
    cap._anchor = anchor


def start_up_errors(pins, costs, start_us, rng, presses=24, old=False, on_tick=False):
    """One start-up of the PIO backend on a board with ``costs``: ``presses`` presses and
    releases on random buttons, their edges at evenly spread fractions of a microsecond,
    after the start (``on_tick``: anchored on a timer edge, as a board with the native
    module does). Returns (signed stamp errors in us, the capture object)."""
    from fractions import Fraction

    from courtside.clock import diff
    from courtside.ring import Ring
    edges, truth = [], []
    n = 2 * presses
    t = start_us + 3000                       # after the anchor's tries
    fractions = [Fraction(k, n) + Fraction(rng.randrange(1000), 1000 * n) for k in range(n)]
    rng.shuffle(fractions)
    for i in range(presses):
        t = int(t) + rng.randrange(150, 400)
        gpio = rng.randrange(17)
        down, up = t + fractions[2 * i], t + 60 + fractions[2 * i + 1]
        edges += [(down, gpio, True), (up, gpio, False)]
        truth += [down, up]
    board = PioBoard([(float(x), g, c) for x, g, c in edges], costs=costs, start_us=start_us)
    board.edges = [(round(x * MHZ), g, c) for x, g, c in edges]       # exact cycles
    mod = load_capture(board)
    ring = Ring(256)
    cap = mod.PioCapture(ring, pins, ticks_us=board.ticks_us)
    if old:
        old_anchor(cap)
    if on_tick:
        cap.start(board.on_tick, board.TIMERAWL)
    else:
        cap.start()
    board.advance(int(t - start_us) + 200)
    cap.drain()
    got = []
    pair = [0, 0]
    while ring.get(pair):
        got.append(pair[0])
    assert len(got) == n, "%d of %d edges" % (len(got), n)
    return [diff(s, 0) - Fraction(round(x * MHZ), MHZ) for s, x in zip(got, truth)], cap

"""Stand-ins for the board modules ``courtside.hw.pio_capture`` imports (``rp2``, ``machine``,
``uctypes``), for the hardware this computer does not have.

The state machine is the PIO emulator running the program the module assembled through
``rp2.asm_pio`` (here the stand-in assembler);
the DMA channel, given a state machine's RX FIFO address, copies each word that machine
pushes into the buffer the module gave it, wrapping at
the ring size it asked for, and counts down its transfer counter as the real one does.
Time is a microsecond clock the test moves with ``Board.advance(us)``.
"""

import types

from pio_sim import PioSim
from pio_standin import assemble
from pio_waves import steps

MHZ = 125


def fifo(sm_id):
    """The RX FIFO register of a state machine, from the RP2040 datasheet (PIO0 at
    0x50200000, PIO1 at 0x50300000, RXF0..3 at +0x20..0x2c): what the DMA reads."""
    return 0x50200000 + 0x100000 * (sm_id // 4) + 0x20 + 4 * (sm_id % 4)


class Board:
    def __init__(self, edges_us, address=0x20001010):
        self.now_us = 0
        self.edges = [(round(t * MHZ), g, c) for t, g, c in edges_us]
        self.address = address          # what uctypes.addressof reports for any buffer
        self.machines = []
        self.dmas = []
        self.timers = []
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

    def ticks_us(self):
        return self.now_us & 0x3FFFFFFF

    def levels(self):
        lv = 0x1FFFF
        for c, g, closed in sorted(self.edges):
            if c <= self.now_us * MHZ:
                lv = (lv & ~(1 << g)) if closed else (lv | (1 << g))
        return lv

    # the state machine and the DMA ----------------------------------------------------
    def _machine(self, sm_id, program, kw):
        sm = _Machine(self, sm_id, program, kw)
        self.machines.append(sm)
        return sm

    def _dma(self):
        d = _Dma(self)
        self.dmas.append(d)
        return d

    def advance(self, us):
        """Move time on by ``us``: the state machine runs, the DMA moves what it pushed,
        the poll timer fires every ``period`` ms."""
        end = self.now_us + us
        while self.now_us < end:
            step = min(1000, end - self.now_us)
            self.now_us += step
            for sm in self.machines:
                sm.run_to(self.now_us * MHZ)
            for d in self.dmas:
                d.move()
            for t in self.timers:
                while t.running and self.now_us >= t.next_us:
                    t.next_us += 1000 * t.period
                    t.callback(t)


class _Machine:
    def __init__(self, board, sm_id, program, kw):
        self.board = board
        self.sm_id = sm_id
        self.program = program
        self.kw = kw
        self.on = False
        self.started_at = None
        out_y = program.opcodes[program.labels["sample"] + 1]   # ``out y, width``
        assert out_y & 0xFFE0 == 0x6040
        width = (out_y & 0x1F) or 32
        self.sim = PioSim(width=width, program=program)
        self.moved = 0

    def active(self, value=None):
        if value is None:
            return self.on
        if value and not self.on:
            self.started_at = self.board.now_us * MHZ
        self.on = bool(value)
        return self.on

    def run_to(self, cycle):
        if not self.on:
            return
        base = self.kw["in_base"].gpio
        local = [(max(c - self.started_at, 0), g - base, closed) for c, g, closed in self.board.edges]
        self.sim.run(steps(local), cycle - self.started_at)

    def pushed(self):
        return [w for _, w in self.sim.words]


class _Dma:
    def __init__(self, board):
        self.board = board
        self.ctrl = None
        self.closed = False
        self.running = False
        self.count = 0
        self.copied = 0

    def pack_ctrl(self, **kw):
        return dict(kw)

    def config(self, read=None, write=None, count=None, ctrl=None, trigger=False):
        self.source, self.target, self.count, self.ctrl = read, write, count, ctrl
        self.running = trigger

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
        while self.copied < len(words) and self.count:
            w = words[self.copied]
            j = 2 * (self.copied % ring_words)
            self.target[j] = w & 0xFFFF
            self.target[j + 1] = w >> 16
            self.copied += 1
            self.count -= 1

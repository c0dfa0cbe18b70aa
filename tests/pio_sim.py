"""Run the firmware's PIO capture program in the RP2040 PIO emulator (``pioemu``).

The program comes from ``courtside.piocode`` through the asm_pio stand-in
(``tests/pio_standin.py``), so the emulator executes the opcodes the board loads.
Pin waveforms are scripted as a list of ``(cycle, levels)`` steps (bit n = GPIO n, 0 =
pressed); the words the state machine pushes are collected as a DMA channel would: taken
from the RX FIFO as soon as they appear, unless ``dma=False``.

Long quiet stretches are skipped arithmetically (``skip=True``): while the pins equal the
reported levels and the counter does not reach zero, a quiet loop only lowers the
counter by one per ``LOOP_CYCLES`` cycles. The tests check that skipping gives exactly the
state the plain step-by-step emulation reaches.

    sim = PioSim(width=17)
    words = sim.run([(0, IDLE), (1000, IDLE & ~1)], until=5000)
"""

from bisect import bisect_right
from dataclasses import replace

from courtside import piocode
from pio_standin import assemble
from pioemu import State, emulate
from pioemu.shift_register import ShiftRegister

MASK32 = 0xFFFFFFFF


class PioSim:
    def __init__(self, width=17, skip=True, dma=True, program=None):
        if program is None:
            program = assemble(piocode.program(width), **piocode.CONFIG)
        self.program = program
        self.width = width
        self.skip = skip
        self.dma = dma
        cfg = self.program.config
        self._kw = {
            "shift_isr_right": cfg["in_shiftdir"] == piocode.SHIFT_RIGHT,
            "shift_osr_right": cfg["out_shiftdir"] == piocode.SHIFT_RIGHT,
            "wrap_target": self.program.wrap_target,
            "wrap_top": self.program.wrap,
        }
        self.sample_pc = self.program.labels["sample"]
        self.state = State()                 # the program's first instruction, as on the board
        self.words = []      # (cycle the word left the FIFO, word)
        self.lost_words = 0  # pushes dropped on a full FIFO (dma=False only)
        self._steps = [(0, (1 << width) - 1)]
        self._cycles = []

    def levels_at(self, cycle):
        i = bisect_right(self._cycles, cycle) - 1
        return self._steps[max(i, 0)][1]

    def run(self, steps, until):
        """Feed the waveform ``steps`` and run until cycle ``until``; returns all words so far."""
        self._steps = sorted(steps)
        self._cycles = [c for c, _ in self._steps]
        while self.state.clock < until:
            if self.skip and self._skip(until):
                continue
            self._one_pass()
        return [w for _, w in self.words]

    def _input(self, clock: int) -> int:
        return self.levels_at(clock)

    def _one_pass(self):
        """Execute instructions until the program is back at ``sample`` (one loop or path)."""
        start = self.state.clock
        sample = self.sample_pc

        def stop(_op, s):
            return s.clock > start and s.program_counter == sample

        last = self.state
        for _before, after in emulate(self.program.opcodes, stop_when=stop, initial_state=self.state,
                                      input_source=self._input, **self._kw):
            before_fifo = len(_before.receive_fifo)
            if len(after.receive_fifo) == before_fifo and _before.program_counter in self._push_pcs():
                if before_fifo >= 4:
                    self.lost_words += 1
            if self.dma:
                while after.receive_fifo:
                    self.words.append((after.clock, after.receive_fifo.popleft()))
            last = after
        self.state = last

    def _push_pcs(self):
        pcs = getattr(self, "_pcs", None)
        if pcs is None:
            pcs = {i for i, op in enumerate(self.program.opcodes) if op & 0xE080 == 0x8000}
            self._pcs = pcs
        return pcs

    def _skip(self, until):
        s = self.state
        if s.program_counter != self.sample_pc:
            return False
        counter = s.input_shift_register.contents
        mask = (1 << self.width) - 1
        x = s.x_register
        clock = s.clock
        # next waveform step after now
        i = bisect_right(self._cycles, clock)
        nxt = self._cycles[i] if i < len(self._cycles) else until
        nxt = min(nxt, until)
        if (self.levels_at(clock) & mask) != x:
            return False
        n = (nxt - clock - 1) // piocode.LOOP_CYCLES   # quiet samples strictly before nxt
        if counter:
            n = min(n, counter - 1)          # stop short of the wrap mark
        else:
            n = 0
        if n < 2:
            return False
        n -= 1                               # leave the last loop to the emulator
        left = counter - n
        levels = self.levels_at(clock)
        self.state = replace(
            s, clock=clock + n * piocode.LOOP_CYCLES, y_register=left,
            input_shift_register=ShiftRegister(left, 0),
            output_shift_register=ShiftRegister(levels >> self.width, self.width),
            pin_values=levels)
        return True


def count_of(word):
    """A count word's 30-bit counter value, or None for a levels word."""
    return None if word & 0x80000000 else word & 0x3FFFFFFF


def levels_of(word, width=17):
    """A levels word's pin levels (bit 0 = in_base), or None for a count word."""
    return (~word) & ((1 << width) - 1) if word & 0x80000000 else None


def loops_of(count):
    """Loops since the start for a 30-bit count (the counter goes down from 0)."""
    return (-count) & 0x3FFFFFFF

"""Scripted pin waveforms for the PIO capture tests and the bounce-storm bench.

A waveform is built from per-pin edges ``(cycle, gpio, closed)`` and becomes the list of
``(cycle, levels)`` steps the emulator reads (bit n = GPIO n, 0 = contact closed).
"""

from array import array

IDLE = 0x1FFFF


def steps(edges, idle=IDLE):
    """Per-pin edges -> (cycle, levels) steps, starting idle at cycle 0."""
    out = [(0, idle)]
    levels = idle
    for cycle, gpio, closed in sorted(edges):
        levels = (levels & ~(1 << gpio)) if closed else (levels | (1 << gpio))
        if out[-1][0] == cycle:
            out[-1] = (cycle, levels)
        else:
            out.append((cycle, levels))
    return out


def bounce(start, gpio, closed, pulses, spacing):
    """A contact that settles to ``closed`` after ``pulses`` extra flips ``spacing`` cycles apart."""
    edges = []
    state = closed
    for i in range(2 * pulses + 1):
        edges.append((start + i * spacing, gpio, state))
        state = not state
    return edges


def decode(words, width=17):
    """Words -> ([(loops, levels)], [loops of wrap marks]); loops counted from the start."""
    snaps, marks = [], []
    pending = None
    for w in words:
        if w & 0x80000000:
            pending = (~w) & ((1 << width) - 1)
            continue
        loops = (-(w & 0x3FFFFFFF)) & 0x3FFFFFFF
        if pending is None:
            marks.append(loops)
        else:
            snaps.append((loops, pending))
            pending = None
    return snaps, marks


class DmaBuffer:
    """A RAM ring like the firmware's DMA target: words written in order, wrapping."""

    def __init__(self, words):
        self.halves = array("H", bytes(4 * words))
        self.size = words
        self.written = 0

    def write(self, word):
        j = 2 * (self.written % self.size)
        self.halves[j] = word & 0xFFFF
        self.halves[j + 1] = word >> 16
        self.written += 1

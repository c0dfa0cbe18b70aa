"""The PIO capture program: one source for the board and for the PC's emulator.

``program(width)`` returns the state machine program as a plain function written in the
``rp2.asm_pio`` language. On the board ``courtside.hw.pio_capture`` hands it to
``rp2.asm_pio(**CONFIG)``; on the PC a stand-in assembler runs the very same function and
the emulator executes the opcodes it records. Nothing else lives in this module, because
``asm_pio`` swaps the module's globals while it runs the function.

What the program does (docs/pio-capture.md has the details):

- ``mov osr, pins`` reads every button pin in one clock cycle; ``out y, width`` keeps the
  ``width`` pins from ``in_base`` up.
- X holds the last reported levels. If the new sample differs, the state machine pushes
  two words: the inverted levels (bit 31 set: a "levels" word) and the loop counter
  (bits 31 and 30 clear: a "count" word).
- The ISR holds the loop counter, always below 2**30. It goes down by one for every 6
  cycles, on every path, so the counter is a clock: one count = 6 system cycles = 48 ns
  at 125 MHz.
- When the counter reaches zero the program pushes a lone count word (the "wrap mark")
  and restarts from 2**30 - 1, so the drain sees a count word at least every 2**30 loops
  (51.5 s at 125 MHz). A change seen one or two loops before the wrap counts through
  zero itself; its own count word (1 or 0) then stands in for the mark.

Loop budget: the quiet loop is 6 cycles; a change costs 12 (two loops); a wrap mark costs
12. The change path sits just before ``sample`` and the quiet loop ends at ``.wrap``, so
neither needs a jump back.

Start-up needs no help from the processor: the first two instructions (3 cycles) set the
counter to 0 and Y to all ones, then the state machine runs the change path exactly as if
a change had been seen at loop 0. That pushes two zero words (two marks at count 0), makes
X all ones (never equal to a sample, so the first sample, at loop 2, reports the starting
levels) and keeps every sample on the 6-cycle grid: the sample with count -k (modulo
2**30) happens 6k cycles after the state machine is enabled.
"""

# Values of rp2.PIO.SHIFT_LEFT / SHIFT_RIGHT / JOIN_RX (checked against the stubs in tests)
SHIFT_LEFT = 0
SHIFT_RIGHT = 1
JOIN_RX = 2

LOOP_CYCLES = 6     # cycles per count: the quiet loop, and the unit of every other path
COUNT_BITS = 30     # count words carry the counter's low 30 bits

# Keyword arguments for rp2.asm_pio (and for the stand-in assembler)
CONFIG = {
    "in_shiftdir": SHIFT_LEFT,     # ``in y, 30`` lands in the low bits of an empty ISR
    "out_shiftdir": SHIFT_RIGHT,   # ``out y, width`` takes the low bits: in_base upwards
    "fifo_join": JOIN_RX,          # 8-word RX FIFO: 4 changes of slack for the DMA
}


def program(width):
    """The capture program for ``width`` contiguous button pins (1..30)."""

    # ruff: noqa: F821 - the names below are the asm_pio language, injected by the assembler
    def pio_capture():
        mov(isr, null)              # 0  entry: the counter starts at 0
        mov(y, invert(null))[1]     # 1  "levels" no sample can equal; 3 cycles, as a change
        label("changed")            #    X = old levels, Y = new levels, ISR = counter
        mov(x, y)                   # 2  the new levels are the new reference
        mov(y, isr)                 # 3  y = counter at the sample that saw the change
        mov(isr, invert(x))         # 4  levels word: bit 31 set, pressed pins read 1
        push(noblock)               # 5
        in_(y, 30)                  # 6  count word (ISR was emptied by the push)
        push(noblock)               # 7
        jmp(y_dec, "again")         # 8  the change path lasts 2 loops: count them
        label("again")
        jmp(y_dec, "stored")        # 9
        label("stored")
        in_(y, 30)                  # 10 store the counter, kept below 2**30
        wrap_target()
        label("sample")
        mov(osr, pins)              # 11 every pin in one cycle
        out(y, width)               # 12 y = the button pins
        jmp(x_not_y, "changed")     # 13
        mov(y, isr)                 # 14 y = counter
        jmp(y_dec, "tick")          # 15 counter - 1; falls through only when it was 0
        push(noblock)               # 16 wrap mark: ISR is 0, push it as a count word
        in_(y, 30)                  # 17 restart the counter from 2**30 - 1 (y is all ones)
        mov(y, isr)                 # 18
        jmp(y_dec, "tick")[2]       # 19 one more count, padded to 2 loops
        label("tick")
        mov(isr, y)                 # 20 store the counter
        wrap()

    return pio_capture

"""The PIO capture program: one source for the board and for the PC's emulator.

``program(width)`` returns the state machine program as a plain function written in the
``rp2.asm_pio`` language. On the board ``courtside.hw.pio_capture`` hands it to
``rp2.asm_pio(**CONFIG)``; on the PC a stand-in assembler runs the very same function and
the emulator executes the opcodes it records. Nothing else lives in this module, because
``asm_pio`` swaps the module's globals while it runs the function.

What the program does (docs/pio-capture.md has the timing diagram):

- ``mov osr, pins`` reads every button pin in one clock cycle; ``out y, width`` keeps the
  ``width`` pins from ``in_base`` up.
- X holds the last reported levels. If the new sample differs, the state machine pushes
  two words: the inverted levels (bit 31 set: a "levels" word) and the loop counter's low
  30 bits (bits 31 and 30 clear: a "count" word).
- The ISR holds a 32-bit loop counter that goes down by one for every 6 cycles, on every
  path, so the counter is a clock: one count = 6 system cycles = 48 ns at 125 MHz.
- When the counter reaches zero the program pushes a lone count word (the "wrap mark") and
  restarts the counter from 2**30 - 1, so the drain sees a count word at least once every
  2**30 loops (51.5 s at 125 MHz) and never has to guess how many periods passed. The
  firmware starts the counter at 2**30 (its count words read 0).

Loop budget: the quiet loop is 6 cycles; a change costs 12 (two loops); a wrap mark costs
12. The layout is chosen so that the change path falls straight into ``tick`` with no
jump of its own.
"""

# Values of rp2.PIO.SHIFT_LEFT / SHIFT_RIGHT / JOIN_RX (checked against the stubs in tests)
SHIFT_LEFT = 0
SHIFT_RIGHT = 1
JOIN_RX = 2

LOOP_CYCLES = 6     # cycles per count: the quiet loop, and the unit of every other path
COUNT_BITS = 30     # count words carry the counter's low 30 bits

# Executed one by one (``StateMachine.exec``) before the state machine is started:
# ISR = 2**30, the counter (its count words read 0); X = all ones, never equal to a
# sample, so the first sample is reported as the starting levels.
START = (
    "set(y, 1)",
    "mov(isr, y)",
    "in_(null, 30)",
    "mov(x, invert(null))",
)

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
        wrap_target()
        label("sample")
        mov(osr, pins)              # 0  every pin in one cycle
        out(y, width)               # 1  y = the button pins
        jmp(x_not_y, "changed")     # 2
        mov(y, isr)                 # 3  y = counter
        jmp(y_dec, "tick")          # 4  counter - 1; falls through only when it was 0
        push(noblock)               # 5  wrap mark: ISR is 0, push it as a count word
        in_(y, 30)                  # 6  restart the counter from 2**30 - 1 (y is all ones)
        mov(y, isr)                 # 7
        jmp(y_dec, "tick")[2]       # 8  one more count, padded to 2 loops
        label("changed")
        mov(x, y)                   # 9  new levels are the new reference
        mov(y, isr)                 # 10 y = counter at the sample that saw the change
        mov(isr, invert(x))         # 11 levels word: bit 31 set, pressed pins read 1
        push(noblock)               # 12
        in_(y, 30)                  # 13 count word: low 30 bits, bits 31 and 30 clear
        push(noblock)               # 14
        jmp(y_dec, "again")         # 15 the change path lasts 2 loops: count them
        label("again")
        jmp(y_dec, "tick")          # 16
        label("tick")
        mov(isr, y)                 # 17 store the counter
        wrap()

    return pio_capture

"""The WS2812 matrix program: one source for the board and for the PC's emulator.

``ws2812`` is the state machine program as a plain function written in the
``rp2.asm_pio`` language. On the board ``courtside.hw.pico`` hands it to
``rp2.asm_pio(**WS2812_CONFIG)`` and runs it at ``WS2812_FREQ``; on the PC a stand-in
assembler runs the very same function and the emulator executes the opcodes it records.
Nothing else lives in this module beyond plain numbers, because ``asm_pio`` swaps the
module's globals while it runs the function.

What the program does: the side-set pin is the matrix data line. Every pixel is one
32-bit word, the 24 colour bits (G, R, B, most significant bit first) in the top three
bytes: the OSR shifts left and autopull refills it every 24 bits, so the FIFO never runs
dry between pixels of a frame. Every bit takes ``BIT_CYCLES`` cycles, starting high:

- a 0 is 3 cycles high and 7 low: 375 ns / 875 ns at 8 MHz;
- a 1 is 7 cycles high and 3 low: 875 ns / 375 ns.

That is 800 kbit/s, 30 us a pixel. When the FIFO is empty the ``out`` stalls with the
line low (its side-set holds), which is the latch ("reset") between frames.
"""

# Values of rp2.PIO.SHIFT_LEFT and rp2.PIO.OUT_LOW (checked against the stubs in tests)
SHIFT_LEFT = 0
OUT_LOW = 2

WS2812_FREQ = 8_000_000   # state machine clock: 125 ns a cycle
BIT_CYCLES = 10           # cycles per bit: 800 kbit/s
ZERO_HIGH = 3             # cycles high for a 0 (then 7 low)
ONE_HIGH = 7              # cycles high for a 1 (then 3 low)

# Keyword arguments for rp2.asm_pio (and for the stand-in assembler)
WS2812_CONFIG = {
    "sideset_init": OUT_LOW,       # one side-set pin, the data line, starting low
    "out_shiftdir": SHIFT_LEFT,    # bit 31 first: colour << 8 sends G7 first
    "autopull": True,
    "pull_thresh": 24,             # a new word every 24 bits
}


# ruff: noqa: F821 - the names below are the asm_pio language, injected by the assembler
def ws2812():
    wrap_target()
    label("top")
    out(x, 1).side(0)[2]           # 0  3 low: the tail of every bit (stalls low when idle)
    jmp(not_x, "zero").side(1)[2]  # 1  3 high: the head of every bit
    jmp("top").side(1)[3]          # 2  a 1 stays high 4 more
    label("zero")
    nop().side(0)[3]               # 3  a 0 goes low 4 more
    wrap()

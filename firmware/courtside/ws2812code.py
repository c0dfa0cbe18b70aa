"""The WS2812 matrix program: one source for the board and for the PC's emulator.

``ws2812`` is the state machine program as a plain function written in the
``rp2.asm_pio`` language. On the board ``courtside.hw.pico`` hands it to
``rp2.asm_pio(**WS2812_CONFIG)`` and runs it at ``WS2812_FREQ``; on the PC a stand-in
assembler runs the very same function and the emulator executes the opcodes it records.
Nothing else lives in this module beyond plain numbers, because ``asm_pio`` swaps the
module's globals while it runs the function.

What the program does: the side-set pin is the matrix data line. A frame is 192 bytes in
chain order (G, R, B of the first LED, then the next), which a DMA channel writes one
byte at a time into the joined 8-word TX FIFO. The RP2040 bus copies a byte written to a
32-bit register into all four byte lanes, so each FIFO word is that byte four times; the
OSR shifts left and autopull refills it every 8 bits, taking the top byte, most
significant bit first. The DMA keeps the FIFO topped up (a byte leaves it every 10 us),
so the line never idles inside a frame whatever the processor is doing, and no pixel word
is ever built by the processor. Every bit takes ``BIT_CYCLES`` cycles, starting high:

- a 0 is 3 cycles high and 7 low: 375 ns / 875 ns at 8 MHz;
- a 1 is 7 cycles high and 3 low: 875 ns / 375 ns.

That is 800 kbit/s, 30 us a pixel, 1.92 ms a frame. When the FIFO is empty the ``out`` stalls with the
line low (its side-set holds), which is the latch ("reset") between frames.
"""

# Values of rp2.PIO.SHIFT_LEFT, OUT_LOW, JOIN_TX (checked against the stubs in tests)
SHIFT_LEFT = 0
OUT_LOW = 2
JOIN_TX = 1

WS2812_FREQ = 8_000_000   # state machine clock: 125 ns a cycle
BIT_CYCLES = 10           # cycles per bit: 800 kbit/s
ZERO_HIGH = 3             # cycles high for a 0 (then 7 low)
ONE_HIGH = 7              # cycles high for a 1 (then 3 low)

# Keyword arguments for rp2.asm_pio (and for the stand-in assembler)
WS2812_CONFIG = {
    "sideset_init": OUT_LOW,       # one side-set pin, the data line, starting low
    "out_shiftdir": SHIFT_LEFT,    # bit 31 first: the top copy of the byte, bit 7 first
    "autopull": True,
    "pull_thresh": 8,              # a new FIFO word (one colour byte) every 8 bits
    "fifo_join": JOIN_TX,          # 8-word TX FIFO: 80 us of slack for the DMA
}

FRAME_BYTES = 192       # 64 LEDs x 3 colour bytes: one FIFO word each
BYTE_US = 10            # 8 bits at 800 kbit/s


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

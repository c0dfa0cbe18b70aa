"""The PIO capture's anchor in Thumb machine code: the few instructions a Cortex-M core
runs between seeing the microsecond timer tick over and enabling the state machine.

``enable_on_tick(timer_low, enable, bits, spins)`` reads the timer's raw low word until
it changes, then writes ``bits`` to ``enable`` (the PIO block's ``CTRL`` at its atomic
set alias: this state machine's enable bit, no other). Its wait loop is five
instructions (seven cycles on a Cortex-M0+ with no wait states), and the write comes
three cycles after the read that saw the tick, so on a Pico at 125 MHz the enable lies
at most about 10 cycles (80 ns) after the edge: counted from the instructions, not
measured on a Pico. The same function in viper (``courtside.hw.native``) spends about
44 cycles a read on the emulated RP2040 and wrote 0.51-0.65 us after the edge there,
which is the error this one removes.

Returns the tick the timer turned to (its low 30 bits: ``time.ticks_us()``); -1 when
nothing was written (no tick within ``spins`` reads); -2 when the write was made but
cannot be trusted (the timer had moved on by more than one, or moved again by the read
just after the write: something ran in between), so the caller stops the state machine
and tries again. Nothing here turns interrupts off.

Only a board with an ARM core runs this (``courtside deploy`` compiles it for the
board's ``-march``); elsewhere it is not loaded, and ``courtside.hw.native``'s viper
version or ``ticks_us()`` windows stand in (``courtside.hw.pio_capture``).
"""

import micropython


@micropython.asm_thumb
def enable_on_tick(r0, r1, r2, r3):
    ldr(r4, [r0, 0])        # the tick before
    label(WAIT)
    ldr(r5, [r0, 0])        # 2 cycles
    cmp(r5, r4)             # 1
    bne(TICKED)             # 1 when not taken
    sub(r3, r3, 1)          # 1
    bne(WAIT)               # 2 taken: 7 cycles a read
    mov(r0, 0)
    mvn(r0, r0)             # -1: no tick, nothing written
    b(END)
    label(TICKED)           # bne taken: 2 cycles
    str(r2, [r1, 0])        # the enable: 2 cycles
    ldr(r6, [r0, 0])        # the timer again, after the write
    sub(r4, r5, r4)         # the step the timer took
    cmp(r4, 1)
    bne(LATE)
    cmp(r6, r5)
    bne(LATE)
    lsl(r0, r5, 2)
    lsr(r0, r0, 2)          # the tick's low 30 bits: a small int on the board
    b(END)
    label(LATE)
    mov(r0, 1)
    mvn(r0, r0)             # -2: written, but not at the tick
    label(END)

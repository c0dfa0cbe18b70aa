"""Hard-IRQ capture as machine code: the pins, then the clock, read back to back.

The same handler as ``courtside.capture.IrqCapture``, written for MicroPython's viper
emitter. The first two loads of the handler are the SIO ``GPIO_IN`` register (every pin
at once) and the timer's raw low word ``TIMERAWL`` (the register ``time.ticks_us()``
reads on the rp2 port), a few instructions apart, before anything else runs; the
snapshot then goes straight into the capture ring's arrays. No object is made: viper
integers are machine words, so nothing here is a heap int even above 2**30.

Register addresses come in as arguments: on the Pico they are the chip's registers, in
the tests they point at an ``array`` the test writes, so the very handler the board runs
is the one the unix port runs under ``micropython.heap_lock()``.

    cap = NativeCapture(ring, GPIO_IN, TIMERAWL, mask, bits, lags, Pin.IRQ_FALLING)
    pin.irq(cap.irq, Pin.IRQ_FALLING | Pin.IRQ_RISING, hard=True)

``courtside deploy`` compiles this module with the ``-march`` of the board it deploys to
(``sys.implementation._mpy``); a board that cannot load it falls back to the bytecode
handler, and says so. ``bits``, ``lags`` and ``falling`` mean what they mean for
``IrqCapture``.
"""

import micropython


class NativeCapture:
    name = "irq"
    native = True

    def __init__(self, ring, gpio_in, timer_low, mask, bits, lags, falling, flag=None):
        self.ring = ring
        self._gpio_in = gpio_in
        self._timer_low = timer_low
        self._mask = mask
        self._bits = bits
        self._lags = lags
        self._falling = falling
        self._flag = flag
        self._stamps = ring.stamps
        self._levels = ring.levels
        self._ix = ring.ix           # head, tail, dropped (courtside.ring)
        self._size_mask = ring.mask

    @micropython.viper
    def irq(self, pin):
        gpio_in = ptr32(self._gpio_in)
        timer = ptr32(self._timer_low)
        levels = gpio_in[0]
        stamp = timer[0]
        levels &= int(self._mask)
        lag = int(self._lags[pin])
        stamp = (stamp - lag) & 0x3FFFFFFF
        if int(pin.irq().flags()) & int(self._falling):
            levels &= ~int(self._bits[pin])
        ix = ptr32(self._ix)
        head = ix[0]
        nxt = (head + 1) & int(self._size_mask)
        if nxt == ix[1]:
            if ix[2] < 0x3FFFFFFF:
                ix[2] = ix[2] + 1
            return
        stamps = ptr32(self._stamps)
        stamps[head] = stamp
        lv = ptr32(self._levels)
        lv[head] = levels
        ix[0] = nxt
        if self._flag:
            self._flag.set()

"""Interrupt-time capture: one snapshot of all button levels per interrupt.

The RP2040's GPIO interrupt dispatcher calls pending pin handlers in pin-number order, so
a handler that stamps only its own pin would favour low pins in a near-tie. Instead every
button pin shares one handler that reads the whole input register once and stamps it once:
pins that changed together get the same stamp, whichever pin's interrupt ran.

A contact can bounce open again in the microseconds before the handler runs, and the
register would then show the button open. The interrupt itself remembers the falling
edge, so the handler marks its own pin closed whenever a falling edge raised it: the
first edge always counts, at the stamp of its own interrupt.

The handler is built here, from the functions the hardware layer passes in, so that the
same object is what the Pico runs and what the tests run under ``micropython.heap_lock()``.
"""


class IrqCapture:
    """Hard-IRQ capture backend: ``irq`` is the handler for every button pin.

    ``bits`` maps each button's Pin object to its bit in the level word, and ``falling``
    is the port's IRQ_FALLING flag.
    """

    name = "irq"

    def __init__(self, ring, read_levels, ticks_us, mask, flag, bits=None, falling=0):
        self.ring = ring
        self._read = read_levels
        self._ticks = ticks_us
        self._mask = mask
        self._flag = flag
        self._bits = bits or {}
        self._falling = falling

    def irq(self, pin):
        # Integer work only: no allocation, no float, no attribute rebinding.
        stamp = self._ticks()
        levels = self._read() & self._mask
        if pin in self._bits and pin.irq().flags() & self._falling:
            levels &= ~self._bits[pin]
        self.ring.put(stamp, levels)
        self._flag.set()

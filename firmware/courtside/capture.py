"""Interrupt-time capture in bytecode: one snapshot of all button levels per interrupt.

The RP2040's GPIO interrupt dispatcher calls pending pin handlers in pin-number order, so
a handler that stamps only its own pin would favour low pins in a near-tie. Instead every
button pin shares one handler that reads the whole input register once and stamps it once:
pins that changed together get the same stamp, whichever pin's interrupt ran.

The pins are read first and the clock straight after, so a contact closing between the two
reads cannot be backdated into the earlier snapshot. ``lags`` takes off the dispatcher's
delay for the pin whose interrupt ran (docs/pio-capture.md, "IRQ capture timing").

A contact can bounce open again in the microseconds before the handler runs, and the
register would then show the button open. The interrupt itself remembers the falling
edge, so the handler marks its own pin closed whenever a falling edge raised it: the
first edge always counts, at the stamp of its own interrupt.

This is the fallback for a board that cannot load ``courtside.hw.native`` (the
same handler compiled to machine code, a few times faster). The handler is built from the
functions the hardware layer passes in, so the object the Pico runs is the one the tests
run under ``micropython.heap_lock()``.
"""

from courtside.clock import MASK


class IrqCapture:
    """Hard-IRQ capture backend: ``irq`` is the handler for every button pin.

    ``bits`` maps each button's Pin object to its bit in the level word, ``lags`` to the
    dispatcher's delay for that pin in microseconds, and ``falling`` is the port's
    IRQ_FALLING flag.
    """

    name = "irq"
    native = False

    def __init__(self, ring, read_levels, ticks_us, mask, flag=None, bits=None, falling=0, lags=None):
        self.ring = ring
        self._read = read_levels
        self._ticks = ticks_us
        self._mask = mask
        self._flag = flag
        self._bits = bits or {}
        self._lags = lags or {}
        self._falling = falling

    def irq(self, pin):
        # Integer work only: no allocation, no float, no attribute rebinding.
        levels = self._read()
        stamp = self._ticks()
        levels &= self._mask
        if pin in self._bits:
            stamp = (stamp - self._lags.get(pin, 0)) & MASK
            if pin.irq().flags() & self._falling:
                levels &= ~self._bits[pin]
        self.ring.put(stamp, levels)
        if self._flag is not None:
            self._flag.set()

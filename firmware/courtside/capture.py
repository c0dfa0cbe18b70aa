"""Interrupt-time capture: one snapshot of all button levels per interrupt.

The RP2040's GPIO interrupt dispatcher calls pending pin handlers in pin-number order, so
a handler that stamps only its own pin would favour low pins in a near-tie. Instead every
button pin shares one handler that reads the whole input register once and stamps it once:
pins that changed together get the same stamp, whichever pin's interrupt ran.

The handler is built here, from the functions the hardware layer passes in, so that the
same object is what the Pico runs and what the tests run under ``micropython.heap_lock()``.
"""


class IrqCapture:
    """Hard-IRQ capture backend: ``irq`` is the handler for every button pin."""

    name = "irq"

    def __init__(self, ring, read_levels, ticks_us, mask, flag):
        self.ring = ring
        self._read = read_levels
        self._ticks = ticks_us
        self._mask = mask
        self._flag = flag

    def irq(self, _pin):
        # Integer work only: no allocation, no float, no attribute rebinding.
        self.ring.put(self._ticks(), self._read() & self._mask)
        self._flag.set()

"""The Pico hardware layer: capture, the WS2812 matrix by PIO and DMA, buzzer, box LEDs, USB.

The only module (with ``pio_capture``) that imports ``machine`` and ``rp2``. What runs
here is kept small; the rules it follows are the firmware's timing rules:

- capture is the PIO backend wherever it can run (``courtside.hw.pio_capture``: every pin
  sampled in the same cycle), else one hard-IRQ handler shared by every button pin that
  reads the whole GPIO input register and then the timer, back to back
  (``courtside.hw.native``, or ``courtside.capture`` in bytecode);
- frames are finished (brightness, power cap) by ``courtside.hw.native.finish``, which
  the start-up hands the core as ``finish`` (None: the core's bytecode
  ``courtside.power.finish``), and packed into the chain's byte order by
  ``courtside.hw.native.pack`` (or ``courtside.hw.chain.pack`` in bytecode);
- nothing here turns interrupts off: a frame goes to the matrix's state machine by DMA
  from a buffer of its own, so no interrupt, timer or collection can stall the data line
  inside a frame (``neopixel`` and ``machine.bitstream`` mask interrupts for ~2 ms a
  frame); USB lines are queued and sent in chunks after a writable poll
  (``courtside.hw.lines``);
- no timer, soft IRQ or scheduled callback runs Python: the loop (``courtside.driver
  .run_until``) waits in ``advance``, which drains the capture and watches the USB port a
  millisecond at a time, so nothing runs on top of the loop's deepest call and eats into
  the 8 KB C stack (docs/firmware.md, "The C stack"); ``stack_peak`` reports the deepest
  the stack has been since start-up, read from a pattern painted below it;
- no flash writes during play (settings are saved only from a lobby, by command);
- the watchdog is switched off by ``release`` and at every boot (``boot.py``), so a
  Ctrl-C or an ``mpremote`` session is never cut short by it.

Beyond the interface in ``courtside.hw``: ``capture.native`` (True when the IRQ handler
is machine code), ``notes`` (why a preferred capture backend was not used, for the log),
``lines_overlong`` (command lines dropped for their length), ``advance(ms)`` (the loop's
wait, without asyncio), ``figures()`` (heap and stack, for the ``mem`` command).
"""

import os
import select
import sys
import time

import machine
import micropython
import rp2
from machine import PWM, WDT, Pin, mem32
from micropython import const

from courtside import events, ws2812code
from courtside.capture import IrqCapture
from courtside.clock import add, diff
from courtside.hw import chain
from courtside.hw.lines import Receiver, Sender, poller, primed
from courtside.ring import Ring

_SIO_GPIO_IN = const(0xD0000004)
_TIMERAWL = const(0x28)            # offset of the timer's raw low word (time_us_32)
_PIO0_TXF0 = const(0x50200010)     # state machine 0's TX FIFO: the matrix
_DREQ_PIO0_TX0 = const(0)
_CLEAR_ALIAS = const(0x3000)       # write 1s here to clear bits of a peripheral register
_WDT_ENABLE = const(0x40000000)    # WATCHDOG CTRL bit 30
_WDT_TIMEOUT_MS = const(5000)
_ROOM_FOR_ANSWERS = const(1024)    # free bytes in the USB queue before a command line is read
# A collection when the loop is about to wait (``tidy``): at least this long a wait ahead,
# this long since the last one, and output made since (a busy pass's garbage). On the chip,
# a Dodge Ball game at a table's pace went over 20 ms in 37 passes with 250 ms between
# collections and in 26 with 60 ms: fewer collections left to ``gc.threshold`` to start
# in the middle of a pass, for twice as many collections while the loop waits.
_TIDY_WAIT_MS = const(10)
_TIDY_EVERY_MS = const(60)
_STOP_FLUSH_MS = const(300)        # what release() waits for queued lines to go out
_RING_PIO = const(1024)            # capture ring snapshots, with PIO capture
_RING_IRQ = const(2048)            # ... with IRQ capture (no DMA buffer in front)
SETTINGS = "settings.json"      # in the flash root, beside the pin map
# After the TX FIFO empties the last byte is still in the shift register (8 bits, 10 us);
# then the line must stay low long enough for every WS2812B to latch (>= 280 us for the
# newer parts): the next frame starts no sooner than this after the FIFO was seen empty.
_LATCH_US = const(10 + 300)
# GPIO interrupt dispatch: the rp2 port's handler (gpio_irq in ports/rp2/machine_pin.c)
# walks the pins in number order before it calls a pin's handler; measured on an emulated
# RP2040 running MicroPython 1.28, a press on GP15 is stamped about 4 us after one on GP0.
DISPATCH_NS_PER_PIN = 300


def _rp2350():
    return "RP2350" in sys.implementation._machine


def watchdog_off():
    """Stop the watchdog (MicroPython's WDT cannot be stopped through its API)."""
    base = 0x400D8000 if _rp2350() else 0x40058000
    mem32[base + _CLEAR_ALIAS] = _WDT_ENABLE


def timer_low():
    """Address of TIMERAWL, the register ``time.ticks_us()`` reads (timer 0 on RP2350)."""
    return (0x400B0000 if _rp2350() else 0x40054000) + _TIMERAWL


def _on_tick(native):
    """The PIO anchor's edge-of-the-tick enable (``courtside.hw.pio_capture``): in Thumb
    code on an ARM core, else in viper; None off a board, where the addresses mean
    nothing, or where neither loads (the anchor then uses ``ticks_us()`` windows)."""
    if sys.platform != "rp2":
        return None
    try:
        from courtside.hw import thumb
        return thumb.enable_on_tick
    except Exception:             # a RISC-V core, or a board that cannot load it
        return native.enable_on_tick if native else None


def _stack_top():
    """Where the rp2 port's C stack ends, as an offset from the start of SRAM: the end of
    the scratch banks, 0x20042000 on an RP2040 and 0x20082000 on an RP2350."""
    return 0x82000 if _rp2350() else 0x42000


def dispatch_lag_us(gpio):
    """Microseconds the dispatcher spends before it reaches ``gpio``'s handler."""
    return (gpio * DISPATCH_NS_PER_PIN + 500) // 1000


# WS2812 (courtside.ws2812code): 10 PIO cycles a bit at 8 MHz = 800 kbit/s. (The stubs
# type ``autopull`` as bool, which a dict of ints cannot show to mypy.)
_ws2812 = rp2.asm_pio(**ws2812code.WS2812_CONFIG)(ws2812code.ws2812)  # type: ignore[arg-type]


def _gpio_in():
    return mem32[_SIO_GPIO_IN]


class _Wait:
    """What ``Pico.wait`` returns: one object, awaited again and again, so an idle pass of
    the loop allocates nothing (a coroutine, or ``wait_for_ms`` on a flag, is a new object
    every time). Each step drains the PIO buffer, looks at the ring, and otherwise sleeps
    a millisecond through ``asyncio.sleep_ms``, which reuses one object of its own. One
    task awaits it at a time: the loop."""

    def __init__(self, ring, drain):
        # Only a loop run by asyncio (the bring-up) waits here: the board's own loop waits
        # in ``advance``, and a start that loads no asyncio is shorter.
        import asyncio
        self._sleep_ms = asyncio.sleep_ms
        self._ring = ring
        self._drain = drain
        self._until = 0
        self._done = StopIteration(True)      # the value of the await: go on

    def arm(self, ms):
        self._until = time.ticks_add(time.ticks_ms(), ms if ms > 0 else 0)
        return self

    def __iter__(self):
        return self

    def __next__(self):
        if self._drain:
            self._drain()
        left = time.ticks_diff(self._until, time.ticks_ms())
        if len(self._ring) or left <= 0:
            self._done.__traceback__ = None
            raise self._done
        return next(self._sleep_ms(1 if left > 1 else left))

    __await__ = __iter__


class Matrix:
    """The WS2812 chain on state machine 0, fed by one DMA channel.

    ``show`` packs a frame into the spare of two buffers and returns; ``poll(now)``
    starts it once the frame before has left the FIFO and the line has been low long
    enough to latch. The buffer being sent is never written, so a frame never tears.
    """

    def __init__(self, pin):
        self._sm = rp2.StateMachine(0, _ws2812, freq=ws2812code.WS2812_FREQ, sideset_base=Pin(pin))
        self._sm.active(1)
        self._bufs = (bytearray(ws2812code.FRAME_BYTES), bytearray(ws2812code.FRAME_BYTES))
        self._spare = 0
        self._pending = False
        self._sending = False
        self._idle_since = None        # tick when the FIFO was first seen empty after a frame
        self._dma = rp2.DMA()
        ctrl = self._dma.pack_ctrl(size=0, inc_read=True, inc_write=False, treq_sel=_DREQ_PIO0_TX0,
                                   irq_quiet=True)
        self._dma.config(read=self._bufs[0], write=_PIO0_TXF0, count=0, ctrl=ctrl)
        self.frames = 0                # frames started
        self.skipped = 0               # frames replaced by a newer one before they were sent

    def buffer(self):
        """The buffer the next frame is packed into."""
        return self._bufs[self._spare]

    def queue(self, now):
        if self._pending:
            self.skipped += 1
        self._pending = True
        self.poll(now)

    def poll(self, now):
        if self._sending:
            if self._dma.active() or self._sm.tx_fifo():
                return
            self._sending = False
            self._idle_since = now
        if not self._pending:
            return
        if self._idle_since is not None:
            if 0 <= diff(now, self._idle_since) < _LATCH_US:
                return
            self._idle_since = None      # latched (a stamp from before a long pause counts too)
        buf = self._bufs[self._spare]
        self._spare ^= 1
        self._pending = False
        self._sending = True
        self.frames += 1
        self._dma.config(read=buf, count=ws2812code.FRAME_BYTES, trigger=True)

    def busy(self):
        return self._pending or self._sending

    def stop(self):
        self._sm.active(0)
        self._dma.active(0)
        self._dma.close()


class Pico:
    bytes_out = True     # event lines come as bytes (courtside.events.encode)
    budget_us = 10000    # a pass writes event lines for up to 10 ms, the rest in the next (driver)

    def __init__(self, pins, settings, ring_size=None):
        micropython.alloc_emergency_exception_buf(100)   # so a failing handler can say why
        self.pins = pins
        pio = settings.get("capture", "pio") == "pio"
        # Room for a storm's backlog while the loop catches up (README, "On the chip"): the
        # IRQ handler writes straight into the ring; PIO capture has its DMA buffer
        # (1,024 changes) in front of it as well.
        self.ring = Ring(ring_size or (_RING_PIO if pio else _RING_IRQ))
        self.flag = None
        self.notes = []
        self.capture = None
        self._native = False
        # PIO capture first: its DMA buffer is the one large block, taken while the heap
        # is still empty so it sits at the bottom and splits no free space.
        if pio:
            self._start_pio(pins)
        self._buttons = [Pin(g, Pin.IN, Pin.PULL_UP) for g in pins.button_gpio]
        self._leds = [Pin(g, Pin.OUT, value=0) for g in pins.leds]
        self._buzzer = PWM(Pin(pins.buzzer))
        self._buzzer.duty_u16(0)
        self._tone_until = None
        if self._native is False:          # not loaded yet (PIO capture loads it first)
            self._native = self._load_native()
        self._matrix = Matrix(pins.matrix_pin)
        self._chain = chain.order(pins.serpentine, pins.grb)
        self._pack = self._native.pack if self._native else chain.pack
        self.finish = self._native.finish if self._native else None
        self._wdt = None
        self._made = False                 # output since the last collection in ``tidy``
        self._tidied = time.ticks_ms()
        self.tidy_collections = 0
        self.longest_collect_us = 0       # the longest of them (``mem``: ``collect_us``)
        self._rx = Receiver(sys.stdin.buffer, poller(sys.stdin, select.POLLIN))
        self._tx = Sender(sys.stdout.buffer, poller(sys.stdout, select.POLLOUT), ticks_ms=time.ticks_ms)
        self._input = primed(select.poll())   # the loop's wait wakes on a byte from the laptop
        self._input.register(sys.stdin, select.POLLIN)
        if self.capture is None:
            self._start_irq(pins)
        self._drain = getattr(self.capture, "drain", None)
        self._waiter = None               # made by the first ``wait``
        # The stack's high-water mark: on a board only (elsewhere its addresses mean nothing).
        self._stack = self._native.StackMark(_stack_top()) if self._native and sys.platform == "rp2" else None

    def _note(self, text):
        self.notes.append(text)
        print(events.line("error", 0, {"msg": text, "line": ""}))

    def _start_pio(self, pins):
        """The PIO backend if it can run here; otherwise say why and leave the IRQ one."""
        capture = None
        try:
            if not hasattr(rp2, "DMA"):
                raise OSError("rp2.DMA needs MicroPython 1.22 or newer")
            from courtside.hw.pio_capture import PioCapture
            capture = PioCapture(self.ring, pins)
            self._native = self._load_native()
            if self._native:
                capture.drainer.use(self._native.DrainWords)     # its words in machine code
            on_tick = _on_tick(self._native)
            capture.start(on_tick, timer_low() if on_tick else 0)
            self.capture = capture
        except Exception as e:
            if capture is not None:
                try:
                    capture.stop()
                except Exception:
                    pass
            self._note("pio capture unavailable, using irq: %s" % repr(e))

    def _load_native(self):
        """courtside.hw.native, or None (and a note) on a board that cannot load it."""
        try:
            from courtside.hw import native
            return native
        except Exception as e:
            self._note("native code unavailable, using bytecode: %s" % repr(e))
            return None

    def _start_irq(self, pins):
        bits = {}
        lags = {}
        for pin, gpio in zip(self._buttons, pins.button_gpio):
            bits[pin] = 1 << gpio
            lags[pin] = dispatch_lag_us(gpio)
        if self._native:
            capture = self._native.NativeCapture(self.ring, _SIO_GPIO_IN, timer_low(), pins.button_mask,
                                                 bits, lags, Pin.IRQ_FALLING)
        else:
            capture = IrqCapture(self.ring, _gpio_in, time.ticks_us, pins.button_mask, None, bits,
                                 Pin.IRQ_FALLING, lags)
        self.capture = capture
        trigger = Pin.IRQ_FALLING | Pin.IRQ_RISING
        for pin in self._buttons:
            pin.irq(capture.irq, trigger, hard=True)

    @property
    def unsent(self):
        return self._tx.unsent

    @property
    def lines_overlong(self):
        return self._rx.overlong

    def ticks_us(self):
        return time.ticks_us()

    def levels(self):
        return mem32[_SIO_GPIO_IN] & self.pins.button_mask

    def wait(self, ms):
        """``await hw.wait(ms)``: until a snapshot is in the ring or ``ms`` have passed."""
        if self._waiter is None:
            self._waiter = _Wait(self.ring, self._drain)
        return self._waiter.arm(ms)

    def advance(self, ms):
        """The loop's wait: until a snapshot is in the ring, a command line can be read,
        or ``ms`` have passed; always True (a Ctrl-C stops the loop by its exception).

        One millisecond at a time: each step drains the PIO capture, sends what waits to
        go out, and sleeps in ``ipoll``, which a byte from the laptop cuts short. Nothing
        here allocates, so an idle second of the loop allocates nothing."""
        until = time.ticks_add(time.ticks_ms(), ms if ms > 0 else 0)
        self._tx.pass_begin()
        while self._still(until):
            for _ in self._input.ipoll(1):
                if self._tx.room() >= _ROOM_FOR_ANSWERS:
                    return True
                time.sleep_ms(1)      # a line is waiting, its answers would not fit yet
        return True

    def _still(self, until):
        """One step of ``advance``: False once there is something to do or time is up."""
        if self._drain is not None:
            self._drain()
        if len(self.ring):
            return False
        self._tx.flush()
        return time.ticks_diff(until, time.ticks_ms()) > 0

    def figures(self):
        """Heap and C stack figures, after a collection (the ``mem`` command): bytes in
        use and free, the deepest the C stack has been since start-up, and the longest
        collection the loop has made before a wait (``tidy``)."""
        import gc
        gc.collect()
        out = {"heap_used": gc.mem_alloc(), "heap_free": gc.mem_free()}
        if self._stack is not None:
            out["stack_peak"] = self._stack.peak()
            out["stack_size"] = self._stack.size
        if self.tidy_collections:
            out["collect_us"] = self.longest_collect_us
        return out

    def show(self, frame):
        """Queue ``frame`` (192 RGB bytes, scaled and capped) for the matrix; never waits."""
        self._made = True
        self._pack(frame, self._chain, self._matrix.buffer())
        self._matrix.queue(time.ticks_us())

    def led(self, box, on):
        self._leds[box].value(1 if on else 0)

    def tone(self, freq, ms):
        if freq <= 0:
            self._buzzer.duty_u16(0)
            self._tone_until = None
            return
        self._buzzer.freq(freq)
        self._buzzer.duty_u16(32768)
        self._tone_until = add(time.ticks_us(), ms * 1000)

    def service(self, now):
        if self._tone_until is not None and diff(now, self._tone_until) >= 0:
            self._buzzer.duty_u16(0)
            self._tone_until = None
        self._matrix.poll(now)
        self._tx.pass_begin()
        self._tx.flush()
        if self._wdt is None:
            self._wdt = WDT(timeout=_WDT_TIMEOUT_MS)
        self._wdt.feed()

    def tidy(self, wait_ms):
        """Before the loop waits ``wait_ms``: collect the garbage now, while nothing is
        due, rather than let ``gc.threshold`` start a collection (about 9 ms on the chip
        with a game's heap) in the middle of a busy pass. Only after a pass that made
        output, at most every ``_TIDY_EVERY_MS``; the watchdog is fed after it, so the
        collection counts as a pass of its own (``courtside.driver.run_until``)."""
        if not self._made or wait_ms < _TIDY_WAIT_MS:
            return
        now = time.ticks_ms()
        if time.ticks_diff(now, self._tidied) < _TIDY_EVERY_MS:
            return
        import gc
        began = time.ticks_us()
        gc.collect()
        took = time.ticks_diff(time.ticks_us(), began)
        self.longest_collect_us = max(self.longest_collect_us, took)
        self._made = False
        self._tidied = now
        self.tidy_collections += 1
        if self._wdt is not None:
            self._wdt.feed()

    def read_line(self):
        if self._tx.room() < _ROOM_FOR_ANSWERS:
            return None           # the line waits in the laptop's buffer for room for its answers
        return self._rx.read_line()

    def write_line(self, text):
        self._made = True
        self._tx.write_line(text)

    def write_part(self, data, end):
        """One part of a long line (``courtside.driver.apply``)."""
        self._made = True
        self._tx.write_part(data, end)

    def room(self):
        """Bytes the USB queue can take now."""
        return self._tx.room()

    def save_settings(self, settings):
        """Write the settings to flash (the core asks only between games: a flash write
        holds off interrupts); returns why not, or None."""
        import json
        try:
            with open(SETTINGS, "w") as f:
                f.write(json.dumps(settings))
        except OSError as e:
            return "settings not saved: %s" % e
        return None

    def random_bytes(self, n):
        return os.urandom(n)

    def main_held(self):
        return not self._buttons[self.pins.main_id].value()

    def release(self):
        """Leave the board at a usable REPL: no capture, dark, silent, watchdog off."""
        watchdog_off()
        if self.capture.name == "irq":
            for pin in self._buttons:
                pin.irq(None)
        else:
            self.capture.stop()
        self.show(bytearray(ws2812code.FRAME_BYTES))
        for _ in range(100):             # the dark frame must reach the last pixel: 2 ms
            self._matrix.poll(time.ticks_us())
            if not self._matrix.busy():
                break
            time.sleep_us(100)
        time.sleep_us(_LATCH_US)
        self._matrix.stop()
        self._buzzer.duty_u16(0)
        for led in self._leds:
            led.value(0)
        self._tx.finish(_STOP_FLUSH_MS)
        if self._tx.mid_line():
            sys.stdout.write("\n")       # a line left part-sent or in parts: end it here


def main_held(pins):
    """Safe-mode check at power-up, before anything else is set up."""
    pin = Pin(pins.button_gpio[pins.main_id], Pin.IN, Pin.PULL_UP)
    time.sleep_ms(2)      # let the pull-up charge the cable before reading it
    return not pin.value()


def reset():
    machine.reset()

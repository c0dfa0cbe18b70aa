"""The Pico hardware layer: capture interrupts, WS2812 matrix by PIO, buzzer, box LEDs.

The only module (with ``pio_capture``) that imports ``machine`` and ``rp2``. What runs
here is kept small; the rules it follows are the firmware's timing rules:

- every button pin shares one hard-IRQ handler that reads the whole GPIO input register
  once and stamps it once (``courtside.capture``), so there is no pin-number bias;
- nothing here turns interrupts off: the matrix is clocked out by a PIO state machine
  (``neopixel`` and ``machine.bitstream`` mask interrupts for ~2 ms a frame);
- no flash writes during play (settings are saved only from a lobby, by command);
- the watchdog is switched off by ``release`` and at every boot (``boot.py``), so a
  Ctrl-C or an ``mpremote`` session is never cut short by it.
"""

import asyncio
import os
import sys
import time

import machine
import micropython
import rp2
from machine import PWM, WDT, Pin, mem32
from micropython import const

from courtside import ws2812code
from courtside.capture import IrqCapture
from courtside.clock import add, diff
from courtside.ring import Ring

_SIO_GPIO_IN = const(0xD0000004)
_CLEAR_ALIAS = const(0x3000)       # write 1s here to clear bits of a peripheral register
_WDT_ENABLE = const(0x40000000)    # WATCHDOG CTRL bit 30
_WDT_TIMEOUT_MS = const(5000)
# After a frame's last bit: 30 us for the last word to shift out, then the line held low
# long enough for every WS2812B to latch (>= 280 us for the newer parts), with margin.
_LATCH_US = const(400)


def _watchdog_base():
    return 0x400D8000 if "RP2350" in sys.implementation._machine else 0x40058000


def watchdog_off():
    """Stop the watchdog (MicroPython's WDT cannot be stopped through its API)."""
    mem32[_watchdog_base() + _CLEAR_ALIAS] = _WDT_ENABLE


# WS2812 (courtside.ws2812code): 10 PIO cycles a bit at 8 MHz = 800 kbit/s. A 0 is 3
# cycles high and 7 low (375/875 ns), a 1 is 7 high and 3 low (875/375 ns). (The stubs
# type ``autopull`` as bool, which a dict of ints cannot show to mypy.)
_ws2812 = rp2.asm_pio(**ws2812code.WS2812_CONFIG)(ws2812code.ws2812)  # type: ignore[arg-type]


def _gpio_in():
    return mem32[_SIO_GPIO_IN]


class Pico:
    def __init__(self, pins, settings, ring_size=256):
        micropython.alloc_emergency_exception_buf(100)   # so a failing handler can say why
        self.pins = pins
        self.ring = Ring(ring_size)
        self.flag = asyncio.ThreadSafeFlag()
        self._buttons = [Pin(g, Pin.IN, Pin.PULL_UP) for g in pins.button_gpio]
        self._leds = [Pin(g, Pin.OUT, value=0) for g in pins.leds]
        self._buzzer = PWM(Pin(pins.buzzer))
        self._buzzer.duty_u16(0)
        self._tone_until = None
        self._sm = rp2.StateMachine(0, _ws2812, freq=ws2812code.WS2812_FREQ,
                                    sideset_base=Pin(pins.matrix_pin))
        self._sm.active(1)
        self._words = [0] * 64
        self._line = []
        self._poll = None
        self._wdt = None
        self._sent = None       # tick when the last matrix frame was queued
        self.unsent = 0         # event lines dropped because the laptop was not reading
        self._out = None
        self.capture = None
        if settings.get("capture") == "pio":
            self._start_pio(pins)
        if self.capture is None:
            bits = {}
            for pin, gpio in zip(self._buttons, pins.button_gpio):
                bits[pin] = 1 << gpio
            self.capture = IrqCapture(self.ring, _gpio_in, time.ticks_us, pins.button_mask, self.flag,
                                      bits, Pin.IRQ_FALLING)
            trigger = Pin.IRQ_FALLING | Pin.IRQ_RISING
            for pin in self._buttons:
                pin.irq(self.capture.irq, trigger, hard=True)

    def _start_pio(self, pins):
        """The PIO backend if it can run here; otherwise say why and leave the IRQ one."""
        capture = None
        try:
            from courtside.hw.pio_capture import PioCapture
            capture = PioCapture(self.ring, pins, self.flag)
            capture.start()
            self.capture = capture
        except Exception as e:  # noqa: BLE001 - a map it cannot sample, no DMA channel, ...
            if capture is not None:
                try:
                    capture.stop()
                except Exception:  # noqa: BLE001 - it may have failed half way up
                    pass
            print('{"ev":"error","t":0,"line":"","msg":"pio capture unavailable, using irq: %s"}'
                  % repr(e).replace('"', "'"))

    def ticks_us(self):
        return time.ticks_us()

    def levels(self):
        return mem32[_SIO_GPIO_IN] & self.pins.button_mask

    async def wait(self, ms):
        drain = getattr(self.capture, "drain", None)
        if drain:
            drain()
        if ms > 0:
            try:
                await asyncio.wait_for_ms(self.flag.wait(), ms)
            except asyncio.TimeoutError:
                pass
        if drain:
            drain()
        return True

    def show(self, frame):
        words = self._words
        grb = self.pins.grb
        for i in range(64):
            y, x = divmod(i, 8)
            if self.pins.serpentine and y % 2:
                x = 7 - x
            j = 3 * i
            r, g, b = frame[j], frame[j + 1], frame[j + 2]
            words[8 * y + x] = ((g << 16 | r << 8 | b) if grb else (r << 16 | g << 8 | b)) << 8
        self._latch()
        for w in words:   # blocks on a full FIFO for ~2 ms a frame, interrupts stay on
            self._sm.put(w)
        self._sent = time.ticks_us()

    def _latch(self):
        """Wait until the previous frame has left the FIFO and the line has been low long
        enough for the LEDs to latch it, so two frames never run together."""
        if self._sent is None:
            return
        while self._sm.tx_fifo():
            pass
        left = _LATCH_US - diff(time.ticks_us(), self._sent)
        if left > 0:
            time.sleep_us(left)

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
        if self._wdt is None:
            self._wdt = WDT(timeout=_WDT_TIMEOUT_MS)
        self._wdt.feed()

    def read_line(self):
        if self._poll is None:
            import select
            self._poll = select.poll()
            self._poll.register(sys.stdin, select.POLLIN)
        while self._poll.poll(0):
            ch = sys.stdin.read(1)
            if ch in ("\n", "\r"):
                if self._line:
                    line = "".join(self._line)
                    self._line = []
                    return line
            elif len(self._line) < 400:
                self._line.append(ch)
        return None

    def write_line(self, text):
        # A laptop that holds the port open but stops reading would make each write wait
        # for USB (up to 500 ms): drop the line instead, and count it, so the loop and
        # the watchdog keep going. The app reports the count when lines flow again.
        if self._out is None:
            import select
            self._out = select.poll()
            self._out.register(sys.stdout, select.POLLOUT)
        if not self._out.poll(0):
            self.unsent += 1
            return
        sys.stdout.write(text + "\n")
        if self._wdt is not None:
            self._wdt.feed()

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
        self.show(bytearray(192))
        self._latch()         # the dark frame must reach the last pixel before we stop
        self._sm.active(0)
        self._buzzer.duty_u16(0)
        for led in self._leds:
            led.value(0)


def main_held(pins):
    """Safe-mode check at power-up, before anything else is set up."""
    pin = Pin(pins.button_gpio[pins.main_id], Pin.IN, Pin.PULL_UP)
    time.sleep_ms(2)      # let the pull-up charge the cable before reading it
    return not pin.value()


def reset():
    machine.reset()

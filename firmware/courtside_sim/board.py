"""The simulated board: the hardware layer (``courtside.hw``) on a laptop.

Presses become level snapshots in the same capture ring an interrupt would fill, on the
same 2**30 tick circle, with the same pin map. It runs in one of two clocks:

- *virtual* (headless scripts, replay): time jumps from one scripted input to the next,
  so a script of an hour's play runs in moments and the same script with the same seed
  gives the same stream, byte for byte, on CPython and on the MicroPython unix port;
- *real* (keyboard, virtual Pico): time is the host's monotonic clock and presses
  arrive through ``inject``.

``busy_ms`` models a main loop that is slow to come back for its snapshots: each pass
then waits at least that long, so a burst of edges can fill the ring and be reported as
an ``overflow`` (docs/simulator.md).

    board = SimBoard(pins, script=Script(...))
    driver.run_virtual(core, board)            # or asyncio.run(driver.run(core, board))

It takes the ``courtside`` modules it needs when a board is built, not when it is
imported, so the virtual Pico can hold it like a board's frozen modules and still run
the firmware from its own flash.
"""

import sys
import time

SETTLE_US = 5000000   # after the last input, the simulator runs on this long


class Capture:
    name = "sim"


def _monotonic_us():
    ticks = getattr(time, "ticks_us", None)   # MicroPython; CPython has monotonic_ns
    return ticks() if ticks else time.monotonic_ns() // 1000


class SimBoard:
    def __init__(self, pins, script=None, t0=0, out=None, view=None, ring_size=256, busy_ms=0,
                 settings_path=None):
        from courtside.clock import wrap
        from courtside.ring import Ring
        self._wrap = wrap
        self.pins = pins
        self.ring = Ring(ring_size)
        self.capture = Capture()
        self.level = pins.button_mask          # all buttons open (pulled up)
        self.script = None
        self.virtual = False
        if script is not None:
            self.play(script)
        self.vt = 0                            # virtual us since start
        self.t0 = t0
        self.busy_us = busy_ms * 1000
        self.settings_path = settings_path
        self.out = out or _print
        self.view = view                       # view.frame(frame), view.led(box, on), view.tone(f, ms)
        self.lines = []
        self.frame = bytearray(192)
        self.leds = [False] * pins.boxes
        self.unsent = 0
        self.event = None

    def play(self, script):
        """Run on ``script`` in virtual time: anything with ``next_time()``, ``take()`` and
        ``last``, as ``courtside_sim.script.Script`` has."""
        self.script = script
        self.virtual = True

    # clock and waiting ------------------------------------------------------------------

    def ticks_us(self):
        if self.virtual:
            return self._wrap(self.t0 + self.vt)
        return self._wrap(_monotonic_us())

    def advance(self, ms):
        """Virtual time: what ``wait`` is in real time, for ``driver.run_virtual``."""
        us = ms * 1000
        if us and us < self.busy_us:      # a busy loop comes back late (not at start-up)
            us = self.busy_us
        return self._advance(us)

    async def wait(self, ms):
        if self.virtual:
            return self.advance(ms)
        import asyncio
        us = ms * 1000
        if us and us < self.busy_us:
            us = self.busy_us
        if self.event is None:
            self.event = asyncio.Event()
        if self.busy_us:
            await asyncio.sleep(self.busy_us / 1e6)
        if not self.event.is_set() and us > self.busy_us:
            try:
                await asyncio.wait_for(self.event.wait(), (us - self.busy_us) / 1e6)
            except asyncio.TimeoutError:
                pass
        self.event.clear()
        return True

    def _advance(self, us):
        """Move virtual time on by ``us`` or to the next input, whichever comes first;
        False once the script is done and has settled."""
        script = self.script
        target = self.vt + us
        t = script.next_time()
        if self.busy_us:   # a slow loop: every input up to the target lands in the ring
            took = False
            while t is not None and t <= target:
                self._take(t)
                took = True
                t = script.next_time()
            if t is None and target > script.last + SETTLE_US and not took:
                return False
            self.vt = target
            return True
        if t is not None and t <= target:
            self.vt = max(self.vt, t)
            self._take(t)
            return True
        if t is None and target > script.last + SETTLE_US:
            return False
        self.vt = target
        return True

    def _take(self, t):
        """Every input at time ``t``: edges at one instant reach the firmware as one
        snapshot, stamped ``t``, as one interrupt would see them."""
        script = self.script
        changed = False
        while script.next_time() == t:
            _, kind, a, b = script.take()
            if kind == "cmd":
                self.lines.append(a)
            elif kind == "edge":
                changed = self._set(a, b) or changed
            # any other kind ("tick") only asks for a pass at t
        if changed:
            self.ring.put(self._wrap(self.t0 + t), self.level)

    def _set(self, button, closed):
        bit = 1 << self.pins.button_gpio[button]
        level = self.level & ~bit if closed else self.level | bit
        if level == self.level:
            return False
        self.level = level
        return True

    def inject(self, button, closed):
        """Real-time input (keyboard, virtual Pico): one edge, stamped now as an interrupt
        would."""
        if self._set(button, closed):
            self.ring.put(self.ticks_us(), self.level)
            if self.event is not None:
                self.event.set()

    # the rest of the interface ----------------------------------------------------------

    def levels(self):
        return self.level

    def show(self, frame):
        self.frame[:] = frame
        if self.view:
            self.view.frame(self.frame)

    def led(self, box, on):
        self.leds[box] = on
        if self.view:
            self.view.led(box, on)

    def tone(self, freq, ms):
        if self.view:
            self.view.tone(freq, ms)

    def service(self, now):
        pass

    def read_line(self):
        if self.lines:
            return self.lines.pop(0)
        return None

    def feed_line(self, line):
        """A command line from the keyboard or the virtual Pico's serial port."""
        self.lines.append(line)
        if self.event is not None:
            self.event.set()

    def write_line(self, text):
        self.out(text)

    def save_settings(self, settings):
        """Write the settings where this board keeps them; returns why not, or None."""
        import json
        try:
            with open(self.settings_path, "w") as f:
                f.write(json.dumps(settings))
        except (OSError, TypeError) as e:
            return "settings not saved: %s" % e
        return None

    def main_held(self):
        return not self.level & (1 << self.pins.button_gpio[self.pins.main_id])

    def release(self):
        pass


def _print(text):
    sys.stdout.write(text + "\n")

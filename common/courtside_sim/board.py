"""The simulated board: the hardware layer (``courtside.hw``) on a laptop.

Presses become level snapshots in the same capture ring an interrupt would fill, on the
same 2**30 tick circle, with the same pin map. It runs in one of two clocks:

- *virtual* (headless scripts, replay): time jumps from one scripted input to the next,
  so a script of an hour's play runs in moments and the same script with the same seed
  gives the same stream, byte for byte, on CPython and on the MicroPython unix port;
- *real* (keyboard, virtual Pico): ``courtside_sim.live.LiveBoard``, on the host's
  monotonic clock, with presses arriving through ``inject``.

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

SETTLE_US = 5000000   # after the last input, the simulator runs on this long
OWED_PASSES = 1000   # passes asked for at once that the end of a script still waits for


class Capture:
    name = "sim"


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
        self.passes = -1                       # passes of the loop run so far
        self.settings_path = settings_path
        self.out = out or _print
        self.view = view                       # view.frame(frame), view.led(box, on), view.tone(f, ms)
        self.lines = []
        self.frame = bytearray(192)
        self.leds = [False] * pins.boxes
        self.unsent = 0
        self._owed_passes = 0    # passes in a row the core asked for at once

    def play(self, script):
        """Run on ``script`` in virtual time: anything with ``next_time()``, ``take()`` and
        ``last``, as ``courtside_sim.script.Script`` has."""
        self.script = script
        self.virtual = True

    # clock and waiting ------------------------------------------------------------------

    def ticks_us(self):
        return self._wrap(self.t0 + self.vt)

    def advance(self, ms):
        """Virtual time: what ``wait`` is in real time, for ``driver.run_virtual``."""
        self.passes += 1
        return self._advance(ms * 1000)

    async def wait(self, ms):
        """For ``driver.run`` (bring-up runs so): virtual time needs no real waiting."""
        return self.advance(ms)

    def _advance(self, us):
        """Move virtual time on by ``us`` or to the next input, whichever comes first;
        False once the script is done and has settled. A busy loop's pass takes
        ``busy_us`` whatever it was asked: it wakes no sooner, and every input up to
        then lands in the ring, as interrupts would keep filling it."""
        script = self.script
        target = self.vt + us
        t = script.next_time()
        if self.busy_us and self.passes:
            if t is not None and t < target:
                target = t
            target = max(target, self.vt + self.busy_us)
            took = False
            while t is not None and t <= target:
                self._take(t)
                took = True
                t = script.next_time()
            if t is None and target > script.last + SETTLE_US and not took and not len(self.ring) \
                    and not self._owed(us):
                return False
            self.vt = target
            return True
        if t is not None and t <= target:
            self.vt = max(self.vt, t)
            self._take(t)
            return True
        if t is None and target > script.last + SETTLE_US and not self._owed(us):
            return False
        self.vt = target
        return True

    def _owed(self, us):
        """The core asked for a pass at once (``us`` 0: a verdict's next part, a line
        still to write): the script's end waits for it, as a board's next pass would come.
        At most ``OWED_PASSES`` in a row, so a core that always asks cannot run forever."""
        if us:
            self._owed_passes = 0
            return False
        self._owed_passes += 1
        return self._owed_passes <= OWED_PASSES

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

    def write_line(self, text):
        self.out(text)

    def save_settings(self, settings):
        return "a simulated board has nowhere to save settings"

    def main_held(self):
        return not self.level & (1 << self.pins.button_gpio[self.pins.main_id])

    def release(self):
        pass


def _print(text):
    sys.stdout.write(text + "\n")

"""The simulated board in real time: the keyboard's simulator and the virtual Pico.

A ``SimBoard`` whose clock is the host's monotonic clock: presses arrive through
``inject`` (stamped now, as an interrupt would stamp them), command lines through
``feed_line``, and ``wait`` really waits, until either comes or the time is up.

    board = LiveBoard(pins, settings_path="settings.json")
    asyncio.run(driver.run(core, board))
"""

import time

from courtside_sim.board import SimBoard


def _monotonic_us():
    ticks = getattr(time, "ticks_us", None)   # MicroPython; CPython has monotonic_ns
    return ticks() if ticks else time.monotonic_ns() // 1000


class LiveBoard(SimBoard):
    def __init__(self, pins, **kw):
        SimBoard.__init__(self, pins, **kw)
        self.event = None

    def ticks_us(self):
        return self._wrap(_monotonic_us())

    async def wait(self, ms):
        import asyncio
        us = ms * 1000
        if us and us < self.busy_us:      # a busy loop comes back late (not at start-up)
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

    def inject(self, button, closed):
        """One edge, stamped now as an interrupt would."""
        if self._set(button, closed):
            self.ring.put(self.ticks_us(), self.level)
            if self.event is not None:
                self.event.set()

    def feed_line(self, line):
        """A command line from the keyboard or the virtual Pico's serial port."""
        self.lines.append(line)
        if self.event is not None:
            self.event.set()

    def save_settings(self, settings):
        """Write the settings where this board keeps them; returns why not, or None."""
        import json
        try:
            with open(self.settings_path, "w") as f:
                f.write(json.dumps(settings))
        except (OSError, TypeError) as e:
            return "settings not saved: %s" % e
        return None


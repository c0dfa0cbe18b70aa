"""The simulated hardware layer: the firmware, unchanged, on a laptop.

``Sim`` stands in for the Pico: presses become level snapshots in the same capture ring
an interrupt would fill, on the same 2**30 tick circle, with the same pin map. It runs in
one of two clocks:

- *virtual* (headless scripts): time jumps from one scripted input to the next, so a
  script of an hour's play runs in moments and the same script with the same seed gives
  the same stream, byte for byte, on CPython and on the MicroPython unix port;
- *real* (keyboard, virtual Pico, benchmarks): time is the host's monotonic clock and
  presses arrive through ``inject``.

Script format (JSON lines, docs/simulator.md): ``{"t": us, "p": 1..4 or 0, "b": button,
"e": "down" | "up" | "tap"}`` for an edge (``p`` 0 with ``b`` "MAIN" is the main-unit
button; "tap" is a clean 80 ms press), or ``{"t": us, "cmd": "line"}`` for a laptop
command. Lines starting with ``#`` are comments.
"""

import json
import sys
import time

from courtside import clock
from courtside.fair import seeded
from courtside.ring import Ring

try:
    import asyncio
except ImportError:  # pragma: no cover - MicroPython builds without asyncio
    import uasyncio as asyncio

BUTTON_NAMES = {"THROW": 0, "DODGE": 1, "CATCH": 2, "PASS": 3,
                "UP": 0, "DOWN": 1, "LEFT": 2, "RIGHT": 3}
TAP_US = 80000
SETTLE_US = 5000000   # after the last input, the simulator runs on this long


class ScriptError(ValueError):
    pass


class Capture:
    name = "sim"


def _monotonic_us():
    ticks = getattr(time, "ticks_us", None)   # MicroPython; CPython has monotonic_ns
    return ticks() if ticks else time.monotonic_ns() // 1000


def parse_script(lines, pins):
    """Script lines -> sorted list of (t, kind, a, b): kind "edge" (button id, closed) or
    "cmd" (line, None). Raises ScriptError naming the line."""
    items = []
    seq = 0
    for number, text in enumerate(lines, 1):
        text = text.strip()
        if not text or text.startswith("#"):
            continue
        try:
            item = json.loads(text)
        except ValueError:
            raise ScriptError("script line %d: not JSON: %s" % (number, text[:60])) from None
        if not isinstance(item, dict) or type(item.get("t")) is not int or item["t"] < 0:
            raise ScriptError("script line %d: needs a whole, non-negative time \"t\" in us" % number)
        t = item["t"]
        if "cmd" in item:
            items.append((t, seq, "cmd", str(item["cmd"]), None))
            seq += 1
            continue
        button = _button(item, pins, number)
        edge = item.get("e", "tap")
        if edge not in ("down", "up", "tap"):
            raise ScriptError("script line %d: \"e\" must be down, up or tap" % number)
        if edge in ("down", "tap"):
            items.append((t, seq, "edge", button, True))
            seq += 1
        if edge in ("up", "tap"):
            items.append((t + (TAP_US if edge == "tap" else 0), seq, "edge", button, False))
            seq += 1
    items.sort()
    return [(t, kind, a, b) for t, _, kind, a, b in items]


def _button(item, pins, number):
    p, b = item.get("p"), item.get("b")
    if b == "MAIN" and p in (0, None):
        return pins.main_id
    if type(p) is not int or not 1 <= p <= pins.boxes:
        raise ScriptError("script line %d: \"p\" must be a box from 1 to %d (or 0 with MAIN)"
                          % (number, pins.boxes))
    if b not in BUTTON_NAMES:
        raise ScriptError("script line %d: unknown button %r" % (number, b))
    return 4 * (p - 1) + BUTTON_NAMES[b]


class Sim:
    def __init__(self, pins, script=None, seed=1, t0=0, out=None, view=None, ring_size=256):
        self.pins = pins
        self.ring = Ring(ring_size)
        self.capture = Capture()
        self.level = pins.button_mask          # all buttons open (pulled up)
        self.script = script
        self.index = 0
        self.virtual = script is not None
        self.vt = 0                            # virtual us since start
        self.t0 = t0
        self.random_bytes = seeded(seed) if seed is not None else _urandom
        self.out = out or _print
        self.view = view                       # view.frame(frame), view.led(box, on), view.tone(f, ms)
        self.lines = []
        self.frame = bytearray(192)
        self.leds = [False] * pins.boxes
        self.tones = []
        self.event = None
        self.end = None
        if self.virtual:
            last = script[-1][0] if script else 0
            self.end = last + SETTLE_US

    # clock and waiting ------------------------------------------------------------------

    def ticks_us(self):
        if self.virtual:
            return clock.wrap(self.t0 + self.vt)
        return clock.wrap(_monotonic_us())

    async def wait(self, ms):
        if self.virtual:
            return self._advance(ms * 1000)
        if self.event is None:
            self.event = asyncio.Event()
        if not self.event.is_set() and ms > 0:
            try:
                await asyncio.wait_for(self.event.wait(), ms / 1000)
            except asyncio.TimeoutError:
                pass
        self.event.clear()
        return True

    def _advance(self, us):
        target = self.vt + us
        t = self._next_time()
        if t is not None and t <= target:
            self.vt = max(self.vt, t)
            changed = False
            while self._next_time() == t:
                _, kind, a, b = self._take()
                if kind == "cmd":
                    self.lines.append(a)
                else:
                    changed = self._set(a, b) or changed
            if changed:  # edges at one instant reach the firmware as one snapshot
                self.ring.put(self.ticks_us(), self.level)
            return True
        if t is None and target > self.end:
            return False
        self.vt = target
        return True

    def _next_time(self):
        """Time of the next scripted input, or None when the script is done."""
        if self.index < len(self.script):
            return self.script[self.index][0]
        return None

    def _take(self):
        item = self.script[self.index]
        self.index += 1
        return item

    def _set(self, button, closed):
        bit = 1 << self.pins.button_gpio[button]
        level = self.level & ~bit if closed else self.level | bit
        if level == self.level:
            return False
        self.level = level
        return True

    def inject(self, button, closed):
        """Real-time input (keyboard, tests): one edge, stamped now as an interrupt would."""
        if self._set(button, closed):
            self.ring.put(self.ticks_us(), self.level)
            if self.event is not None:
                self.event.set()

    # the rest of the interface -----------------------------------------------------------

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

    def main_held(self):
        return not self.level & (1 << self.pins.button_gpio[self.pins.main_id])

    def release(self):
        pass


def _print(text):
    sys.stdout.write(text + "\n")


def _urandom(n):
    import os
    return os.urandom(n)


async def stdin_lines(sim):
    """Feed standard input to a real-time Sim: command lines, and ``sim P BUTTON [EDGE]``
    presses (P 1..4 or 0 with MAIN; EDGE down, up or tap; tap is the default)."""
    reader = asyncio.StreamReader(sys.stdin)
    while True:
        raw = await reader.readline()
        if not raw:
            return
        line = raw.decode() if isinstance(raw, bytes) else raw
        words = line.split()
        if words and words[0] == "sim":
            problem = await _sim_press(sim, words[1:])
            if problem:
                sim.write_line('{"ev":"error","t":0,"msg":%s,"line":%s}'
                               % (json.dumps(problem), json.dumps(line.strip())))
        else:
            sim.feed_line(line.strip())


async def _sim_press(sim, words):
    if len(words) not in (2, 3):
        return "sim needs: sim BOX BUTTON [down|up|tap]"
    try:
        item = {"p": int(words[0]), "b": words[1].upper()}
        button = _button(item, sim.pins, 1)
    except (ValueError, ScriptError) as e:
        return str(e).replace("script line 1: ", "")
    edge = words[2] if len(words) == 3 else "tap"
    if edge not in ("down", "up", "tap"):
        return "sim edge must be down, up or tap"
    if edge != "up":
        sim.inject(button, True)
    if edge == "tap":
        await asyncio.sleep_ms(TAP_US // 1000) if hasattr(asyncio, "sleep_ms") else \
            await asyncio.sleep(TAP_US / 1e6)
    if edge != "down":
        sim.inject(button, False)
    return None

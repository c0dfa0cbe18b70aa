"""Bring-up: check every wire of a newly built unit, one part at a time.

Run from the laptop with ``courtside bringup`` (which runs ``main()`` on the board, or on
the virtual Pico the simulated board's ``courtside_sim.start.bringup()``), or on any
hardware layer (the simulator too) with ``await run(hw)``. In order it:

1. names the pin map and reports any button that reads pressed before anyone touches it
   (a line shorted to GND, or a missing pull-up);
2. walks one pixel across the matrix in red, then green, then blue (a dark or wrongly
   coloured pixel shows where the chain or a colour fails), then fills the matrix in each
   colour, then in white at the power cap;
3. lights each box LED in turn;
4. plays each of the firmware's tunes;
5. asks for every button to be pressed once, reporting each press and release by box
   and name, until all have been seen or time runs out, then names any never seen.

Buttons are reported whenever they change, during every step. Output is plain text
lines through ``hw.write_line``.

    import courtside.run.bringup as b; b.main()          # on the board
"""

from micropython import const

from courtside import power
from courtside.clock import add, diff
from courtside.pins import ARROWS, BUTTONS

PIXEL_MS = const(25)     # each pixel, each colour, during the walk
FILL_MS = const(700)     # each whole-matrix colour
LED_MS = const(500)      # each box LED
BUTTONS_S = const(120)   # how long to wait for every button to be pressed
LEVEL = const(48)        # channel value for the walk and the fills: bright, and under the cap

COLOURS = (("red", (LEVEL, 0, 0)), ("green", (0, LEVEL, 0)), ("blue", (0, 0, LEVEL)))
# Played if the firmware's tunes cannot be loaded: the buzzer's useful range.
_SCALE = (("scale", ((262, 200), (523, 200), (1047, 200), (2093, 200), (4186, 200))),)


# ------------------------------------------------------------------ pure helpers

def pixel_frame(index, colour, frame=None):
    """A frame with only pixel ``index`` (y * 8 + x) lit in ``colour``."""
    if frame is None:
        frame = bytearray(192)
    else:
        for i in range(192):
            frame[i] = 0
    if index is not None:
        j = 3 * index
        frame[j], frame[j + 1], frame[j + 2] = colour
    return frame


def fill_frame(colour):
    """Every pixel in ``colour``, scaled by the power cap; (frame, scale out of 256)."""
    frame = bytearray(bytes(colour) * 64)
    return frame, power.limit(frame)


def describe(pins, bid):
    """A button as the builder finds it: "box 2 CATCH / LEFT (GP6)"."""
    gpio = pins.button_gpio[bid]
    if bid == pins.main_id:
        return "main button (GP%d)" % gpio
    k = bid % 4
    return "box %d %s / %s (GP%d)" % (bid // 4 + 1, BUTTONS[k], ARROWS[k], gpio)


def pressed_ids(levels, pins):
    """Ids of the buttons that read pressed (a button pulls its GPIO low)."""
    out = []
    for bid, gpio in enumerate(pins.button_gpio):
        if not levels >> gpio & 1:
            out.append(bid)
    return out


def changes(before, after, pins):
    """Buttons whose level differs between two level words: [(id, pressed)], in id order."""
    out = []
    diff_bits = (before ^ after) & pins.button_mask
    if diff_bits:
        for bid, gpio in enumerate(pins.button_gpio):
            if diff_bits >> gpio & 1:
                out.append((bid, not after >> gpio & 1))
    return out


def tunes():
    """(name, notes) of every tune the firmware plays, in name order."""
    try:
        from courtside.tones import TUNES
    except ImportError:
        return _SCALE
    return tuple((name, TUNES[name]) for name in sorted(TUNES))


def tune_line(name, notes):
    freqs = []
    for f, _ in notes:
        if f and ("%d Hz" % f) not in freqs:
            freqs.append("%d Hz" % f)
    return "tone %s: %s" % (name, ", ".join(freqs))


class Checklist:
    """Which buttons have been seen pressed; what is left."""

    def __init__(self, pins):
        self.pins = pins
        self.seen = bytearray(pins.main_id + 1)
        self.stuck = []

    def press(self, bid):
        new = not self.seen[bid]
        self.seen[bid] = 1
        return new

    def left(self):
        return [bid for bid in range(len(self.seen)) if not self.seen[bid]]


# ------------------------------------------------------------------ the program

class _Bench:
    """The running test: the hardware, the button state, and the report."""

    def __init__(self, hw, pins):
        self.hw = hw
        self.pins = pins
        self.check = Checklist(pins)
        self.levels = hw.levels() & pins.button_mask
        self.t0 = hw.ticks_us()
        self.out = [0, 0]

    def say(self, text):
        self.hw.write_line(text)

    def _seen(self, levels):
        for bid, down in changes(self.levels, levels, self.pins):
            ms = diff(self.hw.ticks_us(), self.t0) // 1000
            if down:
                first = self.check.press(bid)
                left = len(self.check.left())
                self.say("%7d ms  %s pressed%s" % (ms, describe(self.pins, bid),
                                                  ("  (%d to go)" % left) if first else ""))
            else:
                self.say("%7d ms  %s released" % (ms, describe(self.pins, bid)))
        self.levels = levels

    def poll(self):
        """Report every change the capture ring holds, then the live level."""
        ring = self.hw.ring
        mask = self.pins.button_mask
        while ring.get(self.out):
            self._seen(self.out[1] & mask)
        self._seen(self.hw.levels() & mask)
        self.hw.service(self.hw.ticks_us())

    async def pause(self, ms):
        """Let ``ms`` pass, reporting buttons meanwhile; False if the hardware says stop."""
        end = add(self.hw.ticks_us(), ms * 1000)
        while True:
            self.poll()
            left = diff(end, self.hw.ticks_us())
            if left <= 0:
                return True
            if not await self.hw.wait(left // 1000 + 1 if left >= 1000 else 1):
                return False


async def run(hw, pins=None, pixel_ms=PIXEL_MS, fill_ms=FILL_MS, led_ms=LED_MS,
              buttons_s=BUTTONS_S):
    """Run the bring-up on ``hw``; returns {"missing": [ids], "stuck": [ids], "done": bool}."""
    pins = pins or hw.pins
    b = _Bench(hw, pins)
    result = {"missing": [], "stuck": [], "done": False}
    b.say("bring-up: %s on a %s, %d boxes, %d buttons" % (pins.name or "pin map", pins.model,
                                                         pins.boxes, pins.main_id + 1))
    stuck = pressed_ids(b.levels, pins)
    result["stuck"] = stuck
    for bid in stuck:
        b.say("FAULT  %s reads pressed before anything was touched: look for a short to GND "
              "or a missing pull-up" % describe(pins, bid))

    b.say("matrix: one pixel walks from the top left, row by row, in red, then green, then blue")
    frame = bytearray(192)
    for name, colour in COLOURS:
        b.say("matrix: walk in %s" % name)
        for i in range(64):
            hw.show(pixel_frame(i, colour, frame))
            if not await b.pause(pixel_ms):
                return _stop(b, hw, result)
    for name, colour in COLOURS + (("white at the power cap", (255, 255, 255)),):
        whole, scale = fill_frame(colour)
        b.say("matrix: all %s%s" % (name, "" if scale == 256 else
                                   " (scaled %d/256, about %d mA for the matrix)"
                                   % (scale, power.frame_ua(whole) // 1000)))
        hw.show(whole)
        if not await b.pause(fill_ms):
            return _stop(b, hw, result)
    hw.show(pixel_frame(None, None, frame))

    for box in range(pins.boxes):
        b.say("LED: box %d on (GP%d)" % (box + 1, pins.leds[box]))
        hw.led(box, True)
        ok = await b.pause(led_ms)
        hw.led(box, False)
        if not ok:
            return _stop(b, hw, result)

    for name, notes in tunes():
        b.say(tune_line(name, notes))
        for freq, ms in notes:
            hw.tone(freq, ms)
            if not await b.pause(ms):
                hw.tone(0, 0)
                return _stop(b, hw, result)
        hw.tone(0, 0)
        if not await b.pause(150):
            return _stop(b, hw, result)

    left = b.check.left()
    if left:
        b.say("buttons: press each button once (%d to go, %d s)" % (len(left), buttons_s))
    end = add(hw.ticks_us(), buttons_s * 1000000)
    while b.check.left() and diff(end, hw.ticks_us()) > 0:
        if not await b.pause(100):
            return _stop(b, hw, result)
    return _finish(b, result)


def _finish(b, result):
    left = b.check.left()
    result["missing"] = left
    result["done"] = True
    if left:
        b.say("bring-up done: never pressed: %s" % ", ".join(describe(b.pins, i) for i in left))
    else:
        b.say("bring-up done: all %d buttons work" % (b.pins.main_id + 1))
    return result


def _stop(b, hw, result):
    hw.tone(0, 0)
    for box in range(b.pins.boxes):
        hw.led(box, False)
    hw.show(bytearray(192))
    result["missing"] = b.check.left()
    b.say("bring-up stopped")
    return result


# ------------------------------------------------------------------ on the board

def board(pins_path="pinmap.json"):
    """The Pico's hardware layer to test, with the capture every Pico has (IRQ)."""
    from courtside import pinmap
    from courtside import settings as config
    from courtside.hw import pico
    return pico.Pico(pinmap.load(pins_path), dict(config.DEFAULTS, capture="irq"))


def main(pins_path="pinmap.json", quick=False, buttons_s=BUTTONS_S, hw=None):
    """Run the bring-up on this board (``hw``: another hardware layer, as the virtual
    Pico's start-up passes its simulated board); ``quick`` shortens the light and sound
    steps."""
    import asyncio
    hw = hw or board(pins_path)
    kw = {"pixel_ms": 5, "fill_ms": 200, "led_ms": 200} if quick else {}
    kw["buttons_s"] = buttons_s
    try:
        return asyncio.run(run(hw, **kw))
    except KeyboardInterrupt:
        hw.write_line("bring-up stopped")
        return None
    finally:
        hw.release()

"""The simulated board in a web page: the firmware's core in MicroPython WebAssembly.

The page (``courtside web``) writes the ``courtside`` package into the WebAssembly port's
file system and drives it through ``Page``. There is no asyncio loop here: JavaScript's
timers are the main loop. Each call to ``Page.step`` is one pass of ``courtside.driver``
(the same ``one_pass`` the board runs), and returns the ms until the core wants the next;
a key or an on-screen button calls ``Page.press`` and then steps at once, as an interrupt
wakes the board's loop. What the pass did (event lines, a new frame, box lights, tones,
settings to keep) comes back from ``Page.take`` as one JSON text, so each pass crosses
from JavaScript into Python twice, whatever happened in it.

    page = Page("/hardware/pinmap.json")
    page.start("dodgeball", -1, "")       # -1: draws from the browser's crypto source
    wait_ms = page.step(); out = page.take()

``Page.script`` runs a headless script (``courtside_sim.headless``) in the page instead,
in virtual time, and returns its stream: for the same script and seed it is the stream the
headless simulator prints on CPython and on the unix port.
"""

import json

from courtside_sim.live import LiveBoard

SETTINGS = "/settings.json"   # in the page's memory; the page keeps a copy in localStorage


def crypto_bytes(n):
    """``n`` random bytes from the browser's ``crypto.getRandomValues``."""
    import js
    buf = js.Uint8Array.new(n)
    js.crypto.getRandomValues(buf)
    return bytes(buf[i] for i in range(n))


class WebBoard(LiveBoard):
    """A ``LiveBoard`` whose outputs wait in lists until the page takes them."""

    def __init__(self, pins):
        LiveBoard.__init__(self, pins, out=self._line, settings_path=SETTINGS)
        self.pending = []
        self.new_frame = None
        self.tones = []
        self.saved = None

    def _line(self, text):
        self.pending.append(text)

    def show(self, frame):
        LiveBoard.show(self, frame)
        self.new_frame = self.frame

    def tone(self, freq, ms):
        self.tones.append([freq, ms])

    def save_settings(self, settings):
        problem = LiveBoard.save_settings(self, settings)
        if problem is None:
            self.saved = settings
        return problem


class Page:
    def __init__(self, pins_path="/hardware/pinmap.json"):
        from courtside.run import load_pins
        self.pins = load_pins(pins_path)
        self.board = None
        self.core = None
        self._lines = []

    def start(self, mode="dodgeball", seed=-1, settings_text=""):
        """A fresh core in ``mode``; ``seed`` >= 0 makes the draws repeatable; settings as
        the page kept them (JSON text, or empty for the defaults). Returns an error
        message, or an empty string."""
        from courtside import settings as config
        from courtside.core import Core
        from courtside.fair import Fair, seeded
        problem = ""
        settings = None
        if settings_text:
            try:
                settings = config.merged(config.DEFAULTS, json.loads(settings_text))
            except (ValueError, TypeError) as e:
                problem = "saved settings ignored: %s" % e
        self.board = WebBoard(self.pins)
        source = seeded(seed) if seed >= 0 else crypto_bytes
        self.core = Core(self.pins, settings, Fair(source), now=self.board.ticks_us(),
                         levels=self.board.levels(), capture=self.board.capture.name, mode=mode,
                         can_save=True)
        return problem

    def step(self):
        """One pass of the main loop; the ms until the next one is due."""
        from courtside import driver
        wait_ms = driver.one_pass(self.core, self.board, self._lines)
        return driver.IDLE_JUMP_MS if self.core.idle else wait_ms

    def press(self, button, closed):
        """A button closing (``closed`` true) or opening, stamped now."""
        if 0 <= button < len(self.pins.button_gpio):
            self.board.inject(button, bool(closed))

    def send(self, line):
        """A command line, as the laptop would send it over USB."""
        self.board.feed_line(line)

    def buttons(self):
        """The pin map's buttons for the page: names and ids, boxes and the main button."""
        from courtside.pins import ARROWS, BUTTONS
        p = self.pins
        return json.dumps({"boxes": p.boxes, "main": p.main_id, "dodgeball": BUTTONS,
                           "deathball": ARROWS,
                           "long_ms": self.core.settings["long_ms"] if self.core else 1000})

    def take(self):
        """What the passes since the last call did, as JSON: event lines, the frame if it
        changed (192 levels), the box lights, tones and settings to keep."""
        b = self.board
        out = {"lines": b.pending, "leds": b.leds, "tones": b.tones}
        if b.new_frame is not None:
            out["frame"] = list(b.new_frame)
            b.new_frame = None
        if b.saved is not None:
            out["saved"] = b.saved
            b.saved = None
        text = json.dumps(out)
        b.pending = []
        b.tones = []
        return text


def script(text, seed=1, path="/script.jsonl"):
    """Run a headless script (its text) and return the stream it gives, as the headless
    simulator prints it."""
    from courtside_sim import headless
    with open(path, "w") as f:
        f.write(text)
    lines = []
    status = headless.run_script(path, seed=seed, out=lines.append)
    if status:
        raise ValueError("the script was refused (status %d)" % status)
    return "".join(line + "\n" for line in lines)

"""Settings: names, defaults, limits, and all-or-nothing changes.

Settings live in RAM and change by laptop command (``set tie_us=800 contest_ms=1200``);
``save`` writes them to ``/settings.json``, and only between games, because a flash write
turns interrupts off and would shift press timestamps.

The tie window default, 1000 us, is ten times the worst hard-IRQ latency reported for a
Pico (about 100 us, typically 20-25 us), so a press the device puts ahead really was
ahead, and twenty times below the ~20 ms at which people can tell which of two taps came
first, so the device never calls a tie where a player could see an order. See
docs/dodgeball.md for the figures and their sources.

``pace`` scales only how long the Deathball matrix holds each picture (``scaled``), never
what the game decides, so the stream is the same at any pace but for when ``ready`` comes.
"""

from courtside.text import quoted, whole

DEFAULTS = {
    "tie_us": 1000,        # presses from different players closer than this are a tie
    "contest_ms": 1500,    # presses within this of a contest's first press belong to it
    "answer_ms": 3000,     # a THROW stays open for an answer (DODGE/CATCH) this long
    "debounce_ms": 20,     # bounce ignored this long after an accepted edge
    "stuck_ms": 3000,      # a button held longer is reported stuck
    "long_ms": 1000,       # main-unit button held this long is a long press (menu)
    "brightness": 96,      # matrix brightness 1..255, before the power cap
    "sound": 1,            # buzzer on (1) or off (0)
    "capture": "pio",      # capture backend: pio (where it can run, else irq) or irq
    "pace": 100,           # Deathball animations, percent of normal speed (200: twice as fast)
}

LIMITS = {
    "tie_us": (0, 100000),
    "contest_ms": (50, 10000),
    "answer_ms": (100, 60000),
    "debounce_ms": (1, 100),
    "stuck_ms": (500, 60000),
    "long_ms": (300, 5000),
    "brightness": (1, 255),
    "sound": (0, 1),
    "pace": (25, 400),
}
CHOICES = {"capture": ("irq", "pio")}
# Settings added to the stream after its version 4 without raising it (docs/events.md): a
# log without one was made at its default, and a replay leaves it out of what it compares.
ADDED = ("pace",)


def check(name, value):
    """The value, converted; raises ValueError saying what is wrong."""
    if name not in DEFAULTS:
        raise ValueError("unknown setting %s (settings: %s)" % (quoted(name), " ".join(sorted(DEFAULTS))))
    if name in CHOICES:
        if value not in CHOICES[name]:
            raise ValueError("%s must be one of %s" % (name, "/".join(CHOICES[name])))
        return value
    if isinstance(value, str):
        number = whole(value)
        if number is None:
            raise ValueError("%s must be a whole number, not %s" % (name, quoted(value)))
        value = number
    if type(value) is not int:
        raise ValueError("%s must be a whole number" % name)
    lo, hi = LIMITS[name]
    if not lo <= value <= hi:
        raise ValueError("%s must be between %d and %d" % (name, lo, hi))
    return value


def scaled(ms, pace):
    """``ms`` of animation at ``pace`` percent of normal speed: ``ms`` itself at 100, and
    never under 1 ms (a picture is shown, however fast)."""
    return max(1, ms * 100 // pace)


def merged(current, changes):
    """A new settings dict with ``changes`` applied, or ValueError and nothing applied.
    Names are checked in sorted order, so that with two bad ones every runtime names the
    same (MicroPython's dicts keep no order)."""
    out = dict(current)
    for name in sorted(changes):
        out[name] = check(name, changes[name])
    if out["tie_us"] >= out["contest_ms"] * 1000:
        raise ValueError("tie_us must be shorter than contest_ms")
    return out


def parse(words):
    """``["tie_us=800", "sound=0"]`` -> dict of checked values; ValueError on the first bad
    word, in the order given (the same word on every runtime)."""
    changes = {}
    for word in words:
        name, eq, value = word.partition("=")
        if not eq or not name or not value:
            raise ValueError("expected name=value, got %s" % quoted(word))
        if name in changes:
            raise ValueError("%s given twice" % name)
        changes[name] = value
    for word in words:                    # then the values, in the order given
        name = word.partition("=")[0]
        changes[name] = check(name, changes[name])
    if not changes:
        raise ValueError("set needs at least one name=value")
    return changes


FILE_MAX = 1024   # bytes: the saved settings take about 200


def load(path):
    """Saved settings over the defaults; a missing file gives the defaults. A file that
    cannot be settings (too big, not UTF-8, not JSON, nested too deep, a bad value) raises
    ValueError saying which, having read no more than ``FILE_MAX`` bytes of it."""
    try:
        with open(path, "rb") as f:
            raw = f.read(FILE_MAX + 1)
    except OSError:
        return dict(DEFAULTS)
    return read(raw, path)


def read(raw, name="settings"):
    """Settings over the defaults from a file's bytes (``name`` in what is wrong): at most
    ``FILE_MAX`` of them, UTF-8, a JSON object of good values (ValueError otherwise)."""
    import json
    if len(raw) > FILE_MAX:
        raise ValueError("%s is longer than %d bytes" % (name, FILE_MAX))
    try:
        text = raw.decode()
        saved = json.loads(text)
    except UnicodeError:
        raise ValueError("%s is not UTF-8 text" % name) from None
    except (ValueError, RuntimeError, MemoryError):   # RuntimeError: nested too deep
        raise ValueError("%s is not JSON" % name) from None
    if "\\u" in text:
        from courtside.jsoncheck import lone_surrogate
        if lone_surrogate(text) >= 0:
            raise ValueError("%s is not JSON: half a surrogate pair escaped" % name)
    if not isinstance(saved, dict):
        raise ValueError("%s must hold a JSON object" % name)
    return merged(DEFAULTS, saved)

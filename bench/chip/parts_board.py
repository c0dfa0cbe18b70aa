# What single pieces of the firmware's work cost on the board itself, timed with
# time.ticks_us() at its REPL (bench/chip/run.py pastes this in after the firmware is
# stopped; it runs on the MicroPython unix port too, for the tests). Prints one
# "@@part <name> <microseconds>" line a piece, then "@@end".
#
# - a Python call to a function that does nothing (the price of every call on the board);
# - one snapshot through the debouncer, in a storm on 16 buttons (a press every 2.5 ms,
#   held 1.5 ms, each button in turn, the default 20 ms lock: 8 locks running);
# - one change through the PIO drain, by the bytecode loop and by the machine code;
# - one press line and one release line encoded.
import gc
import time
from array import array

from courtside import events
from courtside.arbiter import NAMES
from courtside.debounce import Debouncer
from courtside.piostamp import Drain, Stamper
from courtside.ring import Ring
from courtside.run import load_pins

_T = time.ticks_us
_D = time.ticks_diff
_N = 200


def _part(name, us):
    print("@@part %s %.1f" % (name, us))


def _nothing():
    pass


def _calls(n):
    t = _T()
    for _ in range(n):
        _nothing()
    calls = _D(_T(), t)
    t = _T()
    for _ in range(n):
        pass
    return (calls - _D(_T(), t)) / n


def _feeds(pins, n):
    deb = Debouncer(pins.button_gpio, 20000, 3000000, pins.button_mask, 0)
    out = []
    bits = deb.bits
    up = pins.button_mask
    s = 1000
    t = _T()
    for i in range(n):
        s += 1000
        deb.feed(s, up & ~bits[i % 16], out)
        s += 1500
        deb.feed(s, up, out)
        out.clear()
    return _D(_T(), t) / (2 * n)


def _drain(pins, fast):
    words = 256
    halves = array("H", bytes(4 * words))
    for k in range(words // 2):
        levels = (~(1 << (k % 16)) & 0xFFFFFFFF) | 0x80000000
        count = (0x3FFFFFFF - 20000 * k) & 0x3FFFFFFF
        halves[4 * k] = levels & 0xFFFF
        halves[4 * k + 1] = levels >> 16
        halves[4 * k + 2] = count & 0xFFFF
        halves[4 * k + 3] = count >> 16
    ring = Ring(1024)
    drain = Drain(ring, Stamper(125000000), halves, min(pins.button_gpio), 16, pins.button_mask)
    if fast is not None:
        drain.use(fast)
    t = _T()
    moved = drain.take(128, 0)
    return _D(_T(), t) / moved


def _encode(kind, fields, n):
    t = _T()
    for _ in range(n):
        events.encode(kind, 123456789, fields)
    return _D(_T(), t) / n


def main():
    pins = load_pins("pinmap.json")
    gc.collect()
    _part("call", _calls(_N))
    gc.collect()
    _part("debouncer-snapshot", _feeds(pins, _N))
    gc.collect()
    _part("drain-change-bytecode", _drain(pins, None))
    try:
        from courtside.hw import native
    except ImportError:      # a board that loads no native code
        native = None
    fast = getattr(native, "DrainWords", None)     # None on a tree before the drain's
    if fast is not None and hasattr(Drain, "use"):
        gc.collect()
        _part("drain-change-native", _drain(pins, fast))
    press = {"b": NAMES[1], "c": 12, "early": False, "lag": 1234, "n": 345, "p": 2}
    gc.collect()
    _part("encode-press", _encode("press", press, _N))
    gc.collect()
    _part("encode-release", _encode("release", {"b": NAMES[1], "p": 2}, _N))
    print("@@end")


main()

# Runs on the MicroPython unix port: the firmware's start path (courtside.run.play as on
# a board) with the Pico layer and PIO capture on the board stand-ins (mp/board_standins.py),
# the drain raising in the loop's wait 50 ms in. argv: the firmware folder, the tests/mp
# folder, the pin map, what the drain raises ("KeyboardInterrupt" or "MemoryError").
import json
import sys
import time

sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[2])
import board_standins

board_standins.install()
GIVE_UP_MS = 10000              # the loop ran on after the exception: the firmware did not stop
started = time.ticks_ms()


from courtside import run  # noqa: E402
from courtside import settings as config  # noqa: E402
from courtside.hw import pico  # noqa: E402
from courtside.pins import Pins  # noqa: E402

with open(sys.argv[3]) as f:
    pins = Pins(json.load(f))
settings = dict(config.DEFAULTS)
settings["capture"] = "pio"
hw = pico.Pico(pins, settings)
raised = [False]
drain = hw._drain


def failing_drain():
    elapsed = time.ticks_diff(time.ticks_ms(), started)
    if not raised[0] and elapsed > 50:
        raised[0] = True
        raise KeyboardInterrupt() if sys.argv[4] == "KeyboardInterrupt" else MemoryError("drain")
    if elapsed > GIVE_UP_MS:
        print("still running")
        raise SystemExit(1)
    return drain()


hw._drain = failing_drain
pico.reset = lambda: print("reset")       # the stand-in board does not reset
result = run.play(hw, pins, settings, None, hw.random_bytes)
print("restart" if result == run.RESTART else "returned")
print(json.dumps({"capture": hw.capture.name, "raised": raised[0], "released": hw.capture._dma is None}))

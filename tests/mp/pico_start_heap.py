# Runs on the MicroPython unix port, in a heap the size of a Pico's (-X heapsize=...):
# the Pico layer started with PIO capture, on stand-ins for the board modules only
# (board_standins.py). Prints a JSON line (the heap the start took after the modules were
# loaded, the heap in use) and then micropython.mem_info(), whose "max free sz" is the
# largest free block in GC blocks of 4 machine words.
# argv: the firmware folder, the pin map.
import gc
import json
import sys

import micropython

sys.path.insert(0, sys.argv[1])

import board_standins

board_standins.install()

import courtside.hw.pio_capture  # noqa: E402, F401 - loaded before the measurement
from courtside.hw import pico  # noqa: E402
from courtside.pins import Pins  # noqa: E402

with open(sys.argv[2]) as f:
    pins = Pins(json.load(f))


gc.collect()
before = gc.mem_alloc()
hw = pico.Pico(pins, {"capture": "pio"})
gc.collect()
print(json.dumps({"capture": hw.capture.name, "start bytes": gc.mem_alloc() - before,
                  "in use": gc.mem_alloc(), "free": gc.mem_free(),
                  "block bytes": 4 * (8 if sys.maxsize > 2**32 else 4)}))
micropython.mem_info()          # its last line has "max free sz", in blocks

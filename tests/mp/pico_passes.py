# Runs on the MicroPython unix port: courtside.hw.pico itself, on stand-ins for the board
# modules only (machine, rp2: board_standins.py), with this port's real select,
# sys.stdin/stdout, asyncio and viper. Measures the heap bytes of what the
# main loop asks of the hardware layer: an idle pass (service, read_line, wait), a frame
# (show, then the pass that starts its DMA transfer), an event line. Prints JSON.
# argv: the firmware folder, the pin map.
import gc
import json
import sys
import time

import micropython

sys.path.insert(0, sys.argv[1])
import board_standins
from measure import allocated

board_standins.install()
DMA = board_standins.DMA

import asyncio  # noqa: E402

from courtside.hw.pico import Pico  # noqa: E402
from courtside.pins import Pins  # noqa: E402

with open(sys.argv[2]) as f:
    pins = Pins(json.load(f))
hw = Pico(pins, {"capture": "irq"})
from courtside.hw import native  # noqa: E402

figures = {"native": hw.capture.native, "native finish": hw.finish is native.finish}
frame = bytearray(b"\x40" * 192)
now = [0]


def measure(name, fn):
    figures[name] = allocated(fn)


def idle_passes():
    for _ in range(50):
        now[0] += 1000
        hw.service(now[0])
        hw.read_line()


def frames():
    for _ in range(20):
        hw.show(frame)
        now[0] += 5000
        hw.service(now[0])


async def waits():
    for _ in range(3):                       # the first waits set asyncio's own state up
        await hw.wait(2)
    gc.collect()
    gc.disable()
    before = gc.mem_alloc()
    for _ in range(20):
        await hw.wait(2)
    figures["20 idle waits of 2 ms"] = gc.mem_alloc() - before
    gc.enable()
    t0 = time.ticks_ms()
    value = await hw.wait(30)
    figures["wait(30) took ms"] = time.ticks_diff(time.ticks_ms(), t0)
    figures["wait returns"] = value
    hw.ring.put(5, 0x1FFFE)                  # a snapshot waiting: no sleep at all
    t0 = time.ticks_ms()
    await hw.wait(1000)
    figures["wait with a snapshot took ms"] = time.ticks_diff(time.ticks_ms(), t0)


idle_passes()
frames()
measure("50 idle passes", idle_passes)
result = "allocates"
micropython.heap_lock()
try:
    frames()
    result = 0
except MemoryError:
    pass
micropython.heap_unlock()
figures["20 frames (heap locked)"] = result
figures["frames started"] = DMA.started
asyncio.run(waits())
measure("one event line", lambda: hw.write_line('{"ev":"tick","t":1}'))
print(json.dumps(figures))

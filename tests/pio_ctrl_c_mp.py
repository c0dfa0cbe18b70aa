# Runs on the MicroPython unix port: the firmware's start path (courtside.start._run as on
# a board) with the Pico layer and PIO capture on the board stand-ins (mp/board_standins.py),
# and a soft timer whose callback this port's real scheduler runs between two bytecodes
# (micropython.schedule, called every 2 ms from a thread, as the board's timer interrupt
# does), so an exception raised inside the callback meets the scheduler that prints and
# drops it. argv: the firmware folder, the tests/mp folder, the pin map, what the drain
# raises inside the callback ("KeyboardInterrupt" or "MemoryError").
import _thread
import json
import sys
import time

import micropython

sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[2])
import board_standins

board_standins.install()
GIVE_UP_MS = 10000              # the loop ran on after the exception: the firmware did not stop
timers = []


class Timer:
    PERIODIC = 1

    def __init__(self, mode=None, period=None, callback=None):
        self.period = period
        self.callback = callback
        self.running = True
        timers.append(self)

    def deinit(self):
        self.running = False


sys.modules["machine"].Timer = Timer
started = time.ticks_ms()


def timer_interrupt():
    while True:
        time.sleep_ms(2)
        for t in timers:
            if t.running:
                try:
                    micropython.schedule(t.callback, t)
                except RuntimeError:           # the schedule queue is full: a missed tick
                    pass
        if time.ticks_diff(time.ticks_ms(), started) > GIVE_UP_MS:
            print("still running")             # the test's time limit ends it
            return


from courtside import settings as config  # noqa: E402
from courtside import start  # noqa: E402
from courtside.hw import pico  # noqa: E402
from courtside.pins import Pins  # noqa: E402

with open(sys.argv[3]) as f:
    pins = Pins(json.load(f))
settings = dict(config.DEFAULTS)
settings["capture"] = "pio"
hw = pico.Pico(pins, settings)
timer = timers[0]
inside = [False]
raised = [False]
poll = timer.callback
take = hw.capture.drainer.take


def callback(t):
    inside[0] = True
    try:
        poll(t)
    finally:
        inside[0] = False


def failing_take(written, now):
    if inside[0] and not raised[0] and time.ticks_diff(time.ticks_ms(), started) > 50:
        raised[0] = True
        raise KeyboardInterrupt() if sys.argv[4] == "KeyboardInterrupt" else MemoryError("drain")
    return take(written, now)


timer.callback = callback
hw.capture.drainer.take = failing_take
_thread.start_new_thread(timer_interrupt, ())
start.ON_BOARD = True
pico.reset = lambda: print("reset")       # the stand-in board does not reset
result = start._run(hw, pins, settings, None, hw.random_bytes)
print("restart" if result == start.RESTART else "returned")
print(json.dumps({"capture": hw.capture.name, "raised": raised[0], "timer running": timer.running,
                  "released": hw.capture._dma is None}))

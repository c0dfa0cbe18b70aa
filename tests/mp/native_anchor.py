# Runs on the MicroPython unix port: the PIO capture's anchor (native.enable_on_tick) as a
# Pico runs it, its "TIMERAWL" an array that a second thread moves on while the viper
# loop reads it, its "CTRL" another array. Prints one line per case:
#   tick  the tick returned  the enable register after
# argv: the firmware folder (or a folder of .mpy files compiled for this port's -march).
import _thread
import sys
import time
from array import array

import uctypes

sys.path.insert(0, sys.argv[1])
from courtside.hw.native import enable_on_tick

timer = array("I", [0xFFFFFFFF])       # the 32-bit timer about to wrap
ctrl = array("I", [0])
T = uctypes.addressof(timer)
C = uctypes.addressof(ctrl)
SPINS = 1 << 29                        # far longer than the other thread's sleep


def later(step, ms):
    time.sleep_ms(ms)
    timer[0] = (timer[0] + step) & 0xFFFFFFFF


def case(name, step, spins):
    ctrl[0] = 0
    if step:
        _thread.start_new_thread(later, (step, 20))
    got = enable_on_tick(T, C, 2, spins)
    time.sleep_ms(60 if step else 0)   # the thread has finished before the next case
    print(name, got, ctrl[0])


case("still", 0, 1000)                 # the timer never moves: nothing written
case("tick", 1, SPINS)                 # 0xFFFFFFFF -> 0: written, the new tick returned
case("jump", 3, SPINS)                 # 0 -> 3: something ran in between, nothing written
case("tick", 1, SPINS)                 # 3 -> 4

# Stand-ins for the board modules courtside.hw.pico imports (machine, rp2), for scripts
# that run the Pico layer on the MicroPython unix port. ``install()`` puts them in
# sys.modules; everything else (select, stdin/stdout, asyncio, viper, uctypes) stays real.
# ``micropython`` is wrapped only to add the emergency exception buffer the unix port lacks.
import sys

import micropython


class Namespace:
    pass


class Pin:
    IN, OUT, PULL_UP = 0, 1, 2
    IRQ_FALLING, IRQ_RISING = 4, 8

    def __init__(self, gpio, mode=None, pull=None, value=None):
        self.gpio = gpio

    def value(self, v=None):
        return 1

    def irq(self, handler=None, trigger=0, hard=False):
        return self


class PWM:
    def __init__(self, pin):
        self.pin = pin

    def duty_u16(self, duty):
        pass

    def freq(self, f):
        pass


class WDT:
    def __init__(self, timeout=0):
        pass

    def feed(self):
        pass


class Mem32:
    def __getitem__(self, addr):
        return 0x1FFFF

    def __setitem__(self, addr, value):
        pass


class StateMachine:
    def __init__(self, sm_id, program, **kw):
        self.on = False
        self.sm_id = sm_id

    def active(self, value=None):
        if value is not None:
            self.on = bool(value)
        return self.on

    def tx_fifo(self):
        return 0


class DMA:
    started = 0
    count = 0x0FFFFFFF          # what the capture channel's counter reads: nothing moved

    def pack_ctrl(self, **kw):
        return 0

    def config(self, read=None, write=None, count=None, ctrl=None, trigger=False):
        if trigger:
            DMA.started += 1

    def active(self, value=None):
        return False

    def close(self):
        pass


class Timer:
    PERIODIC = 1

    def __init__(self, mode=None, period=None, callback=None):
        pass

    def deinit(self):
        pass


class PIO:
    def __init__(self, block):
        pass

    def remove_program(self, program):
        pass


def install():
    machine = Namespace()
    machine.Pin, machine.PWM, machine.WDT, machine.mem32 = Pin, PWM, WDT, Mem32()
    machine.Timer = Timer
    machine.freq = lambda: 125000000
    machine.reset = lambda: None
    rp2 = Namespace()
    rp2.asm_pio = lambda **kw: (lambda f: f)
    rp2.StateMachine, rp2.DMA, rp2.PIO = StateMachine, DMA, PIO
    fake_micropython = Namespace()
    fake_micropython.const = micropython.const
    fake_micropython.alloc_emergency_exception_buf = lambda n: None
    sys.modules["machine"] = machine
    sys.modules["rp2"] = rp2
    sys.modules["micropython"] = fake_micropython


"""Stand-ins for ``rp2``, ``machine``, ``micropython`` and ``select``, for importing
``courtside.hw.pico`` on CPython: the PIO assembler is the shared stand-in, DMA writes hand
the state machine the FIFO words a byte write makes on the RP2040 bus, and every request
is remembered for the tests (``conftest.py`` serves it as the ``pico_layer`` fixture)."""

import types

from pio_standin import assemble


class Standins:
    """Stand-ins for ``rp2``, ``machine`` and ``select``; remembers what pico.py asked of them."""

    def __init__(self):
        self.assembled = []     # (function, config, program) for every asm_pio use
        self.machines = []
        self.dmas = []
        self.emergency = []     # sizes asked of alloc_emergency_exception_buf
        self.sleeps = []        # time.sleep_us calls
        self.now = 0            # the microsecond clock, moved by the tests
        self.writable = True    # what a POLLOUT poll of stdout says
        self.drain_us = 0       # how long a started DMA transfer stays busy

    def sleep(self, us):
        self.sleeps.append(us)
        self.now += us

    def modules(self):
        rig = self

        rp2 = types.ModuleType("rp2")

        class PIO:
            IN_LOW, IN_HIGH, OUT_LOW, OUT_HIGH = 0, 1, 2, 3
            SHIFT_LEFT, SHIFT_RIGHT = 0, 1
            JOIN_NONE, JOIN_TX, JOIN_RX = 0, 1, 2

        def asm_pio(**config):
            def build(func):
                program = assemble(func, **config)
                rig.assembled.append((func, config, program))
                return program
            return build

        class StateMachine:
            def __init__(self, sm_id, program, **kw):
                self.sm_id, self.program, self.kw = sm_id, program, kw
                self.words = []
                self.starts = []    # rig.now at each transfer the DMA started
                self.on = False
                rig.machines.append(self)

            def active(self, value=None):
                if value is not None:
                    self.on = bool(value)
                return self.on

            def tx_fifo(self):
                return 0        # the stand-in DMA hands over a transfer at once

        class DMA:
            def __init__(self):
                self.kw = {}
                self.busy_until = None
                self.closed = False
                rig.dmas.append(self)

            def pack_ctrl(self, **kw):
                return dict(kw)

            def config(self, read=None, write=None, count=None, ctrl=None, trigger=False):
                for key, value in (("read", read), ("write", write), ("count", count), ("ctrl", ctrl)):
                    if value is not None:
                        self.kw[key] = value
                if trigger:
                    ctrl = self.kw["ctrl"]
                    assert ctrl["size"] == 0 and ctrl["inc_read"] and not ctrl["inc_write"]
                    assert self.kw["write"] == 0x50200010      # PIO0 TXF0
                    (sm,) = [m for m in rig.machines if m.sm_id == 0]
                    sm.starts.append(rig.now)
                    data = bytes(self.kw["read"][:self.kw["count"]])
                    sm.words.extend(b * 0x01010101 for b in data)  # a byte write fills all four lanes
                    self.busy_until = rig.now + rig.drain_us

            def active(self, value=None):
                if value is not None and not value:
                    self.busy_until = None
                return self.busy_until is not None and rig.now < self.busy_until

            def close(self):
                self.closed = True

        rp2.PIO = PIO
        rp2.asm_pio = asm_pio
        rp2.StateMachine = StateMachine
        rp2.DMA = DMA

        machine = types.ModuleType("machine")

        class Pin:
            IN, OUT, PULL_UP = 0, 1, 2
            IRQ_FALLING, IRQ_RISING = 4, 8

            def __init__(self, gpio, mode=None, pull=None, value=None):
                self.gpio = gpio

            def value(self, v=None):
                return 1

            def irq(self, *args, **kw):
                return None

        class PWM:
            def __init__(self, pin):
                self.pin = pin

            def duty_u16(self, duty):
                self.duty = duty

            def freq(self, f):
                self.f = f

        class WDT:
            def __init__(self, timeout):
                self.timeout = timeout

            def feed(self):
                pass

        machine.Pin = Pin
        machine.PWM = PWM
        machine.WDT = WDT
        machine.mem32 = {}
        machine.reset = lambda: None

        micropython = types.ModuleType("micropython")
        micropython.const = lambda x: x
        micropython.alloc_emergency_exception_buf = rig.emergency.append

        select = types.ModuleType("select")
        select.POLLIN, select.POLLOUT = 1, 4

        class Poll:
            def register(self, stream, event):
                self.event = event

            def ipoll(self, timeout):
                assert timeout == 0                  # never waits
                if self.event == select.POLLOUT and rig.writable:
                    return iter([(None, self.event)])
                return iter([])

        select.poll = Poll
        return {"rp2": rp2, "machine": machine, "micropython": micropython, "select": select}


